/*
 * The torture's cases, audit barrier and end checks (tests/torture/torture.h).
 * The audit runs with every CPU stopped at a barrier: lazy's deferred work
 * settled first, then every leaf of every address space is counted, so each
 * mapped frame's map count and refcount must equal what the tables say, no
 * freed frame may be reachable, and each present tracked page must carry
 * the value the model expects.
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "lib/format.h"
#include "mm/counters.h"
#include "mm/devmem.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "mm/swap/swap.h"
#include "mm/swap/swapdev.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/mm_emul.h"
#include "tests/torture/torture_internal.h"
#include <arch/arch.h>

extern struct devmem t_devmem;
static struct torture_config t_conf;
static u64 t_end_ms, t_next_audit;
static u32 t_arrived, t_release_gen, t_audit_req;
/*
 * Leaves per frame, keyed by pfn (open addressing; emptied at each audit):
 * a table indexed by pfn would alias frames in the kernel's memory.
 */
#define T_COUNT_SLOTS 4096
static struct {
	u64 key; /* pfn + 1; 0: empty */
	u16 n;
} t_counts[T_COUNT_SLOTS];
static struct pmm_stats t_pmm0;
static u64 t_tables0;
static struct quarantine_stats t_q0;
static u64 t_swapdev0;

/* Frames the RAM swap device holds: slot frames and its own tables (made on demand). */
static u64 swapdev_frames(void)
{
	struct swap_ram_stats s;

	swap_ram_stats_get(swap_dev_of(t_swap_type), &s);
	return s.frames + s.meta_pages;
}

/* Controls (wrong on purpose) are cases only when asked for: they must fail. */
bool torture_controls;

bool torture_slow_tick_case;
static unsigned t_lazy_hz; /* lazy's tick rate as the run was asked for */
bool t_slow_tick;

/* The designs' cases, one each, in table order. */
static const struct design *design_case(unsigned i)
{
	for (unsigned k = 0; tlb_designs[k]; k++)
		if (tlb_designs[k]->control == torture_controls && i-- == 0)
			return tlb_designs[k];
	return NULL;
}

static unsigned design_cases(void)
{
	unsigned n = 0;

	while (design_case(n))
		n++;
	return n;
}

/* The case after the designs' (torture_slow_tick_case): lazy at its slowest tick. */
static bool case_slow_tick(unsigned i)
{
	return torture_slow_tick_case && !torture_controls && i == design_cases();
}

static const struct design *case_design(unsigned i)
{
	return case_slow_tick(i) ? &tlb_ops_lazy.d : design_case(i);
}

unsigned torture_ncases(void)
{
	return design_cases() + (torture_slow_tick_case && !torture_controls);
}

const char *torture_case_name(unsigned i)
{
	return case_slow_tick(i) ? "lazy_slow_tick" : case_design(i)->name;
}

int torture_setup(const struct torture_config *cfg)
{
	int err;

	t_conf = *cfg;
	t_lazy_hz = tlb_lazy_tick_hz();
	torture_set_seed(cfg->seed);
	err = swap_on_ram(128, &t_swap_type); /* small: a full device happens */
	if (!err)
		err = devmem_create(&t_devmem, 4, 4);
	/* A design may allocate what it keeps at its first enable: not a case's leak. */
	for (unsigned i = 0; !err && tlb_designs[i]; i++) {
		err = tlb_design_enable(tlb_ops_of(tlb_designs[i]), true);
		if (!err)
			err = tlb_design_enable(tlb_ops_of(tlb_designs[i]), false);
	}
	return err;
}

/* @pfn's counter, added if new (NULL when the table is full: a failure). */
static u16 *count_of(u64 pfn, bool add)
{
	unsigned h = (unsigned)(pfn * 0x9e3779b97f4a7c15ull >> 52) % T_COUNT_SLOTS;

	for (unsigned k = 0; k < T_COUNT_SLOTS; k++, h = (h + 1) % T_COUNT_SLOTS) {
		if (t_counts[h].key == pfn + 1)
			return &t_counts[h].n;
		if (!t_counts[h].key) {
			if (!add)
				return NULL;
			t_counts[h].key = pfn + 1;
			return &t_counts[h].n;
		}
	}
	torture_fail("audit: more than %u frames mapped", T_COUNT_SLOTS);
	return NULL;
}

struct audit_walk {
	struct tslot *s;
	unsigned r;
};

