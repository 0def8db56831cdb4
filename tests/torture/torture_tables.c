/*
 * The table audit of the torture (tests/torture/torture_case.c runs it at
 * each audit barrier, every CPU stopped): each user-half table page is
 * reachable from one live root through one entry, is a live table page, and
 * holds as many entries as its struct page counts. A table linked twice or
 * after its free is one another owner may fill or free under this one. Only
 * the kernel half's tables are shared (pt_root_alloc()).
 */
#include "mm/page.h"
#include "mm/pt_entry.h"
#include "tests/torture/torture_internal.h"

/* Table page -> the slot whose root reached it (open addressing, emptied at each audit). */
#define T_TABLE_SLOTS 2048
static struct {
	u64 key; /* pfn + 1; 0: empty */
	u32 owner;
} t_owner[T_TABLE_SLOTS];

/* Records @pfn as reached from slot @k; false (and a failure) when something reached it before. */
static bool table_claim(u64 pfn, unsigned k)
{
	unsigned h = (unsigned)(pfn * 0x9e3779b97f4a7c15ull >> 53) % T_TABLE_SLOTS;

	for (unsigned n = 0; n < T_TABLE_SLOTS; n++, h = (h + 1) % T_TABLE_SLOTS) {
		if (t_owner[h].key == pfn + 1) {
			torture_fail("table 0x%lx reachable from mm %lu and from mm %lu",
				     (unsigned long)(pfn << 12),
				     (unsigned long)t_slots[t_owner[h].owner].id,
				     (unsigned long)t_slots[k].id);
			return false;
		}
		if (!t_owner[h].key) {
			t_owner[h].key = pfn + 1;
			t_owner[h].owner = k;
			return true;
		}
	}
	torture_fail("table audit: more than %u tables", T_TABLE_SLOTS);
	return false;
}

/* The table at @pa (level @level) of slot @k, and every table below it. */
static void table_audit(paddr_t pa, int level, unsigned k, unsigned first, unsigned end)
{
	const pte_t *t = pt_table(pa);
	struct page *tp = phys_to_page(pa);
	u64 nonzero = 0;

	if (!pfn_valid(pa >> 12) || page_test_flags(tp, PG_FREED) ||
	    !page_test_flags(tp, PG_PGTABLE)) {
		torture_fail("mm %lu links 0x%lx at level %d: not a live table page",
			     (unsigned long)t_slots[k].id, (unsigned long)pa, level);
		return;
	}
	if (!table_claim(pa >> 12, k))
		return;
	for (unsigned i = 0; i < ARCH_PT_ENTRIES; i++) {
		pte_t e = pt_get(t, i);

		nonzero += e != 0;
		if (i < first || i >= end || !pte_present(e) || pte_is_leaf(e, level))
			continue;
		table_audit(pte_addr(e, level), level - 1, k, 0, ARCH_PT_ENTRIES);
	}
	/* The root also counts the kernel half's entries it copied: its count is not checked. */
	if (level < PT_LEVELS && nonzero != (tp->priv & ~PT_SHARED_TABLE))
		torture_fail("table 0x%lx of mm %lu: %lu non-zero entries, its count says %lu",
			     (unsigned long)pa, (unsigned long)t_slots[k].id,
			     (unsigned long)nonzero, (unsigned long)(tp->priv & ~PT_SHARED_TABLE));
	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
}

void t_audit_tables(void)
{
	__builtin_memset(t_owner, 0, sizeof(t_owner));
	for (unsigned k = 0; k < T_SLOTS && !torture_failed(); k++)
		if (t_slots[k].state == SLOT_LIVE)
			table_audit(t_slots[k].mm->root, PT_LEVELS, k, 0, ARCH_PT_KERNEL_FIRST);
}
