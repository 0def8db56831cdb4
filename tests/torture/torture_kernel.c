/*
 * mode=torture: the mm torture's core (tests/torture/torture.h) in the kernel,
 * on the machine's CPUs over the real mm code: the boot CPU leads, the others
 * run their share as idle-loop work, and an access is a real load or store,
 * so a #PF takes the real fault path. Dead-CPU injection runs as on the host
 * (tests/torture/torture_dead.c); the torture hook points do not (benchmarks
 * measure this image). Output: KTAP and `# torture: {...}`; seed= replays.
 */
#include "arch/x86_64/traps.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/run.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/tlb/designs/early_ack.h"
#include "tests/torture/torture_internal.h"
#include <arch/arch.h>

#define TORTURE_SECONDS_MAX 86400
/* How long past its share a case may take to stop on every CPU. */
#define TORTURE_STOP_MS 60000
#define PF_ERROR_PRESENT 1u /* the #PF error code's P bit: a protection fault */

static u32 torture_seconds;
OPTION_UINT(seconds, torture_seconds, 1, TORTURE_SECONDS_MAX, 60);
/* 1: the control designs (wrong on purpose) instead of the real ones: the run must fail. */
static u32 torture_controls_opt;
OPTION_UINT(torture_controls, torture_controls_opt, 0, 1, 0);

static void kernel_revive(unsigned idx);

static struct torture_config kcfg = { .inject = true, .audit_ms = 500, .revive = kernel_revive };
static unsigned cur_case;
static u32 cpus_done;

u64 torture_env_now_ms(void)
{
	return arch_tsc_read() / (arch_tsc_hz() / 1000);
}

/* Interrupts are on in the torture's loops: a window is a pause. */
void torture_env_service(void)
{
	arch_cpu_relax();
}

void torture_env_line(const char *s)
{
	printk("%s\n", s);
}

u32 torture_env_timeout_ms(void)
{
	return smp_timeout_ms();
}

/* Torture CPU index -> the CPU that runs it (start_others()). */
static unsigned torture_cpu_of[TORTURE_MAX_CPUS];

unsigned torture_env_cpu(unsigned cpu)
{
	return torture_cpu_of[cpu];
}

bool torture_env_cpu_written_off(unsigned cpu)
{
	return cpu < TORTURE_MAX_CPUS && smp_cpu_dead(torture_cpu_of[cpu]);
}

/* Dark CPUs that were written off (a call needed them while dark). */
static unsigned written_off;

/*
 * On the dark CPU, interrupts still off, at its case's end: as after a
 * reset, nothing it cached while dark survives (the frames its entries
 * reached were quarantined, never reused), and it is back in the run once
 * no caller still waits for it; it answers what is posted meanwhile.
 */
static void kernel_revive(unsigned idx)
{
	unsigned cpu = torture_cpu_of[idx];
	u64 deadline = torture_env_now_ms() + 2 * torture_env_timeout_ms() + 1000;
	int err;

	written_off += smp_cpu_dead(cpu);
	arch_tlb_flush_everything();
	while ((err = smp_cpu_revive(cpu)) == -EBUSY && torture_env_now_ms() < deadline) {
		smp_handle_mailbox();
		arch_cpu_relax();
	}
	if (err)
		torture_fail("dark CPU %u not back in the run: %d", cpu, err);
}

/*
 * The core's hook, and two checks of points the real mm code passes (the
 * same image the benchmarks run, where mm_hook is NULL):
 * - a lockless pin walk (interrupts off, page checked) on a CPU with no
 *   address space loaded, where no shootdown waits for it: the torture's
 *   locked pins run there on purpose (tests/torture/torture_pin.c);
 * - a flush that returned 0 while its call still went unacknowledged.
 */
static void kernel_mm_hook(enum mm_hook_point at, void *arg)
{
	torture_mm_hook(at, arg);
	if (at == MM_HOOK_PIN_CHECKED && !arch_irqs_enabled() && !mm_current())
		torture_fail("a lockless pin walk (interrupts off) on CPU %u with no address "
			     "space loaded: no shootdown waits for it", arch_cpu_id());
	if (at == MM_HOOK_FLUSHED && !*(int *)arg && smp_call_pending())
		torture_fail("a flush on CPU %u returned before its targets acknowledged",
			     arch_cpu_id());
}

struct touch {
	volatile u64 *p;
	bool write;
	u64 val;
};

/* One instruction: the load or store, faulting as any access does. */
static void touch_access(void *arg)
{
	struct touch *a = arg;

	if (a->write)
		*a->p = a->val;
	else
		a->val = *a->p;
}

/*
 * The access with @mm loaded; a fault the handler left unresolved was
 * caught: ask the handler again for its error (-EAGAIN: retry, as the
 * hardware would re-run the instruction).
 */
int torture_env_touch(struct mm *mm, vaddr_t va, bool write, u64 *val)
{
	struct touch a = { (volatile u64 *)va, write, *val };
	u64 give_up = torture_env_now_ms() + TORTURE_TOUCH_RETRY_MS;

	while (torture_env_now_ms() < give_up) {
		struct fault_info fi;
		int err;

		if (mm_current() != mm)
			mm_switch(mm);
		if (!trap_catch(touch_access, &a, &fi)) {
			*val = a.val;
			return 0;
		}
		if (fi.vector != VEC_PF || fi.cr2 != va) {
			torture_fail("access to 0x%lx: exception %lu at 0x%lx (cr2 0x%lx)",
				     (unsigned long)va, (unsigned long)fi.vector,
				     (unsigned long)fi.rip, (unsigned long)fi.cr2);
			return -EFAULT;
		}
		err = fault_handle_mm(mm, va,
				      (write ? FAULT_WRITE : 0) |
					      (fi.error & PF_ERROR_PRESENT ? FAULT_PRESENT : 0));
		if (err && err != -EAGAIN)
			return err;
	}
	return -EAGAIN;
}

