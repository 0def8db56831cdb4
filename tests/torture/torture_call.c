/*
 * The torture's cross-CPU call: the layer under every shootdown (kernel/smp.c
 * in the kernel, tests/host/fake_cpus.c on the host) driven on its own, in
 * the shape tlb_flush_round() uses it: post without waiting, own work, wait.
 * Its rule: a call that ran on no dark CPU completes, and every live target
 * ran it. Meanwhile this CPU serves interrupts and joins the audits.
 */
#include "errno.h"
#include "kernel/cpumask.h"
#include "kernel/smp.h"
#include "lib/format.h"
#include "mm/tlb/designs/early_ack.h"
#include "tests/torture/torture_internal.h"
#include <arch/arch.h>

/*
 * A target that acknowledged early stalls before it flushes until a
 * settle finished meanwhile (t_paths_service()) or more early requests
 * were acknowledged after its own (their initiators gathered again, and
 * released what they kept first): a release that misjudges this target
 * frees frames its flush then finds freed. A release that waits for it
 * keeps it stalled T_ACK_STALL_MS, far below a call's deadline.
 */
#define T_ACK_STALL_MS 20
#define T_ACK_STALL_ACKS 8

static u64 t_paths[T_PATHS];
static u32 t_settle_wanted; /* a target stalls after its acknowledgement: release now */
static u64 t_settles_done;  /* settles t_paths_service() finished */
static const char *const t_path_names[T_PATHS] = {
	"ack_stalls", "ack_stalls_beside_dark", "deaths_at_liveness_check",
	"deaths_at_liveness_check_lazy", "calls_onto_dark", "unmaps_dark_held",
	"lockless_pin_stalls", "settles_in_stall", "pushes_beside_dark",
};

struct t_call_msg {
	u32 caller; /* torture CPU index */
	u32 seq;
};

void t_path_count(enum t_path k)
{
	__atomic_add_fetch(&t_paths[k], 1, __ATOMIC_RELAXED);
}

/*
 * Quiesces t_paths_service() ran (early_ack's quiesce hook: it returns
 * once every CPU flushed every early request it started): the number of
 * the last begun, and of the last that returned 0.
 */
static u64 t_quiesce_begun, t_quiesce_done;

/*
 * early_ack's gap (tlb_early_ack_gap): on the target, after it
 * acknowledged, before it flushes, interrupts off. Stalls there every
 * time; counted apart while a dark CPU is not yet written off (a wait
 * over both meets a late CPU beside one that missed its deadline). The
 * observer of what the initiator's side believes: a quiesce begun after
 * this target acknowledged (its start counted, then the fence) must not
 * return before it flushed, or a release judged on the same counts frees
 * frames this CPU still translates to (a start counted after the
 * acknowledgement, a wait reading another CPU's counts).
 */
static void t_ack_gap(const struct tlb_flush_req *req)
{
	static u64 acks;
	u64 mine = __atomic_add_fetch(&acks, 1, __ATOMIC_RELAXED), until, q0;
	u64 settled = __atomic_load_n(&t_settles_done, __ATOMIC_ACQUIRE);
	int dark = torture_dark_cpu();
	bool beside = dark >= 0 && !torture_env_cpu_written_off((unsigned)dark);

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q0 = __atomic_load_n(&t_quiesce_begun, __ATOMIC_SEQ_CST);
	t_path_count(beside ? T_PATH_STALL_BESIDE_DARK : T_PATH_ACK_STALL);
	__atomic_store_n(&t_settle_wanted, 1, __ATOMIC_RELEASE);
	until = torture_env_now_ms() + T_ACK_STALL_MS;
	while (torture_env_now_ms() < until && !torture_failed() &&
	       __atomic_load_n(&acks, __ATOMIC_RELAXED) < mine + T_ACK_STALL_ACKS &&
	       __atomic_load_n(&t_settles_done, __ATOMIC_ACQUIRE) == settled &&
	       __atomic_load_n(&t_quiesce_done, __ATOMIC_ACQUIRE) <= q0)
		arch_cpu_relax();
	if (__atomic_load_n(&t_quiesce_done, __ATOMIC_ACQUIRE) > q0)
		torture_fail("%s: a quiesce returned while CPU %u had acknowledged a flush of "
			     "0x%lx and not done it", t_unmap_ops->d.name, arch_cpu_id(),
			     (unsigned long)req->start);
}

