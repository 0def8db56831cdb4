/*
 * The threaded fake CPUs of tests/host/fake_cpus.h. An interrupt lock is a
 * word naming its holder: a thread takes its own CPU's lock while its
 * interrupts are off; a caller of smp_call() takes a target's with a deadline
 * and hands it, with the call, to the target's runner thread, which drops it
 * when the call function returns.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errno.h"
#include "kernel/cpumask.h"
#include "kernel/percpu.h"
#include "tests/host/fake_arch.h"
#include "tests/host/fake_cpus.h"
#include <arch/arch.h>

bool fake_cpus_on;
static u32 fake_cpus_timeout_ms;
static u64 fake_irq_owner[MAX_CPUS];
static bool fake_dead[MAX_CPUS];
static unsigned fake_dead_count;
static u64 fake_token_next;
static __thread u64 fake_token;
/* Set while this thread runs another CPU's call function (a runner). */
static __thread bool fake_in_call;
static u64 fake_counts[FAKE_CPUS_COUNTS];
void (*fake_cpus_check_hook)(unsigned cpu);

/*
 * A target's runner: the thread its call functions run on. @ticket is the
 * hand-off's number (one at a time: the caller holds the target's lock);
 * @acked and @done reach it when the function acknowledged (or returned)
 * and returned.
 */
struct fake_runner {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool started;
	u64 ticket, acked, done;
	smp_call_fn fn;
	void *arg;
};

/* A caller's descriptor: the targets its last call was handed to, not yet waited for. */
struct fake_call {
	cpumask_t pending;
	u64 ticket[FAKE_CPUS_RUNNERS];
	cpumask_t handed; /* every target whose runner may still read @data */
	u64 data[SMP_CALL_DATA_MAX / 8];
	bool copy_back;
	void *copy_to;
	size_t copy_len;
};

static struct fake_runner fake_runners[FAKE_CPUS_RUNNERS];
static struct fake_call fake_calls[FAKE_CPUS_RUNNERS];
static u64 fake_ticket_next;
static pthread_mutex_t fake_start_mu = PTHREAD_MUTEX_INITIALIZER;
/* The runner this thread is, while it runs a call (its ticket, for smp_call_ack()). */
static __thread struct fake_runner *fake_me;
static __thread u64 fake_me_ticket;

static u64 thread_token(void)
{
	if (!fake_token)
		fake_token = __atomic_add_fetch(&fake_token_next, 1, __ATOMIC_RELAXED);
	return fake_token;
}

void fake_cpus_count(enum fake_cpus_count k)
{
	__atomic_add_fetch(&fake_counts[k], 1, __ATOMIC_RELAXED);
}

u64 fake_cpus_counted(enum fake_cpus_count k)
{
	return __atomic_load_n(&fake_counts[k], __ATOMIC_RELAXED);
}

void fake_cpus_enable(u32 timeout_ms)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		fake_irq_owner[i] = 0;
		fake_dead[i] = false;
	}
	for (unsigned i = 0; i < FAKE_CPUS_RUNNERS; i++)
		cpumask_clear(&fake_calls[i].pending);
	fake_dead_count = 0;
	fake_cpus_timeout_ms = timeout_ms;
	__atomic_store_n(&fake_cpus_on, true, __ATOMIC_SEQ_CST);
}

void fake_cpus_disable(void)
{
	__atomic_store_n(&fake_cpus_on, false, __ATOMIC_SEQ_CST);
}

/*
 * Takes @cpu's interrupt lock; with @deadline_ns (0: none) false when it
 * passed. With @ticks, the waiting thread's own tick runs meanwhile: a
 * caller that waits for a target with its interrupts on takes its timer
 * interrupts, as in the kernel (lazy drains its queue there; without it a
 * caller stuck on a dark CPU for timeout_ms was written off by another
 * CPU's lazy settle, seen once in a 600 s host torture).
 */
