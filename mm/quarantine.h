/*
 * The quarantine: frames and page-table pages whose TLB shootdown did not
 * complete. A CPU that missed the deadline may still translate to them, so
 * they never go back to the allocator: the quarantine keeps the unmapper's
 * reference for the rest of the run and counts them for the report.
 * Locking: the counters are atomic; any context.
 */
#ifndef MM_QUARANTINE_H
#define MM_QUARANTINE_H

#include "types.h"

struct page;

struct quarantine_stats {
	u64 frames;  /* frames kept (one reference each, never dropped) */
	u64 tables;  /* unlinked page-table pages kept */
	u64 flushes; /* flush rounds that did not complete */
};

/*
 * Keeps @page, a frame a 4 KiB leaf mapped until an unmap whose flush did
 * not complete: its map count drops (no entry maps it any more), its
 * reference never does, so it is never freed. Any context.
 */
void quarantine_frame(struct page *page);

/* Keeps @page, an unlinked page-table page whose flush did not complete. Any context. */
void quarantine_table(struct page *page);

/* Counts one flush round that did not complete (its pages are quarantined). */
void quarantine_count_flush(void);

/* What the quarantine holds now. */
void quarantine_stats_get(struct quarantine_stats *s);

#endif
