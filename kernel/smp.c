/*
 * Cross-CPU calls (see kernel/smp.h). A caller fills its own descriptor
 * (fn, arg or a copy of it, the set of targets still to answer), sets its
 * bit in each target's mailbox and sends each target one IPI. A target
 * claims each caller's bit on its own (an atomic clear that tells it
 * whether the bit was still there), runs that caller's function, then
 * acknowledges by clearing itself from the waiting set and dropping the
 * count.
 *
 * Ordering: the descriptor is written before the mailbox bit is set
 * (release), and the target claims the bit (a full barrier) before it
 * reads the descriptor, so a target never runs a half-written call.
 *
 * A missed deadline: the caller takes its bit back from each late CPU's
 * mailbox with the same kind of atomic clear, so exactly one side wins. If
 * the caller wins, the late CPU can never run the call; if the target won,
 * it is running the call (or about to), so the descriptor, and the copy of
 * the argument in it, stay untouched until it acknowledges. Either way the
 * late CPU goes into cpu_dead_mask for good: no call is sent to it again,
 * and every later call that names it fails, so what a flush covered is
 * never reused (mm/quarantine.h). A descriptor is rewritten only once no
 * target can still run the call it holds.
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

static u64 timeout_cycles;
static u32 timeout_ms = 1000;
/* timeout_ms=: how long a cross-CPU call waits before its target is out of the run. */
OPTION_UINT(timeout_ms, timeout_ms, 1, 600000, 1000);
static cpumask_t cpu_dead_mask; /* CPUs out of the run: each missed a deadline */

void smp_set_timeout_ms(u32 ms)
{
	timeout_ms = ms;
	timeout_cycles = 0;
}

u32 smp_timeout_ms(void)
{
	return timeout_ms;
}

static u64 wait_deadline(void)
{
	if (!timeout_cycles)
		timeout_cycles = arch_tsc_hz() / 1000 * timeout_ms;
	return arch_tsc_read() + timeout_cycles;
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

/*
 * The caller (plus one; 0: none) whose call each CPU is running now and
 * has not acknowledged yet (smp_call_ack()); written by that CPU only.
 */
static unsigned call_unacked[MAX_CPUS];

/* Counted before the acknowledgement, so a caller done waiting sees the count. */
static void smp_ack(unsigned caller, unsigned self)
{
	struct smp_call_desc *d = &percpu_of(caller)->call;

	this_cpu_inc(PCPU_CALLS_RUN);
	trace_event(TRACE_ACK_SENT, caller, trace_seq(caller));
	cpumask_clear_cpu_atomic(self, &d->waiting);
	atomic_sub_return(&d->remaining, 1);
}

static void run_call_from(unsigned caller, unsigned self)
{
	struct smp_call_desc *d = &percpu_of(caller)->call;

	trace_event(TRACE_IPI_RECV, caller, trace_seq(caller));
	call_unacked[self] = caller + 1;
	d->fn(d->arg);
	if (call_unacked[self])
		smp_ack(caller, self);
	call_unacked[self] = 0;
}

bool smp_call_ack(void)
{
	unsigned self = this_cpu()->cpu_id;
	unsigned caller = call_unacked[self];

	if (!caller)
		return false;
	call_unacked[self] = 0;
	smp_ack(caller - 1, self);
	return true;
}

void smp_handle_mailbox(void)
{
	struct percpu *me = this_cpu();
	cpumask_t *box = &me->mailbox.callers;

	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		u64 bits = atomic_load_relaxed(&box->bits[w]);

		while (bits) {
			u64 bit = bits & -bits;

			bits &= bits - 1;
			/* Ours only if still set: a caller past its deadline takes it back. */
			if (atomic_fetch_and(&box->bits[w], ~bit) & bit)
				run_call_from(w * CPUMASK_WORD_BITS + __builtin_ctzll(bit), me->cpu_id);
		}
	}
}

