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

/* Free frames and page-table pages. */
struct emul_snap {
	u64 free, tables;
};

struct emul_snap emul_snap_take(void);

/* Expects the allocator to be as @before found it (fails case @t otherwise). */
void emul_snap_expect(struct ktest *t, struct emul_snap before);

/*
 * Suite init: on the host a fresh allocator, kernel root and mm_init()
 * with every fake CPU on the kernel root; nothing in the kernel. Returns 0
 * or a negative error.
 */
int emul_suite_init(struct ktest *t);

/*
 * A load (or, with @write, a store of *@val) of the u64 at @va by a CPU
 * running @mm, faulting as the MMU would. Returns 0, or what the fault
 * handler returned for a fault it could not resolve.
 */
int emul_touch(struct mm *mm, vaddr_t va, bool write, u64 *val);

/* emul_touch() that must succeed: returns the value read. */
u64 emul_read(struct ktest *t, struct mm *mm, vaddr_t va);
void emul_write(struct ktest *t, struct mm *mm, vaddr_t va, u64 v);

/* The frame mapped at @va in @mm, or NULL; its protection in *@prot when non-NULL. */
struct page *emul_page_at(struct mm *mm, vaddr_t va, unsigned *prot);

#endif
