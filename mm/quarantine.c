/*
 * The quarantine (see mm/quarantine.h). It holds no list: a quarantined
 * page stays allocated because its last reference is never dropped, and
 * its struct page is left as it was (a table keeps PG_PGTABLE and stays in
 * pt_table_pages()), so a debugger still recognises it. Only counts.
 */
#include "mm/quarantine.h"
#include "kernel/panic.h"
#include "lib/atomic.h"
#include "mm/page.h"
#include "mm/mm_hook.h"

static struct quarantine_stats q;

void quarantine_frame(struct page *page)
{
	WARN_ONCE(page_map_dec(page) < 0, "quarantine: pfn 0x%lx map count below zero",
		  page_to_pfn(page));
	mm_hook_at(MM_HOOK_QUARANTINED, page);
	atomic_fetch_add(&q.frames, 1);
}

void quarantine_table(struct page *page)
{
	(void)page;
	atomic_fetch_add(&q.tables, 1);
}

void quarantine_count_flush(void)
{
	atomic_fetch_add(&q.flushes, 1);
}

void quarantine_stats_get(struct quarantine_stats *s)
{
	s->frames = atomic_load_relaxed(&q.frames);
	s->tables = atomic_load_relaxed(&q.tables);
	s->flushes = atomic_load_relaxed(&q.flushes);
}
