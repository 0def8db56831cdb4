/*
 * Cross-CPU calls (kernel/smp.h). A caller fills its own descriptor, sets
 * each target's bit in that target's mailbox and summary, and sends one IPI;
 * a target claims the summary and each named word with one exchange, runs
 * each claimed caller's function and acks by clearing itself from the
 * caller's waiting set, its last touch of the descriptor. The ordering and
 * the missed-deadline protocol are at smp_send() and smp_take_back().
 */
#include "kernel/smp.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/trace.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include <arch/arch.h>

static u32 timeout_ms = 1000;
/* timeout_ms=: a cross-CPU call's wait (times smp_deadline_scale()) before its target is out. */
OPTION_UINT(timeout_ms, timeout_ms, 1, 600000, 1000);
static cpumask_t cpu_dead_mask; /* CPUs out of the run: each missed a deadline */

void smp_set_timeout_ms(u32 ms)
{
	timeout_ms = ms;
}

u32 smp_timeout_ms(void)
{
	return timeout_ms;
}

bool smp_cpu_dead(unsigned cpu)
{
	return cpu < MAX_CPUS && cpumask_test_cpu_acquire(cpu, &cpu_dead_mask);
}

void smp_dead_cpus(cpumask_t *out)
{
	for (unsigned w = 0; w < CPUMASK_WORDS; w++)
		out->bits[w] = cpumask_load_word(&cpu_dead_mask, w);
}

/* Lowest set bit's index of a non-zero word. */
static inline unsigned word_first(u64 w)
{
	return (unsigned)__builtin_ctzll(w);
}

/*
 * this_cpu()->local.call_unacked: the caller (plus one; 0: none) whose
 * call this CPU is running now and has not acknowledged yet
 * (smp_call_ack()); on a line of its own, written by this CPU only.
 */

/*
 * Counted before the acknowledgement, so a caller done waiting sees the
 * count. The acknowledgement is our last touch of the caller's descriptor:
 * the caller may reuse it at once.
 */
static void smp_ack(unsigned caller, unsigned self)
{
	struct smp_call_desc *d = &percpu_of(caller)->call;

	this_cpu_inc(PCPU_CALLS_RUN);
	trace_event(TRACE_ACK_SENT, caller, trace_seq(caller));
	cpumask_clear_cpu_atomic(self, &d->waiting);
}

static void run_call_from(unsigned caller, unsigned self)
{
	struct smp_call_desc *d = &percpu_of(caller)->call;

	struct smp_local *l = &this_cpu()->local;

	trace_event(TRACE_IPI_RECV, caller, trace_seq(caller));
	l->call_unacked = caller + 1;
	d->fn(d->arg);
	if (l->call_unacked)
		smp_ack(caller, self);
	else
		this_cpu_inc(PCPU_CALLS_ACKED_EARLY); /* the function acknowledged, then went on */
	l->call_unacked = 0;
}

bool smp_call_ack(void)
{
	struct percpu *pc = this_cpu();
	unsigned self = pc->cpu_id;
	unsigned caller = pc->local.call_unacked;

	if (!caller)
		return false;
	pc->local.call_unacked = 0;
	smp_ack(caller - 1, self);
	return true;
}

/* Claims and runs every call posted by the callers of word @w of our mailbox. */
static void smp_handle_word(struct smp_mailbox *box, unsigned w, unsigned self)
{
	u64 bits;

	/* Empty (a call taken back, or already claimed): no locked instruction. */
	if (!atomic_load_relaxed(&box->callers.bits[w]))
		return;
	/* Ours only what is still set: a caller past its deadline may have taken its bit back. */
	bits = atomic_xchg(&box->callers.bits[w], 0);
	for (; bits; bits &= bits - 1)
		run_call_from(w * CPUMASK_WORD_BITS + word_first(bits), self);
}

void smp_handle_mailbox(void)
{
	struct percpu *me = this_cpu();
	struct smp_mailbox *box = &me->mailbox;
	u64 words;

	/* Wait loops call us on every turn: nothing posted costs one load. */
	if (!atomic_load_relaxed(&box->pending))
		return;
	words = atomic_xchg(&box->pending, 0);
	for (; words; words &= words - 1)
		smp_handle_word(box, word_first(words), me->cpu_id);
}

