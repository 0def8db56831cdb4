/*
 * Page-table range operations (see mm/pt.h). Each change runs in two passes:
 * the first checks the range and counts the table pages it needs, those are
 * allocated up front, and the second cannot fail. A table page's struct page
 * counts its non-zero entries in priv. Single entries are mm/pt_leaf.c's,
 * the unmap gather mm/pt_gather.c's, roots mm/pt_root.c's. Locking: none
 * here; the caller serialises calls on a root.
 */
#include "mm/pt.h"
#include "errno.h"
#include "kernel/panic.h"
#include "mm/pmm.h"
#include "mm/pt_entry.h"
#include <arch/arch.h>

enum pt_kind { PT_OP_MAP, PT_OP_UNMAP, PT_OP_PROTECT };

/* One change in progress. */
struct pt_op {
	enum pt_kind kind;
	int leaf;      /* map: level of the new leaves */
	bool populate; /* map: only the tables such leaves need, no leaves */
	vaddr_t va;    /* map: start of the range, mapped to @pa */
	paddr_t pa;
	pte_t bits;	       /* map, protect: protection bits (pt_prot_to_pte()) to set */
	struct page_list pool; /* tables allocated by the first pass */
	struct pt_gather *g;   /* unmap */
};

bool pt_nx_enabled = true;

/* The one place protections become the arch's leaf attributes; PROT_READ is implied. */
static const struct {
	unsigned prot;
	unsigned attr;
} pt_prot_attrs[] = {
	{ PROT_WRITE, ARCH_ATTR_WRITE },   { PROT_USER, ARCH_ATTR_USER },
	{ PROT_GLOBAL, ARCH_ATTR_GLOBAL }, { PROT_NOCACHE, ARCH_ATTR_NOCACHE },
	{ PROT_EXEC, ARCH_ATTR_EXEC },
};

pte_t pt_prot_to_pte(unsigned prot)
{
	unsigned attrs = 0, i;

	for (i = 0; i < ARRAY_SIZE(pt_prot_attrs); i++)
		if (prot & pt_prot_attrs[i].prot)
			attrs |= pt_prot_attrs[i].attr;
	return pte_attr_bits(attrs, pt_nx_enabled);
}

unsigned pt_pte_to_prot(pte_t e)
{
	unsigned prot = PROT_READ, attrs = pte_attrs(e), i;

	for (i = 0; i < ARRAY_SIZE(pt_prot_attrs); i++)
		if (attrs & pt_prot_attrs[i].attr)
			prot |= pt_prot_attrs[i].prot;
	return prot;
}

int pt_slot_find(paddr_t root, vaddr_t va, struct pt_slot *s)
{
	if (!pt_canonical(va))
		return -EINVAL;
	s->va = va;
	s->table = root;
	s->level = PT_LEVELS;
	pt_count_root_walk();
	pt_slot_descend(s);
	return 0;
}

/* the pool of a change */

/* @n tables for a change below table @near, from its node. */
static int pt_pool_fill(struct pt_op *op, u64 n, paddr_t near)
{
	while (n-- > 0) {
		struct page *p = pt_table_alloc(near);

		if (!p)
			return -ENOMEM;
		page_list_add(&op->pool, p);
	}
	return 0;
}

/* Frees what is left in the pool: everything after a failed fill, nothing after a change. */
static void pt_pool_drain(struct pt_op *op)
{
	struct page *p;

	while ((p = page_list_pop(&op->pool)))
		pt_table_free(p);
}

/*
 * Entry @i of table @tp (mapped at @t) goes from empty to @e. The entry
 * count changes atomically, as the fault path's (mm/pt_leaf.c) does: a
 * plain update could lose one of theirs.
 */
static void pt_install(struct page *tp, pte_t *t, unsigned i, pte_t e)
{
	pt_set(t, i, e);
	atomic_fetch_add(&tp->priv, 1);
}

