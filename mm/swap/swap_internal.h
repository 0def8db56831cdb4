/*
 * Inside the swap slot allocator, one file per object, calls running down:
 * swap_mm.c -> designs/ and swap_free.c -> swap_check.c (read only) ->
 * swap.c (the device table) -> swap_cluster.c (one device's clusters), which
 * gets a struct swap_info the table checked and reports nothing.
 */
#ifndef MM_SWAP_INTERNAL_H
#define MM_SWAP_INTERNAL_H

#include "mm/swap/swap.h"
#include "mm/swap/swap_cluster.h"

/* mm/swap/swap.c: the device table */

/*
 * The device of @e if @e and the @nr - 1 slots after it lie inside an active
 * device; otherwise counts and warns about a bad entry and returns NULL.
 */
struct swap_info *swap_info_get(swp_entry_t e, unsigned nr);

/* The active device @type, or NULL (nothing reported). */
struct swap_info *swap_info_of(unsigned type);

/* Counts a refused call and warns once per call site kind; returns @err. */
int swap_report(int err, const char *what, swp_entry_t e);

/*
 * What the freeing designs (mm/swap/designs/) share, in mm/swap/swap_free.c:
 * swap_put_each() drops one reference from each of @nr slots from @e, one
 * slot and one cluster lock round trip at a time, reporting bad slots;
 * swap_free_range_run() offers the run in one swap_cluster_put_range() call
 * under @hold, and falls back to swap_put_each() when it is refused. Both
 * return 0 or the first error.
 */
int swap_put_each(struct swap_info *si, swp_entry_t e, unsigned nr);
int swap_free_range_run(swp_entry_t e, unsigned nr, enum swap_hold hold);

#endif