static void cpu_work(void *arg)
{
	torture_case_cpu(cur_case, (unsigned)(uintptr_t)arg);
	atomic_fetch_add(&cpus_done, 1);
}

/*
 * Hands torture CPU @idx's share to @cpu; -EBUSY while it is still leaving
 * the previous case's work (it counted itself done just before): retried.
 */
static int run_on(unsigned cpu, unsigned idx)
{
	u64 deadline = torture_env_now_ms() + 1000;
	int err;

	while ((err = smp_run_async(cpu, cpu_work, (void *)(uintptr_t)idx)) == -EBUSY &&
	       torture_env_now_ms() < deadline)
		arch_cpu_relax();
	return err;
}

/* Starts case @i on the other CPUs; returns how many took it. */
static unsigned start_others(unsigned i)
{
	unsigned cpu, next = 1, started = 0;

	cur_case = i;
	torture_cpu_of[0] = arch_cpu_id();
	atomic_store_release(&cpus_done, 0);
	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu == arch_cpu_id() || next >= kcfg.ncpus)
			continue;
		torture_cpu_of[next] = cpu;
		if (run_on(cpu, next++))
			torture_fail("CPU %u did not take the torture's work", cpu);
		else
			started++;
	}
	return started;
}

/* Case @i on every torture CPU, then its teardown and end checks. */
static bool run_case(unsigned i)
{
	u64 deadline;
	unsigned started;

	if (torture_case_begin(i)) {
		torture_fail("case %s: setup failed", torture_case_name(i));
		return false;
	}
	started = start_others(i);
	torture_case_cpu(i, 0);
	deadline = torture_env_now_ms() + TORTURE_STOP_MS;
	while (atomic_load_acquire(&cpus_done) < started) {
		if (torture_env_now_ms() > deadline) {
			torture_fail("a CPU did not stop within %u ms of the case's end",
				     TORTURE_STOP_MS);
			return false; /* no teardown while a CPU may still work on it */
		}
		arch_cpu_relax();
	}
	return torture_case_end(i);
}

/* seed= replays; without it, a seed from the clock (in seed='s range, printed). */
static u64 torture_pick_seed(const struct options *opt)
{
	u32 seed = 1;

	if (options_given(opt, "seed") && options_value("seed", &seed))
		return seed;
	return arch_tsc_read() % 1000000000u + 1;
}

static void torture_print_totals(unsigned passed, unsigned n)
{
	printk("# torture: {\"ops\": %lu, \"checks\": %lu, \"seed\": %lu, \"cpus\": %u, "
	       "\"seconds\": %u, \"passed\": %u, \"cases\": %u, \"dead_cpus\": %u, "
	       "\"written_off\": %u}\n",
	       (unsigned long)torture_ops_done(), (unsigned long)torture_checks_done(),
	       (unsigned long)kcfg.seed, kcfg.ncpus, kcfg.seconds, passed, n, torture_deaths(),
	       written_off);
}

/* Every case, KTAP line by line; after a failure the rest are skipped. */
static struct report_totals run_cases(unsigned n)
{
	struct report_totals tot = { 0, 0, 0 };

	for (unsigned i = 0; i < n; i++) {
		bool ok;

		if (torture_failed()) {
			printk("ok %u torture_%s # SKIP after an earlier failure\n", i + 1,
			       torture_case_name(i));
			tot.skipped++;
			continue;
		}
		ok = run_case(i);
		printk("%s %u torture_%s\n", ok ? "ok" : "not ok", i + 1, torture_case_name(i));
		tot.passed += ok;
		tot.failed += !ok;
	}
	if (torture_failed() && !tot.failed)
		tot.failed = 1; /* setup failed before any case */
	return tot;
}

static __noreturn void torture_mode_run(const struct options *opt)
{
	struct report_totals tot;
	unsigned n;

	kcfg.seed = torture_pick_seed(opt);
	torture_controls = torture_controls_opt;
	torture_slow_tick_case = true;
	n = torture_ncases();
	kcfg.seconds = torture_seconds;
	kcfg.ncpus = ncpus_online < TORTURE_MAX_CPUS ? ncpus_online : TORTURE_MAX_CPUS;
	printk("KTAP version 1\n# torture: seed=%lu cpus=%u seconds=%u (of %u online)%s\n1..%u\n",
	       (unsigned long)kcfg.seed, kcfg.ncpus, kcfg.seconds, ncpus_online,
	       torture_controls ? " controls (must fail)" : "", n);
	mm_hook = kernel_mm_hook; /* before any other CPU runs the torture's mm code */
	t_paths_install();
	if (torture_setup(&kcfg))
		torture_fail("setup (swap device, device memory, designs) failed");
	tot = run_cases(n);
	mm_hook = NULL;
	tlb_early_ack_gap = NULL;
	torture_print_totals(tot.passed, n);
	t_paths_line(NULL);
	if (torture_failed())
		torture_report_failure();
	report_count(tot.passed, tot.failed, tot.skipped);
	if (!run_healthy())
		run_finish("fail", EXIT_FAIL, "a CPU missed a deadline and is out of the run");
	if (torture_failed())
		run_finish("fail", EXIT_FAIL, "the mm torture failed (seed and last operations above)");
	run_finish("pass", EXIT_PASS, NULL);
}

RUN_MODE(torture, torture_mode_run, false, NULL);