/*
 * Entry @i goes from non-zero to empty; returns what it held. The caller
 * takes it out of its table's entry count (pt_change_walk(), once per
 * table). A plain load and store, not a locked exchange: no other software
 * writes this entry meanwhile (the caller's lock keeps every other change
 * of this range out, mm/pt.h), and the only hardware writes are the
 * accessed and dirty bits, which the CPU sets with locked operations of
 * its own (SDM Vol. 3A 8.1.2.1, automatic locking) and only in a present
 * entry: after our store it finds the entry not present and faults
 * instead (4.8). Between our load and store a CPU may still set A or D;
 * the store then drops them, and that is harmless here: what an unmap
 * reads from the old entry (the frame, the level, G) only software
 * writes, and nothing here consumes A or D (no page cache to write back).
 * The store is ordered before the flush that follows it by
 * arch_pt_publish(), which every flush of changed entries starts with
 * (mm/pt_gather.c, mm_flush_range()): on x86 the order holds by itself
 * (<arch/mmu.h> says why); a port with a weaker model gives it a barrier.
 */
static pte_t pt_clear(pte_t *t, unsigned i)
{
	pte_t old = pt_get(t, i);

	atomic_store_relaxed(&t[i], 0);
	return old;
}

/* Links a pool table below entry @i (empty) and returns the new entry. */
static pte_t pt_link_new(struct pt_op *op, struct page *tp, pte_t *t, unsigned i)
{
	struct page *np = page_list_pop(&op->pool);
	pte_t e;

	ASSERT(np);
	e = pte_make_table(page_to_phys(np));
	pt_install(tp, t, i, e);
	return e;
}

/* Fills @nt with the next-level leaves that map what leaf @old at @level maps. */
static void pt_split_fill(pte_t *nt, pte_t old, int level)
{
	unsigned k;

	for (k = 0; k < ARCH_PT_ENTRIES; k++)
		nt[k] = pte_split_child(old, level, k);
}

/*
 * Replaces huge leaf @i at @level by a pool table mapping the same memory
 * with the same protection one level down; returns the new entry. The
 * compare-exchange retries if the CPU set A or D meanwhile, so none is lost.
 */
static pte_t pt_split(struct pt_op *op, pte_t *t, unsigned i, int level)
{
	struct page *np = page_list_pop(&op->pool);
	pte_t old = pt_get(t, i), seen, e;

	ASSERT(np);
	e = pte_make_table(page_to_phys(np));
	for (;;) {
		pt_split_fill(page_address(np), old, level);
		seen = atomic_cmpxchg(&t[i], old, e);
		if (seen == old)
			break;
		old = seen;
	}
	np->priv = ARCH_PT_ENTRIES;
	return e;
}

/* map */

/* Tables an empty subtree needs to hold leaves at level @leaf for [va, last], from @level down. */
static u64 pt_tables_for(vaddr_t va, vaddr_t last, int level, int leaf)
{
	u64 n = 0;

	for (; level >= leaf; level--)
		n += (last >> pte_level_shift(level + 1)) - (va >> pte_level_shift(level + 1)) + 1;
	return n;
}

/*
 * First pass of pt_map() and pt_populate(): -EEXIST if anything is mapped
 * (populate: only a larger leaf counts), else adds the tables needed to *@need.
 */
static int pt_map_count(const struct pt_op *op, paddr_t table, int level, vaddr_t va,
			vaddr_t last, u64 *need)
{
	pte_t *t = pt_table(table);

	if (level == op->leaf && op->populate)
		return 0;
	for (;;) {
		vaddr_t end = pt_span_last(va, level, last);
		pte_t e = pt_get(t, pte_index(va, level));
		int err = 0;

		/* A swap entry (non-present, level 1) occupies its slot like a mapping. */
		if (e && (level == op->leaf || pte_is_leaf(e, level)))
			return -EEXIST;
		if (level > op->leaf && !pte_present(e))
			*need += pt_tables_for(va, end, level - 1, op->leaf);
		else if (level > op->leaf)
			err = pt_map_count(op, pte_addr(e, level), level - 1, va, end, need);
		if (err || end == last)
			return err;
		va = end + 1;
	}
}

static void pt_map_fill(struct pt_op *op, paddr_t table, int level, vaddr_t va, vaddr_t last)
{
	struct page *tp = phys_to_page(table);
	pte_t *t = pt_table(table);

	if (level == op->leaf && op->populate)
		return;
	for (;;) {
		vaddr_t end = pt_span_last(va, level, last);
		unsigned i = pte_index(va, level);
		pte_t e = pt_get(t, i);

		if (level == op->leaf) {
			e = pte_make_leaf(op->pa + (va - op->va), op->bits, level);
			pt_install(tp, t, i, e);
		} else {
			if (!pte_present(e))
				e = pt_link_new(op, tp, t, i);
			pt_map_fill(op, pte_addr(e, level), level - 1, va, end);
		}
		if (end == last)
			return;
		va = end + 1;
	}
}

