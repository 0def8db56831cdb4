/*
 * Single-entry page-table operations (see mm/pt.h): protection encoding,
 * lookups, the fault path's install and replace of one 4 KiB leaf, swap
 * entries, and the walk over leaves. Install and replace change one entry
 * with one compare-and-exchange, and a level-1 table's entry count with an
 * atomic add, so several CPUs may run them on one root at once while no
 * table is added or freed under them: the caller holds its address space's
 * read side and adds tables only with pt_populate() under a lock of its own.
 * Everything else here needs the root serialised as mm/pt.h says.
 */
#include "mm/pt.h"
#include "mm/pt_internal.h"

/* The one place protections become PTE bits; PROT_EXEC is the absence of NX. */
static const struct {
	unsigned prot;
	pte_t bits;
} pt_prot_bits[] = {
	{ PROT_WRITE, PTE_RW },
	{ PROT_USER, PTE_US },
	{ PROT_GLOBAL, PTE_G },
	{ PROT_NOCACHE, PTE_PCD | PTE_PWT },
};

pte_t pt_prot_to_pte(unsigned prot)
{
	pte_t e = PTE_P;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(pt_prot_bits); i++)
		if (prot & pt_prot_bits[i].prot)
			e |= pt_prot_bits[i].bits;
	if (!(prot & PROT_EXEC) && pt_nx_enabled)
		e |= PTE_NX;
	return e;
}

unsigned pt_pte_to_prot(pte_t e)
{
	unsigned prot = PROT_READ;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(pt_prot_bits); i++)
		if (e & pt_prot_bits[i].bits)
			prot |= pt_prot_bits[i].prot;
	if (!(e & PTE_NX))
		prot |= PROT_EXEC;
	return prot;
}

/* lookups */

bool pt_find(paddr_t root, vaddr_t va, int *level, pte_t *e)
{
	paddr_t table = root;
	int l;

	for (l = PTE_LEVELS; l >= 1; l--) {
		pte_t x = pt_get(pt_table(table), PTE_INDEX(va, l));

		if (!pte_present(x))
			return false;
		if (pte_is_leaf(x, l)) {
			*level = l;
			*e = x;
			return true;
		}
		table = pte_addr(x, l);
	}
	return false;
}

int pt_lookup(paddr_t root, vaddr_t va, paddr_t *pa, unsigned *prot, u64 *page_size)
{
	int level;
	pte_t e;

	if (!pt_canonical(va))
		return -EINVAL;
	if (!pt_find(root, va, &level, &e))
		return -ENOENT;
	if (pa)
		*pa = pte_addr(e, level) + (va & (PTE_LEVEL_SIZE(level) - 1));
	if (prot)
		*prot = pt_pte_to_prot(e);
	if (page_size)
		*page_size = PTE_LEVEL_SIZE(level);
	return 0;
}

/*
 * The level-1 table holding @va in *@table. Returns 0, -ENOENT when a
 * level above has no table yet, or -EEXIST when a huge leaf maps @va.
 */
static int pt_leaf_table(paddr_t root, vaddr_t va, paddr_t *table)
{
	paddr_t tab = root;
	int l;

	for (l = PTE_LEVELS; l > 1; l--) {
		pte_t e = pt_get(pt_table(tab), PTE_INDEX(va, l));

		if (!pte_present(e))
			return -ENOENT;
		if (pte_is_leaf(e, l))
			return -EEXIST;
		tab = pte_addr(e, l);
	}
	*table = tab;
	return 0;
}

/* Empty entry -> @e in the level-1 table @table, or -EEXIST if it is not empty. */
static int pt_leaf_fill(paddr_t table, vaddr_t va, pte_t e)
{
	pte_t *t = pt_table(table);

	/* Fully ordered: the page's contents are visible before the entry is. */
	if (atomic_cmpxchg(&t[PT_INDEX(va)], 0, e) != 0)
		return -EEXIST;
	atomic_fetch_add(&phys_to_page(table)->priv, 1);
	return 0;
}

static bool pt_leaf_args_ok(vaddr_t va, paddr_t pa, unsigned prot)
{
	return pt_prot_valid(prot) && !pt_check_range(va, PT_PAGE_4K, PT_PAGE_4K) &&
	       IS_ALIGNED(pa, PT_PAGE_4K) && pa <= PT_PHYS_LAST;
}

/* fault path */

