/*
 * All mm/ needs from the architecture about memory: the PTE format as
 * accessors, the walk's shape (levels, entries, index and span of a level),
 * the canonical-address check and the layout boundaries. mm/ names no PTE bit
 * or layout constant of its own, so porting mm/ means writing this header
 * (and arch.h's hooks). Built on <arch/pte.h> (SDM Vol. 3A 4.5) and
 * <arch/layout.h>, which stay arch/'s and the tests'.
 */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include "types.h"
#include <arch/layout.h>
#include <arch/pte.h>

/* Lower half, where address spaces map their own memory: [0, ARCH_USER_TOP). */
#define ARCH_USER_TOP USER_SPACE_TOP
/* All RAM is mapped at ARCH_DIRECT_MAP_BASE + its physical address. */
#define ARCH_DIRECT_MAP_BASE DIRECT_MAP_BASE
/* The kernel image runs at ARCH_IMAGE_BASE + its physical address. */
#define ARCH_IMAGE_BASE KERNEL_VIRT_BASE
/* How much RAM the direct map covers: [0, ARCH_DIRECT_MAP_MAX_BYTES). */
#define ARCH_DIRECT_MAP_MAX_BYTES DIRECT_MAP_MAX_BYTES
/* Where mm/kstack.c puts the per-CPU stack slots in the upper half. */
#define ARCH_KSTACK_AREA_BASE KSTACK_AREA_BASE

#define ARCH_PT_LEVELS PTE_LEVELS	     /* levels of a walk; the root is the highest */
#define ARCH_PT_ENTRIES PTE_PER_TABLE	     /* entries in one table */
#define ARCH_PT_KERNEL_FIRST PML4_KERNEL_FIRST /* first root entry of the kernel half */
#define ARCH_PT_LEAF_LEVEL_MAX 3	     /* highest level that can hold a leaf (1 GiB) */
#define ARCH_KERNEL_BOTTOM 0xffff800000000000ull     /* upper half: [this, 2^64) */
#define ARCH_PHYS_LAST ((1ull << 52) - 1)	     /* MAXPHYADDR is at most 52 */
/* Largest swap entry value: stored shifted left by one, the present bit clear. */
#define ARCH_SWAP_MAX ((1ull << 62) - 1)

/*
 * Makes the page-table stores this CPU made so far visible to its own page
 * walker and to the other CPUs' walkers before the invalidation that
 * follows: mm/ calls it where a flush of changed entries starts (here, and
 * before the request that asks other CPUs to flush). On x86 it only keeps
 * the compiler from moving the stores past it: stores are not reordered
 * with later stores, the IPI's mailbox store among them (SDM Vol. 3A
 * 8.2.2), and INVLPG and a CR3 load are serializing (8.3). A weaker
 * architecture puts its barrier here (docs/porting.md).
 */