/* The level whose leaves are @page_size bytes (1, 2 or 3), or 0 for no such level. */
static int pt_leaf_level(u64 page_size)
{
	int level;

	for (level = 1; level <= ARCH_PT_LEAF_LEVEL_MAX; level++)
		if (page_size == pte_level_size(level))
			return level;
	return 0;
}

/* Both passes of a map or populate over [va, last]. */
static int pt_map_run(struct pt_op *op, paddr_t root, vaddr_t va, vaddr_t last)
{
	u64 need = 0;
	int err;

	pt_count_root_walk();
	err = pt_map_count(op, root, PT_LEVELS, va, last, &need);
	if (err)
		return err;
	page_list_init(&op->pool);
	err = pt_pool_fill(op, need, root);
	if (!err) {
		pt_count_root_walk();
		pt_map_fill(op, root, PT_LEVELS, va, last);
	}
	pt_pool_drain(op);
	return err;
}

int pt_map(paddr_t root, vaddr_t va, paddr_t pa, u64 len, unsigned prot, u64 page_size)
{
	struct pt_op op = { .kind = PT_OP_MAP, .va = va, .pa = pa };

	op.leaf = pt_leaf_level(page_size);
	if (!op.leaf || !pt_prot_valid(prot) || pt_check_range(va, len, page_size))
		return -EINVAL;
	if (!IS_ALIGNED(pa, page_size) || pa + len - 1 > PT_PHYS_LAST || pa + len - 1 < pa)
		return -EINVAL;
	op.bits = pt_prot_to_pte(prot);
	return pt_map_run(&op, root, va, va + len - 1);
}

int pt_populate(paddr_t root, vaddr_t va, u64 len, u64 page_size)
{
	struct pt_op op = { .kind = PT_OP_MAP, .populate = true };

	op.leaf = pt_leaf_level(page_size);
	if (!op.leaf || pt_check_range(va, len, page_size))
		return -EINVAL;
	return pt_map_run(&op, root, va, va + len - 1);
}

int pt_slot_populate(struct pt_slot *s)
{
	struct pt_op op = { .kind = PT_OP_MAP, .populate = true, .leaf = 1 };
	int err;

	/* Another CPU may have added tables since the walk stopped: look again first. */
	pt_slot_descend(s);
	if (s->level == 1)
		return 0;
	if (pte_present(s->e))
		return -EEXIST; /* a huge leaf */
	page_list_init(&op.pool);
	err = pt_pool_fill(&op, s->level - 1, s->table);
	while (!err && s->level > 1) {
		pte_t e = pt_link_new(&op, phys_to_page(s->table), pt_table(s->table),
				      pte_index(s->va, s->level));

		s->table = pte_addr(e, s->level);
		s->level--;
		s->tables[s->level] = s->table;
		s->e = 0;
	}
	pt_pool_drain(&op);
	return err;
}

/* unmap and protect */

/* Tables a split of a leaf at @level takes: one per level down until @x is aligned. */
static u64 pt_split_depth(vaddr_t x, int level)
{
	u64 n = 0;

	do {
		n++;
		level--;
	} while (level > 1 && !IS_ALIGNED(x, pte_level_size(level)));
	return n;
}

/*
 * If the leaf the walk @s to @x found is a huge page that a change starting
 * or ending at @x would split, returns how many tables that takes (1, or 2
 * for a 1 GiB page split down to 4 KiB on x86-64) and fills *@level and *@base.
 */
static u64 pt_edge_split(const struct pt_op *op, const struct pt_slot *s, vaddr_t x, int *level,
			 vaddr_t *base)
{
	if (IS_ALIGNED(x, pte_level_size(ARCH_PT_LEAF_LEVEL_MAX)) || !pte_present(s->e) ||
	    s->level == 1)
		return 0;
	*level = s->level;
	if (IS_ALIGNED(x, pte_level_size(*level)))
		return 0;
	if (op->kind == PT_OP_PROTECT && pte_prot_is(s->e, op->bits))
		return 0;
	*base = ALIGN_DOWN(x, pte_level_size(*level));
	return pt_split_depth(x, *level);
}