/* Every word of tracked page @p the model follows (torture_ops.c's t_word()). */
static void audit_content(const struct tslot *s, vaddr_t va, struct page *p, u64 val)
{
	for (unsigned k = 0; k < T_WORDS && val != T_TORN; k++) {
		u64 v = torture_user_load((u64 *)((char *)page_address(p) + t_word_off[k]));

		if (v != t_word(val, k))
			torture_fail("audit: mm %lu 0x%lx holds 0x%lx at +0x%x, expected 0x%lx",
				     (unsigned long)s->id, (unsigned long)va, (unsigned long)v,
				     t_word_off[k], (unsigned long)t_word(val, k));
	}
}

static int audit_leaf(void *arg, const struct pt_leaf *l)
{
	struct audit_walk *w = arg;
	u64 pfn = l->pa >> 12;
	unsigned i = (unsigned)((l->va - t_base[w->r]) / T_KB4);
	struct page *p;
	u16 *cnt;

	if (!l->pa)
		return 0; /* a swap entry */
	if (!pfn_valid(pfn)) {
		torture_fail("mm %lu maps 0x%lx outside memory", (unsigned long)w->s->id,
			     (unsigned long)l->pa);
		return -EINVAL;
	}
	p = pfn_to_page(pfn);
	if (page_test_flags(p, PG_FREED))
		torture_fail("freed frame 0x%lx reachable from mm %lu at 0x%lx",
			     (unsigned long)l->pa, (unsigned long)w->s->id, (unsigned long)l->va);
	t_dead_leaf_seen(pfn, l->va);
	cnt = count_of(pfn, true);
	if (cnt)
		(*cnt)++;
	if (i < T_PAGES)
		audit_content(w->s, l->va, p, w->s->model[w->r]->p[i].val);
	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
	return 0;
}

static int audit_count(void *arg, const struct pt_leaf *l)
{
	u64 pfn = l->pa >> 12;
	struct page *p;
	u16 *cnt;
	unsigned n;

	(void)arg;
	if (!l->pa || !pfn_valid(pfn))
		return 0;
	p = pfn_to_page(pfn);
	cnt = count_of(pfn, false);
	n = cnt ? *cnt : 0;
	if (!n)
		return 0; /* checked already */
	*cnt = 0;
	/*
	 * A quarantined frame keeps a reference of its own (mm/quarantine.h),
	 * a pin kept across operations its bias.
	 */
	if (page_mapcount(p) != (int)n ||
	    page_ref_count(p) != (int)(n + t_quarantined_refs(pfn) + t_held_pins(p) * PIN_BIAS))
		torture_fail("frame 0x%lx: %u leaves map it, map count %d, refcount %d (%u quarantined, "
			     "%u held pins)",
			     (unsigned long)l->pa, n, page_mapcount(p), page_ref_count(p),
			     t_quarantined_refs(pfn), t_held_pins(p));
	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
	return 0;
}

static void audit_walk_all(pt_walk_fn *fn)
{
	for (unsigned k = 0; k < T_SLOTS; k++) {
		struct tslot *s = &t_slots[k];

		if (s->state != SLOT_LIVE)
			continue;
		for (unsigned r = 0; r < T_REGIONS; r++) {
			struct audit_walk w = { s, r };

			pt_walk(s->mm->root, t_base[r], t_len[r], fn, &w);
		}
	}
}

/*
 * Frames a gather freed while its flush's call went unacknowledged (a
 * flush that returned before its targets answered): the kernel counts
 * each (mm/tlb_batch.c), which no real design may ever do.
 */
static u64 t_unacked0;

static void unacked_check(void)
{
	u64 n = percpu_counter_sum(PCPU_TLB_UNACKED_FREES) - t_unacked0;

	if (n)
		torture_fail("%s: %lu gathers freed their frames before the flush's targets "
			     "acknowledged", t_unmap_ops->d.name, (unsigned long)n);
}

/* CPU 0, every other CPU at the barrier. */
static void audit_run(void)
{
	for (unsigned k = 0; k < T_SLOTS; k++) {
		struct tslot *s = &t_slots[k];
		int err = s->state == SLOT_LIVE ? tlb_settle(t_unmap_ops, s->mm) : 0;

		if (err && !t_dead_err(err))
			torture_fail("settle before the audit: %d", err);
	}
	t_dead_check(t_conf.ncpus, "audit");
	t_dead_audit();
	unacked_check();
	/*
	 * Stale TLB uses are not failures here: an access may race the clear
	 * of its entry and use the old translation until the flush, as on
	 * hardware (write-protect, swap-out). What must not happen is a frame
	 * freed before its flush (below), or a write lost (the model).
	 */
	if (emul_early_frees())
		torture_fail("%lu frames freed before their flush",
			     (unsigned long)emul_early_frees());
	__builtin_memset(t_counts, 0, sizeof(t_counts));
	audit_walk_all(audit_leaf);
	audit_walk_all(audit_count);
	t_audit_tables();
}

