/*
 * TLB design `lazy`, after LATR (Kumar et al., ASPLOS 2018): no IPI; each
 * target drains a queued invalidation at its next tick or switch, so frames
 * wait on a deferred list until every target drained past its entry, and a
 * range is remapped only after tlb_settle(). A full queue or stopped tick
 * falls back to one IPI round. Lock order: lazy_defer_lock -> a queue's lock
 * (interrupts off) -> the frame allocator's locks.
 */
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/panic.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/pt_root.h" /* pt_table_free(): deferred table pages are the gather's to free */
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "torture_hook.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_TLB_LAZY_QUEUED, "tlb_lazy_queued");
PCPU_COUNTER(PCPU_TLB_LAZY_DRAINED, "tlb_lazy_drained");
PCPU_COUNTER(PCPU_TLB_LAZY_FALLBACKS, "tlb_lazy_fallbacks");
PCPU_COUNTER(PCPU_TLB_LAZY_DRAIN_ONE, "tlb_lazy_drain_one");
PCPU_COUNTER(PCPU_TLB_LAZY_DRAIN_ALL, "tlb_lazy_drain_all");

static unsigned lazy_hz = TLB_LAZY_HZ;
/* lazy_hz=: the drain tick while the lazy design is enabled. */
OPTION_UINT(lazy_hz, lazy_hz, TLB_LAZY_HZ_MIN, TLB_LAZY_HZ_MAX, TLB_LAZY_HZ);

struct lazy_inval {
	struct mm *mm;
	vaddr_t start, last; /* start > last: everything */
	bool global;
};

struct lazy_queue {
	spinlock_t lock;
	unsigned n;
	u64 pushed;  /* entries ever queued here (written under the lock, read without) */
	u64 drained; /* entries the owner has invalidated (or dropped), after doing so */
	struct lazy_inval e[TLB_LAZY_QUEUE_MAX];
} __cacheline_aligned;

/*
 * A CPU's side of lazy (per-CPU data, kernel/percpu.h): its queue, and its
 * ticket in each deferred batch, the count pushed to it once that batch's
 * entry was in. A batch's owner writes its tickets while the batch is
 * FILLING; a reap reads them once it is WAITING (lazy_defer_lock between).
 */
struct lazy_cpu {
	struct lazy_queue q;
	u64 ticket[TLB_LAZY_BATCHES];
};

/*
 * A deferred batch's life: FREE, then FILLING while one initiator owns it
 * (lazy_batch_get(): emptied, written without lazy_defer_lock by its owner
 * alone, never looked at by a reap), WAITING once its frames are in
 * (lazy_batch_take()), and FREE again when exactly one reap released it
 * (under lazy_defer_lock, emptied again). Several CPUs unmap at once
 * (tlbmulti, the torture): a reap must never see a batch being filled, nor
 * the content a batch held before it was released.
 */
enum lazy_batch_state { LAZY_BATCH_FREE, LAZY_BATCH_FILLING, LAZY_BATCH_WAITING };

/* What one flush left to release once its targets drained past their tickets. */
struct lazy_batch {
	enum lazy_batch_state state; /* under lazy_defer_lock */
	cpumask_t targets; /* each one's ticket: struct lazy_cpu */
	unsigned nr_pages, nr_tables;
	struct page **pages; /* room for a whole gather: PT_GATHER_PAGES (lazy_storage_get()) */
	struct page *tables[PT_GATHER_MAX];
};

/*
 * A gather holds up to PT_GATHER_PAGES frames (64 KiB of pointers): each
 * deferred batch's room for them comes from the allocator at the first
 * enable and stays, so the kernel image does not carry 2 MiB of .bss for a
 * design that may never run (a boot's first usable RAM region must hold
 * the image: tests/boot/test_boot.c, UEFI's holes).
 */
#define LAZY_PAGES_ORDER 4
BUILD_ASSERT(PT_GATHER_PAGES * sizeof(struct page *) <= (PAGE_SIZE << LAZY_PAGES_ORDER));

static struct lazy_cpu lazy_cpu __pcpu_data;
static struct lazy_batch lazy_deferred[TLB_LAZY_BATCHES];
static spinlock_t lazy_defer_lock = SPINLOCK_INIT("tlb_lazy_defer");
/*
 * The tick runs on every online CPU. Until the first enable no entry is
 * ever queued (the flush falls back), so the queues' locks are set up then.
 */
static bool lazy_on;
static bool lazy_ticks_paused; /* self-tests: ticks do not drain */

