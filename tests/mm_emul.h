/*
 * What the address-space tests share (tests/mm_emul.c): a software MMU
 * that loads and stores through an address space's page tables, raising
 * faults through fault_handle_mm() as the hardware would, so the same
 * tests run on the host and in the kernel without loading the address
 * space; and a snapshot of the allocator to compare before and after.
 */
#ifndef TESTS_MM_EMUL_H
#define TESTS_MM_EMUL_H

#include "mm/mm.h"
#include "tests/ktest.h"
#include "types.h"

/* Fake CPUs the host tests switch between (fake_arch_set_cpu()). */
#define EMUL_FAKE_CPUS 4

/* Free frames, page-table pages, stale TLB uses and early frees (below). */
struct emul_snap {
	u64 free, tables, stale, early_frees;
};

struct emul_snap emul_snap_take(void);

/*
 * Expects the allocator to be as @before found it, no access since to have
 * used a stale TLB entry and no frame to have been freed before its flush
 * (fails case @t otherwise).
 */
void emul_snap_expect(struct ktest *t, struct emul_snap before);

/*
 * Suite init: on the host a fresh allocator, kernel root and mm_init()
 * with every fake CPU on the kernel root; nothing in the kernel. Returns 0
 * or a negative error.
 */
int emul_suite_init(struct ktest *t);

/*
 * A load (or, with @write, a store of *@val) of the u64 at @va by a CPU
 * running @mm (on the host: this fake CPU, which it loads), faulting as the
 * MMU would. Returns 0, or what the fault
 * handler returned for a fault it could not resolve.
 */
int emul_touch(struct mm *mm, vaddr_t va, bool write, u64 *val);

/*
 * Accesses through a modelled TLB entry that the page tables no longer
 * back (another frame, a write the tables forbid, or nothing mapped):
 * each is a flush the kernel missed. Counted on the host, where
 * emul_touch() goes through each fake CPU's TLB (tests/host/fake_tlb.h)
 * after loading @mm on it; always 0 in the kernel, whose accesses walk.
 */
u64 emul_stale_uses(void);

/*
 * Frames freed while a CPU running their address space still cached a
 * translation to them (seen when that entry was flushed, later): a flush
 * after the free instead of before. Host only (fake_tlb_early_frees());
 * always 0 in the kernel.
 */
u64 emul_early_frees(void);

/* emul_touch() that must succeed without a stale use: returns the value read. */
u64 emul_read(struct ktest *t, struct mm *mm, vaddr_t va);
void emul_write(struct ktest *t, struct mm *mm, vaddr_t va, u64 v);

/* The frame mapped at @va in @mm, or NULL; its protection in *@prot when non-NULL. */
struct page *emul_page_at(struct mm *mm, vaddr_t va, unsigned *prot);

#endif
