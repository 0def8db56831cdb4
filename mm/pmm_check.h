/*
 * The frame allocator's guards (mm/pmm_check.c): the checks that refuse a
 * bad free, their report, and fault injection for tests.
 */
#ifndef MM_PMM_CHECK_H
#define MM_PMM_CHECK_H

#include "types.h"

struct page;

/*
 * Guards (mm/pmm_check.c). pmm_check_free(): 0 when @p heads an allocated,
 * unused block of @order, else an error with *@why. pmm_report(): counts
 * and prints (a bounded number of) refused frees; returns @err.
 * pmm_inject_now(): whether this allocation is one pmm_inject_fail() asked
 * to fail. pmm_check_reset(): counters and injection back to zero.
 */
bool pmm_in_memmap(const struct page *p);
int pmm_check_free(const struct page *p, unsigned order, const char **why);
int pmm_report(const struct page *p, unsigned order, int err, const char *why, void *caller);
bool pmm_inject_now(void);
u64 pmm_check_errors(void);
void pmm_check_reset(void);

/*
 * Fault injection for tests: after @skip more calls succeed normally, the next
 * @count calls to page_alloc() return NULL. pmm_inject_fail(0, 0) disables.
 */
void pmm_inject_fail(u32 skip, u32 count);

#endif