/* The deepest level (s->level or above) whose table on the walk @s also holds all of [.., @x]. */
static int pt_slot_shared(const struct pt_slot *s, vaddr_t x)
{
	int l;

	for (l = s->level; l < PT_LEVELS; l++)
		if ((s->va >> pte_level_shift(l + 1)) == (x >> pte_level_shift(l + 1)))
			break;
	return l;
}

/* Walks @b to @x, starting where the walk @a to a nearby address still holds @x: no floor twice. */
static void pt_slot_near(struct pt_slot *b, const struct pt_slot *a, vaddr_t x)
{
	int l = pt_slot_shared(a, x), m;

	for (m = l; m <= PT_LEVELS; m++)
		b->tables[m] = a->tables[m];
	b->va = x;
	b->table = a->tables[l];
	b->level = l;
	if (l == PT_LEVELS)
		pt_count_root_walk();
	pt_slot_descend(b);
}

/* First pass of unmap and protect: tables for the splits at both ends, each counted once. */
static u64 pt_split_need(const struct pt_op *op, const struct pt_slot *s, vaddr_t last)
{
	int la = 0, lb = 0;
	vaddr_t va = s->va, ba = 0, bb = 0;
	u64 a = pt_edge_split(op, s, va, &la, &ba), b = 0;
	struct pt_slot end;

	if (!IS_ALIGNED(last + 1, pte_level_size(ARCH_PT_LEAF_LEVEL_MAX))) {
		pt_slot_near(&end, s, last + 1);
		b = pt_edge_split(op, &end, last + 1, &lb, &bb);
	}
	if (!a || !b || la != lb || ba != bb)
		return a + b;
	/* Both ends inside one huge page: it is split once ... */
	if (a == 2 && b == 2 &&
	    ALIGN_DOWN(va, pte_level_size(2)) == ALIGN_DOWN(last + 1, pte_level_size(2)))
		return 2; /* ... and so is the one 2 MiB page holding both ends. */
	return a + b - 1;
}

static void pt_change_walk(struct pt_op *op, paddr_t table, int level, vaddr_t va, vaddr_t last);

/* Leaf @i at @level covers all of its span within the change: unmap or reprotect it whole. */
static void pt_change_leaf(struct pt_op *op, pte_t *t, unsigned i, int level, vaddr_t base)
{
	pte_t old, seen;

	if (op->kind == PT_OP_UNMAP) {
		if (op->g->leaf)
			op->g->leaf(op->g, base);
		old = pt_clear(t, i);
		pt_gather_range(op->g, base, base + pte_level_size(level) - 1, pte_is_global(old));
		op->g->unmapped += pte_level_size(level);
		if (level == 1)
			pt_gather_page(op->g, old);
		return;
	}
	old = pt_get(t, i);
	for (;;) {
		seen = atomic_cmpxchg(&t[i], old, pte_reprotect(old, op->bits));
		if (seen == old)
			return;
		old = seen;
	}
}

/*
 * After an unmap below entry @i at @level: unlinks table @child if that
 * emptied it (only a level-1 one when the gather keeps upper tables);
 * true when it did (the caller counts the entry cleared).
 */
static bool pt_change_unlink(struct pt_op *op, pte_t *t, unsigned i, int level, paddr_t child,
			     vaddr_t va)
{
	if (op->kind != PT_OP_UNMAP || atomic_load_relaxed(&phys_to_page(child)->priv))
		return false;
	/* Under a read side, a fault's walk may be stopped in an upper table (mm/pt.h). */
	if (op->g->keep_upper && level > 2)
		return false;
	/* Kernel-half root entries stay: every root shares the tables below them. */
	if (level == PT_LEVELS && va >= ARCH_KERNEL_BOTTOM)
		return false;
	pt_clear(t, i);
	pt_gather_table(op->g, phys_to_page(child));
	return true;
}

