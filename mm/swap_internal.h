/*
 * Inside the swap slot allocator, one file per object, calls running down:
 * swap_mm.c (address spaces) -> swap_free.c (the freeing designs) ->
 * swap_check.c (the consistency check, read only) -> swap.c (the device
 * table: swap_infos[], swap_on/swap_off, entry checks and reports) ->
 * swap_cluster.c (one device's clusters, slot map and allocation), which
 * is handed a struct swap_info the table checked, and reports nothing.
 */
#ifndef MM_SWAP_INTERNAL_H
#define MM_SWAP_INTERNAL_H

#include "mm/swap.h"
#include "mm/swap_cluster.h"

/* mm/swap.c: the device table */

/*
 * The device of @e if @e and the @nr - 1 slots after it lie inside an active
 * device; otherwise counts and warns about a bad entry and returns NULL.
 */
struct swap_info *swap_info_get(swp_entry_t e, unsigned nr);

/* The active device @type, or NULL (nothing reported). */
struct swap_info *swap_info_of(unsigned type);

/* Counts a refused call and warns once per call site kind; returns @err. */
int swap_report(int err, const char *what, swp_entry_t e);

#endif
