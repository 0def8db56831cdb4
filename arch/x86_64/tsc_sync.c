/*
 * TSC synchronisation check: the boot CPU and each AP in turn play
 * ping-pong through one cache line. The boot CPU reads t0, the AP answers
 * with its t1, the boot CPU reads t2; if the clocks agree, t1 lies in
 * [t0, t2]. The AP's offset is estimated as t1 - (t0 + t2) / 2 from the
 * round with the shortest round trip, whose half is the error bound.
 * Each wait is bounded by timeout_ms (kernel/smp.h): an AP that does not
 * answer a round is named, goes out of the run and is left out of the
 * result; the boot CPU tells a late AP to stop (TSC_SYNC_ABORT), so it
 * leaves the call function instead of spinning in it for good.
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
#define TSC_SYNC_ABORT 0xffffffffu /* line.turn: the boot CPU gave up on this AP */

struct sync_line {
	u32 turn;   /* odd: the AP's move; even: the boot CPU's */
	u64 t_ap;
} __cacheline_aligned;

static struct sync_line line;
static void (*answer_hook)(void); /* tsc_sync_check_hooked(): self-tests only */

/* Runs on the AP (a call function): answers every ping with its TSC. */
static void sync_answer(void *arg)
{
	void (*hook)(void) = READ_ONCE(answer_hook);

	(void)arg;
	if (hook)
		hook();
	for (u32 round = 0; round < TSC_SYNC_ROUNDS; round++) {
		u32 turn;

		while ((turn = atomic_load_acquire(&line.turn)) != 2 * round + 1) {
			if (turn == TSC_SYNC_ABORT)
				return;
			pause();
		}
		line.t_ap = rdtsc_ordered();
		atomic_store_release(&line.turn, 2 * round + 2);
	}
}

/* Waits for the AP's answer to @round; false once timeout_ms passed. */
static bool wait_answer(u32 round)
{
	u64 deadline = rdtsc_ordered() + tsc_hz() / 1000 * smp_timeout_ms();

	while (atomic_load_acquire(&line.turn) != 2 * round + 2) {
		if (rdtsc_ordered() > deadline)
			return false;
		pause();
	}
	return true;
}

/*
 * The AP missed a round: told to stop, named, out of the run. The wait
 * first (bounded): an AP that claimed the call leaves it at the abort and
 * frees our descriptor; one that never claimed it is written off there
 * and the call taken back.
 */
static void measure_give_up(unsigned cpu, u32 round)
{
	atomic_store_release(&line.turn, TSC_SYNC_ABORT);
	printk("mmlab: error: tsc sync: CPU %u did not answer round %u within %u ms: left out of the skew check\n",
	       cpu, round, smp_timeout_ms());
	(void)smp_call_wait();
	smp_cpu_write_off(cpu, "tsc sync");
}

/* @cpu's offset from ours, its bound in *@bound; -ETIMEDOUT if it did not answer. */
static int measure_one(unsigned cpu, s64 *offset, u64 *bound)
{
	u64 best_rtt = ~0ull;
	s64 best = 0;
	int err;

	atomic_store_release(&line.turn, 0);
	err = smp_call_one(cpu, sync_answer, NULL, false);
	if (err)
		return err;
	for (u32 round = 0; round < TSC_SYNC_ROUNDS; round++) {
		u64 t0 = rdtsc_ordered(), t2;

		atomic_store_release(&line.turn, 2 * round + 1);
		if (!wait_answer(round)) {
			measure_give_up(cpu, round);
			return -ETIMEDOUT;
		}
		t2 = rdtsc_ordered();
		if (t2 - t0 < best_rtt) {
			best_rtt = t2 - t0;
			best = (s64)(line.t_ap - (t0 + (t2 - t0) / 2));
		}
	}
	err = smp_call_wait();
	*bound = best_rtt / 2;
	*offset = best;
	return err;
}

void tsc_sync_check_hooked(struct tsc_sync_result *res, void (*hook)(void))
{
	WRITE_ONCE(answer_hook, hook);
	tsc_sync_check(res);
	WRITE_ONCE(answer_hook, NULL);
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
		if (measure_one(cpu, &off, &bound))
			continue; /* named and out of the run: no measurement */
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