/* Applies the change to [va, last] inside entry @i at @level; returns 1 if it cleared the entry. */
static unsigned pt_change_entry(struct pt_op *op, pte_t *t, unsigned i, int level, vaddr_t va,
				vaddr_t last)
{
	vaddr_t base = ALIGN_DOWN(va, pte_level_size(level));
	bool whole = va == base && last == base + pte_level_size(level) - 1;
	pte_t e = pt_get(t, i);
	paddr_t child;

	if (pte_is_leaf(e, level)) {
		if (op->kind == PT_OP_PROTECT && pte_prot_is(e, op->bits))
			return 0;
		if (whole) {
			pt_change_leaf(op, t, i, level, base);
			return op->kind == PT_OP_UNMAP;
		}
		/* The huge page's TLB entries go too, not only the part unmapped. */
		if (op->kind == PT_OP_UNMAP)
			pt_gather_range(op->g, base, base + pte_level_size(level) - 1,
					pte_is_global(e));
		e = pt_split(op, t, i, level);
	}
	child = pte_addr(e, level);
	pt_change_walk(op, child, level - 1, va, last);
	return pt_change_unlink(op, t, i, level, child, va);
}

/* Unmap removes a swap entry (protect leaves it): no translation, so nothing to flush. */
static unsigned pt_change_swap(struct pt_op *op, pte_t *t, unsigned i, vaddr_t va)
{
	pte_t old;

	if (op->kind != PT_OP_UNMAP)
		return 0;
	old = pt_clear(t, i);
	op->g->swap_cleared++;
	pt_gather_swap(op->g, va, pte_swap_value(old));
	return 1;
}

/*
 * The entries cleared in one table leave its count in one atomic step, at
 * the end of its visit, before the caller checks whether it emptied: still
 * atomic, as the fault path's increments of other entries of this table
 * may run meanwhile (mm/pt_leaf.c), but once per table, not per entry.
 */
static void pt_change_walk(struct pt_op *op, paddr_t table, int level, vaddr_t va, vaddr_t last)
{
	pte_t *t = pt_table(table);
	u64 cleared = 0;

	for (;;) {
		vaddr_t end = pt_span_last(va, level, last);
		unsigned i = pte_index(va, level);
		pte_t e = pt_get(t, i);

		if (pte_present(e))
			cleared += pt_change_entry(op, t, i, level, va, end);
		else if (pte_is_swap(e))
			cleared += pt_change_swap(op, t, i, va);
		if (end == last)
			break;
		va = end + 1;
	}
	if (cleared)
		atomic_fetch_sub(&phys_to_page(table)->priv, cleared);
}

/*
 * The change's walk starts in the deepest table of @s that holds the whole
 * range; on the way back up, the tables above it that the change emptied
 * are unlinked, as pt_change_entry() does below it.
 */
static void pt_change_from(struct pt_op *op, const struct pt_slot *s, vaddr_t last)
{
	int from = pt_slot_shared(s, last), level;

	if (from == PT_LEVELS)
		pt_count_root_walk();
	pt_change_walk(op, s->tables[from], from, s->va, last);
	for (level = from + 1; level <= PT_LEVELS; level++) {
		paddr_t table = s->tables[level];

		if (!pt_change_unlink(op, pt_table(table), pte_index(s->va, level), level,
				      s->tables[level - 1], s->va))
			return;
		atomic_fetch_sub(&phys_to_page(table)->priv, 1);
	}
}

/* One walk to va serves the check of both ends and the change itself. */
static int pt_change(struct pt_op *op, paddr_t root, vaddr_t va, u64 len)
{
	vaddr_t last = va + len - 1;
	struct pt_slot s;
	int err;

	if (pt_check_range(va, len, PT_PAGE_4K))
		return -EINVAL;
	pt_slot_find(root, va, &s);
	page_list_init(&op->pool);
	err = pt_pool_fill(op, pt_split_need(op, &s, last), root);
	if (!err) {
		pt_change_from(op, &s, last);
		ASSERT(page_list_empty(&op->pool));
	}
	pt_pool_drain(op);
	return err;
}

int pt_unmap(paddr_t root, vaddr_t va, u64 len, struct pt_gather *g)
{
	struct pt_op op = { .kind = PT_OP_UNMAP, .g = g };
	int err;

	if (!g)
		return -EINVAL;
	err = pt_change(&op, root, va, len);
	/* The entries go back to the swap subsystem now, not at the finish. */
	pt_gather_swaps_flush(g);
	return err;
}

int pt_protect(paddr_t root, vaddr_t va, u64 len, unsigned prot)
{
	struct pt_op op = { .kind = PT_OP_PROTECT };

	if (!pt_prot_valid(prot))
		return -EINVAL;
	op.bits = pt_prot_to_pte(prot);
	return pt_change(&op, root, va, len);
}
