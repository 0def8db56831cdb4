/*
 * The randomized test of mm/pt.c: long sequences of map, unmap, protect and
 * lookup at every page size across a PML4 boundary, with out-of-memory
 * injected, checked against a reference model; periodic full walks check
 * every table against the model, its entry count, and that no emptied table
 * stays linked. Deterministic for a seed, which is printed; MMLAB_SEED and
 * MMLAB_PT_OPS (host) change seed and length.
 */
#include "errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include <arch/pte.h>

#ifdef HOST_BUILD
#include <stdlib.h>

#include "tests/host/fake_arch.h"

#define RAND_OPS 100000
#define RAND_WINDOW (4ull << 30)
#else
#define RAND_OPS 5000 /* the host run is the thorough one; this checks the kernel build */
#define RAND_WINDOW (2ull << 30) /* the model then fits one order-10 block */
#endif

/* Crosses a PML4 boundary (512 GiB) in the middle. */
#define RAND_BASE ((512ull << 30) - RAND_WINDOW / 2)
#define RAND_FULL_CHECK_EVERY 5000

/* A model entry per 4 KiB page of the window: 0, or its pa | leaf level << 6 | prot. */
#define M_LEVEL_SHIFT 6
#define M_PROT_MASK 0x3full
#define M_LOG_MAX 8

static u64 rng_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

enum rop_kind { ROP_MAP, ROP_UNMAP, ROP_PROTECT, ROP_LOOKUP, ROP_KINDS };

struct rop {
	enum rop_kind kind;
	vaddr_t va;
	u64 len, size;
	paddr_t pa;
	unsigned prot;
};

struct model {
	u64 *e;
	u64 pages;
	u64 fails, enomem, done[ROP_KINDS], peak_tables;
	u64 splits[2];	    /* of 2 MiB pages, of 1 GiB pages */
	struct page *block; /* kernel: the model's storage */
};

static const unsigned rand_prots[] = {
	PROT_READ,
	PRW,
	PROT_READ | PROT_EXEC,
	PRW | PROT_USER | PROT_GLOBAL,
	PROT_READ | PROT_NOCACHE,
};

static u64 *ment(struct model *m, vaddr_t va)
{
	return &m->e[(va - RAND_BASE) >> PAGE_SHIFT];
}

static int ment_level(u64 e)
{
	return (e >> M_LEVEL_SHIFT) & 3;
}

static bool in_window(vaddr_t va)
{
	return va >= RAND_BASE && va - RAND_BASE < RAND_WINDOW;
}

static bool model_alloc(struct model *m)
{
	m->pages = RAND_WINDOW >> PAGE_SHIFT;
#ifdef HOST_BUILD
	m->e = calloc(m->pages, sizeof(u64));
#else
	BUILD_ASSERT((RAND_WINDOW >> PAGE_SHIFT) * sizeof(u64) <= PAGE_SIZE << PMM_MAX_ORDER);
	m->block = page_alloc(PMM_MAX_ORDER, PMM_ZERO);
	m->e = m->block ? page_address(m->block) : NULL;
#endif
	return m->e != NULL;
}

static void model_free(struct model *m)
{
#ifdef HOST_BUILD
	free(m->e);
#else
	page_free(m->block, PMM_MAX_ORDER);
#endif
}

static void model_fail(struct ktest *t, struct model *m, vaddr_t va, const char *what)
{
	if (m->fails++ < M_LOG_MAX)
		ktest_log(t, "va 0x%lx: %s (model 0x%lx)", va, what,
			  in_window(va) ? *ment(m, va) : 0);
}

static bool model_mapped_any(struct model *m, vaddr_t va, u64 len)
{
	u64 off;

	for (off = 0; off < len; off += KB4)
		if (*ment(m, va + off))
			return true;
	return false;
}

static void model_set_level(struct model *m, vaddr_t base, u64 size, int level)
{
	u64 off;

	for (off = 0; off < size; off += KB4) {
		u64 *e = ment(m, base + off);

		*e = (*e & ~(3ull << M_LEVEL_SHIFT)) | ((u64)level << M_LEVEL_SHIFT);
	}
}