int pt_leaf_install(paddr_t root, vaddr_t va, paddr_t pa, unsigned prot)
{
	paddr_t table;
	int err;

	if (!pt_leaf_args_ok(va, pa, prot))
		return -EINVAL;
	err = pt_leaf_table(root, va, &table);
	if (err)
		return err;
	return pt_leaf_fill(table, va, pa | pt_prot_to_pte(prot));
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
		seen = atomic_cmpxchg(slot, e, keep_ad ? n | (e & (PTE_A | PTE_D)) : n);
		if (seen == e) {
			*old = e;
			return true;
		}
		e = seen;
	}
}

int pt_leaf_replace(paddr_t root, vaddr_t va, paddr_t old_pa, paddr_t pa, unsigned prot)
{
	paddr_t table;
	pte_t old;

	if (!pt_leaf_args_ok(va, pa, prot))
		return -EINVAL;
	if (pt_leaf_table(root, va, &table))
		return -EAGAIN;
	if (!pt_leaf_exchange(&pt_table(table)[PT_INDEX(va)], old_pa, pa | pt_prot_to_pte(prot),
			      pa == old_pa, &old))
		return -EAGAIN;
	return 0;
}

/* swap entries */

int pt_swap_set(paddr_t root, vaddr_t va, u64 swp)
{
	paddr_t table;
	int err;

	if (!swp || swp > PT_SWAP_MAX || pt_check_range(va, PT_PAGE_4K, PT_PAGE_4K))
		return -EINVAL;
	err = pt_populate(root, va, PT_PAGE_4K, PT_PAGE_4K);
	if (!err)
		err = pt_leaf_table(root, va, &table);
	if (err)
		return err;
	return pt_leaf_fill(table, va, swp << 1);
}

int pt_swap_lookup(paddr_t root, vaddr_t va, u64 *swp)
{
	paddr_t table;
	pte_t e;

	if (!pt_canonical(va) || pt_leaf_table(root, va, &table))
		return -ENOENT;
	e = pt_get(pt_table(table), PT_INDEX(va));
	if (!pt_is_swap(e))
		return -ENOENT;
	*swp = e >> 1;
	return 0;
}

int pt_swap_to_leaf(paddr_t root, vaddr_t va, u64 swp, paddr_t pa, unsigned prot)
{
	paddr_t table;
	pte_t *t;

	if (!swp || swp > PT_SWAP_MAX || !pt_leaf_args_ok(va, pa, prot))
		return -EINVAL;
	if (pt_leaf_table(root, va, &table))
		return -EAGAIN;
	t = pt_table(table);
	/* Fully ordered: the page's contents are visible before the entry is. */
	if (atomic_cmpxchg(&t[PT_INDEX(va)], swp << 1, pa | pt_prot_to_pte(prot)) != swp << 1)
		return -EAGAIN;
	return 0;
}

int pt_leaf_to_swap(paddr_t root, vaddr_t va, paddr_t pa, u64 swp, struct pt_gather *g,
		    unsigned *prot)
{
	paddr_t table;
	pte_t old;

	if (!swp || swp > PT_SWAP_MAX || !IS_ALIGNED(pa, PT_PAGE_4K) ||
	    pt_check_range(va, PT_PAGE_4K, PT_PAGE_4K))
		return -EINVAL;
	if (pt_leaf_table(root, va, &table))
		return -ENOENT;
	if (!pt_leaf_exchange(&pt_table(table)[PT_INDEX(va)], pa, swp << 1, false, &old))
		return -ENOENT;
	/* The entry stays occupied, so the table's entry count does not change. */
	pt_gather_range(g, va, va + PT_PAGE_4K - 1, old & PTE_G);
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
	struct pt_leaf leaf = { .va = ALIGN_DOWN(va, PTE_LEVEL_SIZE(level)),
				.size = PTE_LEVEL_SIZE(level) };

	if (pte_present(e)) {
		leaf.pa = pte_addr(e, level);
		leaf.prot = pt_pte_to_prot(e);
	} else {
		leaf.swp = e >> 1;
	}
	return w->fn(w->arg, &leaf);
}

static int pt_walk_table(const struct pt_walker *w, paddr_t table, int level, vaddr_t va,
			 vaddr_t last)
{
	const pte_t *t = pt_table(table);

	for (;;) {
		vaddr_t end = pt_span_last(va, level, last);
		pte_t e = pt_get(t, PTE_INDEX(va, level));
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
	return pt_walk_table(&w, root, PTE_LEVELS, va, va + len - 1);
}
