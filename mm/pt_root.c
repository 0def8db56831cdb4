/*
 * Page-table pages and roots (see mm/pt.h): allocating, freeing and
 * counting table pages, new roots sharing the kernel half, adopting the
 * boot tables, and freeing an emptied root. The range operations that fill
 * and empty the tables are in mm/pt.c.
 *
 * Locking: none here; the caller serialises calls on a root (mm/pt.h).
 */
#include "mm/pt_root.h"
#include "errno.h"
#include "mm/pmm.h"
#include "mm/pt_entry.h"
#include "torture_hook.h"

/* table pages */

static u64 pt_tables_in_use;

void pt_tables_account(s64 delta)
{
	atomic_fetch_add(&pt_tables_in_use, (u64)delta);
}

/* A boot table adopted from the kernel image has no node: the caller's then. */
static unsigned pt_near_node(paddr_t near)
{
	u64 pfn = near >> PAGE_SHIFT;

	return pfn_valid(pfn) ? page_node(pfn_to_page(pfn)) : PMM_NODE_LOCAL;
}

static struct page *pt_table_alloc_node(unsigned node, unsigned flags)
{
	struct page *p = torture_hook_fail(TORTURE_FAIL_TABLE) ?
				 NULL :
				 page_alloc_node(0, PMM_ZERO | flags, node);

	if (!p)
		return NULL;
	page_set_flags(p, PG_PGTABLE);
	p->priv = 0;
	pt_tables_account(1);
	return p;
}

struct page *pt_table_alloc(paddr_t near)
{
	return pt_table_alloc_node(pt_near_node(near), PMM_FALLBACK);
}

void pt_table_free(struct page *p)
{
	page_clear_flags(p, PG_PGTABLE);
	p->priv = 0;
	/* An adopted boot table lives in the kernel image: forget it, do not free it. */
	if (!page_test_flags(p, PG_RESERVED))
		page_free(p, 0);
	pt_tables_account(-1);
}

/* roots */

int pt_root_alloc(paddr_t *root, paddr_t kernel_root)
{
	return pt_root_alloc_node(root, kernel_root, PMM_NODE_LOCAL, PMM_FALLBACK);
}

int pt_root_alloc_node(paddr_t *root, paddr_t kernel_root, unsigned node, unsigned flags)
{
	struct page *p = pt_table_alloc_node(node, flags);
	pte_t *t, *k;
	unsigned i;

	if (!p)
		return -ENOMEM;
	*root = page_to_phys(p);
	if (!kernel_root)
		return 0;
	t = pt_table(*root);
	k = pt_table(kernel_root);
	for (i = ARCH_PT_KERNEL_FIRST; i < ARCH_PT_ENTRIES; i++) {
		t[i] = pt_get(k, i);
		if (pte_present(t[i]))
			p->priv++;
	}
	return 0;
}

/* Counts the present entries of a table pt did not build, and of the tables below it. */
static int pt_adopt_table(paddr_t table, int level)
{
	const pte_t *t = pt_table(table);
	struct page *tp;
	unsigned i, n = 0;
	int err;

	if (!pfn_valid(table >> PAGE_SHIFT))
		return -EINVAL;
	tp = phys_to_page(table);
	if (page_test_flags(tp, PG_PGTABLE)) {
		/* Reached through a second entry: emptying it must never free it. */
		tp->priv |= PT_SHARED_TABLE;
		return 0;
	}
	for (i = 0; i < ARCH_PT_ENTRIES; i++) {
		pte_t e = pt_get(t, i);

		if (!pte_present(e))
			continue;
		n++;
		if (pte_is_leaf(e, level))
			continue;
		err = pt_adopt_table(pte_addr(e, level), level - 1);
		if (err)
			return err;
	}
	tp->priv = n;
	page_set_flags(tp, PG_PGTABLE);
	pt_tables_account(1);
	return 0;
}

int pt_root_adopt(paddr_t root)
{
	return pt_adopt_table(root, PT_LEVELS);
}

int pt_root_free(paddr_t root)
{
	pte_t *t = pt_table(root);
	unsigned i;

	for (i = 0; i < ARCH_PT_KERNEL_FIRST; i++)
		if (pte_present(pt_get(t, i)))
			return -EBUSY;
	pt_table_free(phys_to_page(root));
	return 0;
}

u64 pt_table_pages(void)
{
	return atomic_load_relaxed(&pt_tables_in_use);
}