static bool irq_lock_take(unsigned cpu, u64 deadline_ns, bool ticks)
{
	u64 tok = thread_token();

	for (;;) {
		u64 free = 0;

		if (__atomic_compare_exchange_n(&fake_irq_owner[cpu], &free, tok, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		if (deadline_ns && arch_tsc_read() > deadline_ns)
			return false;
		if (ticks)
			fake_cpus_service();
		sched_yield();
	}
}

static void irq_lock_drop(unsigned cpu)
{
	__atomic_store_n(&fake_irq_owner[cpu], 0, __ATOMIC_RELEASE);
}

void fake_cpus_irq_off(unsigned cpu)
{
	if (fake_in_call || cpu >= MAX_CPUS)
		return;
	if (__atomic_load_n(&fake_irq_owner[cpu], __ATOMIC_RELAXED) == thread_token()) {
		fprintf(stderr, "fake_cpus: cpu %u: interrupts off twice on one thread\n", cpu);
		abort();
	}
	irq_lock_take(cpu, 0, false);
}

void fake_cpus_irq_on(unsigned cpu)
{
	if (!fake_in_call && cpu < MAX_CPUS)
		irq_lock_drop(cpu);
}

bool fake_cpus_dead(unsigned cpu)
{
	return cpu < MAX_CPUS && __atomic_load_n(&fake_dead[cpu], __ATOMIC_ACQUIRE);
}

unsigned fake_cpus_dead_count(void)
{
	return __atomic_load_n(&fake_dead_count, __ATOMIC_RELAXED);
}

void fake_cpus_write_off(unsigned cpu, const char *who)
{
	if (cpu >= MAX_CPUS || __atomic_exchange_n(&fake_dead[cpu], true, __ATOMIC_SEQ_CST))
		return;
	__atomic_add_fetch(&fake_dead_count, 1, __ATOMIC_RELAXED);
	printf("# fake cpu %u written off (%s)\n", cpu, who);
}

void fake_cpus_revive(unsigned cpu)
{
	if (cpu >= MAX_CPUS || !__atomic_exchange_n(&fake_dead[cpu], false, __ATOMIC_SEQ_CST))
		return;
	__atomic_sub_fetch(&fake_dead_count, 1, __ATOMIC_RELAXED);
	printf("# fake cpu %u back in the run\n", cpu);
}

/* ---- the target side: runners ---- */

/* Runs one hand-off as CPU @cpu, interrupts off, then gives its lock back. */
static void runner_run(struct fake_runner *r, unsigned cpu, u64 ticket)
{
	unsigned long flags;

	fake_me = r;
	fake_me_ticket = ticket;
	fake_arch_set_cpu(cpu);
	flags = arch_irq_save();
	r->fn(r->arg);
	arch_irq_restore(flags);
	fake_me = NULL;
	/* A function that did not acknowledge early does so on return. */
	if (__atomic_load_n(&r->acked, __ATOMIC_RELAXED) < ticket)
		__atomic_store_n(&r->acked, ticket, __ATOMIC_RELEASE);
	__atomic_store_n(&r->done, ticket, __ATOMIC_RELEASE);
	irq_lock_drop(cpu);
}

static void *runner_main(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	struct fake_runner *r = &fake_runners[cpu];
	u64 seen = 0;

	fake_in_call = true; /* for good: this thread only ever runs call functions */
	for (;;) {
		u64 t;

		pthread_mutex_lock(&r->mu);
		while ((t = __atomic_load_n(&r->ticket, __ATOMIC_ACQUIRE)) == seen)
			pthread_cond_wait(&r->cv, &r->mu);
		pthread_mutex_unlock(&r->mu);
		seen = t;
		runner_run(r, cpu, t);
	}
	return NULL;
}

static struct fake_runner *runner_of(unsigned cpu)
{
	struct fake_runner *r = &fake_runners[cpu];
	pthread_t th;

	if (__atomic_load_n(&r->started, __ATOMIC_ACQUIRE))
		return r;
	pthread_mutex_lock(&fake_start_mu);
	if (!r->started) {
		pthread_mutex_init(&r->mu, NULL);
		pthread_cond_init(&r->cv, NULL);
		if (pthread_create(&th, NULL, runner_main, (void *)(uintptr_t)cpu)) {
			fprintf(stderr, "fake_cpus: no runner thread for cpu %u\n", cpu);
			abort();
		}
		pthread_detach(th);
		__atomic_store_n(&r->started, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&fake_start_mu);
	return r;
}

/* Hands @fn(@arg) to @cpu's runner; the caller holds @cpu's lock, which the runner drops. */
static u64 runner_hand(unsigned cpu, smp_call_fn fn, void *arg)
{
	struct fake_runner *r = runner_of(cpu);
	u64 t = __atomic_add_fetch(&fake_ticket_next, 1, __ATOMIC_RELAXED);

	pthread_mutex_lock(&r->mu);
	r->fn = fn;
	r->arg = arg;
	__atomic_store_n(&r->ticket, t, __ATOMIC_RELEASE);
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return t;
}

bool fake_cpus_ack(void)
{
	struct fake_runner *r = fake_me;

	if (!r || __atomic_load_n(&r->acked, __ATOMIC_RELAXED) >= fake_me_ticket)
		return false;
	fake_cpus_count(FAKE_CPUS_EARLY_ACKS);
	__atomic_store_n(&r->acked, fake_me_ticket, __ATOMIC_RELEASE);
	return true;
}

/* ---- the caller side ---- */

/*
 * Takes @cpu's lock for a call, by @deadline; the caller's own lock goes
 * meanwhile when its interrupts are off (the kernel's wait serves its
 * mailbox). Counts a lock another call holds: concurrent initiators.
 */
static bool call_lock(unsigned cpu, unsigned self, u64 deadline)
{
	bool had_off = !arch_irqs_enabled(), ok;
	u64 owner = __atomic_load_n(&fake_irq_owner[cpu], __ATOMIC_RELAXED);

	if (owner && cpu < FAKE_CPUS_RUNNERS &&
	    __atomic_load_n(&fake_runners[cpu].done, __ATOMIC_RELAXED) <
		    __atomic_load_n(&fake_runners[cpu].ticket, __ATOMIC_RELAXED))
		fake_cpus_count(FAKE_CPUS_CONCURRENT);
	if (had_off)
		irq_lock_drop(self);
	ok = irq_lock_take(cpu, deadline, !had_off);
	if (had_off)
		irq_lock_take(self, 0, false);
	return ok;
}

/* Runs @fn(@arg) as @cpu on this thread (a CPU with no runner), its lock held. */
static void call_inline(unsigned cpu, smp_call_fn fn, void *arg, unsigned self)
{
	unsigned long flags;

	fake_in_call = true;
	fake_arch_set_cpu(cpu);
	flags = arch_irq_save();
	fn(arg);
	arch_irq_restore(flags);
	fake_arch_set_cpu(self);
	fake_in_call = false;
	irq_lock_drop(cpu);
}

/*
 * Before a descriptor is used again: every runner that may read its data
 * returned (a late target keeps it, as the kernel's, until it answers).
 */
static void call_reuse(struct fake_call *d)
{
	unsigned cpu;

	for_each_cpu(cpu, &d->handed)
		while (__atomic_load_n(&fake_runners[cpu].done, __ATOMIC_ACQUIRE) < d->ticket[cpu])
			sched_yield();
	cpumask_clear(&d->handed);
}

/* Waits for @cpu to acknowledge @ticket, judged on its own deadline; false when it missed it. */
static bool call_wait_one(unsigned cpu, u64 ticket)
{
	u64 deadline = arch_tsc_read() + (u64)fake_cpus_timeout_ms * 1000000ull;

	while (__atomic_load_n(&fake_runners[cpu].acked, __ATOMIC_ACQUIRE) < ticket) {
		if (fake_cpus_dead(cpu) || arch_tsc_read() > deadline)
			return false;
		if (arch_irqs_enabled())
			fake_cpus_service();
		sched_yield();
	}
	return true;
}

int fake_cpus_wait(unsigned self)
{
	struct fake_call *d;
	bool had_off = !arch_irqs_enabled();
	unsigned cpu;
	int err = 0;

	if (self >= FAKE_CPUS_RUNNERS)
		return 0;
	d = &fake_calls[self];
	if (had_off)
		irq_lock_drop(self);
	for_each_cpu(cpu, &d->pending) {
		if (!call_wait_one(cpu, d->ticket[cpu])) {
			fake_cpus_write_off(cpu, "smp_call");
			err = -ETIMEDOUT;
		}
	}
	if (had_off)
		irq_lock_take(self, 0, false);
	cpumask_clear(&d->pending);
	if (!err && d->copy_back)
		memcpy(d->copy_to, d->data, d->copy_len);
	d->copy_back = false;
	return err;
}

bool fake_cpus_pending(unsigned self)
{
	return self < FAKE_CPUS_RUNNERS && !cpumask_empty(&fake_calls[self].pending);
}

/* Sends to one live target: handed to its runner (or run here); false when it timed out. */
static bool call_send_one(struct fake_call *d, unsigned cpu, smp_call_fn fn, void *arg,
			  unsigned self)
{
	u64 deadline = arch_tsc_read() + (u64)fake_cpus_timeout_ms * 1000000ull;

	if (!call_lock(cpu, self, deadline))
		return false;
	if (cpu >= FAKE_CPUS_RUNNERS || !d) {
		call_inline(cpu, fn, arg, self);
		return true;
	}
	d->ticket[cpu] = runner_hand(cpu, fn, arg);
	cpumask_set_cpu(cpu, &d->pending);
	cpumask_set_cpu(cpu, &d->handed);
	return true;
}

int fake_cpus_call_copy(const cpumask_t *mask, smp_call_fn fn, void *data, size_t len,
			unsigned self, bool wait)
{
	struct fake_call *d = self < FAKE_CPUS_RUNNERS ? &fake_calls[self] : NULL;
	cpumask_t snap;
	unsigned cpu;
	int err = 0, werr;

	if (d) {
		(void)fake_cpus_wait(self); /* the kernel's next call waits for the last first */
		call_reuse(d);
		if (len) {
			memcpy(d->data, data, len);
			d->copy_back = wait;
			d->copy_to = data;
			d->copy_len = len;
			data = d->data;
		}
	}
	/* Read once, with acquire, as kernel/smp.c's smp_call() does (kernel/smp.h). */
	cpumask_copy_acquire(&snap, mask);
	for_each_cpu(cpu, &snap) {
		if (cpu == self)
			continue;
		if (fake_cpus_dead(cpu)) {
			err = -ETIMEDOUT;
			continue;
		}
		if (!call_send_one(d, cpu, fn, data, self)) {
			fake_cpus_write_off(cpu, "smp_call");
			err = -ETIMEDOUT;
		}
	}
	if (!wait)
		return err;
	if (err && d)
		d->copy_back = false; /* copied back only after a call that returns 0 */
	werr = fake_cpus_wait(self);
	return err ? err : werr;
}

int fake_cpus_call(const cpumask_t *mask, smp_call_fn fn, void *arg, unsigned self, bool wait)
{
	return fake_cpus_call_copy(mask, fn, arg, 0, self, wait);
}

void fake_cpus_service(void)
{
	unsigned long flags;

	if (!fake_cpus_on || fake_in_call || !arch_irqs_enabled())
		return;
	flags = arch_irq_save();
	fake_tick();
	arch_irq_restore(flags);
}
