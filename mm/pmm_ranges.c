/*
 * The frame allocator's range tables (see mm/pmm_ranges.h): usable and
 * reserved memory as sorted, merged pfn spans, the runs of frames between
 * them, and where the memmap goes. Written by pmm_init() only, on one CPU
 * before any other runs (host tests call it again to start over).
 */
#include "mm/pmm_ranges.h"
#include "errno.h"
#include "mm/page.h"

/* One past the last frame a physical address can name on this architecture. */
#define PMM_PFN_MAX ((ARCH_PHYS_LAST >> PAGE_SHIFT) + 1)

/* A range of frames [start, end) in pfns. */
struct pmm_span {
	u64 start, end;
};

static struct pmm_span pmm_usable[PMM_MAX_USABLE];
static struct pmm_span pmm_reserved[PMM_MAX_RESERVED + 1]; /* + the memmap */
static unsigned pmm_nusable, pmm_nreserved;

static void pmm_spans_sort_merge(struct pmm_span *v, unsigned *n)
{
	unsigned i, j, k = 0;

	for (i = 1; i < *n; i++) {
		struct pmm_span x = v[i];

		for (j = i; j > 0 && v[j - 1].start > x.start; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	for (i = 0; i < *n; i++) {
		if (k > 0 && v[i].start <= v[k - 1].end)
			v[k - 1].end = MAX(v[k - 1].end, v[i].end);
		else
			v[k++] = v[i];
	}
	*n = k;
}

/* Copies byte ranges as pfn spans: @grow rounds outwards, else inwards. */
static unsigned pmm_spans_load(struct pmm_span *v, const struct pmm_range *r, unsigned n, bool grow)
{
	unsigned i, k = 0;

	for (i = 0; i < n; i++) {
		u64 s = MIN(r[i].start >> PAGE_SHIFT, PMM_PFN_MAX);
		u64 e = MIN(r[i].end >> PAGE_SHIFT, PMM_PFN_MAX);

		if (grow && e < PMM_PFN_MAX && (r[i].end & (PAGE_SIZE - 1)))
			e++;
		if (!grow && (r[i].start & (PAGE_SIZE - 1)))
			s++;
		if (s < e)
			v[k++] = (struct pmm_span){ s, e };
	}
	pmm_spans_sort_merge(v, &k);
	return k;
}

unsigned pmm_ranges_load(const struct pmm_range *usable, unsigned nusable,
			 const struct pmm_range *reserved, unsigned nreserved)
{
	pmm_nusable = pmm_spans_load(pmm_usable, usable, nusable, false);
	pmm_nreserved = pmm_spans_load(pmm_reserved, reserved, nreserved, true);
	return pmm_nusable;
}

/* Moves @pfn past reserved spans and cuts *@end at the next one. */
static u64 pmm_skip_reserved(u64 pfn, u64 *end)
{
	unsigned i;

	for (i = 0; i < pmm_nreserved; i++) {
		const struct pmm_span *r = &pmm_reserved[i];

		if (r->end <= pfn)
			continue;
		if (r->start <= pfn) {
			pfn = r->end;
			continue;
		}
		*end = MIN(*end, r->start);
		break;
	}
	return pfn;
}

bool pmm_iter_next(struct pmm_iter *it, u64 lo, u64 hi, u64 *s, u64 *e)
{
	for (; it->idx < pmm_nusable; it->idx++, it->pfn = 0) {
		const struct pmm_span *u = &pmm_usable[it->idx];
		u64 end = MIN(u->end, hi);
		u64 start = pmm_skip_reserved(MAX(MAX(u->start, lo), it->pfn), &end);

		if (start < end) {
			*s = start;
			*e = end;
			it->pfn = end;
			return true;
		}
	}
	return false;
}

static int pmm_reserve(u64 start, u64 end)
{
	if (pmm_nreserved > PMM_MAX_RESERVED)
		return -EINVAL;
	pmm_reserved[pmm_nreserved++] = (struct pmm_span){ start, end };
	pmm_spans_sort_merge(pmm_reserved, &pmm_nreserved);
	return 0;
}

int pmm_memmap_place(u64 limit_pfn, u64 *frames_out)
{
	u64 start = pmm_usable[0].start, end = pmm_usable[pmm_nusable - 1].end;
	u64 frames = ALIGN_UP((end - start) * sizeof(struct page), PAGE_SIZE) >> PAGE_SHIFT;
	struct pmm_iter it = { 0, 0 };
	u64 s, e;

	while (pmm_iter_next(&it, 0, limit_pfn, &s, &e)) {
		if (e - s < frames)
			continue;
		page_memmap_init(phys_to_virt(s << PAGE_SHIFT), start, end);
		*frames_out = frames;
		return pmm_reserve(s, s + frames);
	}
	return -ENOMEM;
}


u64 pmm_count_runs(u64 lo, u64 hi)
{
	struct pmm_iter it = { 0, 0 };
	u64 s, e, total = 0;

	while (pmm_iter_next(&it, lo, hi, &s, &e))
		total += e - s;
	return total;
}
