/*
 * x86-64 4-level paging entry format (Intel SDM Vol. 3A 4.5, tables 4-14
 * to 4-20). Levels are numbered as mm/pt.c walks them: 4 = PML4, 3 = PDPT,
 * 2 = PD, 1 = PT. No code here beyond trivial bit helpers, no asm.
 *
 * For arch/ and for tests that check the encoding; mm/ uses only the
 * accessors of <arch/mmu.h>, built on these.
 */
#ifndef ARCH_PTE_H
#define ARCH_PTE_H

#include "types.h"

typedef u64 pte_t;

#define PTE_P (1ull << 0)	   /* present */
#define PTE_RW (1ull << 1)	   /* writable */
#define PTE_US (1ull << 2)	   /* user accessible */
#define PTE_PWT (1ull << 3)	   /* write-through */
#define PTE_PCD (1ull << 4)	   /* cache disable */
#define PTE_A (1ull << 5)	   /* accessed, set by the CPU */
#define PTE_D (1ull << 6)	   /* dirty (leaf entries), set by the CPU */
#define PTE_PS (1ull << 7)	   /* page size: a 2 MiB (PD) or 1 GiB (PDPT) leaf */
#define PTE_PAT (1ull << 7)	   /* PAT index bit of a 4 KiB PTE (same bit as PS) */
#define PTE_G (1ull << 8)	   /* global: kept across CR3 loads when CR4.PGE=1 */
#define PTE_PAT_LARGE (1ull << 12) /* PAT index bit of a 2 MiB or 1 GiB leaf */
#define PTE_NX (1ull << 63)	   /* no execute, when EFER.NXE=1 */

/* Physical address bits 12..51 (MAXPHYADDR is at most 52). */
#define PTE_ADDR_MASK 0x000ffffffffff000ull
#define PTE_ADDR_MASK_2M 0x000fffffffe00000ull
#define PTE_ADDR_MASK_1G 0x000fffffc0000000ull

#define PTE_LEVELS 4
#define PTE_PER_TABLE 512
#define PT_SHIFT 12
#define PD_SHIFT 21
#define PDPT_SHIFT 30
#define PML4_SHIFT 39

/* Bits of address each entry at @level covers: 12, 21, 30, 39. */
#define PTE_LEVEL_SHIFT(level) (PT_SHIFT + 9 * ((level)-1))
#define PTE_LEVEL_SIZE(level) (1ull << PTE_LEVEL_SHIFT(level))
#define PTE_INDEX(va, level) (((u64)(va) >> PTE_LEVEL_SHIFT(level)) & (PTE_PER_TABLE - 1))

#define PML4_INDEX(va) PTE_INDEX(va, 4)
#define PDPT_INDEX(va) PTE_INDEX(va, 3)
#define PD_INDEX(va) PTE_INDEX(va, 2)
#define PT_INDEX(va) PTE_INDEX(va, 1)

/* First PML4 slot of the kernel half (0xffff800000000000 and up). */
#define PML4_KERNEL_FIRST 256

static inline bool pte_present(pte_t e)
{
	return e & PTE_P;
}

/* True for an entry that maps memory rather than pointing to a lower table. */
static inline bool pte_is_leaf(pte_t e, int level)
{
	return level == 1 || (e & PTE_PS);
}

/* Physical address a table entry points to, or a leaf maps at @level. */
static inline paddr_t pte_addr(pte_t e, int level)
{
	if (level == 3 && (e & PTE_PS))
		return e & PTE_ADDR_MASK_1G;
	if (level == 2 && (e & PTE_PS))
		return e & PTE_ADDR_MASK_2M;
	return e & PTE_ADDR_MASK;
}

#endif