/* The split pt.c makes when a change starts or ends at @x inside a huge page. */
static void model_split_at(struct model *m, vaddr_t x, const struct rop *op)
{
	u64 e, size;
	int level;

	if (!in_window(x) || !(e = *ment(m, x)) || (level = ment_level(e)) == 1)
		return;
	size = PTE_LEVEL_SIZE(level);
	if (IS_ALIGNED(x, size) ||
	    (op->kind == ROP_PROTECT && (e & M_PROT_MASK) == pt_prot_effective(op->prot)))
		return;
	model_set_level(m, ALIGN_DOWN(x, size), size, level - 1);
	m->splits[level - 2]++;
	if (level == 3 && !IS_ALIGNED(x, MB2)) {
		model_set_level(m, ALIGN_DOWN(x, MB2), MB2, 1);
		m->splits[0]++;
	}
}

static void model_apply(struct model *m, const struct rop *op)
{
	u64 leaf = (u64)(op->size == KB4 ? 1 : op->size == MB2 ? 2 : 3) << M_LEVEL_SHIFT;
	u64 off;

	if (op->kind != ROP_MAP) {
		model_split_at(m, op->va, op);
		model_split_at(m, op->va + op->len, op);
	}
	for (off = 0; off < op->len; off += KB4) {
		u64 *e = ment(m, op->va + off);

		if (op->kind == ROP_MAP)
			*e = (op->pa + off) | leaf | pt_prot_effective(op->prot);
		else if (op->kind == ROP_UNMAP)
			*e = 0;
		else if (*e)
			*e = (*e & ~M_PROT_MASK) | pt_prot_effective(op->prot);
	}
}

static void check_page(struct ktest *t, struct model *m, paddr_t root, vaddr_t va)
{
	paddr_t pa = 0;
	unsigned prot = 0;
	u64 e, size = 0;
	int err;

	if (!in_window(va))
		return;
	e = *ment(m, va);
	err = pt_lookup(root, va, &pa, &prot, &size);
	if (e ? !err && pa == (e & ~0xfffull) && prot == (e & M_PROT_MASK) &&
		    size == PTE_LEVEL_SIZE(ment_level(e))
	      : err == -ENOENT)
		return;
	model_fail(t, m, va, "pt_lookup disagrees with the model");
	if (m->fails <= M_LOG_MAX)
		ktest_log(t, "  pt_lookup: %d, pa 0x%lx prot 0x%x size 0x%lx", err, pa, prot, size);
}

static unsigned pte_prot(pte_t e)
{
	return PROT_READ | (e & PTE_RW ? PROT_WRITE : 0) | (e & PTE_NX ? 0 : PROT_EXEC) |
	       (e & PTE_US ? PROT_USER : 0) | (e & PTE_G ? PROT_GLOBAL : 0) |
	       (e & PTE_PCD ? PROT_NOCACHE : 0);
}

struct walk {
	struct model *m;
	u64 tables, next; /* tables seen; first model page not yet compared */
};

static void walk_leaf(struct ktest *t, struct walk *w, vaddr_t va, int level, pte_t pte)
{
	u64 first = (va - RAND_BASE) >> PAGE_SHIFT, n = PTE_LEVEL_SIZE(level) >> PAGE_SHIFT, k;
	u64 bits = ((u64)level << M_LEVEL_SHIFT) | pte_prot(pte);

	if (!in_window(va) || !!(pte & PTE_PS) != (level > 1)) {
		model_fail(t, w->m, va, "stray or malformed leaf");
		return;
	}
	for (; w->next < first; w->next++)
		if (w->m->e[w->next])
			model_fail(t, w->m, RAND_BASE + (w->next << PAGE_SHIFT), "no leaf maps it");
	for (k = 0; k < n; k++)
		if (w->m->e[first + k] != ((pte_addr(pte, level) + (k << PAGE_SHIFT)) | bits))
			model_fail(t, w->m, va + (k << PAGE_SHIFT), "leaf differs from the model");
	w->next = first + n;
}

