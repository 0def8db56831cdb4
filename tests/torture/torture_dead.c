/*
 * Dead-CPU injection (tests/torture/torture.h, struct torture_config's
 * revive): in each case one CPU other than the leader goes dark, interrupts
 * off, so a call's deadline writes it off, as a CPU hung in hardware. What
 * its TLB may still reach must stay out of the allocator until it comes back
 * at the case's end. Checked: no other CPU written off, freed frames against
 * its TLB, flushes failing only for an mm it runs.
 */
#include "errno.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pt.h"
#include "tests/torture/torture_internal.h"
#include <arch/arch.h>

int t_dead_cpu = -1;
bool t_dead_now;
u64 t_dead_since_ms;
struct tslot *t_dead_slot;
static u64 t_dead_at_ms;
static unsigned t_deaths;
/* Per CPU: the death (t_deaths) whose held page it unmapped (t_dead_unmap_due()). */
static unsigned t_dead_served[TORTURE_MAX_CPUS];
static void (*t_revive)(unsigned cpu);
static void (*t_audit_dark)(unsigned cpu);

/*
 * The frames the dark CPU's translations may reach: what its address
 * space mapped at the tracked pages once its interrupts were off (it wrote
 * each just before, so its TLB holds them, and it flushes nothing from
 * then on). Until its revival none of them may be freed or handed on
 * unless quarantined: the kernel's observer of a frame released under a
 * stale translation, where there is no model TLB (t_dead_frames_check()).
 */
#define T_DEAD_FRAMES (T_REGIONS * T_PAGES)
static struct {
	vaddr_t va;
	u64 pfn;
} t_dead_frames[T_DEAD_FRAMES];
static unsigned t_dead_nframes;

/*
 * Quarantined frames of this case and the references each keeps
 * (torture_mm_hook(); open addressing, lock-free). The kernel runs
 * several times the host's operations while a CPU is dark (2,054 frames
 * in 3 s at 2 CPUs, seed 1): 256 KiB of .bss there.
 */
#ifdef HOST_BUILD
#define T_QUAR_SLOTS 8192
#else
#define T_QUAR_SLOTS 16384
#endif
#define T_DARK_MS_MAX 3000
static struct {
	u64 key; /* pfn + 1; 0: empty */
	u32 refs;
} t_quar[T_QUAR_SLOTS];

/* A frame's first slot: the hash's high 32 bits, so every slot can be one. */
static unsigned t_quar_home(u64 pfn)
{
	return (unsigned)((pfn * 0x9e3779b97f4a7c15ull >> 32) % T_QUAR_SLOTS);
}

/*
 * Picks the case's victim and its time (from the seed): dark for the last
 * 20 to 40 % of the case, 3 s at most (every flush of its address space
 * quarantines from then on: the quarantine grows for as long).
 */
void t_dead_plan(const struct torture_config *cfg, unsigned i, bool lowest, u64 start_ms,
		 u64 case_ms)
{
	struct tcpu r = { .rng = cfg->seed * 0x2545f4914f6cdd1dull + i * 104729 + 17 };
	u64 dark_ms;

	t_dead_cpu = -1;
	__atomic_store_n(&t_dead_now, false, __ATOMIC_RELEASE);
	__builtin_memset(t_quar, 0, sizeof(t_quar));
	t_dead_slot = NULL;
	t_revive = cfg->revive;
	t_audit_dark = cfg->audit_dark;
	if (!cfg->inject || !cfg->revive || cfg->ncpus < 2)
		return;
	/*
	 * CPU 1 at every other case and when asked (@lowest): the lowest that
	 * may go dark, so every CPU above it is one a settle that judges CPUs
	 * in order could write off after meeting it (lazy's settle writing off live CPUs). Else
	 * any but the leader.
	 */
	t_dead_cpu = i % 2 || lowest ? 1 : 1 + (int)(t_rand(&r) % (cfg->ncpus - 1));
	dark_ms = MIN(case_ms * (20 + t_rand(&r) % 21) / 100, T_DARK_MS_MAX);
	t_dead_at_ms = start_ms + case_ms - dark_ms;
}