/* early_ack's quiesce, numbered for the stalled targets' check (above). */
static void t_paths_quiesce(void)
{
	u64 id, done;

	if (!t_unmap_ops->quiesce)
		return;
	id = __atomic_add_fetch(&t_quiesce_begun, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (tlb_quiesce(t_unmap_ops))
		return; /* a CPU written off: checked as every write-off is */
	done = __atomic_load_n(&t_quiesce_done, __ATOMIC_RELAXED);
	while (done < id && !__atomic_compare_exchange_n(&t_quiesce_done, &done, id, false,
							  __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/*
 * From t_service(), on a CPU in task context with interrupts on: while a
 * target stalls after acknowledging, a quiesce (which must wait for it)
 * and one settle, which releases what every CPU kept (early_ack's
 * settle), so a release that misjudges the stalled target meets it
 * before it flushes.
 */
void t_paths_service(void)
{
	if (!__atomic_load_n(&t_settle_wanted, __ATOMIC_ACQUIRE) ||
	    !__atomic_exchange_n(&t_settle_wanted, 0, __ATOMIC_ACQ_REL) || !arch_irqs_enabled())
		return;
	t_path_count(T_PATH_SETTLE_IN_STALL);
	t_paths_quiesce();
	(void)tlb_settle(t_unmap_ops, NULL); /* a dark CPU's late flush: quarantined, checked */
	__atomic_add_fetch(&t_settles_done, 1, __ATOMIC_RELEASE);
}

void t_paths_install(void)
{
	__atomic_store_n(&tlb_early_ack_gap, t_ack_gap, __ATOMIC_RELEASE);
}

void t_paths_line(const char *extra)
{
	char line[400];
	unsigned at = 0;

	at += fmt_snprintf(line, sizeof(line), "# torture paths: {");
	for (unsigned k = 0; k < T_PATHS && at < sizeof(line); k++)
		at += fmt_snprintf(line + at, sizeof(line) - at, "%s\"%s\": %lu", k ? ", " : "",
				   t_path_names[k],
				   (unsigned long)__atomic_load_n(&t_paths[k], __ATOMIC_RELAXED));
	if (at < sizeof(line))
		fmt_snprintf(line + at, sizeof(line) - at, "%s%s}", extra ? ", " : "",
			     extra ? extra : "");
	torture_env_line(line);
}

/* seen[target][caller]: the last call @target ran from @caller. */
static u32 t_call_seen[TORTURE_MAX_CPUS][TORTURE_MAX_CPUS];
static u32 t_call_seq[TORTURE_MAX_CPUS];

/* On each target, in its interrupt: notes the call under its torture index. */
static void t_call_run(void *arg)
{
	const struct t_call_msg *m = arg;

	for (unsigned i = 0; i < t_ncpus(); i++)
		if (torture_env_cpu(i) == arch_cpu_id())
			__atomic_store_n(&t_call_seen[i][m->caller], m->seq, __ATOMIC_RELEASE);
}

/* Serves interrupts and audits until @dark is written off or @ms passed. */
static void t_call_linger(unsigned self, int dark, u64 ms)
{
	u64 until = torture_env_now_ms() + ms;

	while (torture_env_now_ms() < until && !torture_failed() &&
	       !torture_env_cpu_written_off((unsigned)dark) && !t_audit_join(self))
		t_service();
}

/*
 * A call that reached no dark CPU failed: a live target was written off,
 * or this caller is wedged.
 */
static void t_call_failed(unsigned self, unsigned picked, int err, int dark)
{
	for (unsigned i = 0; i < t_ncpus(); i++)
		if ((picked >> i) & 1 && torture_env_cpu_written_off(i)) {
			torture_fail("a call from CPU %u failed (%d): live CPU %u was written off "
				     "(dark: %d)", self, err, i, dark);
			return;
		}
	torture_fail("a call to CPUs 0x%x from CPU %u failed (%d) with none of them dark or "
		     "written off (dark: %d): this CPU's calls are wedged",
		     picked, self, err, dark);
}

void t_op_call(struct tcpu *c, unsigned self)
{
	unsigned ncpus = t_ncpus(), picked = 0;
	struct t_call_msg m = { self, ++t_call_seq[self] };
	int dark = torture_dark_cpu(), err, werr;
	bool dark_live = dark >= 0 && !torture_env_cpu_written_off((unsigned)dark);
	u64 linger = 0;
	cpumask_t mask;

	/*
	 * A dark CPU not yet written off is always a target: its first
	 * caller's deadline stalls the others soon (they queue behind that
	 * caller's locks), so the calls that can meet a write-off are few.
	 */
	/*
	 * Never the slow-tick case's victim: there a settle must be what
	 * writes it off (torture_dead.c's pushes), not a call in flight.
	 */
	cpumask_clear(&mask);
	for (unsigned i = 0; i < ncpus; i++)
		if (i != self && !(t_slow_tick && (int)i == t_dead_cpu) &&
		    ((dark_live && (int)i == dark) || t_rand(c) % 2)) {
			cpumask_set_cpu(torture_env_cpu(i), &mask);
			picked |= 1u << i;
		}
	if (!picked)
		return;
	/*
	 * A caller that waits late (preempted between send and wait, say) is
	 * the one a write-off can wedge: while its call waits on the dark CPU,
	 * another caller's deadline writes that CPU off, and this caller must
	 * take its call back or every later call of this CPU fails. So a call
	 * onto the dark CPU is waited for only once another caller wrote it off
	 * (or after two deadlines): the order that defect needs.
	 */
	if (dark_live) {
		linger = 2 * (u64)torture_env_timeout_ms();
		t_path_count(T_PATH_CALL_ONTO_DARK);
	}
	err = smp_call_copy(&mask, t_call_run, &m, sizeof(m), false);
	if (linger)
		t_call_linger(self, dark, linger);
	werr = err == -EINVAL ? 0 : smp_call_wait();
	err = err ? err : werr;
	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
	/* Dark now, if it ever was during the call: it stays dark to the case's end. */
	dark = torture_dark_cpu();
	if (err && !(err == -ETIMEDOUT && dark >= 0 && (picked >> dark) & 1))
		t_call_failed(self, picked, err, dark);
	for (unsigned i = 0; i < ncpus; i++)
		if ((picked >> i) & 1 && (int)i != dark && !torture_env_cpu_written_off(i) &&
		    __atomic_load_n(&t_call_seen[i][self], __ATOMIC_ACQUIRE) != m.seq)
			torture_fail("a call from CPU %u returned %d but live CPU %u never ran it",
				     self, err, i);
	t_rec(c, OP_CALL, 0, picked, (u32)linger, err);
}
