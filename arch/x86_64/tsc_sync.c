/*
 * TSC synchronisation check: the boot CPU and each AP in turn play ping-pong
 * through the AP's cache line; the offset is t1 - (t0 + t2) / 2 from the
 * shortest round trip, whose half bounds the error. Every wait is bounded
 * (kernel/smp.h): an AP that misses one is named and left out, the others
 * are still measured. The AP acks before its first look, so it always leaves
 * at its session's abort however late it runs.
 */
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/tsc_sync.h"
#include "compiler.h"
#include "errno.h"
#include "kernel/printk.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include <arch/cpu.h>

#define TSC_SYNC_ROUNDS 64
#define TSC_SYNC_ABORT 0xffffffffu /* turn: the boot CPU gave up on this session */

struct sync_line {
	u64 state; /* session << 32 | turn; odd turn: the AP's move, even: the boot CPU's */
	u64 t_ap;
} __cacheline_aligned;

/* One line per AP: a late AP only ever touches its own, never the next AP's. */
static struct sync_line lines[MAX_CPUS];
static u32 sessions; /* the last session begun: the boot CPU's alone */
/* tsc_sync_check_hooked(): self-tests only */
static void (*answer_hook)(void);
static bool hook_before_ack;

static inline u64 sync_state(u32 session, u32 turn)
{
	return (u64)session << 32 | turn;
}

/* Answers @round of @session on @l; false once the session is over (aborted or replaced). */
static bool sync_answer_round(struct sync_line *l, u32 session, u32 round)
{
	u64 ping = sync_state(session, 2 * round + 1), s;

	while ((s = atomic_load_acquire(&l->state)) != ping) {
		if (s >> 32 != session || (u32)s == TSC_SYNC_ABORT)
			return false;
		pause();
	}
	l->t_ap = rdtsc_ordered();
	/* An exchange, not a store: an abort that came meanwhile stays, and we leave. */
	return atomic_cmpxchg(&l->state, ping, sync_state(session, 2 * round + 2)) == ping;
}

/* Runs on the AP (a call function, @arg its session): answers every ping with its TSC. */
static void sync_answer(void *arg)
{
	void (*hook)(void) = READ_ONCE(answer_hook);
	struct sync_line *l = &lines[this_cpu()->cpu_id];
	u32 session = (u32)(uintptr_t)arg;

	if (hook && READ_ONCE(hook_before_ack))
		hook();
	/* The session travels by value: nothing of the caller's descriptor is needed after this. */
	smp_call_ack();
	if (hook && !READ_ONCE(hook_before_ack))
		hook();
	for (u32 round = 0; round < TSC_SYNC_ROUNDS; round++)
		if (!sync_answer_round(l, session, round))
			return;
}

/* Waits until @l holds @pong; false once the deadline passed. */
static bool wait_answer(struct sync_line *l, u64 pong)
{
	u64 deadline = rdtsc_ordered() + tsc_hz() / 1000 * smp_deadline_ms();

	while (atomic_load_acquire(&l->state) != pong) {
		if (rdtsc_ordered() > deadline)
			return false;
		pause();
	}
	return true;
}

/*
 * The AP missed a round: its session aborted, named, out of the run. Our
 * call is then taken back if it never claimed it; if it did, it
 * acknowledges first thing whenever it runs (sync_post() waits for that).
 */
static void measure_give_up(unsigned cpu, struct sync_line *l, u32 session, u32 round)
{
	atomic_store_release(&l->state, sync_state(session, TSC_SYNC_ABORT));
	printk("mmlab: error: tsc sync: CPU %u did not answer round %u within %u ms: left out of the skew check\n",
	       cpu, round, smp_deadline_ms());
	smp_cpu_write_off(cpu, "tsc sync");
	(void)smp_call_wait();
}

/*
 * Sends @cpu its session. Our descriptor may still be held by an AP given
 * up on that claimed its call and has not run since; with @wait, give it
 * until the deadline. -ETIMEDOUT with @cpu alive: nothing was sent.
 */
static int sync_post(unsigned cpu, u32 session, bool wait)
{
	u64 deadline = 0;
	int err;

	for (;;) {
		err = smp_call_one(cpu, sync_answer, (void *)(uintptr_t)session, false);
		if (err != -ETIMEDOUT || !wait || smp_cpu_dead(cpu))
			return err;
		if (!deadline)
			deadline = rdtsc_ordered() + tsc_hz() / 1000 * smp_deadline_ms();
		else if (rdtsc_ordered() > deadline)
			return err;
		pause();
	}
}

/* @cpu's offset from ours, its bound in *@bound; -ETIMEDOUT if it missed a round or got none. */
static int measure_one(unsigned cpu, bool wait, s64 *offset, u64 *bound)
{
	struct sync_line *l = &lines[cpu];
	u32 session = ++sessions;
	u64 best_rtt = ~0ull;
	s64 best = 0;
	int err;

	atomic_store_release(&l->state, sync_state(session, 0));
	err = sync_post(cpu, session, wait);
	if (err)
		return err;
	for (u32 round = 0; round < TSC_SYNC_ROUNDS; round++) {
		u64 t0 = rdtsc_ordered(), t2;

		atomic_store_release(&l->state, sync_state(session, 2 * round + 1));
		if (!wait_answer(l, sync_state(session, 2 * round + 2))) {
			measure_give_up(cpu, l, session, round);
			return -ETIMEDOUT;
		}
		t2 = rdtsc_ordered();
		if (t2 - t0 < best_rtt) {
			best_rtt = t2 - t0;
			best = (s64)(l->t_ap - (t0 + (t2 - t0) / 2));
		}
	}
	err = smp_call_wait();
	*bound = best_rtt / 2;
	*offset = best;
	return err;
}

void tsc_sync_check_hooked(struct tsc_sync_result *res, void (*hook)(void), bool before_ack)
{
	WRITE_ONCE(hook_before_ack, before_ack);
	WRITE_ONCE(answer_hook, hook);
	tsc_sync_check(res);
	WRITE_ONCE(answer_hook, NULL);
}

/* @cpu was not sent its session: our calls are held. Named; waited for once only. */
static void note_unchecked(struct tsc_sync_result *res, unsigned cpu)
{
	printk("mmlab: error: tsc sync: CPU %u not checked: CPU %u's calls are held by a CPU out of the run\n",
	       cpu, this_cpu()->cpu_id);
	res->unchecked++;
}

void tsc_sync_check(struct tsc_sync_result *res)
{
	unsigned cpu;

	*res = (struct tsc_sync_result){ 0 };
	for_each_cpu(cpu, &cpu_online_mask) {
		u64 bound = 0;
		s64 off = 0;
		u64 mag;

		if (cpu == this_cpu()->cpu_id || smp_cpu_dead(cpu))
			continue;
		if (measure_one(cpu, !res->unchecked, &off, &bound)) {
			if (!smp_cpu_dead(cpu))
				note_unchecked(res, cpu);
			continue; /* else named and out of the run: no measurement */
		}
		mag = off < 0 ? (u64)-off : (u64)off;
		res->checked++;
		if (mag >= res->max_abs_offset) {
			res->max_abs_offset = mag;
			res->worst_cpu = cpu;
			res->worst_offset = off;
		}
		res->max_bound = MAX(res->max_bound, bound);
	}
}