/* ---- the target side: draining ---- */

/* Invalidates what @q holds for the loaded mm and empties it. @q's lock held, interrupts off. */
static void lazy_drain_locked(struct lazy_queue *q)
{
	struct mm *cur = mm_current();

	for (unsigned i = 0; i < q->n; i++) {
		const struct lazy_inval *e = &q->e[i];

		/*
		 * Another mm's entry: its tlb_gen moved before the entry was
		 * queued, so this CPU flushes that ASID when it loads it again.
		 * Not a global one: global entries survive that (SDM Vol. 3A
		 * 4.10.4.1), but INVLPG and the full flush drop them anywhere.
		 */
		if (e->mm == cur || e->global)
			tlb_flush_local_as(e->start, e->last, e->global, PCPU_TLB_LAZY_DRAIN_ONE,
					   PCPU_TLB_LAZY_DRAIN_ALL);
	}
	this_cpu_add(PCPU_TLB_LAZY_DRAINED, q->n);
	atomic_store_relaxed(&q->n, 0);
	/* After the invalidations: an initiator that sees the count may free the frames. */
	atomic_store_release(&q->drained, q->pushed);
}

/*
 * Drains the calling CPU's queue. Any context: the tick and the fallback
 * IPI drain from interrupts, the fallback round's initiator from task
 * context (tlb_flush_round() runs the target on it too), so interrupts go
 * off while the lock is held, or a tick there would take it again.
 */
static void lazy_drain(void)
{
	struct lazy_queue *q = &this_cpu_ptr(lazy_cpu)->q;
	unsigned long flags;

	if (!atomic_load_relaxed(&q->n))
		return;
	flags = spin_lock_irqsave(&q->lock);
	lazy_drain_locked(q);
	spin_unlock_irqrestore(&q->lock, flags);
}

static void lazy_tick(void)
{
	if (!atomic_load_relaxed(&lazy_ticks_paused))
		lazy_drain();
}

/* switch_out hook: drains into the old ASID before the root changes. */
static void tlb_lazy_switch(void)
{
	lazy_drain();
}

/* report hook: what lazy pays instead of IPIs, every CPU's tick. */
static void tlb_lazy_report(struct json *j)
{
	json_u64(j, "tick_hz", lazy_hz);
}

void tlb_lazy_pause_ticks(bool paused)
{
	atomic_store_release(&lazy_ticks_paused, paused);
}

void tlb_lazy_set_tick_hz(unsigned hz)
{
	lazy_hz = MAX(TLB_LAZY_HZ_MIN, MIN(hz, TLB_LAZY_HZ_MAX));
}

unsigned tlb_lazy_tick_hz(void)
{
	return lazy_hz;
}

/* The fallback round's target: the whole queue, then the request itself. */
static void lazy_target_fallback(const struct tlb_flush_req *req)
{
	lazy_drain();
	tlb_target_flush(req);
}

/* ---- the initiator side: queueing ---- */