/*
 * A missed deadline: the caller takes its bit back from each late CPU's
 * mailbox with an atomic clear, an RMW of the same word as the target's
 * claiming exchange, so exactly one side wins. If the caller wins, the late
 * CPU never runs the call (a summary bit left behind shows it an empty
 * word); if the target won, the descriptor and its argument copy stay
 * untouched until it acknowledges. Either way the CPU joins cpu_dead_mask
 * for good, so what a flush covered is never reused (mm/quarantine.h). A
 * caller whose late targets another caller wrote off takes its bits back the
 * same way the next time it needs its descriptor.
 */
/* Takes the call back from @cpu, late; true if it can never run it. */
static bool smp_take_back(struct smp_call_desc *d, unsigned self, unsigned cpu)
{
	u64 *word = &CPUMASK_WORD(&percpu_of(cpu)->mailbox.callers, self);

	if (!(atomic_fetch_and(word, ~CPUMASK_BIT(self)) & CPUMASK_BIT(self)))
		return false; /* it claimed the call: the descriptor stays its until it answers */
	cpumask_clear_cpu_atomic(cpu, &d->waiting);
	return true;
}

/* One late CPU: out of the run, named once, its call taken back if it had not claimed it. */
static void smp_write_off_cpu(struct smp_call_desc *d, unsigned self, unsigned cpu)
{
	bool first = !cpumask_test_and_set_cpu_atomic(cpu, &cpu_dead_mask);
	bool gone = smp_take_back(d, self, cpu);

	if (first)
		printk("mmlab: smp_call from CPU %u: CPU %u (APIC ID %u) did not answer within %u ms: out of the run, never called again\n",
		       self, cpu, percpu_of(cpu)->apic_id, smp_deadline_ms());
	if (!gone && cpumask_test_cpu_acquire(cpu, &d->waiting))
		printk("mmlab: CPU %u took the call from CPU %u and has not finished it: CPU %u's calls fail until it does\n",
		       cpu, self, self);
}

void smp_cpu_write_off(unsigned cpu, const char *who)
{
	if (cpu >= MAX_CPUS || cpumask_test_and_set_cpu_atomic(cpu, &cpu_dead_mask))
		return;
	printk("mmlab: %s: CPU %u (APIC ID %u) did not answer within %u ms: out of the run, never called again\n",
	       who, cpu, percpu_of(cpu)->apic_id, smp_deadline_ms());
}

/*
 * The deadline passed: every CPU still waited for is out of the run from
 * now on, and the call failed. One that answered between the last look and
 * now (a caller stalled by its host sees this order) is no timeout: with
 * nobody late the call completed.
 */
static void smp_write_off(struct smp_call_desc *d, unsigned self)
{
	bool any = false;

	for (u64 ws = d->words; ws; ws &= ws - 1) {
		unsigned w = word_first(ws);
		u64 late = cpumask_load_word(&d->waiting, w);

		for (; late; late &= late - 1) {
			smp_write_off_cpu(d, self, w * CPUMASK_WORD_BITS + word_first(late));
			any = true;
		}
	}
	if (any)
		d->err = -ETIMEDOUT;
}

/* True while some target may still run the call in @d: only the words it was sent to. */
static bool smp_desc_busy(const struct smp_call_desc *d)
{
	for (u64 ws = d->words; ws; ws &= ws - 1)
		if (atomic_load_acquire(&d->waiting.bits[word_first(ws)]))
			return true;
	return false;
}

bool smp_call_pending(void)
{
	return this_cpu()->call.unwaited;
}

/* True when the descriptor still waits for some CPU and every one is out of the run. */
static bool smp_held_by_dead(const struct smp_call_desc *d)
{
	bool any = false;

	for (u64 ws = d->words; ws; ws &= ws - 1) {
		unsigned w = word_first(ws);
		u64 wait = cpumask_load_word(&d->waiting, w);

		if (wait & ~cpumask_load_word(&cpu_dead_mask, w))
			return false;
		any |= wait != 0;
	}
	return any;
}

