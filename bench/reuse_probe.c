/*
 * The reuse probe (see bench/reuse_probe.h). A design that waits for its
 * flush cannot release the readers inside their window (their interrupts
 * are off, so the flush cannot complete there); one that frees its frames
 * as the IPIs leave does, and a reader then reads the new owner's word
 * through the translation it still holds.
 */
#include "bench/reuse_probe.h"
#include "bench/file_readers.h"
#include "kernel/timing.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/swap/swap.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

/* Frames the probe takes back from the allocator as their new owner: the batch's, and spares. */
#define PROBE_HANDON (2 * REUSE_PROBE_PAGES)
/*
 * How long a reader keeps its interrupts off: far longer than the boot
 * CPU's swap-out and hand-on of the batch, which under TCG on a loaded
 * host took more than 5 ms; in exact mode that work is a fixed count of
 * instructions, well inside the shorter window, which every correct
 * design's probe waits out.
 */
#define PROBE_WINDOW_US 50000
#define PROBE_WINDOW_EXACT_US 1000
/* The word a new owner writes in each frame it got: no page's tag. */
#define PROBE_NEW_OWNER 0x6e65776f776e6572ull

BUILD_ASSERT(REUSE_PROBE_PAGES <= SWAP_OUT_MAX_PAGES);

/* The probe's batch mapped, tagged and its frames noted in @pa. */
static int probe_map(struct mm *mm, vaddr_t base, paddr_t *pa)
{
	u64 len = REUSE_PROBE_PAGES * PAGE_SIZE, size;
	int err = mm_map_region(mm, base, len, MM_READ | MM_WRITE);

	if (!err)
		err = mm_populate(mm, base, len);
	for (unsigned i = 0; i < REUSE_PROBE_PAGES && !err; i++) {
		vaddr_t va = base + (vaddr_t)i * PAGE_SIZE;

		*(volatile u64 *)va = file_page_tag(i);
		err = pt_lookup(mm->root, va, &pa[i], NULL, &size);
	}
	return err;
}

/*
 * The allocator's next frames, each written by its new owner: how many
 * were frames of the batch (@pa), the ones a stale translation reaches.
 */
static unsigned probe_hand_on(const paddr_t *pa, struct page **got)
{
	unsigned handed = 0;

	for (unsigned k = 0; k < PROBE_HANDON; k++) {
		got[k] = page_alloc(0, 0);
		if (!got[k])
			continue;
		*(volatile u64 *)page_address(got[k]) = PROBE_NEW_OWNER;
		for (unsigned i = 0; i < REUSE_PROBE_PAGES; i++)
			handed += page_to_phys(got[k]) == pa[i];
	}
	return handed;
}

/* A design that frees before its flush completed (broken_early_free) is what it catches. */
int reuse_probe(const struct tlb_ops *ops, struct mm *mm, vaddr_t base, unsigned type,
		u64 *handed, u64 *stale)
{
	static struct page *got[PROBE_HANDON];
	paddr_t pa[REUSE_PROBE_PAGES];
	u64 window = arch_tsc_hz() / 1000000 *
		     (timing_exact() ? PROBE_WINDOW_EXACT_US : PROBE_WINDOW_US);
	struct tlb_batch tb;
	int err = probe_map(mm, base, pa), e;

	*handed = *stale = 0;
	if (!err)
		err = file_readers_probe_arm(base, REUSE_PROBE_PAGES, window);
	if (!err) {
		tlb_batch_begin(&tb, mm, ops);
		err = swap_out_gather(mm, base, REUSE_PROBE_PAGES, type, &tb.g);
		err = err ? err : tb.err;
		bool taken = !err;

		*handed = taken ? probe_hand_on(pa, got) : 0;
		file_readers_probe_release();
		e = file_readers_probe_wait(stale);
		err = err ? err : e;
		for (unsigned k = 0; k < PROBE_HANDON && taken; k++)
			if (got[k])
				page_free(got[k], 0);
	}
	e = tlb_settle(ops, mm);
	err = err ? err : e;
	e = mm_unmap_region(mm, base, REUSE_PROBE_PAGES * PAGE_SIZE);
	return err ? err : e;
}
