/*
 * Tests of mapping objects (mm/mapping/mapping.c) that need no loaded address
 * space: fork attaches a child, the writer zaps and detaching works, slots
 * stay put; on the host, threads on fake CPUs race the writer and check that
 * it skips no attached region and that mm_populate() and mm_map_page() wait
 * for it. The fault path's lock designs are tests/mm/mapping/test_faultlock.c's. Host
 * and kernel; the threaded cases are host only.
 */
#include "errno.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/mm_emul.h"

#ifdef HOST_BUILD
#include <pthread.h>
#include <unistd.h>

#include "lib/atomic.h"
#include "tests/host/fake_arch.h"
#include <arch/pte.h>
#endif

#define RW (MM_READ | MM_WRITE)
#define REG 0x40000000ul
#define REG_LEN MAPPING_SHARE_ALIGN

static struct mm_mapping tm_mapping;

static int mapping_suite_init(struct ktest *t)
{
	mapping_init(&tm_mapping, "tm_mapping", &fault_lock_ops_fixed);
	return emul_suite_init(t);
}

/* An mm with one region at REG, @flags, attached to tm_mapping. */
static int tm_mm_create(struct mm **out, unsigned flags)
{
	int err = mm_create(out);

	if (!err)
		err = mm_map_region(*out, REG, REG_LEN, flags);
	if (!err)
		err = mapping_attach(&tm_mapping, *out, REG);
	return err;
}

static struct mm_mapping *region_mapping(struct mm *mm)
{
	struct mm_mapping *m;

	read_lock(&mm->lock);
	m = mm_region_find_locked(mm, REG)->mapping;
	read_unlock(&mm->lock);
	return m;
}

/* The child's copy of an attached region is attached too: zapped, and detachable. */
static void test_mapping_fork_attaches_child(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *parent, *child;

	KASSERT_EQ(t, tm_mm_create(&parent, RW), 0);
	emul_write(t, parent, REG, 7);
	emul_write(t, parent, REG + KB4, 8);
	KASSERT_EQ(t, mm_fork(parent, &child), 0);
	KEXPECT(t, region_mapping(child) == &tm_mapping);
	KEXPECT_EQ(t, tm_mapping.nattach, 2);
	emul_write(t, child, REG, 70); /* the child's own copy now */
	KEXPECT_EQ(t, emul_read(t, child, REG + KB4), 8);
	KEXPECT_EQ(t, mapping_zap(&tm_mapping, NULL), 0);
	KEXPECT(t, emul_page_at(parent, REG, NULL) == NULL);
	KEXPECT(t, emul_page_at(child, REG, NULL) == NULL);
	KEXPECT(t, emul_page_at(child, REG + KB4, NULL) == NULL);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, child, REG), 0);
	KEXPECT(t, region_mapping(child) == NULL);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, parent, REG), 0);
	KEXPECT_EQ(t, tm_mapping.nattach, 0);
	KEXPECT_EQ(t, mm_destroy(child), 0);
	KEXPECT_EQ(t, mm_destroy(parent), 0);
	emul_snap_expect(t, before);
}

/* Detaching one region moves no other entry; attaching fills the hole first. */
static void test_mapping_detach_keeps_slots(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm[3];

	for (unsigned i = 0; i < 3; i++)
		KASSERT_EQ(t, tm_mm_create(&mm[i], RW), 0);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, mm[0], REG), 0);
	KEXPECT_EQ(t, tm_mapping.nattach, 3);
	KEXPECT(t, tm_mapping.attach[0].mm == NULL);
	KEXPECT(t, tm_mapping.attach[2].mm == mm[2]);
	/* A zap over the hole still reaches the entries behind it. */
	emul_write(t, mm[2], REG, 1);
	KEXPECT_EQ(t, mapping_zap(&tm_mapping, NULL), 0);
	KEXPECT(t, emul_page_at(mm[2], REG, NULL) == NULL);
	KEXPECT_EQ(t, mapping_attach(&tm_mapping, mm[0], REG), 0);
	KEXPECT(t, tm_mapping.attach[0].mm == mm[0]);
	/* Emptied slots at the end go from the count. */
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, mm[2], REG), 0);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, mm[1], REG), 0);
	KEXPECT_EQ(t, tm_mapping.nattach, 1);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, mm[0], REG), 0);
	KEXPECT_EQ(t, tm_mapping.nattach, 0);
	for (unsigned i = 0; i < 3; i++)
		KEXPECT_EQ(t, mm_destroy(mm[i]), 0);
	emul_snap_expect(t, before);
}

