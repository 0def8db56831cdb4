/*
 * Single-entry page-table operations (see mm/pt.h) on a slot pt_slot_find()
 * walked to. Install and replace change one leaf by compare-and-exchange
 * and a table's entry count atomically, so CPUs may run them on one root at
 * once under the address space's read side, as long as tables are added
 * only by pt_populate() under the caller's own lock. Everything else needs
 * the root serialised as mm/pt.h says.
 */
#include "mm/pt.h"
#include "mm/pt_entry.h"

/* the slot a walk stopped at */

bool pt_slot_mapped(const struct pt_slot *s, paddr_t *pa, unsigned *prot)
{
	if (!pte_present(s->e))
		return false;
	if (pa)
		*pa = pte_addr(s->e, s->level) + (s->va & (pte_level_size(s->level) - 1));
	if (prot)
		*prot = pt_pte_to_prot(s->e);
	return true;
}

bool pt_slot_swap(const struct pt_slot *s, u64 *swp)
{
	if (s->level != 1 || !pte_is_swap(s->e))
		return false;
	*swp = pte_swap_value(s->e);
	return true;
}

#ifdef HOST_BUILD
u64 pt_debug_root_walks;
#endif

/* lookups */

bool pt_find(paddr_t root, vaddr_t va, int *level, pte_t *e)
{
	struct pt_slot s;

	if (pt_slot_find(root, va, &s) || !pte_present(s.e))
		return false;
	*level = s.level;
	*e = s.e;
	return true;
}

int pt_lookup(paddr_t root, vaddr_t va, paddr_t *pa, unsigned *prot, u64 *page_size)
{
	struct pt_slot s;

	if (pt_slot_find(root, va, &s))
		return -EINVAL;
	if (!pt_slot_mapped(&s, NULL, prot))
		return -ENOENT;
	if (pa)
		*pa = pte_addr(s.e, s.level) + (va & (pte_level_size(s.level) - 1));
	if (page_size)
		*page_size = pte_level_size(s.level);
	return 0;
}

/* The level-1 entry of @s, or NULL when the walk ended above level 1 (no table, or a huge leaf). */
static pte_t *pt_slot_entry(const struct pt_slot *s)
{
	if (s->level != 1)
		return NULL;
	return &pt_table(s->table)[pte_index(s->va, 1)];
}

/* Empty level-1 entry of @s -> @e, or -EEXIST if it is not empty. */
static int pt_slot_fill(struct pt_slot *s, pte_t e)
{
	pte_t *slot = pt_slot_entry(s);

	if (!slot)
		return pte_present(s->e) ? -EEXIST : -ENOENT;
	/* Fully ordered: the page's contents are visible before the entry is. */
	if (atomic_cmpxchg(slot, 0, e) != 0)
		return -EEXIST;
	atomic_fetch_add(&phys_to_page(s->table)->priv, 1);
	s->e = e;
	return 0;
}

static bool pt_leaf_args_ok(vaddr_t va, paddr_t pa, unsigned prot)
{
	return pt_prot_valid(prot) && !pt_check_range(va, PT_PAGE_4K, PT_PAGE_4K) &&
	       IS_ALIGNED(pa, PT_PAGE_4K) && pa <= PT_PHYS_LAST;
}

/* fault path */

int pt_slot_install(struct pt_slot *s, paddr_t pa, unsigned prot)
{
	if (!pt_leaf_args_ok(s->va, pa, prot))
		return -EINVAL;
	return pt_slot_fill(s, pte_make_leaf(pa, pt_prot_to_pte(prot), 1));
}

int pt_leaf_install(paddr_t root, vaddr_t va, paddr_t pa, unsigned prot)
{
	struct pt_slot s;

	if (!pt_leaf_args_ok(va, pa, prot))
		return -EINVAL;
	pt_slot_find(root, va, &s);
	return pt_slot_install(&s, pa, prot);
}

/*
 * If the 4 KiB leaf at *@slot maps @pa, replaces it with @n (keeping the
 * accessed and dirty bits when @keep_ad) in one compare-and-exchange,
 * retrying only when the CPU set A or D meanwhile. Returns true with *@old
 * set to the entry replaced.
 */
static bool pt_leaf_exchange(pte_t *slot, paddr_t pa, pte_t n, bool keep_ad, pte_t *old)
{
	pte_t e = pt_get(slot, 0), seen;

	for (;;) {
		if (!pte_present(e) || pte_addr(e, 1) != pa)
			return false;
		seen = atomic_cmpxchg(slot, e, keep_ad ? pte_keep_ad(n, e) : n);
		if (seen == e) {
			*old = e;
			return true;
		}
		e = seen;
	}
}

int pt_slot_replace(const struct pt_slot *s, paddr_t old_pa, paddr_t pa, unsigned prot)
{
	pte_t *slot = pt_slot_entry(s), old;

	if (!pt_leaf_args_ok(s->va, pa, prot))
		return -EINVAL;
	if (!slot || !pt_leaf_exchange(slot, old_pa, pte_make_leaf(pa, pt_prot_to_pte(prot), 1),
				       pa == old_pa, &old))
		return -EAGAIN;
	return 0;
}

int pt_leaf_replace(paddr_t root, vaddr_t va, paddr_t old_pa, paddr_t pa, unsigned prot)
{
	struct pt_slot s;

	if (!pt_leaf_args_ok(va, pa, prot))
		return -EINVAL;
	pt_slot_find(root, va, &s);
	return pt_slot_replace(&s, old_pa, pa, prot);
}