/* Walks every table: leaves against the model, entry counts, no empty table but the root. */
static void walk_table(struct ktest *t, struct walk *w, paddr_t table, int level, vaddr_t base)
{
	const pte_t *tab = phys_to_virt(table);
	u64 present = 0;
	unsigned i;

	w->tables++;
	for (i = 0; i < PTE_PER_TABLE; i++) {
		vaddr_t va = base + i * PTE_LEVEL_SIZE(level);

		if (!pte_present(tab[i]))
			continue;
		present++;
		if (pte_is_leaf(tab[i], level))
			walk_leaf(t, w, va, level, tab[i]);
		else
			walk_table(t, w, pte_addr(tab[i], level), level - 1, va);
	}
	if (present != phys_to_page(table)->priv || (!present && level < PTE_LEVELS))
		model_fail(t, w->m, base, "table entry count wrong, or table empty");
}

static void full_check(struct ktest *t, struct model *m, paddr_t root, u64 tables_base)
{
	struct walk w = { m, 0, 0 };

	walk_table(t, &w, root, PTE_LEVELS, 0);
	for (; w.next < m->pages; w.next++)
		if (m->e[w.next])
			model_fail(t, m, RAND_BASE + (w.next << PAGE_SHIFT), "no leaf maps it");
	if (w.tables != pt_table_pages() - tables_base)
		model_fail(t, m, 0, "tables reachable differ from pt_table_pages()");
	m->peak_tables = MAX(m->peak_tables, w.tables);
}

static void rop_pick(u64 *seed, struct rop *op)
{
	u64 r = rng_next(seed), kind = (r >> 8) % 100, n;

	op->kind = kind < 40   ? ROP_MAP
		   : kind < 65 ? ROP_UNMAP
		   : kind < 88 ? ROP_PROTECT
			       : ROP_LOOKUP;
	op->size = r % 100 < 65 ? KB4 : r % 100 < 92 ? MB2 : GB1;
	n = 1 + (r >> 16) % (op->size == KB4 ? 64 : op->size == MB2 ? 8 : 2);
	op->va = RAND_BASE + ALIGN_DOWN(rng_next(seed) % RAND_WINDOW, op->size);
	op->pa = ALIGN_DOWN(rng_next(seed) % (1ull << 40), op->size);
	op->prot = rand_prots[(r >> 24) % ARRAY_SIZE(rand_prots)];
	/* Unmap and protect at 4 KiB granularity may start inside a huge page. */
	if (op->kind != ROP_MAP && op->size != KB4 && ((r >> 32) & 1))
		op->va += ((r >> 33) % 512) * KB4;
	op->len = MIN(n * op->size, RAND_BASE + RAND_WINDOW - op->va);
}

/*
 * The root under test is never loaded on any CPU, so no TLB holds its
 * entries: skip the flush (on an emulated KVM each invlpg is a costly exit).
 */
static void rand_no_flush(struct pt_gather *g)
{
	(void)g;
}

static void rop_run(struct ktest *t, struct model *m, paddr_t root, const struct rop *op,
		    u32 inject)
{
	int want = op->kind == ROP_MAP && model_mapped_any(m, op->va, op->len) ? -EEXIST : 0;
	struct pt_gather g;
	int err = 0;

	if (inject)
		pmm_inject_fail(inject - 1, 1);
	if (op->kind == ROP_MAP) {
		err = pt_map(root, op->va, op->pa, op->len, op->prot, op->size);
	} else if (op->kind == ROP_UNMAP) {
		pt_gather_init(&g, rand_no_flush, NULL);
		err = pt_unmap(root, op->va, op->len, &g);
		pt_gather_finish(&g);
	} else if (op->kind == ROP_PROTECT) {
		err = pt_protect(root, op->va, op->len, op->prot);
	}
	pmm_inject_fail(0, 0);
	if (err == -ENOMEM && inject && !want) {
		m->enomem++;
		return;
	}
	if (err != want)
		model_fail(t, m, op->va, "unexpected result");
	else if (!err && op->kind != ROP_LOOKUP)
		model_apply(m, op);
	m->done[op->kind] += !err;
}