/* Takes the call back from @cpu, late; true if it can never run it. */
static bool smp_take_back(struct smp_call_desc *d, unsigned self, unsigned cpu)
{
	u64 *word = &CPUMASK_WORD(&percpu_of(cpu)->mailbox.callers, self);

	if (!(atomic_fetch_and(word, ~CPUMASK_BIT(self)) & CPUMASK_BIT(self)))
		return false; /* it claimed the call: the descriptor stays its until it answers */
	cpumask_clear_cpu_atomic(cpu, &d->waiting);
	atomic_sub_return(&d->remaining, 1);
	return true;
}

/* The deadline passed: every CPU still waited for is out of the run from now on. */
static void smp_write_off(struct smp_call_desc *d, unsigned self)
{
	cpumask_t late;
	unsigned cpu;

	for (unsigned w = 0; w < CPUMASK_WORDS; w++)
		late.bits[w] = cpumask_load_word(&d->waiting, w);
	for_each_cpu(cpu, &late) {
		bool first = !cpumask_test_and_set_cpu_atomic(cpu, &cpu_dead_mask);
		bool gone = smp_take_back(d, self, cpu);

		if (first)
			printk("mmlab: smp_call from CPU %u: CPU %u (APIC ID %u) did not answer within %u ms: out of the run, never called again\n",
			       self, cpu, percpu_of(cpu)->apic_id, timeout_ms);
		if (!gone && cpumask_test_cpu_acquire(cpu, &d->waiting))
			printk("mmlab: CPU %u took the call from CPU %u and has not finished it: CPU %u's calls fail until it does\n",
			       cpu, self, self);
	}
	d->err = -ETIMEDOUT;
}

/*
 * True when the descriptor still waits for some CPU and every one is out
 * of the run. (An empty set with a count left is an acknowledgement half
 * done: the target clears its bit, then drops the count.)
 */
static bool smp_held_by_dead(const struct smp_call_desc *d)
{
	bool any = false;

	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		u64 wait = cpumask_load_word(&d->waiting, w);

		if (wait & ~cpumask_load_word(&cpu_dead_mask, w))
			return false;
		any |= wait != 0;
	}
	return any;
}

/*
 * Waits until no target can still run this CPU's call, serving our own
 * mailbox meanwhile. Returns 0 once the descriptor is free again, or
 * -ETIMEDOUT while a CPU out of the run still holds it.
 */
static int smp_drain(struct smp_call_desc *d)
{
	bool irqs_off = !arch_irqs_enabled();
	u64 deadline;

	if (!atomic_load_acquire(&d->remaining))
		return 0;
	if (smp_held_by_dead(d))
		return -ETIMEDOUT;
	deadline = wait_deadline();
	while (atomic_load_acquire(&d->remaining)) {
		if (irqs_off)
			smp_handle_mailbox();
		if (arch_tsc_read() > deadline) {
			smp_write_off(d, this_cpu()->cpu_id);
			return atomic_load_acquire(&d->remaining) ? -ETIMEDOUT : 0;
		}
		arch_cpu_relax();
	}
	return 0;
}

int smp_call_wait(void)
{
	struct smp_call_desc *d = &this_cpu()->call;
	int err = smp_drain(d);

	trace_event(TRACE_ACK_SEEN, 0, trace_seq(this_cpu()->cpu_id));
	return err ? err : d->err;
}

/* Counts the targets in @mask but the caller; -EINVAL for an offline one. */
static int check_targets(const cpumask_t *mask, unsigned self, unsigned *count)
{
	unsigned cpu;

	*count = 0;
	for_each_cpu(cpu, mask) {
		if (cpu == self)
			continue;
		if (!cpumask_test_cpu(cpu, &cpu_online_mask))
			return -EINVAL;
		(*count)++;
	}
	return 0;
}

/* Drops the CPUs out of the run from @targets; returns how many there were. */
static unsigned drop_dead(cpumask_t *targets)
{
	unsigned n = 0;

	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		u64 dead = targets->bits[w] & cpumask_load_word(&cpu_dead_mask, w);

		n += cpumask_word_weight(dead);
		targets->bits[w] &= ~dead;
	}
	return n;
}