/*
 * Every CPU @d still waits for is out of the run, written off by another
 * caller (our own deadline never passed): takes the call back from each
 * that never claimed it, which then never runs it. Returns 0 once the
 * descriptor is free, or -ETIMEDOUT while one that claimed it still runs
 * it. Either way the call did not complete: its wait reports -ETIMEDOUT.
 */
static int smp_take_back_dead(struct smp_call_desc *d, unsigned self)
{
	for (u64 ws = d->words; ws; ws &= ws - 1) {
		unsigned w = word_first(ws);
		u64 late = cpumask_load_word(&d->waiting, w);

		for (; late; late &= late - 1)
			smp_take_back(d, self, w * CPUMASK_WORD_BITS + word_first(late));
	}
	d->err = -ETIMEDOUT;
	return smp_desc_busy(d) ? -ETIMEDOUT : 0;
}

/* smp_drain()'s wait, once some target still holds the descriptor. */
static __attribute__((noinline)) int smp_drain_wait(struct smp_call_desc *d)
{
	bool irqs_off = !arch_irqs_enabled();
	struct smp_wait w = SMP_WAIT_INIT;

	if (smp_held_by_dead(d))
		return smp_take_back_dead(d, this_cpu()->cpu_id);
	while (smp_desc_busy(d)) {
		if (irqs_off)
			smp_handle_mailbox();
		if (smp_wait_turn(&w)) {
			smp_write_off(d, this_cpu()->cpu_id);
			return smp_desc_busy(d) ? -ETIMEDOUT : 0;
		}
	}
	return 0;
}

/*
 * Waits until no target can still run this CPU's call, serving our own
 * mailbox meanwhile. Returns 0 once the descriptor is free again, or
 * -ETIMEDOUT while a CPU out of the run still holds it. A free descriptor,
 * every call's case once its wait is over, costs its load and no call.
 */
static inline int smp_drain(struct smp_call_desc *d)
{
	return smp_desc_busy(d) ? smp_drain_wait(d) : 0;
}

int smp_call_wait(void)
{
	struct smp_call_desc *d = &this_cpu()->call;
	int err = smp_drain(d);

	d->unwaited = false;
	trace_event(TRACE_ACK_SEEN, 0, trace_seq(this_cpu()->cpu_id));
	return err ? err : d->err;
}

/*
 * The targets of one call: a snapshot of the words of a mask that hold
 * CPUs, the caller left out. Only the words named in @words are valid.
 */
struct smp_targets {
	u64 words;
	u64 bits[CPUMASK_WORDS];
};

/*
 * Snapshots @mask word by word (each read once, with acquire: it may be
 * live, such as mm_cpumask, and a CPU that left it did so after its last
 * accesses) without the caller. -EINVAL for an offline or absent CPU.
 */
static int smp_targets_of_mask(struct smp_targets *t, const cpumask_t *mask, unsigned self)
{
	t->words = 0;
	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		u64 bits = cpumask_load_word_acquire(mask, w);

		if (w == self / CPUMASK_WORD_BITS)
			bits &= ~CPUMASK_BIT(self);
		if (!bits)
			continue;
		if (bits & ~cpumask_load_word(&cpu_online_mask, w))
			return -EINVAL;
		t->bits[w] = bits;
		t->words |= 1ull << w;
	}
	return 0;
}

/* The one-CPU call: one word, no mask to copy or scan. */
static int smp_targets_of_cpu(struct smp_targets *t, unsigned cpu, unsigned self)
{
	if (cpu >= MAX_CPUS || !cpumask_test_cpu(cpu, &cpu_online_mask))
		return -EINVAL;
	t->words = 0;
	if (cpu == self)
		return 0;
	t->bits[cpu / CPUMASK_WORD_BITS] = CPUMASK_BIT(cpu);
	t->words = 1ull << (cpu / CPUMASK_WORD_BITS);
	return 0;
}