/*
 * The audit barrier, asked for by CPU 0 (t_audit_req 1; 2 at the end of
 * the case): every CPU arrives, CPU 0 audits, then releases them.
 */
static void audit_barrier(unsigned cpu, bool last)
{
	u32 gen = __atomic_load_n(&t_release_gen, __ATOMIC_ACQUIRE);
	bool dark = (int)cpu == t_dead_cpu && __atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE);

	__atomic_add_fetch(&t_arrived, 1, __ATOMIC_SEQ_CST);
	if (cpu != 0) {
		/* The dark CPU waits with interrupts off and switches nothing. */
		while (__atomic_load_n(&t_release_gen, __ATOMIC_ACQUIRE) == gen &&
		       !torture_failed()) {
			if (dark) {
				arch_cpu_relax();
				continue;
			}
			/* A bare flush changes nothing the audit counts: the pushes go on. */
			if (t_dead_pushing(cpu))
				t_dead_push(&t_cpus[cpu]);
			t_service();
		}
		return;
	}
	/* A CPU that failed has left its loop: nobody waits for it. */
	while (__atomic_load_n(&t_arrived, __ATOMIC_SEQ_CST) < t_conf.ncpus && !torture_failed())
		t_service();
	if (!torture_failed())
		audit_run();
	__atomic_store_n(&t_arrived, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t_audit_req, last ? 2 : 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&t_release_gen, 1, __ATOMIC_RELEASE);
}

bool t_audit_join(unsigned cpu)
{
	u32 req = __atomic_load_n(&t_audit_req, __ATOMIC_ACQUIRE);

	if (cpu != 0 && req == 1) {
		audit_barrier(cpu, false);
		req = __atomic_load_n(&t_audit_req, __ATOMIC_ACQUIRE);
	}
	return req == 2;
}

/* The case's design's own counters (DESIGN_COUNTERS()) at its start, for its end line. */
static u64 t_design_counts0[PCPU_COUNTER_SLOTS];

/*
 * One line per case of what the design's own counters did (early_ack's
 * frames kept to the next gather, lazy's queued entries): evidence that the
 * case drove the design's own path, not only the path it shares.
 */
static void case_design_line(unsigned i)
{
	const struct pcpu_counter *const *k = t_unmap_ops->d.counters;
	char line[200];
	int n = fmt_snprintf(line, sizeof(line), "# %s: design counters", torture_case_name(i));

	for (unsigned j = 0; k && k[j] && n < (int)sizeof(line); j++)
		n += fmt_snprintf(line + n, sizeof(line) - (size_t)n, " %s=%lu", k[j]->name,
				  (unsigned long)(percpu_counter_sum(k[j]) - t_design_counts0[j]));
	if (k)
		torture_env_line(line);
}

int torture_case_begin(unsigned i)
{
	static u32 round;
	const struct pcpu_counter *const *k;
	int err = 0;

	t_unmap_ops = tlb_ops_of(case_design(i));
	k = t_unmap_ops->d.counters;
	for (unsigned j = 0; k && k[j] && j < PCPU_COUNTER_SLOTS; j++)
		t_design_counts0[j] = percpu_counter_sum(k[j]);
	t_unacked0 = percpu_counter_sum(PCPU_TLB_UNACKED_FREES);
	t_slow_tick = case_slow_tick(i);
	tlb_lazy_set_tick_hz(t_slow_tick ? TLB_LAZY_HZ_MIN : t_lazy_hz);
	mapping_init(&t_mapping, "torture", fault_lock_ops_of(fault_lock_designs[i % 3]));
	pmm_drain_all();
	pmm_stats_get(&t_pmm0);
	t_tables0 = pt_table_pages();
	quarantine_stats_get(&t_q0);
	t_swapdev0 = swapdev_frames();
	for (unsigned c = 0; c < t_conf.ncpus; c++)
		t_cpus[c] = (struct tcpu){
			.rng = t_conf.seed * 0x9e3779b97f4a7c15ull + c * 7919 + i + 1,
		};
	for (unsigned k = 0; k < T_SLOTS && !err; k++) {
		t_slots[k].state = SLOT_BUSY;
		err = k < 2 ? t_slot_create(&t_slots[k]) : 0;
		if (err)
			torture_fail("case %s: address space %u could not be set up: %d (%lu frames "
				     "free)", torture_case_name(i), k, err,
				     (unsigned long)t_pmm0.free);
		if (k >= 2)
			t_slots[k].state = SLOT_EMPTY;
	}
	if (!err) {
		err = tlb_design_enable(t_unmap_ops, true);
		if (err)
			torture_fail("case %s: enabling %s failed: %d", torture_case_name(i),
				     t_unmap_ops->d.name, err);
	}
	t_end_ms = torture_env_now_ms() + (u64)t_conf.seconds * 1000 / torture_ncases();
	t_next_audit = torture_env_now_ms() + t_conf.audit_ms;
	t_dead_plan(&t_conf, i, case_slow_tick(i), torture_env_now_ms(),
		    (u64)t_conf.seconds * 1000 / torture_ncases());
	t_arrived = t_audit_req = 0;
	round++;
	return err;
}

