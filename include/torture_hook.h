/*
 * Hook points of the mm torture (tests/torture/, docs/testing.md),
 * compiled in only when MMLAB_TORTURE is defined (the torture's own
 * builds); otherwise each is an empty inline and costs nothing. The
 * torture provides them: poisoning of freed frames under ASan, injected
 * allocation failures, and short random delays at lock and atomic points
 * that widen race windows.
 */
#ifndef MMLAB_TORTURE_HOOK_H
#define MMLAB_TORTURE_HOOK_H

#include "types.h"

struct page;

/* What an injected allocation failure stands for (torture_hook_fail()). */
enum torture_fail_kind {
	TORTURE_FAIL_FRAME, /* a user frame: demand-zero, COW copy, swap-in */
	TORTURE_FAIL_TABLE, /* a page-table page */
	TORTURE_FAIL_BATCH, /* a flush batch: a gather's batch page, a design's deferred batch */
	TORTURE_FAIL_SWAP,  /* a swap slot: the device is full */
	TORTURE_FAIL_KINDS
};

#ifdef MMLAB_TORTURE
/* The block of 2^@order frames at @p leaves / returns to the allocator. */
void torture_hook_frame_alloc(struct page *p, unsigned order);
void torture_hook_frame_free(struct page *p, unsigned order);
/* True: this page_alloc() fails, as if memory had run out. */
bool torture_hook_alloc_fail(unsigned order);
/* True: this allocation of @kind fails (its caller's out-of-memory or full-device path). */
bool torture_hook_fail(enum torture_fail_kind kind);
/* A lock or atomic point: may spin a short random while. Any context. */
void torture_hook_delay(void);
#else
static inline void torture_hook_frame_alloc(struct page *p, unsigned order)
{
	(void)p;
	(void)order;
}

static inline void torture_hook_frame_free(struct page *p, unsigned order)
{
	(void)p;
	(void)order;
}

static inline bool torture_hook_alloc_fail(unsigned order)
{
	(void)order;
	return false;
}

static inline bool torture_hook_fail(enum torture_fail_kind kind)
{
	(void)kind;
	return false;
}

static inline void torture_hook_delay(void)
{
}
#endif

#endif