#ifdef HOST_BUILD

struct midway {
	struct mm *victim, *holdup; /* detached midway; its zap is held up meanwhile */
	u32 ready;
};

/*
 * Holds @holdup's lock (as a fault or unmap in that address space would)
 * so the writer stops at that entry, waits until the writer has zapped
 * the entry before it, and detaches @victim from there.
 */
static void *midway_thread(void *p)
{
	struct midway *w = p;

	fake_arch_set_cpu(1);
	write_lock(&w->holdup->lock);
	atomic_store_release(&w->ready, 1);
	while (pt_lookup(w->victim->root, REG, NULL, NULL, NULL) == 0)
		;
	mapping_detach(&tm_mapping, w->victim, REG);
	write_unlock(&w->holdup->lock);
	return NULL;
}

/* A region attached throughout is zapped even when one walked before it goes meanwhile. */
static void test_mapping_zap_detach_midway(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *c0, *c1, *s;
	struct midway w;
	pthread_t th;

	KASSERT_EQ(t, tm_mm_create(&c0, RW | MM_PT_SHAREABLE), 0);
	KASSERT_EQ(t, tm_mm_create(&c1, RW | MM_PT_SHAREABLE), 0);
	KASSERT_EQ(t, tm_mm_create(&s, RW | MM_PT_SHAREABLE), 0);
	for (unsigned i = 0; i < 3; i++)
		KEXPECT_EQ(t, mm_populate((struct mm *[]){ c0, c1, s }[i], REG, KB4), 0);
	w = (struct midway){ c0, c1, 0 };
	KASSERT_EQ(t, pthread_create(&th, NULL, midway_thread, &w), 0);
	while (!atomic_load_acquire(&w.ready))
		;
	KEXPECT_EQ(t, mapping_zap(&tm_mapping, NULL), 0);
	pthread_join(th, NULL);
	KEXPECT(t, emul_page_at(c1, REG, NULL) == NULL);
	KEXPECT(t, emul_page_at(s, REG, NULL) == NULL);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, c1, REG), 0);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, s, REG), 0);
	KEXPECT_EQ(t, tm_mapping.nattach, 0);
	KEXPECT_EQ(t, mm_destroy(c0), 0);
	KEXPECT_EQ(t, mm_destroy(c1), 0);
	KEXPECT_EQ(t, mm_destroy(s), 0);
	emul_snap_expect(t, before);
}

struct installer {
	struct mm *mm;
	struct page *page; /* NULL: mm_populate(), else mm_map_page() of it */
	int err;
	u32 done;
};

static void *installer_thread(void *p)
{
	struct installer *in = p;

	fake_arch_set_cpu(1);
	in->err = in->page ? mm_map_page(in->mm, REG + KB4, in->page) :
			     mm_populate(in->mm, REG, KB4);
	atomic_store_release(&in->done, 1);
	return NULL;
}

/* True when @in finished within about 200 ms. */
static bool installer_finished(struct installer *in)
{
	for (int i = 0; i < 200 && !atomic_load_acquire(&in->done); i++)
		usleep(1000);
	return atomic_load_acquire(&in->done);
}

/*
 * mm_populate() and mm_map_page() on a shareable region wait for a writer
 * that holds the mapping lock (the writer zaps such a region under the
 * read side of mm->lock only, trusting that lock to keep them out).
 */
static void test_mapping_install_waits_for_writer(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct page *q = page_alloc(0, PMM_ZERO);
	struct mm *mm;

	KASSERT(t, q != NULL);
	KASSERT_EQ(t, tm_mm_create(&mm, RW | MM_PT_SHAREABLE), 0);
	for (unsigned k = 0; k < 2; k++) {
		struct installer in = { mm, k ? q : NULL, -1, 0 };
		pthread_t th;

		write_lock(&tm_mapping.lock);
		KASSERT_EQ(t, pthread_create(&th, NULL, installer_thread, &in), 0);
		KEXPECT(t, !installer_finished(&in));
		KEXPECT(t, emul_page_at(mm, REG + k * KB4, NULL) == NULL);
		write_unlock(&tm_mapping.lock);
		pthread_join(th, NULL);
		KEXPECT_EQ(t, in.err, 0);
		KEXPECT(t, emul_page_at(mm, REG + k * KB4, NULL) != NULL);
	}
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, mm, REG), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	KEXPECT_EQ(t, page_ref_count(q), 1);
	KEXPECT_EQ(t, page_free(q, 0), 0);
	emul_snap_expect(t, before);
}

