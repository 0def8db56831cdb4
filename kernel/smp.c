/*
 * Cross-CPU calls (see kernel/smp.h). A caller fills its own descriptor
 * (fn, arg, the set of targets still to answer), sets its bit in each
 * target's mailbox and sends each target one IPI. A target runs the
 * functions of every caller named in its mailbox, then acknowledges by
 * clearing itself from that caller's waiting set and dropping the count.
 *
 * Ordering: the descriptor is written before the mailbox bit is set
 * (release), and the target reads the mailbox bit (acquire) before the
 * descriptor, so a target never runs a half-written call. A descriptor is
 * reused only after every target of the previous call has acknowledged.
 */
#include "kernel/smp.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "lib/atomic.h"
#include <arch/arch.h>

static u64 timeout_cycles;
static u32 timeout_ms = 1000;

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

static void run_call_from(unsigned caller, unsigned self)
{
	struct smp_call_desc *d = &percpu_of(caller)->call;

	d->fn(d->arg);
	this_cpu_inc(PCPU_CALLS_RUN);
	cpumask_clear_cpu_atomic(self, &d->waiting);
	atomic_sub_return(&d->remaining, 1);
}

void smp_handle_mailbox(void)
{
	struct percpu *me = this_cpu();
	cpumask_t *box = &me->mailbox.callers;

	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		u64 bits = atomic_xchg(&box->bits[w], 0);

		smp_mb(); /* pairs with the caller's release before setting the bit */
		while (bits) {
			unsigned bit = __builtin_ctzll(bits);

			bits &= bits - 1;
			run_call_from(w * CPUMASK_WORD_BITS + bit, me->cpu_id);
		}
	}
}

static void report_late(const struct smp_call_desc *d)
{
	unsigned cpu;

	for_each_cpu(cpu, &d->waiting)
		printk("mmlab: smp_call from CPU %u: CPU %u (APIC ID %u) did not answer within %u ms\n",
		       this_cpu()->cpu_id, cpu, percpu_of(cpu)->apic_id, timeout_ms);
}

/* Waits for this CPU's descriptor to be acknowledged, serving our own mailbox meanwhile. */
int smp_call_wait(void)
{
	struct smp_call_desc *d = &this_cpu()->call;
	u64 deadline = wait_deadline();
	bool irqs_off = !arch_irqs_enabled();

	while (atomic_load_acquire(&d->remaining)) {
		if (irqs_off)
			smp_handle_mailbox();
		if (arch_tsc_read() > deadline) {
			report_late(d);
			return -ETIMEDOUT;
		}
		arch_cpu_relax();
	}
	return 0;
}

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

int smp_call(const cpumask_t *mask, smp_call_fn fn, void *arg, bool wait)
{
	struct percpu *me = this_cpu();
	struct smp_call_desc *d = &me->call;
	unsigned cpu, count;
	cpumask_t targets;
	int err;

	/* One snapshot: @mask may be live (mm_cpumask), and count and set must agree. */
	cpumask_copy(&targets, mask);
	if ((err = check_targets(&targets, me->cpu_id, &count)) || !count)
		return err;
	if ((err = smp_call_wait()))
		return err; /* the previous call is still out: its targets are stuck */
	d->fn = fn;
	d->arg = arg;
	cpumask_copy(&d->waiting, &targets);
	cpumask_clear_cpu(me->cpu_id, &d->waiting);
	atomic_store_release(&d->remaining, count);
	for_each_cpu(cpu, &d->waiting) {
		cpumask_set_cpu_atomic(me->cpu_id, &percpu_of(cpu)->mailbox.callers);
		arch_send_call_ipi(cpu);
		this_cpu_inc(PCPU_IPI_SENT);
	}
	return wait ? smp_call_wait() : 0;
}

int smp_call_one(unsigned cpu, smp_call_fn fn, void *arg, bool wait)
{
	cpumask_t mask;

	if (cpu >= MAX_CPUS)
		return -EINVAL;
	cpumask_clear(&mask);
	cpumask_set_cpu(cpu, &mask);
	return smp_call(&mask, fn, arg, wait);
}

int smp_call_others(smp_call_fn fn, void *arg, bool wait)
{
	return smp_call(&cpu_online_mask, fn, arg, wait);
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
	int err = smp_call_one(cpu, accept_work, &post, true);

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