static inline void arch_pt_publish(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* What a leaf allows beyond reading, as mm/ asks for it; pte_attr_bits() encodes it. */
enum arch_pte_attr {
	ARCH_ATTR_WRITE = 1u << 0,
	ARCH_ATTR_USER = 1u << 1,
	ARCH_ATTR_GLOBAL = 1u << 2,
	ARCH_ATTR_NOCACHE = 1u << 3,
	ARCH_ATTR_EXEC = 1u << 4,
};

static inline unsigned pte_level_shift(int level)
{
	return PTE_LEVEL_SHIFT(level);
}

static inline u64 pte_level_size(int level)
{
	return PTE_LEVEL_SIZE(level);
}

static inline unsigned pte_index(vaddr_t va, int level)
{
	return PTE_INDEX(va, level);
}

/* Canonical: sign-extended from bit 47 (SDM Vol. 1 3.3.7.1). */
static inline bool va_canonical(vaddr_t va)
{
	return va < ARCH_USER_TOP || va >= ARCH_KERNEL_BOTTOM;
}

/* Both canonical addresses lie in the same half. */
static inline bool va_same_half(vaddr_t a, vaddr_t b)
{
	return (a >> 47) == (b >> 47);
}

/*
 * The protection bits for @attrs (enum arch_pte_attr), present bit
 * included. Without NX (@nx false) bit 63 is reserved, so every leaf is
 * executable (SDM Vol. 3A 4.6).
 */
static inline pte_t pte_attr_bits(unsigned attrs, bool nx)
{
	pte_t e = PTE_P;

	if (attrs & ARCH_ATTR_WRITE)
		e |= PTE_RW;
	if (attrs & ARCH_ATTR_USER)
		e |= PTE_US;
	if (attrs & ARCH_ATTR_GLOBAL)
		e |= PTE_G;
	if (attrs & ARCH_ATTR_NOCACHE)
		e |= PTE_PCD | PTE_PWT;
	if (!(attrs & ARCH_ATTR_EXEC) && nx)
		e |= PTE_NX;
	return e;
}

/* The enum arch_pte_attr a present leaf grants. */
static inline unsigned pte_attrs(pte_t e)
{
	unsigned a = 0;

	if (e & PTE_RW)
		a |= ARCH_ATTR_WRITE;
	if (e & PTE_US)
		a |= ARCH_ATTR_USER;
	if (e & PTE_G)
		a |= ARCH_ATTR_GLOBAL;
	if (e & (PTE_PCD | PTE_PWT))
		a |= ARCH_ATTR_NOCACHE;
	if (!(e & PTE_NX))
		a |= ARCH_ATTR_EXEC;
	return a;
}

/* Bits a protection controls; the rest (address, A, D, PS, PAT) a change keeps. */
#define PTE_PROT_MASK (PTE_P | PTE_RW | PTE_US | PTE_PWT | PTE_PCD | PTE_G | PTE_NX)

/* Leaf @e already has protection @bits (from pte_attr_bits()). */
static inline bool pte_prot_is(pte_t e, pte_t bits)
{
	return (e & PTE_PROT_MASK) == bits;
}

/* Leaf @e with its protection replaced by @bits, everything else kept. */
static inline pte_t pte_reprotect(pte_t e, pte_t bits)
{
	return (e & ~PTE_PROT_MASK) | bits;
}

/* A leaf at @level mapping @pa (aligned to the level's size) with protection @bits. */
static inline pte_t pte_make_leaf(paddr_t pa, pte_t bits, int level)
{
	return pa | bits | (level > 1 ? PTE_PS : 0);
}

/* An entry pointing to the table at @pa. Non-leaf entries allow everything (SDM Vol. 3A 4.6). */
static inline pte_t pte_make_table(paddr_t pa)
{
	return pa | PTE_P | PTE_RW | PTE_US;
}

/* The @k-th of the entries one level down that map what huge leaf @old at @level maps. */
static inline pte_t pte_split_child(pte_t old, int level, unsigned k)
{
	pte_t attr = old & ~PTE_ADDR_MASK;

	if (level == 2) {
		/* A 4 KiB PTE has its PAT bit where a large leaf has PS. */
		attr &= ~(PTE_PS | PTE_PAT_LARGE);
		if (old & PTE_PAT_LARGE)
			attr |= PTE_PAT;
	}
	return (pte_addr(old, level) + k * PTE_LEVEL_SIZE(level - 1)) | attr;
}

/* The leaf is global: its translations survive an address-space switch. */
static inline bool pte_is_global(pte_t e)
{
	return e & PTE_G;
}

/* New leaf @n with the accessed and dirty bits the CPU set in @old. */
static inline pte_t pte_keep_ad(pte_t n, pte_t old)
{
	return n | (old & (PTE_A | PTE_D));
}

/* The non-present level-1 entry holding swap value @swp (1..ARCH_SWAP_MAX). */
static inline pte_t pte_make_swap(u64 swp)
{
	return swp << 1;
}

/* A level-1 entry that is not present but not empty either: a swap entry. */
static inline bool pte_is_swap(pte_t e)
{
	return e && !pte_present(e);
}

static inline u64 pte_swap_value(pte_t e)
{
	return e >> 1;
}

#endif