bool t_dead_due(unsigned cpu, u64 now_ms)
{
	return (int)cpu == t_dead_cpu && !t_dead_now && now_ms >= t_dead_at_ms;
}

/*
 * Goes dark in the middle of work on a live address space: it writes each
 * tracked page first (as the model records), so its TLB holds writable
 * translations of real frames, not of the zero page (a frame freed while
 * it can still reach it is then one it could corrupt), then turns
 * interrupts off with that address space loaded and its slot held (so it
 * is not destroyed while its root is loaded here). Returns the interrupt
 * flags to restore at revival.
 */
/* A write of tracked page @i of region @r, recorded in the model. */
static void t_dead_write(struct tcpu *c, struct tslot *s, unsigned r, unsigned i)
{
	struct tpage *p = &s->model[r]->p[i];
	u64 v = t_tag(s, r, i, t_rand(c));

	t_lock(&p->lock);
	/* A write that faults (-ENOMEM injected, say) leaves no entry: no matter. */
	t_page_write(c, s, p, t_base[r] + i * T_KB4, v);
	t_unlock(&p->lock);
}

/* Notes what @s maps at its tracked pages (none: nothing noted); interrupts off, @s loaded. */
static void t_dead_note_frames(struct tslot *s)
{
	unsigned n = 0;

	for (unsigned r = 0; s && r < T_REGIONS; r++)
		for (unsigned i = 0; i < T_PAGES; i++) {
			vaddr_t va = t_base[r] + (vaddr_t)i * T_KB4;
			paddr_t pa;
			u64 size;

			if (pt_lookup(s->mm->root, va, &pa, NULL, &size) || size != T_KB4 ||
			    page_test_flags(phys_to_page(pa), PG_DEVICE))
				continue;
			t_dead_frames[n].va = va;
			t_dead_frames[n++].pfn = pa >> 12;
		}
	__atomic_store_n(&t_dead_nframes, n, __ATOMIC_RELEASE);
}

/*
 * Frame @pfn met @how at @va (a leaf elsewhere; 0: freed): fails when the
 * dark CPU may reach it at another address and it was not quarantined.
 */
static void t_dead_frame_met(u64 pfn, vaddr_t va, const char *how)
{
	unsigned n = __atomic_load_n(&t_dead_nframes, __ATOMIC_ACQUIRE);

	if (!__atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE))
		return;
	for (unsigned k = 0; k < n; k++)
		if (t_dead_frames[k].pfn == pfn && t_dead_frames[k].va != va &&
		    !t_quarantined_refs(pfn))
			torture_fail("frame 0x%lx %s while dark CPU %u may still reach it at 0x%lx "
				     "(%s case, not quarantined)",
				     (unsigned long)(pfn << 12), how, t_dead_cpu,
				     (unsigned long)t_dead_frames[k].va, t_unmap_ops->d.name);
}

void t_dead_leaf_seen(u64 pfn, vaddr_t va)
{
	t_dead_frame_met(pfn, va, "mapped elsewhere (handed on)");
}

/* At an audit: no frame the dark CPU may reach is back in the allocator. */
static void t_dead_frames_check(void)
{
	unsigned n = __atomic_load_n(&t_dead_nframes, __ATOMIC_ACQUIRE);

	for (unsigned k = 0; k < n; k++)
		if (page_test_flags(pfn_to_page(t_dead_frames[k].pfn), PG_FREED))
			t_dead_frame_met(t_dead_frames[k].pfn, 0, "freed");
	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
}

