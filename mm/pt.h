/*
 * Page tables on a root: map, unmap, protect and look up ranges, all or
 * nothing. Tables that unmapping empties go to a struct pt_gather and are
 * freed after the flush that covers them. Locking: the caller serialises
 * calls on one root; the fault-path calls below may run concurrently.
 */
#ifndef MM_PT_H
#define MM_PT_H

#include "mm/pt_gather.h"
#include "mm/pt_root.h"
#include "mm/pt_types.h"
#include "types.h"

/* True unless the CPU lacks NX: then mappings are executable whatever the protection. */
extern bool pt_nx_enabled;

/*
 * @prot as the page tables can hold it on this CPU, which is what
 * pt_lookup() returns for a mapping made with @prot: without NX, every
 * mapping is executable (SDM Vol. 3A 4.6: EFER.NXE=0 leaves bit 63 reserved).
 */
static inline unsigned pt_prot_effective(unsigned prot)
{
	return pt_nx_enabled ? prot : prot | PROT_EXEC;
}


/*
 * Maps [va, va + len) to [pa, pa + len) with pages of @page_size
 * (PT_PAGE_4K, _2M or _1G; 1 GiB pages need CPUID pdpe1gb). Nothing may be
 * mapped in the range yet; no TLB flush is needed. Returns 0, -EINVAL
 * (misaligned, empty, non-canonical, bad @prot or @page_size), -EEXIST
 * (something is mapped there) or -ENOMEM.
 */
int pt_map(paddr_t root, vaddr_t va, paddr_t pa, u64 len, unsigned prot, u64 page_size);

/*
 * Removes every mapping in [va, va + len) (4 KiB aligned; holes are fine),
 * splitting huge pages that straddle an end, and unlinks tables it empties.
 * Flush range and table pages go into @g; call pt_gather_finish(@g) before
 * the frames that were mapped are reused. Returns 0, -EINVAL or -ENOMEM.
 */
int pt_unmap(paddr_t root, vaddr_t va, u64 len, struct pt_gather *g);

/*
 * Sets @prot on every mapping in [va, va + len) (4 KiB aligned; holes are
 * skipped), splitting huge pages that straddle an end. The caller then
 * flushes the range, widened to the huge pages around va and va + len if
 * those were split. Returns 0, -EINVAL or -ENOMEM.
 */
int pt_protect(paddr_t root, vaddr_t va, u64 len, unsigned prot);

/*
 * Translates @va. Returns 0 and fills the non-NULL outputs (the physical
 * address of @va itself, its protection, the size of the page mapping it),
 * -ENOENT when nothing maps it, or -EINVAL for a non-canonical @va.
 */
int pt_lookup(paddr_t root, vaddr_t va, paddr_t *pa, unsigned *prot, u64 *page_size);

/*
 * Allocates the tables that leaves of @page_size over [va, va + len) need
 * (PT_PAGE_4K: down to level-1 tables), mapping nothing. Returns 0,
 * -EINVAL, -EEXIST (a larger leaf covers part of the range) or -ENOMEM.
 */
int pt_populate(paddr_t root, vaddr_t va, u64 len, u64 page_size);

#ifdef HOST_BUILD
/*
 * Host builds only (a debug counter, kept off the kernel's fault path):
 * walks that started at a root, so tests can hold each operation to one.
 */
extern u64 pt_debug_root_walks;
#endif

/* Single-entry operations (mm/pt_leaf.c); the fault path ones are safe under a read side. */

/*
 * Locking: the caller serialises all calls on one root (the address space's
 * lock); the kernel half, shared by every root, needs one kernel-wide lock.
 * The exceptions are the single-entry operations marked "fault path"
 * below: those may run concurrently with each other (an address space's
 * read side) as long as tables are created only by pt_populate() under a
 * lock of their own and freed only under the exclusive lock, or, for
 * level-1 tables whose whole range the caller owns, under the read side
 * with pt_gather.keep_upper set: a walk of the fault path may stop in any
 * table above level 1 and resume from it later, so those are freed only
 * under the exclusive lock.
 * The CPU's own page walker may run concurrently: entries are written with
 * single atomic stores, and A/D bits the CPU sets are never lost.
 * PML4 entries of the kernel half are never unlinked, so tables they point
 * to stay shared by every root copied from the kernel root.
 */

/* Fault path: walks @root toward @va once and fills *@s. Returns 0, or -EINVAL (bad @va). */
int pt_slot_find(paddr_t root, vaddr_t va, struct pt_slot *s);

/* A present leaf maps s->va: returns true with its physical address and protection. */
bool pt_slot_mapped(const struct pt_slot *s, paddr_t *pa, unsigned *prot);

/* A swap entry is in the slot: returns true with its value in *@swp. */
bool pt_slot_swap(const struct pt_slot *s, u64 *swp);

