/*
 * Entry access for the files of mm/pt*.c: reading and writing entries,
 * the protection encoding and the walk to the leaf that maps an address.
 * Only inlines and constants of its own, so any of those files includes
 * it without reaching another. A table page's struct page holds in priv
 * its number of non-zero entries (present ones, plus level-1 swap entries).
 */
#ifndef MM_PT_ENTRY_H
#define MM_PT_ENTRY_H

#include "errno.h"
#include "lib/atomic.h"
#include "mm/page.h"
#include "mm/pt_types.h"
#include <arch/mmu.h>

/*
 * The entry format, level count and address-space boundaries are the
 * arch's (the accessors of <arch/mmu.h>); nothing here names a bit.
 */
#define PT_LEVELS ARCH_PT_LEVELS
#define PT_PHYS_LAST ARCH_PHYS_LAST
/* In an adopted table's entry count: several entries point to it, so it is never unlinked. */
#define PT_SHARED_TABLE (1ull << 63)

static inline pte_t *pt_table(paddr_t pa)
{
	return phys_to_virt(pa);
}

/*
 * Acquire, pairing with pt_set()'s release: a walk reads the table an
 * entry links, and in C only an acquire load orders that read after the
 * new table's zeroing (the address dependency a relaxed load carries is
 * not an ordering C or TSan knows). A plain load on x86, as before.
 */
static inline pte_t pt_get(const pte_t *t, unsigned i)
{
	return atomic_load_acquire(&t[i]);
}

/* Release: a new table's zeroed contents are visible before the entry that links it. */
static inline void pt_set(pte_t *t, unsigned i, pte_t e)
{
	atomic_store_release(&t[i], e);
}

static inline bool pt_canonical(vaddr_t va)
{
	return va_canonical(va);
}

/* Last address of the level-@level entry that holds @va, but not past @last. */
static inline vaddr_t pt_span_last(vaddr_t va, int level, vaddr_t last)
{
	vaddr_t end = va | (pte_level_size(level) - 1);

	return MIN(end, last);
}

/* A non-empty range, aligned to @align, inside one half of the address space. */
static inline int pt_check_range(vaddr_t va, u64 len, u64 align)
{
	vaddr_t last = va + len - 1;

	if (!len || !IS_ALIGNED(va, align) || !IS_ALIGNED(len, align) || last < va)
		return -EINVAL;
	if (!va_canonical(va) || !va_same_half(va, last))
		return -EINVAL;
	return 0;
}

static inline bool pt_prot_valid(unsigned prot)
{
	return (prot & PROT_READ) && !(prot & ~(unsigned)PROT_ALL);
}

_Static_assert(ARCH_PT_LEVELS <= PT_MAX_LEVELS, "struct pt_slot cannot hold the arch's walk");

/* mm/pt.h promises swap values up to PT_SWAP_MAX: the arch's entries must hold them. */
_Static_assert(PT_SWAP_MAX <= ARCH_SWAP_MAX, "swap entries do not fit the arch's entries");

#ifdef HOST_BUILD
extern u64 pt_debug_root_walks; /* mm/pt.h */
#endif

/* A walk starts at a root: counted in host builds only. */
static inline void pt_count_root_walk(void)
{
#ifdef HOST_BUILD
	atomic_fetch_add(&pt_debug_root_walks, 1);
#endif
}

/* The PTE bits for @prot, present bit included. */
pte_t pt_prot_to_pte(unsigned prot);

/* The protection a present leaf entry grants. */
unsigned pt_pte_to_prot(pte_t e);

/* The leaf mapping @va, if any: its level and entry. Caller serialises as for pt_lookup(). */
bool pt_find(paddr_t root, vaddr_t va, int *level, pte_t *e);

/*
 * Continues the walk of @s toward s->va from s->table at s->level: stops at
 * level 1, at a leaf, or at an empty entry, recording each table in
 * s->tables[]. pt_slot_find() (mm/pt_leaf.c) starts it at the root;
 * pt_slot_populate() resumes it under its lock, and a range change
 * (mm/pt.c) restarts it for its other end from the deepest table shared.
 * Inline here because both files walk with it and mm/pt_leaf.c calls
 * into mm/pt.c (no call circle, tools/check-layering.py).
 */
static inline void pt_slot_descend(struct pt_slot *s)
{
	for (;;) {
		pte_t e = pt_get(pt_table(s->table), pte_index(s->va, s->level));

		s->tables[s->level] = s->table;
		s->e = e;
		if (s->level == 1 || !pte_present(e) || pte_is_leaf(e, s->level))
			return;
		s->table = pte_addr(e, s->level);
		s->level--;
	}
}

#endif