unsigned long t_dead_enter(unsigned cpu)
{
	struct tcpu *c = &t_cpus[cpu];
	unsigned long flags;

	for (unsigned tries = 0; tries < 64 && !t_dead_slot; tries++) {
		struct tslot *s = t_slot_get(c);

		if (!s)
			continue;
		/* Against op_destroy(): it takes the slot BUSY, then looks here. */
		__atomic_store_n(&t_dead_slot, s, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) == SLOT_LIVE)
			break;
		__atomic_store_n(&t_dead_slot, NULL, __ATOMIC_SEQ_CST);
		t_slot_put(s);
	}
	/*
	 * R_PRIV last: its pages share the host's fake TLB sets with
	 * R_SHARED's (direct-mapped by page number), and swap-out takes them.
	 */
	for (unsigned r = T_REGIONS; t_dead_slot && r-- > 0;)
		for (unsigned i = 0; i < T_PAGES; i++)
			t_dead_write(c, t_dead_slot, r, i);
	if (!t_dead_slot)
		mm_switch(NULL);
	flags = arch_irq_save();
	t_dead_note_frames(t_dead_slot);
	__atomic_add_fetch(&t_deaths, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t_dead_since_ms, torture_env_now_ms(), __ATOMIC_RELAXED);
	__atomic_store_n(&t_dead_now, true, __ATOMIC_SEQ_CST);
	t_rec(c, T_OP_DIE, t_dead_slot ? (unsigned)(t_dead_slot - t_slots) : 0xffff, 0, 0, 0);
	return flags;
}

/*
 * While the dark CPU is not yet written off: unmaps, through the case's
 * design, a tracked page of the address space it holds, which it wrote
 * before going dark, so its TLB can still write the frame. The flush
 * meets the dark CPU on purpose: an IPI design's waits for it (and writes
 * it off); lazy queues to it (a batch whose target then dies undrained,
 * or dies in the middle of the push: the liveness check's write-off on
 * the host), early_ack keeps frames it targeted. Every path must keep the
 * frame out of the allocator. Called by another CPU, as an operation.
 */
bool t_dead_all_served(unsigned ncpus)
{
	unsigned deaths = __atomic_load_n(&t_deaths, __ATOMIC_ACQUIRE);

	for (unsigned cpu = 0; cpu < ncpus; cpu++)
		if ((int)cpu != t_dead_cpu &&
		    __atomic_load_n(&t_dead_served[cpu], __ATOMIC_ACQUIRE) != deaths)
			return false;
	return true;
}

bool t_dead_unmap_due(unsigned cpu)
{
	unsigned deaths = __atomic_load_n(&t_deaths, __ATOMIC_ACQUIRE);

	if (!__atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE) || (int)cpu == t_dead_cpu ||
	    torture_env_cpu_written_off((unsigned)t_dead_cpu) || t_dead_served[cpu] == deaths)
		return false;
	__atomic_store_n(&t_dead_served[cpu], deaths, __ATOMIC_RELEASE);
	return true;
}

void t_dead_unmap_held(struct tcpu *c)
{
	struct tslot *s = __atomic_load_n(&t_dead_slot, __ATOMIC_ACQUIRE);
	unsigned r = t_rand(c) % 2 ? R_PRIV : R_SHARE, i = (unsigned)(t_rand(c) % T_PAGES);
	vaddr_t va = t_base[r] + i * T_KB4;
	struct tpage *p;
	paddr_t pa;
	u64 size;
	int err, serr;

	if (!s || !__atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE))
		return;
	p = &s->model[r]->p[i];
	t_path_count(T_PATH_UNMAP_DARK_HELD);
	t_lock(&p->lock);
	if (pt_lookup(s->mm->root, va, &pa, NULL, &size) || size != T_KB4)
		pa = 0;
	err = tlb_unmap_pages(s->mm, va, 1, t_unmap_ops);
	serr = t_unmap_ops->d.completes_later ? tlb_settle(t_unmap_ops, s->mm) : 0;
	/* The dark CPU never flushed it: whatever the design did, it is not free. */
	if (pa && page_test_flags(phys_to_page(pa), PG_FREED))
		t_dead_frame_met(pa >> 12, 0, "freed by its unmap");
	if ((err && err != -ENOMEM && !t_dead_err(err)) ||
	    (serr && serr != -ENOMEM && !t_dead_err(serr)))
		torture_fail("unmap through %s of 0x%lx held by the dark CPU: %d, settle %d",
			     t_unmap_ops->d.name, (unsigned long)va, err, serr);
	p->val = 0;
	t_unlock(&p->lock);
	t_rec(c, OP_UNMAP, (unsigned)(s - t_slots), va, 1, err ? err : serr);
}