/* Drops the CPUs out of the run from @t; true if there were any. */
static bool smp_targets_drop_dead(struct smp_targets *t)
{
	bool any = false;

	for (u64 ws = t->words; ws; ws &= ws - 1) {
		unsigned w = word_first(ws);
		u64 dead = t->bits[w] & cpumask_load_word(&cpu_dead_mask, w);

		any |= dead != 0;
		if ((t->bits[w] &= ~dead) == 0)
			t->words &= ~(1ull << w);
	}
	return any;
}

/* Posts our call in @cpu's mailbox and sends it the IPI. */
static void smp_post_to(unsigned self, unsigned cpu)
{
	struct smp_mailbox *box = &percpu_of(cpu)->mailbox;
	unsigned w = self / CPUMASK_WORD_BITS;

	/* Caller bit before summary bit: a target that takes the summary finds the caller. */
	atomic_fetch_or(&box->callers.bits[w], CPUMASK_BIT(self));
	atomic_fetch_or(&box->pending, 1ull << w);
	trace_event(TRACE_ICR_WRITE, cpu, trace_seq(self));
	arch_send_call_ipi(cpu);
	trace_event(TRACE_IPI_SENT, cpu, trace_seq(self));
	this_cpu_inc(PCPU_IPI_SENT);
}

/* How many CPUs @t names (for the trace record of a call: evaluated only while tracing). */
static unsigned smp_targets_count(const struct smp_targets *t)
{
	unsigned n = 0;

	for (u64 ws = t->words; ws; ws &= ws - 1)
		n += cpumask_word_weight(t->bits[word_first(ws)]);
	return n;
}

/*
 * Ordering: the descriptor is written before the mailbox bits are set (fully
 * ordered RMWs), and a target claims the summary and the word (full
 * barriers) before it reads the descriptor, so it never runs a half-written
 * call. A caller bit is set before its summary bit, so a target that took the
 * summary bit finds the caller bit; a summary bit set after the target took
 * the summary comes with its own IPI.
 */
/* Sends the call in our free descriptor @d to every CPU of @t. */
static void smp_send(struct smp_call_desc *d, const struct smp_targets *t, unsigned self)
{
	/* A free descriptor's waiting set is empty: only the target words need writing. */
	d->words = t->words;
	trace_event(TRACE_CALL, smp_targets_count(t), 0);
	for (u64 ws = t->words; ws; ws &= ws - 1)
		atomic_store_relaxed(&d->waiting.bits[word_first(ws)], t->bits[word_first(ws)]);
	for (u64 ws = t->words; ws; ws &= ws - 1) {
		unsigned w = word_first(ws);

		for (u64 bits = t->bits[w]; bits; bits &= bits - 1)
			smp_post_to(self, w * CPUMASK_WORD_BITS + word_first(bits));
	}
}

/*
 * Posts a call to @t: @len bytes at @data, when @len, are copied into the
 * descriptor and @fn gets the copy. *@posted tells whether the descriptor
 * now holds this call.
 */
static int smp_post(struct smp_targets *t, smp_call_fn fn, void *arg, const void *data, size_t len,
		    bool wait, bool *posted)
{
	struct percpu *me = this_cpu();
	struct smp_call_desc *d = &me->call;

	*posted = false;
	if (smp_drain(d))
		return -ETIMEDOUT; /* a CPU out of the run still holds our descriptor */
	*posted = true;
	/* The live targets still get the call. */
	d->err = smp_targets_drop_dead(t) ? -ETIMEDOUT : 0;
	d->fn = fn;
	d->arg = len ? memcpy(d->data, data, len) : arg;
	smp_send(d, t, me->cpu_id);
	this_cpu_inc(PCPU_CALLS_POSTED);
	d->unwaited = true;
	if (wait)
		return smp_call_wait();
	return d->err;
}

/* smp_call() and smp_call_copy() on a mask: the snapshot, then the post. */
static int smp_post_mask(const cpumask_t *mask, smp_call_fn fn, void *arg, const void *data,
			 size_t len, bool wait, bool *posted)
{
	struct smp_targets t;
	int err;

	*posted = false;
	spin_assert_none_held("smp_call");
	err = smp_targets_of_mask(&t, mask, this_cpu()->cpu_id);
	return err ? err : smp_post(&t, fn, arg, data, len, wait, posted);
}