/*
 * Fault path, under the caller's table lock as for pt_populate(): resumes
 * the walk of @s where its tables ended and allocates the ones missing
 * down to level 1 (all or none). Returns 0 (s->level is 1 now), -EEXIST
 * (a huge leaf maps s->va) or -ENOMEM.
 */
int pt_slot_populate(struct pt_slot *s);

/* pt_leaf_install() on the slot found: -ENOENT when s->level > 1 (pt_slot_populate() first). */
int pt_slot_install(struct pt_slot *s, paddr_t pa, unsigned prot);

/* pt_leaf_replace() on the slot found: -EAGAIN unless a 4 KiB leaf is there mapping @old_pa. */
int pt_slot_replace(const struct pt_slot *s, paddr_t old_pa, paddr_t pa, unsigned prot);

/* Fault path: the slot's entry, read again now, still holds swap entry @swp. */
bool pt_slot_holds_swap(const struct pt_slot *s, u64 swp);

/* pt_swap_to_leaf() on the slot found: -EAGAIN unless swap entry @swp is still there. */
int pt_slot_swap_to_leaf(const struct pt_slot *s, u64 swp, paddr_t pa, unsigned prot);

/*
 * Fault path: maps the 4 KiB page at @va to @pa if the entry is empty,
 * with one compare-and-exchange. Returns 0, -ENOENT when no level-1 table
 * holds @va yet (pt_populate() first), -EEXIST when the entry is not empty
 * (a mapping or a swap entry: someone was first), or -EINVAL.
 */
int pt_leaf_install(paddr_t root, vaddr_t va, paddr_t pa, unsigned prot);

/*
 * Fault path: if the 4 KiB leaf at @va still maps @old_pa, points it at
 * @pa with @prot in one compare-and-exchange (the accessed and dirty bits
 * are kept when @pa == @old_pa). The caller flushes when the old
 * translation must not be used any more. Returns 0, -EAGAIN when the leaf
 * changed meanwhile or is gone, or -EINVAL.
 */
int pt_leaf_replace(paddr_t root, vaddr_t va, paddr_t old_pa, paddr_t pa, unsigned prot);

/*
 * Migration: points the 4 KiB leaf at @va from @old_pa to @pa with the
 * same protection, in one compare-and-exchange, after @g's leaf hook (a
 * design may flush what @g holds first). The old translation's range and
 * frame go into @g as an unmap's would: the frame is released after the
 * flush that covers it. Caller holds the mm's write side. Returns 0,
 * -EAGAIN (no 4 KiB leaf maps @old_pa there) or -EINVAL.
 */
int pt_leaf_move(paddr_t root, vaddr_t va, paddr_t old_pa, paddr_t pa, struct pt_gather *g);

/*
 * Puts swap entry @swp (1..PT_SWAP_MAX) in the empty 4 KiB entry at @va,
 * allocating tables as needed. Not the fault path: the caller holds the
 * root's lock. Returns 0, -EEXIST, -EINVAL or -ENOMEM.
 */
int pt_swap_set(paddr_t root, vaddr_t va, u64 swp);

/* Fault path: the swap entry at @va. Returns 0 with *@swp set, or -ENOENT. */
int pt_swap_lookup(paddr_t root, vaddr_t va, u64 *swp);

/*
 * Fault path (swap-in): if the entry at @va still holds swap entry @swp,
 * maps @pa there with @prot in one compare-and-exchange. No flush is
 * needed (the entry was not present). Returns 0, -EAGAIN when the entry
 * changed meanwhile (another CPU brought the page in), or -EINVAL.
 */
int pt_swap_to_leaf(paddr_t root, vaddr_t va, u64 swp, paddr_t pa, unsigned prot);

/*
 * Swap-out: if the 4 KiB leaf at @va maps @pa, replaces it with swap entry
 * @swp (1..PT_SWAP_MAX) and adds its range to @g, whose finish flushes it;
 * the frame is the caller's to free after that flush. Not the fault path:
 * the caller holds the root's lock. Returns 0 with *@prot set to the
 * leaf's protection, -ENOENT (no such leaf) or -EINVAL.
 */
int pt_leaf_to_swap(paddr_t root, vaddr_t va, paddr_t pa, u64 swp, struct pt_gather *g,
		    unsigned *prot);


/*
 * Calls @fn for every leaf and swap entry that overlaps [va, va + len)
 * (4 KiB aligned), in address order (leaf->va is where the entry starts),
 * stopping at the first non-zero return, which it returns; else 0
 * (-EINVAL for a bad range). @fn may change entries of the root but must
 * not add or free tables.
 */
int pt_walk(paddr_t root, vaddr_t va, u64 len, pt_walk_fn *fn, void *arg);

#endif