/*
 * A settle that judges every CPU on one deadline: once it waited out the
 * dark CPU's, it writes off any CPU after it that is merely behind. So
 * while the dark CPU is not yet written off in the slow-tick lazy case
 * (queues drained every 100 ms), the live CPUs numbered above it run no
 * operation from just before its death (each would settle, and wait for
 * the dark CPU; their unmap of its page is the CPUs' below) but push a
 * bare flush to each other every T_PUSH_MS (t_dead_push()), with an
 * address space the dark CPU does not hold loaded: their queues are
 * seldom empty when the settle of a CPU below the dark one reaches them.
 * Each must get a deadline of its own, and drains well within it.
 */
#define T_PUSH_MS 20
/* They start before the death, so no operation of theirs is in flight then. */
#define T_PUSH_LEAD_MS 500
static u64 t_push_next[TORTURE_MAX_CPUS];

bool t_dead_pushing(unsigned cpu)
{
	bool dark = __atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE);

	return t_slow_tick && t_dead_cpu > 0 && (int)cpu > t_dead_cpu &&
	       (dark || torture_env_now_ms() + T_PUSH_LEAD_MS >= t_dead_at_ms) &&
	       !torture_env_cpu_written_off((unsigned)t_dead_cpu);
}

/* The lowest live slot the dark CPU does not hold, with a reference; NULL: none. */
static struct tslot *t_push_slot(void)
{
	struct tslot *dark = __atomic_load_n(&t_dead_slot, __ATOMIC_ACQUIRE);

	for (unsigned k = 0; k < T_SLOTS; k++) {
		struct tslot *s = &t_slots[k];

		if (s == dark || __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_LIVE)
			continue;
		__atomic_add_fetch(&s->users, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) == SLOT_LIVE)
			return s;
		t_slot_put(s);
	}
	return NULL;
}

void t_dead_push(struct tcpu *c)
{
	unsigned cpu = (unsigned)(c - t_cpus);
	u64 now = torture_env_now_ms();
	struct tlb_flush_req req;
	struct tslot *s;
	int err;

	if (now < t_push_next[cpu])
		return;
	t_push_next[cpu] = now + T_PUSH_MS;
	s = t_push_slot();
	if (!s)
		return;
	__atomic_add_fetch(&t_ops, 1, __ATOMIC_RELAXED);
	req = (struct tlb_flush_req){ .mm = s->mm, .target = tlb_ops_target(t_unmap_ops),
				      .start = t_base[R_PRIV], .last = t_base[R_PRIV] + T_KB4 - 1,
				      .frees_no_tables = true };
	mm_switch(s->mm);
	c->dark_at_start = true; /* and it does not hold this address space: no excuse */
	err = t_unmap_ops->flush(&req);
	if (err && !t_dead_err_mm(c, err, s->mm))
		torture_fail("bare flush through %s of mm %lu beside the dark CPU: %d",
			     t_unmap_ops->d.name, (unsigned long)s->id, err);
	t_path_count(T_PATH_PUSH_BESIDE_DARK);
	t_rec(c, OP_UNMAP, (unsigned)(s - t_slots), req.start, 0, err);
	t_slot_put(s);
}