/* Fills this CPU's free descriptor with the call and sends it to @targets (@count of them). */
static void smp_send(struct smp_call_desc *d, const cpumask_t *targets, unsigned count)
{
	unsigned self = this_cpu()->cpu_id, cpu;

	cpumask_copy(&d->waiting, targets);
	atomic_store_release(&d->remaining, count);
	trace_event(TRACE_CALL, count, 0);
	for_each_cpu(cpu, targets) {
		cpumask_set_cpu_atomic(self, &percpu_of(cpu)->mailbox.callers);
		arch_send_call_ipi(cpu);
		trace_event(TRACE_IPI_SENT, cpu, trace_seq(self));
		this_cpu_inc(PCPU_IPI_SENT);
	}
}

/*
 * smp_call() and smp_call_copy(): @len bytes at @data, when @len, are
 * copied into the descriptor and @fn gets the copy. *@posted tells whether
 * the descriptor now holds this call.
 */
static int smp_post(const cpumask_t *mask, smp_call_fn fn, void *arg, const void *data,
		    size_t len, bool wait, bool *posted)
{
	struct percpu *me = this_cpu();
	struct smp_call_desc *d = &me->call;
	unsigned count, dead;
	cpumask_t targets;
	int err;

	*posted = false;
	spin_assert_none_held("smp_call");
	/* One snapshot: @mask may be live (mm_cpumask), and count and set must agree. */
	cpumask_copy(&targets, mask);
	if ((err = check_targets(&targets, me->cpu_id, &count)))
		return err;
	if (smp_drain(d))
		return -ETIMEDOUT; /* a CPU out of the run still holds our descriptor */
	*posted = true;
	cpumask_clear_cpu(me->cpu_id, &targets);
	dead = drop_dead(&targets);
	count -= dead;
	d->err = dead ? -ETIMEDOUT : 0; /* the live targets still get the call */
	d->fn = fn;
	d->arg = len ? memcpy(d->data, data, len) : arg;
	smp_send(d, &targets, count);
	if (wait)
		return smp_call_wait();
	return d->err;
}
int smp_call(const cpumask_t *mask, smp_call_fn fn, void *arg, bool wait)
{
	bool posted;

	return smp_post(mask, fn, arg, NULL, 0, wait, &posted);
}

int smp_call_copy(const cpumask_t *mask, smp_call_fn fn, void *data, size_t len, bool wait)
{
	bool posted;
	int err;

	if (len > SMP_CALL_DATA_MAX || !len)
		return -EINVAL;
	err = smp_post(mask, fn, NULL, data, len, wait, &posted);
	if (!err && wait && posted)
		memcpy(data, this_cpu()->call.data, len);
	return err;
}

static void mask_of(unsigned cpu, cpumask_t *mask)
{
	cpumask_clear(mask);
	cpumask_set_cpu(cpu, mask);
}

int smp_call_one(unsigned cpu, smp_call_fn fn, void *arg, bool wait)
{
	cpumask_t mask;

	if (cpu >= MAX_CPUS)
		return -EINVAL;
	mask_of(cpu, &mask);
	return smp_call(&mask, fn, arg, wait);
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
	cpumask_t mask;
	int err;

	if (cpu >= MAX_CPUS)
		return -EINVAL;
	mask_of(cpu, &mask);
	/* A copy: a CPU that answers after our deadline must not write into this frame. */
	err = smp_call_copy(&mask, accept_work, &post, sizeof(post), true);
	return err ? err : post.result;
}

void cpu_idle(void)
{
	struct smp_work *w = &this_cpu()->work;

	for (;;) {
		smp_call_fn fn;
		void *arg;

		arch_irq_save();
		fn = READ_ONCE(w->fn);
		if (!fn) {
			arch_idle(); /* enables interrupts and halts, losing no wake-up */
			continue;
		}
		arg = w->arg;
		WRITE_ONCE(w->fn, NULL);
		arch_irq_enable();
		fn(arg);
	}
}
