/*
 * TSC synchronisation check: the boot CPU and each AP in turn play
 * ping-pong through one cache line. The boot CPU reads t0, the AP answers
 * with its t1, the boot CPU reads t2; if the clocks agree, t1 lies in
 * [t0, t2]. The AP's offset is estimated as t1 - (t0 + t2) / 2 from the
 * round with the shortest round trip, whose half is the error bound.
 */
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/tsc_sync.h"
#include "compiler.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include <arch/cpu.h>

#define TSC_SYNC_ROUNDS 64

struct sync_line {
	u32 turn;   /* odd: the AP's move; even: the boot CPU's */
	u64 t_ap;
} __cacheline_aligned;

static struct sync_line line;

/* Runs on the AP (a call function): answers every ping with its TSC. */
static void sync_answer(void *arg)
{
	(void)arg;
	for (u32 round = 0; round < TSC_SYNC_ROUNDS; round++) {
		while (atomic_load_acquire(&line.turn) != 2 * round + 1)
			pause();
		line.t_ap = rdtsc_ordered();
		atomic_store_release(&line.turn, 2 * round + 2);
	}
}

static s64 measure_one(unsigned cpu, u64 *bound)
{
	u64 best_rtt = ~0ull;
	s64 best = 0;

	atomic_store_release(&line.turn, 0);
	if (smp_call_one(cpu, sync_answer, NULL, false))
		return 0;
	for (u32 round = 0; round < TSC_SYNC_ROUNDS; round++) {
		u64 t0 = rdtsc_ordered(), t2;

		atomic_store_release(&line.turn, 2 * round + 1);
		while (atomic_load_acquire(&line.turn) != 2 * round + 2)
			pause();
		t2 = rdtsc_ordered();
		if (t2 - t0 < best_rtt) {
			best_rtt = t2 - t0;
			best = (s64)(line.t_ap - (t0 + (t2 - t0) / 2));
		}
	}
	smp_call_wait();
	*bound = best_rtt / 2;
	return best;
}

void tsc_sync_check(struct tsc_sync_result *res)
{
	unsigned cpu;

	*res = (struct tsc_sync_result){ 0 };
	for_each_cpu(cpu, &cpu_online_mask) {
		u64 bound = 0;
		s64 off;
		u64 mag;

		if (cpu == this_cpu()->cpu_id)
			continue;
		off = measure_one(cpu, &bound);
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