/* At the case's end (every other CPU out of its loop): back, as after a reset. */
void t_dead_leave(unsigned cpu, unsigned long flags)
{
	t_revive(cpu);
	__atomic_store_n(&t_dead_now, false, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t_dead_nframes, 0, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
	mm_switch(NULL);
	if (t_dead_slot)
		t_slot_put(t_dead_slot);
	/* Its queued invalidations (lazy) are drained at its next windows. */
	for (unsigned k = 0; k < 8; k++)
		torture_env_service();
}

/* At an audit (every CPU at the barrier): what the dark CPU still reaches. */
void t_dead_audit(void)
{
	int dark = torture_dark_cpu();

	if (dark >= 0)
		t_dead_frames_check();
	if (dark >= 0 && t_audit_dark)
		t_audit_dark((unsigned)dark);
}

/* Every CPU written off must be the dark one. */
void t_dead_check(unsigned ncpus, const char *when)
{
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		if (!torture_env_cpu_written_off(cpu))
			continue;
		if ((int)cpu != t_dead_cpu || !__atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE))
			torture_fail("%s: live CPU %u was written off (the dark one: %d)", when,
				     cpu, torture_dark_cpu());
	}
	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
}

unsigned torture_deaths(void)
{
	return t_deaths;
}

int torture_dark_cpu(void)
{
	return __atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE) ? t_dead_cpu : -1;
}

static void note_quarantined(u64 pfn)
{
	unsigned h = t_quar_home(pfn);

	for (unsigned n = 0; n < T_QUAR_SLOTS; n++, h = (h + 1) % T_QUAR_SLOTS) {
		u64 key = __atomic_load_n(&t_quar[h].key, __ATOMIC_ACQUIRE), empty = 0;

		if (!key && __atomic_compare_exchange_n(&t_quar[h].key, &empty, pfn + 1, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			key = pfn + 1;
		else if (!key)
			key = empty;
		if (key == pfn + 1) {
			__atomic_add_fetch(&t_quar[h].refs, 1, __ATOMIC_RELEASE);
			return;
		}
	}
	torture_fail("more than %u frames quarantined in a case", T_QUAR_SLOTS);
}

void torture_mm_hook(enum mm_hook_point at, void *arg)
{
	if (at == MM_HOOK_QUARANTINED)
		note_quarantined(page_to_pfn(arg));
}

u32 t_quarantined_refs(u64 pfn)
{
	unsigned h = t_quar_home(pfn);

	for (unsigned n = 0; n < T_QUAR_SLOTS && t_quar[h].key; n++, h = (h + 1) % T_QUAR_SLOTS)
		if (t_quar[h].key == pfn + 1)
			return __atomic_load_n(&t_quar[h].refs, __ATOMIC_ACQUIRE);
	return 0;
}

/*
 * Distinct frames quarantined in this case. The quarantine counts events:
 * a frame two address spaces shared (after fork) whose flushes both failed
 * is quarantined twice, yet withholds one frame from the allocator.
 */
u64 t_quarantined_frames(void)
{
	u64 n = 0;

	for (unsigned h = 0; h < T_QUAR_SLOTS; h++)
		n += __atomic_load_n(&t_quar[h].key, __ATOMIC_ACQUIRE) != 0;
	return n;
}

/* An error a flush may report while a CPU is dark. */
bool t_dead_err(int err)
{
	return err == -ETIMEDOUT && __atomic_load_n(&t_dead_now, __ATOMIC_ACQUIRE);
}

/*
 * The same for a flush of @mm's translations by @c's operation: when the
 * dark CPU has @mm loaded (a CPU that switches away clears its bit), or
 * the operation began before it went dark (it may have been in the mask
 * the flush was sent to). A flush of an mm it does not run, sent while
 * it is dark, must complete: else a caller is wedged by another's
 * write-off (a caller wedged after another's write-off), or a live CPU was skipped.
 */
bool t_dead_err_mm(const struct tcpu *c, int err, struct mm *mm)
{
	return t_dead_err(err) &&
	       (!c->dark_at_start || cpumask_test_cpu((unsigned)t_dead_cpu, mm_cpumask(mm)));
}