/* Queues @req on @cpu; false when its queue is full. Its ticket in batch @batch's (-1: none). */
static bool lazy_push(unsigned cpu, const struct tlb_flush_req *req, int batch)
{
	struct lazy_cpu *c = per_cpu_ptr(lazy_cpu, cpu);
	struct lazy_queue *q = &c->q;
	unsigned long flags = spin_lock_irqsave(&q->lock);
	bool ok = q->n < TLB_LAZY_QUEUE_MAX;

	if (ok) {
		q->e[q->n] = (struct lazy_inval){ req->mm, req->start, req->last, req->global };
		atomic_store_relaxed(&q->n, q->n + 1);
		/* Atomic: settle reads it without the lock (lazy_wait_drained()). */
		atomic_store_relaxed(&q->pushed, q->pushed + 1);
		if (batch >= 0)
			c->ticket[batch] = q->pushed;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return ok;
}

/* The IPI round a full queue (or a stopped tick) falls back to. Returns as tlb_flush_send(). */
static int lazy_fallback(const struct tlb_flush_req *req)
{
	struct tlb_flush_req r = *req;

	r.target = lazy_target_fallback;
	this_cpu_inc(PCPU_TLB_LAZY_FALLBACKS);
	return tlb_flush_send(&r);
}

/* True when some CPU of @mask is out of the run: it will never drain. */
static bool lazy_any_dead(const cpumask_t *mask)
{
	unsigned cpu;

	for_each_cpu(cpu, mask) {
		if (smp_cpu_dead(cpu))
			return true;
	}
	return false;
}

/*
 * Each of @targets' tickets in deferred batch @batch (-1: none) reads as
 * never drained until lazy_push() gives it its count: a target the batch
 * names but that got no entry must hold the batch back (a reap then
 * quarantines it once that target is out of the run), never count as
 * drained on the ticket a past use of the batch left. The batch's owner,
 * while FILLING.
 */
static void lazy_tickets_unset(const cpumask_t *targets, int batch)
{
	unsigned cpu;

	if (batch < 0)
		return;
	for_each_cpu(cpu, targets)
		per_cpu_ptr(lazy_cpu, cpu)->ticket[batch] = ~0ull;
}

/*
 * Flushes this CPU and queues @req on the other CPUs of the mm's mask,
 * which it copies into @targets, with each target's ticket in deferred
 * batch @batch (-1: none wanted); without @queue (no deferred batch was free) it
 * falls back at once. Returns 1 when it was queued (complete once the
 * tickets are drained), 0 when it is complete already (no other CPU, or
 * a fallback IPI round), or -ETIMEDOUT when a target is out of the run:
 * the live ones were still queued to (or sent the fallback round), as
 * the IPI designs' calls still reach their live targets, so the range
 * leaves their TLBs; the caller quarantines the frames.
 */
static int lazy_send(const struct tlb_flush_req *req, cpumask_t *targets, int batch, bool queue)
{
	unsigned self = arch_cpu_id(), cpu;
	bool dead;
	int err;

	/* Before the mask is read, as tlb_flush_send(): a CPU loading the mm later flushes. */
	atomic_fetch_add(&req->mm->tlb_gen, 1);
	cpumask_copy_acquire(targets, mm_cpumask(req->mm));
	cpumask_clear_cpu(self, targets);
	req->target(req);
	dead = lazy_any_dead(targets);
	/* No other CPU has the mm: complete now, and the gather frees at once as every design's. */
	if (cpumask_empty(targets))
		return 0;
	if (!queue || !atomic_load_acquire(&lazy_on))
		goto fallback;
	lazy_tickets_unset(targets, batch);
	for_each_cpu(cpu, targets) {
		/*
		 * Written off since the look above, too: it never drains and
		 * gets no ticket, so the flush fails and its frames are
		 * quarantined, as for one dead from the start.
		 */
		if (smp_cpu_dead(cpu)) {
			dead = true;
			continue;
		}
		if (!lazy_push(cpu, req, batch))
			goto fallback;
		this_cpu_inc(PCPU_TLB_LAZY_QUEUED);
	}
	return dead ? -ETIMEDOUT : 1;
fallback:
	err = lazy_fallback(req); /* smp_call() still reaches the live targets */
	return err ? err : dead ? -ETIMEDOUT : 0;
}

/* The design's flush of a bare request: queued, nothing to defer (the caller settles). */
static int tlb_flush_lazy(const struct tlb_flush_req *req)
{
	cpumask_t targets;
	int ret = lazy_send(req, &targets, -1, true);

	return ret < 0 ? ret : 0;
}

/* ---- deferred frames and tables ---- */

/* @b's index among the deferred batches: its tickets' (struct lazy_cpu). */
static int lazy_batch_index(const struct lazy_batch *b)
{
	return (int)(b - lazy_deferred);
}

/* True once every target of @b drained past its ticket. */
static bool lazy_batch_done(const struct lazy_batch *b)
{
	unsigned cpu;

	for_each_cpu(cpu, &b->targets) {
		const struct lazy_cpu *c = per_cpu_ptr(lazy_cpu, cpu);

		if (atomic_load_acquire(&c->q.drained) < c->ticket[lazy_batch_index(b)])
			return false;
	}
	return true;
}

/* Gives @b's frames and tables back (@keep: to the quarantine instead). lazy_defer_lock held. */
static void lazy_batch_release_locked(struct lazy_batch *b, bool keep)
{
	for (unsigned i = 0; i < b->nr_tables; i++) {
		if (keep)
			quarantine_table(b->tables[i]);
		else
			pt_table_free(b->tables[i]);
	}
	if (keep) {
		for (unsigned i = 0; i < b->nr_pages; i++)
			quarantine_frame(b->pages[i]);
		quarantine_count_flush();
	} else {
		mm_pages_drop(b->pages, b->nr_pages); /* batched, as every gather's release */
	}
	/* Emptied: the next owner must not find (nor a reap release) these frames again. */
	b->nr_pages = b->nr_tables = 0;
	b->state = LAZY_BATCH_FREE;
}

/*
 * Releases every drained batch and quarantines those a CPU out of the run
 * holds back (it never drains); the others keep waiting.
 */
static void lazy_reap(void)
{
	spin_lock(&lazy_defer_lock);
	for (unsigned i = 0; i < TLB_LAZY_BATCHES; i++) {
		struct lazy_batch *b = &lazy_deferred[i];

		if (b->state != LAZY_BATCH_WAITING)
			continue; /* free, or being filled by its owner */
		if (lazy_batch_done(b))
			lazy_batch_release_locked(b, false);
		else if (lazy_any_dead(&b->targets))
			lazy_batch_release_locked(b, true);
	}
	spin_unlock(&lazy_defer_lock);
}

/* A free deferred batch, now ours and empty (FILLING), or NULL when none is free. */
static struct lazy_batch *lazy_batch_get(void)
{
	struct lazy_batch *b = NULL;

	spin_lock(&lazy_defer_lock);
	for (unsigned i = 0; i < TLB_LAZY_BATCHES && !b; i++) {
		if (lazy_deferred[i].state == LAZY_BATCH_FREE)
			b = &lazy_deferred[i];
	}
	if (b) {
		b->state = LAZY_BATCH_FILLING;
		b->nr_pages = b->nr_tables = 0;
		cpumask_clear(&b->targets);
	}
	spin_unlock(&lazy_defer_lock);
	return b;
}

/* Moves @g's frames and tables into our FILLING @b, which a reap may take from now on. */
static void lazy_batch_take(struct lazy_batch *b, struct pt_gather *g)
{
	b->nr_pages = g->nr_pages;
	b->nr_tables = g->nr_tables;
	pt_gather_copy_pages(g, b->pages);
	for (unsigned i = 0; i < g->nr_tables; i++)
		b->tables[i] = g->tables[i];
	g->nr_pages = g->nr_tables = 0;
	b->state = LAZY_BATCH_WAITING;
}

/*
 * The gather's flush under the lazy design: queue the range, and keep what
 * the gather would free until every target drained it. With no deferred
 * batch free, the flush falls back to an IPI round (which drains every
 * target's queue, so the next reap frees the batches). A fallback round
 * leaves the gather to free them now; an error leaves it to quarantine them.
 */
static void tlb_lazy_gather_flush(struct pt_gather *g)
{
	struct tlb_batch *tb = container_of(g, struct tlb_batch, g);
	struct tlb_flush_req req = { tb->mm, tlb_target_flush, g->start, g->last, g->global,
				     g->nr_tables == 0 };
	struct lazy_batch *b;
	cpumask_t targets;
	int ret;

	lazy_reap();
	b = torture_hook_fail(TORTURE_FAIL_BATCH) ? NULL : lazy_batch_get();
	if (b)
		ret = lazy_send(&req, &b->targets, lazy_batch_index(b), true);
	else
		ret = lazy_send(&req, &targets, -1, false);
	if (ret == 1) {
		spin_lock(&lazy_defer_lock);
		lazy_batch_take(b, g);
		spin_unlock(&lazy_defer_lock);
		return;
	}
	if (b) {
		spin_lock(&lazy_defer_lock);
		b->state = LAZY_BATCH_FREE;
		spin_unlock(&lazy_defer_lock);
	}
	if (ret < 0 && !g->err)
		g->err = ret;
}

/* ---- enable and settle ---- */

static void lazy_tick_on(void *arg)
{
	int *err = arg;
	int e = arch_tick_start(lazy_hz, lazy_tick);

	if (e)
		*err = e;
}

static void lazy_tick_off(void *arg)
{
	(void)arg;
	arch_tick_stop();
}

/*
 * Starts the tick here first (its first start calibrates), then on the
 * others; stopping, the queues are drained once more by tlb_settle()'s
 * callers, and a later flush while off takes the fallback round.
 */
/* Every deferred batch's frame array, allocated once; -ENOMEM if the allocator has none. */
static int lazy_storage_get(void)
{
	for (unsigned i = 0; i < TLB_LAZY_BATCHES; i++) {
		struct page *p;

		if (lazy_deferred[i].pages)
			continue;
		p = page_alloc(LAZY_PAGES_ORDER, 0);
		if (!p)
			return -ENOMEM;
		lazy_deferred[i].pages = page_address(p);
	}
	return 0;
}

static int tlb_enable_lazy(bool on)
{
	static bool queues_ready;
	int err = 0, cerr;

	/* Per-CPU data starts zeroed; nothing takes a lock before the first enable. */
	for (unsigned cpu = 0; cpu < percpu_data_bound() && !queues_ready; cpu++)
		spin_lock_init(&per_cpu_ptr(lazy_cpu, cpu)->q.lock, "tlb_lazy_queue");
	queues_ready = true;
	if (!on) {
		atomic_store_release(&lazy_on, false);
		lazy_tick_off(NULL);
		return smp_call_others(lazy_tick_off, NULL, true);
	}
	err = lazy_storage_get();
	if (err)
		return err;
	lazy_tick_on(&err);
	if (err)
		return err;
	/*
	 * The error slot travels as a copy in the call descriptor: a CPU that
	 * answers after our deadline must not write into this stack frame.
	 */
	cerr = smp_call_copy(&cpu_online_mask, lazy_tick_on, &err, sizeof(err), true);
	if (!cerr && !err)
		atomic_store_release(&lazy_on, true);
	return cerr ? cerr : err;
}

/*
 * Waits until @cpu drained past what was pushed to it when the wait began,
 * judged on its own: its own deadline (timeout_ms from then), never
 * another CPU's state. The calling CPU drains its own queue. A CPU out of
 * the run never drains (its batches are the reap's to quarantine); a live
 * one that misses the deadline is written off. Returns 0 or -ETIMEDOUT.
 */
static int lazy_wait_drained(unsigned cpu)
{
	struct lazy_queue *q = &per_cpu_ptr(lazy_cpu, cpu)->q;
	u64 pushed = atomic_load_acquire(&q->pushed);
	struct smp_wait w = SMP_WAIT_INIT;

	if (cpu == arch_cpu_id())
		lazy_drain();
	while (atomic_load_acquire(&q->drained) < pushed) {
		if (smp_cpu_dead(cpu))
			return -ETIMEDOUT;
		if (smp_wait_turn(&w)) {
			/* Late as one that misses an IPI: out of the run. */
			smp_cpu_write_off(cpu, "tlb lazy drain");
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/*
 * Waits for every queue, not only the batches: a bare flush (tlb_flush_lazy())
 * defers no frame, but its range is still translated until drained. Once
 * each CPU drained past what it held when settle looked, every batch of a
 * flush that returned before settle began is done (or has a target out of
 * the run): one reap releases (or quarantines) them. Batches of other
 * initiators' later flushes stay deferred: they are theirs to settle.
 * Any CPU, several at once; task context, interrupts on (drains are ticks).
 * The wait is settle_wait on its own; settle is the wait, then the reap.
 */
static int tlb_settle_lazy_wait(void)
{
	unsigned cpu;
	int err = 0;

	for_each_cpu(cpu, &cpu_online_mask)
		if (lazy_wait_drained(cpu))
			err = -ETIMEDOUT;
	return err;
}

static int tlb_settle_lazy(struct mm *mm)
{
	int err = tlb_settle_lazy_wait();

	(void)mm; /* the queues hold every mm's entries in one order */
	lazy_reap();
	return err;
}

const struct tlb_ops tlb_ops_lazy = {
	.d = {
		.name = "lazy",
		.desc = "no IPI: invalidations queued per CPU, drained at its tick or switch; "
			"frames and range reused after all drained (an unmapped range may "
			"still be translated until then)",
		.source = "Kumar et al., \"LATR: Lazy Translation Coherence\", ASPLOS 2018",
		.unit = "page",
		.completes_later = true,
		.remotes_flush_at_drain = true,
		.promises = DESIGN_PROMISES(
			PROMISE(PCPU_TLB_LAZY_QUEUED, 1, PT_GATHER_PAGES, .per_target = true),
			PROMISE(PCPU_TLB_SHOOTDOWNS, 0, 1),
			PROMISE(PCPU_IPI_SENT, 0, 1, .per_target = true),
			PROMISE(PCPU_TLB_LAZY_FALLBACKS, 0, 1)
		),
		.counters = DESIGN_COUNTERS(PCPU_TLB_LAZY_QUEUED, PCPU_TLB_LAZY_FALLBACKS),
	},
	.flush = tlb_flush_lazy,
	.enable = tlb_enable_lazy,
	.settle = tlb_settle_lazy,
	.settle_wait = tlb_settle_lazy_wait,
	.gather_flush = tlb_lazy_gather_flush,
	.switch_out = tlb_lazy_switch,
	.report = tlb_lazy_report,
	.queued = PCPU_TLB_LAZY_QUEUED,
	.fallbacks = PCPU_TLB_LAZY_FALLBACKS,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_lazy, 30);