#define POP_THREADS 2
#define POP_ZAPS 3000
#define POP_PAGES 4 /* per thread: the writer often empties and frees the table */

struct pop_arg {
	struct mm *mm;
	unsigned cpu;
	u32 *stop;
	u32 errors;
};

static void *pop_thread(void *p)
{
	struct pop_arg *a = p;
	vaddr_t base = REG + (vaddr_t)(a->cpu - 1) * POP_PAGES * KB4;

	fake_arch_set_cpu(a->cpu);
	while (!atomic_load_acquire(a->stop))
		if (mm_populate(a->mm, base, POP_PAGES * KB4))
			a->errors++;
	return NULL;
}

/* Entries present in the level-1 table under REG, or -1 if its count disagrees. */
static int pop_table_check(struct mm *mm)
{
	paddr_t tab = mm->root;
	const pte_t *tp;
	unsigned n = 0;

	for (int l = PTE_LEVELS; l > 1; l--) {
		pte_t e = ((const pte_t *)phys_to_virt(tab))[PTE_INDEX(REG, l)];

		if (!pte_present(e))
			return 0;
		tab = pte_addr(e, l);
	}
	tp = phys_to_virt(tab);
	for (unsigned i = 0; i < PTE_PER_TABLE; i++)
		n += tp[i] != 0;
	return phys_to_page(tab)->priv == n ? (int)n : -1;
}

/*
 * Threads populate a shareable region while the writer zaps it: no entry
 * count goes wrong, and no page is installed in a table the writer frees
 * (it would never be given back: the allocator check at the end).
 */
static void test_mapping_populate_races_zap(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct pop_arg args[POP_THREADS];
	pthread_t th[POP_THREADS];
	unsigned bad = 0; /* checks that found an entry count wrong */
	u32 stop = 0;
	struct mm *mm;

	KASSERT_EQ(t, tm_mm_create(&mm, RW | MM_PT_SHAREABLE), 0);
	for (unsigned i = 0; i < POP_THREADS; i++) {
		args[i] = (struct pop_arg){ mm, i + 1, &stop, 0 };
		KASSERT_EQ(t, pthread_create(&th[i], NULL, pop_thread, &args[i]), 0);
	}
	for (unsigned z = 0; z < POP_ZAPS; z++) {
		KEXPECT_EQ(t, mapping_zap(&tm_mapping, NULL), 0);
		/* As the writer sees the table: installers are kept out meanwhile. */
		write_lock(&tm_mapping.lock);
		bad += pop_table_check(mm) < 0;
		write_unlock(&tm_mapping.lock);
	}
	atomic_store_release(&stop, 1);
	for (unsigned i = 0; i < POP_THREADS; i++) {
		pthread_join(th[i], NULL);
		KEXPECT_EQ(t, args[i].errors, 0);
	}
	KEXPECT_EQ(t, bad, 0);
	KEXPECT_GE(t, pop_table_check(mm), 0);
	KEXPECT_EQ(t, mapping_detach(&tm_mapping, mm, REG), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

#else /* kernel: the writer races of a loaded mm are test_faultlock.c's */

static void test_mapping_zap_detach_midway(struct ktest *t)
{
	ktest_skip(t, "host only: needs a second thread to hold the writer up");
}

static void test_mapping_install_waits_for_writer(struct ktest *t)
{
	ktest_skip(t, "host only: needs a second thread; the kernel race is test_faultlock.c's");
}

static void test_mapping_populate_races_zap(struct ktest *t)
{
	ktest_skip(t, "host only: threads on fake CPUs; the kernel race is test_faultlock.c's");
}

#endif

static const struct ktest_case mapping_cases[] = {
	KTEST_CASE(test_mapping_fork_attaches_child),
	KTEST_CASE(test_mapping_detach_keeps_slots),
	KTEST_CASE(test_mapping_zap_detach_midway),
	KTEST_CASE(test_mapping_install_waits_for_writer),
	KTEST_CASE(test_mapping_populate_races_zap),
};
KTEST_SUITE_EXT(mapping, mapping_cases, mapping_suite_init, NULL, NULL);