int pt_leaf_move(paddr_t root, vaddr_t va, paddr_t old_pa, paddr_t pa, struct pt_gather *g)
{
	struct pt_slot s;
	pte_t *slot, old;
	unsigned prot;
	paddr_t cur;

	if (pt_slot_find(root, va, &s) || !pt_slot_mapped(&s, &cur, &prot) || cur != old_pa)
		return -EAGAIN;
	if (!pt_leaf_args_ok(va, pa, prot) || s.level != 1)
		return -EINVAL;
	if (g->leaf)
		g->leaf(g, va); /* the design may flush what the gather holds first */
	slot = pt_slot_entry(&s);
	if (!slot || !pt_leaf_exchange(slot, old_pa, pte_make_leaf(pa, pt_prot_to_pte(prot), 1),
				       false, &old))
		return -EAGAIN;
	pt_gather_range(g, va, va + PT_PAGE_4K - 1, prot & PROT_GLOBAL);
	pt_gather_page(g, old);
	return 0;
}

/* swap entries */

int pt_swap_set(paddr_t root, vaddr_t va, u64 swp)
{
	struct pt_slot s;
	int err;

	if (!swp || swp > PT_SWAP_MAX || pt_check_range(va, PT_PAGE_4K, PT_PAGE_4K))
		return -EINVAL;
	pt_slot_find(root, va, &s);
	err = pt_slot_populate(&s);
	return err ? err : pt_slot_fill(&s, pte_make_swap(swp));
}

int pt_swap_lookup(paddr_t root, vaddr_t va, u64 *swp)
{
	struct pt_slot s;

	if (pt_slot_find(root, va, &s) || !pt_slot_swap(&s, swp))
		return -ENOENT;
	return 0;
}

bool pt_slot_holds_swap(const struct pt_slot *s, u64 swp)
{
	pte_t *slot = pt_slot_entry(s);

	return slot && swp && swp <= PT_SWAP_MAX && pt_get(slot, 0) == pte_make_swap(swp);
}

int pt_slot_swap_to_leaf(const struct pt_slot *s, u64 swp, paddr_t pa, unsigned prot)
{
	pte_t *slot = pt_slot_entry(s), want = pte_make_swap(swp);

	if (!swp || swp > PT_SWAP_MAX || !pt_leaf_args_ok(s->va, pa, prot))
		return -EINVAL;
	/* Fully ordered: the page's contents are visible before the entry is. */
	if (!slot || atomic_cmpxchg(slot, want, pte_make_leaf(pa, pt_prot_to_pte(prot), 1)) != want)
		return -EAGAIN;
	return 0;
}

int pt_swap_to_leaf(paddr_t root, vaddr_t va, u64 swp, paddr_t pa, unsigned prot)
{
	struct pt_slot s;

	if (!swp || swp > PT_SWAP_MAX || !pt_leaf_args_ok(va, pa, prot))
		return -EINVAL;
	pt_slot_find(root, va, &s);
	return pt_slot_swap_to_leaf(&s, swp, pa, prot);
}

int pt_leaf_to_swap(paddr_t root, vaddr_t va, paddr_t pa, u64 swp, struct pt_gather *g,
		    unsigned *prot)
{
	struct pt_slot s;
	pte_t *slot, old;

	if (!swp || swp > PT_SWAP_MAX || !IS_ALIGNED(pa, PT_PAGE_4K) ||
	    pt_check_range(va, PT_PAGE_4K, PT_PAGE_4K))
		return -EINVAL;
	pt_slot_find(root, va, &s);
	slot = pt_slot_entry(&s);
	if (!slot || !pt_leaf_exchange(slot, pa, pte_make_swap(swp), false, &old))
		return -ENOENT;
	/* The entry stays occupied, so the table's entry count does not change. */
	pt_gather_range(g, va, va + PT_PAGE_4K - 1, pte_is_global(old));
	g->unmapped += PT_PAGE_4K;
	*prot = pt_pte_to_prot(old);
	return 0;
}

/* walk */

struct pt_walker {
	pt_walk_fn *fn;
	void *arg;
};

static int pt_walk_entry(const struct pt_walker *w, pte_t e, int level, vaddr_t va)
{
	struct pt_leaf leaf = { .va = ALIGN_DOWN(va, pte_level_size(level)),
				.size = pte_level_size(level) };

	if (pte_present(e)) {
		leaf.pa = pte_addr(e, level);
		leaf.prot = pt_pte_to_prot(e);
	} else {
		leaf.swp = pte_swap_value(e);
	}
	return w->fn(w->arg, &leaf);
}

static int pt_walk_table(const struct pt_walker *w, paddr_t table, int level, vaddr_t va,
			 vaddr_t last)
{
	const pte_t *t = pt_table(table);

	for (;;) {
		vaddr_t end = pt_span_last(va, level, last);
		pte_t e = pt_get(t, pte_index(va, level));
		int err = 0;

		if (pte_present(e) && !pte_is_leaf(e, level))
			err = pt_walk_table(w, pte_addr(e, level), level - 1, va, end);
		else if (e)
			err = pt_walk_entry(w, e, level, va);
		if (err || end == last)
			return err;
		va = end + 1;
	}
}

int pt_walk(paddr_t root, vaddr_t va, u64 len, pt_walk_fn *fn, void *arg)
{
	struct pt_walker w = { fn, arg };

	if (pt_check_range(va, len, PT_PAGE_4K))
		return -EINVAL;
	pt_count_root_walk();
	return pt_walk_table(&w, root, PT_LEVELS, va, va + len - 1);
}