int smp_call(const cpumask_t *mask, smp_call_fn fn, void *arg, bool wait)
{
	bool posted;

	return smp_post_mask(mask, fn, arg, NULL, 0, wait, &posted);
}

int smp_call_copy(const cpumask_t *mask, smp_call_fn fn, void *data, size_t len, bool wait)
{
	bool posted;
	int err;

	if (len > SMP_CALL_DATA_MAX || !len)
		return -EINVAL;
	err = smp_post_mask(mask, fn, NULL, data, len, wait, &posted);
	if (!err && wait && posted)
		memcpy(data, this_cpu()->call.data, len);
	return err;
}

int smp_call_one(unsigned cpu, smp_call_fn fn, void *arg, bool wait)
{
	struct smp_targets t;
	bool posted;
	int err;

	spin_assert_none_held("smp_call");
	err = smp_targets_of_cpu(&t, cpu, this_cpu()->cpu_id);
	return err ? err : smp_post(&t, fn, arg, NULL, 0, wait, &posted);
}

int smp_call_others(smp_call_fn fn, void *arg, bool wait)
{
	return smp_call(&cpu_online_mask, fn, arg, wait);
}

int smp_cpu_revive(unsigned cpu)
{
	unsigned c;

	if (cpu >= MAX_CPUS || !cpumask_test_cpu(cpu, &cpu_online_mask))
		return -EINVAL;
	for_each_cpu(c, &cpu_online_mask)
		if (cpumask_test_cpu_acquire(cpu, &percpu_of(c)->call.waiting))
			return -EBUSY;
	cpumask_clear_cpu_atomic(cpu, &cpu_dead_mask);
	return 0;
}

struct work_post {
	smp_call_fn fn;
	void *arg;
	int result;
};

/* Call function: accept the work unless some is still queued. */
static void accept_work(void *arg)
{
	struct work_post *post = arg;
	struct smp_work *w = &this_cpu()->work;

	if (w->fn) {
		post->result = -EBUSY;
		return;
	}
	w->arg = post->arg;
	WRITE_ONCE(w->fn, post->fn);
	post->result = 0;
}

int smp_run_async(unsigned cpu, smp_call_fn fn, void *arg)
{
	struct work_post post = { fn, arg, 0 };
	struct smp_targets t;
	bool posted;
	int err;

	spin_assert_none_held("smp_run_async");
	err = smp_targets_of_cpu(&t, cpu, this_cpu()->cpu_id);
	/* A copy: a CPU that answers after our deadline must not write into this frame. */
	if (!err)
		err = smp_post(&t, accept_work, NULL, &post, sizeof(post), true, &posted);
	if (err)
		return err;
	memcpy(&post, this_cpu()->call.data, sizeof(post));
	return post.result;
}

bool smp_cpu_running_work(unsigned cpu)
{
	return cpu < MAX_CPUS && READ_ONCE(percpu_of(cpu)->work.running);
}

/* this_cpu()->local.idle_halted: set while the CPU sits in cpu_idle()'s HLT. */
bool smp_idle_halted(void)
{
	return READ_ONCE(this_cpu()->local.idle_halted);
}

void cpu_idle(void)
{
	struct smp_work *w = &this_cpu()->work;
	bool *halted = &this_cpu()->local.idle_halted;

	for (;;) {
		smp_call_fn fn;
		void *arg;

		arch_irq_save();
		fn = READ_ONCE(w->fn);
		if (!fn) {
			WRITE_ONCE(*halted, true);
			trace_event(TRACE_IDLE_HALT, 0, 0);
			arch_idle(); /* enables interrupts and halts, losing no wake-up */
			trace_event(TRACE_IDLE_WAKE, 0, 0);
			WRITE_ONCE(*halted, false);
			continue;
		}
		arg = w->arg;
		WRITE_ONCE(w->fn, NULL);
		WRITE_ONCE(w->running, true);
		arch_irq_enable();
		fn(arg);
		WRITE_ONCE(w->running, false);
	}
}