static void rop_check(struct ktest *t, struct model *m, paddr_t root, const struct rop *op,
		      u64 *seed)
{
	unsigned i;

	check_page(t, m, root, op->va - KB4);
	check_page(t, m, root, op->va);
	check_page(t, m, root, op->va + op->len - KB4);
	check_page(t, m, root, op->va + op->len);
	for (i = 0; i < 8; i++)
		check_page(t, m, root, op->va + ALIGN_DOWN(rng_next(seed) % op->len, KB4));
}

static void rand_params(u64 *seed, u64 *ops)
{
#ifdef HOST_BUILD
	const char *s = getenv("MMLAB_SEED"), *n = getenv("MMLAB_PT_OPS");

	if (s && *s)
		*seed = strtoull(s, NULL, 0);
	if (n && *n)
		*ops = strtoull(n, NULL, 0);
#else
	(void)seed;
	(void)ops;
#endif
}

/* Unmaps the whole window: every table but the root must go, then the root. */
static void rand_teardown(struct ktest *t, struct model *m, paddr_t root, u64 tables_base)
{
	struct pt_gather g;

	full_check(t, m, root, tables_base);
	pt_gather_init(&g, rand_no_flush, NULL);
	KEXPECT_EQ(t, pt_unmap(root, RAND_BASE, RAND_WINDOW, &g), 0);
	pt_gather_finish(&g);
	memset(m->e, 0, m->pages * sizeof(u64));
	full_check(t, m, root, tables_base);
	KEXPECT_EQ(t, pt_table_pages() - tables_base, 1);
	KEXPECT_EQ(t, pt_root_free(root), 0);
	KEXPECT_EQ(t, pt_table_pages(), tables_base);
}

static void rand_report(struct ktest *t, const struct model *m, u64 ops, const struct rop *op)
{
	ktest_log(t, "%lu ops: %lu maps, %lu unmaps, %lu protects, %lu lookups done", ops,
		  m->done[ROP_MAP], m->done[ROP_UNMAP], m->done[ROP_PROTECT], m->done[ROP_LOOKUP]);
	ktest_log(t, "%lu 2M and %lu 1G splits, %lu injected ENOMEM, peak %lu tables", m->splits[0],
		  m->splits[1], m->enomem, m->peak_tables);
	if (m->fails)
		ktest_log(t, "last op: kind %d va 0x%lx len 0x%lx size 0x%lx pa 0x%lx prot 0x%x",
			  op->kind, op->va, op->len, op->size, op->pa, op->prot);
}

static void test_pt_random(struct ktest *t)
{
	u64 seed = 0x6d6d6c6162ull, ops = RAND_OPS, i, tables_base = pt_table_pages();
	struct model m = { 0 };
	struct rop op = { 0 };
	paddr_t root = 0;

	rand_params(&seed, &ops);
	ktest_log(t, "seed 0x%lx, %lu operations (MMLAB_SEED, MMLAB_PT_OPS)", seed, ops);
	KASSERT(t, model_alloc(&m));
	KEXPECT_EQ(t, pt_root_alloc(&root, 0), 0);
	for (i = 0; root && i < ops && !m.fails; i++) {
		rop_pick(&seed, &op);
		rop_run(t, &m, root, &op, rng_next(&seed) % 64 == 0 ? 1 + rng_next(&seed) % 3 : 0);
		rop_check(t, &m, root, &op, &seed);
		if ((i + 1) % RAND_FULL_CHECK_EVERY == 0)
			full_check(t, &m, root, tables_base);
	}
	if (root)
		rand_teardown(t, &m, root, tables_base);
	rand_report(t, &m, i, &op);
	KEXPECT_EQ(t, m.fails, 0);
	KEXPECT_EQ(t, i, ops);
	KEXPECT_GT(t, m.enomem, 0);
	model_free(&m);
}

static const struct ktest_case pt_random_cases[] = {
	KTEST_CASE(test_pt_random),
};
KTEST_SUITE_EXT(pt_random, pt_random_cases, mm_test_fresh_pmm, NULL, NULL);