/* The dark CPU's rest of the case: only the audit barriers, interrupts off. */
static void case_cpu_dark(unsigned cpu)
{
	unsigned long flags = t_dead_enter(cpu);

	while (!torture_failed()) {
		u32 req = __atomic_load_n(&t_audit_req, __ATOMIC_ACQUIRE);

		if (req == 2)
			break;
		if (req == 1)
			audit_barrier(cpu, false);
		else
			arch_cpu_relax();
	}
	t_dead_leave(cpu, flags);
}

void torture_case_cpu(unsigned i, unsigned cpu)
{
	(void)i;
	while (!torture_failed()) {
		u64 now = torture_env_now_ms();
		bool last = now >= t_end_ms;

		if (cpu == 0 && (now >= t_next_audit || last)) {
			t_next_audit = now + t_conf.audit_ms;
			__atomic_store_n(&t_audit_req, 1, __ATOMIC_SEQ_CST);
			audit_barrier(cpu, last);
		}
		if (t_audit_join(cpu))
			break;
		if (t_dead_due(cpu, now)) {
			case_cpu_dark(cpu);
			break;
		}
		t_service();
		torture_op(cpu);
	}
	t_pin_release(cpu);
	mm_switch(NULL);
}

unsigned t_ncpus(void)
{
	return t_conf.ncpus;
}

/* Teardown, then the counts every subsystem must be back at. */
bool torture_case_end(unsigned i)
{
	struct quarantine_stats q;
	struct pmm_stats pm;
	struct swap_stats ss;
	const char *why;

	(void)i;
	for (unsigned k = 0; k < T_SLOTS; k++) {
		if (t_slots[k].state == SLOT_LIVE) {
			t_slots[k].state = SLOT_BUSY;
			t_slot_destroy(&t_slots[k]);
		}
	}
	tlb_settle(t_unmap_ops, NULL);
	tlb_design_enable(t_unmap_ops, false);
	case_design_line(i);
	pmm_drain_all();
	pmm_stats_get(&pm);
	quarantine_stats_get(&q);
	/* Distinct frames: one shared by two address spaces may be quarantined twice. */
	if (pm.free + t_quarantined_frames() + (q.tables - t_q0.tables) +
	    (swapdev_frames() - t_swapdev0) != t_pmm0.free)
		torture_fail("allocator: %lu frames free after teardown, %lu before (%lu quarantined: "
			     "%lu distinct frames of %lu quarantines, %lu tables)",
			     (unsigned long)pm.free, (unsigned long)t_pmm0.free,
			     (unsigned long)(t_quarantined_frames() + q.tables - t_q0.tables),
			     (unsigned long)t_quarantined_frames(),
			     (unsigned long)(q.frames - t_q0.frames),
			     (unsigned long)(q.tables - t_q0.tables));
	if (q.tables == t_q0.tables && pt_table_pages() != t_tables0)
		torture_fail("page tables: %lu after teardown, %lu before",
			     (unsigned long)pt_table_pages(), (unsigned long)t_tables0);
	if (!swap_stats_get(t_swap_type, &ss) && ss.inuse)
		torture_fail("swap: %lu slots in use after teardown", (unsigned long)ss.inuse);
	if (swap_check_consistency(t_swap_type, &why))
		torture_fail("swap device inconsistent: %s", why);
	if (emul_early_frees())
		torture_fail("%lu frames freed before their flush",
			     (unsigned long)emul_early_frees());
	t_dead_check(t_conf.ncpus, "end");
	unacked_check();
	t_checks += 7;
	return !torture_failed();
}
