/*
 * Self-tests of CPU bring-up and the cross-CPU call layer: every CPU the
 * MADT lists comes online, calls reach exactly their mask with exact IPI
 * counts, locks keep shared counters exact under contention, per-CPU data is
 * private, and a call to a CPU with interrupts off times out naming it and
 * is never run by it late. Kernel only.
 */
/* build: kernel only */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/init.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/tsc_sync.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/rwlock.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "mm/counters.h"
#include "tests/cpu_hold.h"
#include "tests/ktest.h"
#include <arch/arch.h>

/* The lock tortures' rounds, shared out among the CPUs: bounded work at any CPU count. */
#define TORTURE_TOTAL_ROUNDS 32000
#define TORTURE_ROUNDS_MIN 64
/*
 * Torture calls run for a while on every CPU: with more vCPUs than host cores
 * a ticket lock's holder is often descheduled, so allow a long wait.
 */
#define TORTURE_WAIT_MS 120000
#define TIMEOUT_TEST_MS 50

/* Each CPU's rounds of a lock torture. */
static unsigned torture_rounds(void)
{
	return MAX(TORTURE_TOTAL_ROUNDS / ncpus_online, (unsigned)TORTURE_ROUNDS_MIN);
}

static bool need_cpus(struct ktest *t, unsigned n)
{
	if (ncpus_online >= n)
		return true;
	ktest_skip(t, "needs more online CPUs");
	return false;
}

/* Runs @fn(@arg) on every online CPU at once (here with interrupts on, elsewhere in the IPI). */
static int run_everywhere(smp_call_fn fn, void *arg)
{
	u32 saved = smp_timeout_ms();
	int err;

	smp_set_timeout_ms(TORTURE_WAIT_MS);
	err = smp_call_others(fn, arg, false);
	if (!err) {
		fn(arg);
		err = smp_call_wait();
	}
	smp_set_timeout_ms(saved);
	return err;
}

static void test_smp_all_cpus_online(struct ktest *t)
{
	const struct smpboot_result *r = arch_smpboot_result();

	KEXPECT_GE(t, ncpus_online, 1);
	/* Every CPU bring-up tried is either online or reported by APIC ID. */
	KEXPECT_EQ(t, ncpus_online + r->failed + r->skipped, arch_cpus_wanted());
	KEXPECT_EQ(t, r->failed, 0);
	KEXPECT_EQ(t, cpumask_weight(&cpu_online_mask), ncpus_online);
}

static void test_smp_apic_ids_match_madt(struct ktest *t)
{
	const struct acpi_info *acpi = arch_acpi_info();
	unsigned cpu;

	if (!acpi->madt.present) {
		ktest_skip(t, "no MADT");
		return;
	}
	for_each_cpu(cpu, &cpu_online_mask) {
		KEXPECT(t, acpi_madt_has_apic_id(&acpi->madt, percpu_of(cpu)->apic_id));
		for (unsigned other = cpu + 1; other < ncpus_online; other++)
			KEXPECT_NE(t, percpu_of(cpu)->apic_id, percpu_of(other)->apic_id);
	}
}

static void record_self(void *arg)
{
	unsigned *slots = arg;
	struct percpu *me = this_cpu();

	/* GS points at this CPU's own data: the self pointer and the index agree. */
	slots[me->cpu_id] = (me->self == me && me == percpu_of(me->cpu_id)) ? me->cpu_id + 1 : 0;
}

static void test_smp_each_cpu_answers(struct ktest *t)
{
	static unsigned slots[MAX_CPUS];
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu == this_cpu()->cpu_id)
			continue;
		slots[cpu] = 0;
		KEXPECT_EQ(t, smp_call_one(cpu, record_self, slots, true), 0);
		KEXPECT_EQ(t, slots[cpu], cpu + 1);
	}
}

static cpumask_t reached;

static void mark_reached(void *arg)
{
	(void)arg;
	cpumask_set_cpu_atomic(this_cpu()->cpu_id, &reached);
}

/* Calls @mask; exactly @mask minus the caller must run it, with one IPI per target. */
static void check_mask_call(struct ktest *t, const cpumask_t *mask)
{
	cpumask_t want;
	u64 sent = percpu_counter_read(this_cpu()->cpu_id, PCPU_IPI_SENT);

	cpumask_clear(&reached);
	cpumask_copy(&want, mask);
	cpumask_clear_cpu(this_cpu()->cpu_id, &want);
	KEXPECT_EQ(t, smp_call(mask, mark_reached, NULL, true), 0);
	KEXPECT(t, cpumask_equal(&reached, &want));
	KEXPECT_EQ(t, percpu_counter_read(this_cpu()->cpu_id, PCPU_IPI_SENT) - sent,
		   cpumask_weight(&want));
}

static void test_smp_call_reaches_exactly_mask(struct ktest *t)
{
	cpumask_t mask;
	unsigned cpu;

	if (!need_cpus(t, 2))
		return;
	check_mask_call(t, &cpu_online_mask);
	cpumask_clear(&mask);
	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu % 2)
			cpumask_set_cpu(cpu, &mask);
	check_mask_call(t, &mask);
	cpumask_clear(&mask);
	cpumask_set_cpu(ncpus_online - 1, &mask);
	check_mask_call(t, &mask);
}

static void test_smp_call_ipi_counts(struct ktest *t)
{
	static u64 recv_before[MAX_CPUS], runs_before[MAX_CPUS];
	unsigned n = ncpus_online, cpu;

	if (!need_cpus(t, 2))
		return;
	for (cpu = 0; cpu < n; cpu++) {
		recv_before[cpu] = percpu_counter_read(cpu, PCPU_IPI_RECEIVED);
		runs_before[cpu] = percpu_counter_read(cpu, PCPU_CALLS_RUN);
	}
	KEXPECT_EQ(t, smp_call_others(mark_reached, NULL, true), 0);
	for (cpu = 1; cpu < n; cpu++) {
		/* Idle targets: one IPI each, and the call runs once. */
		KEXPECT_EQ(t, percpu_counter_read(cpu, PCPU_CALLS_RUN) - runs_before[cpu], 1);
		KEXPECT_EQ(t, percpu_counter_read(cpu, PCPU_IPI_RECEIVED) - recv_before[cpu], 1);
	}
}

static void test_smp_offline_target_rejected(struct ktest *t)
{
	cpumask_t mask;

	cpumask_clear(&mask);
	cpumask_set_cpu(MAX_CPUS - 1, &mask);
	if (cpumask_test_cpu(MAX_CPUS - 1, &cpu_online_mask)) {
		ktest_skip(t, "every CPU is online");
		return;
	}
	KEXPECT_EQ(t, smp_call(&mask, mark_reached, NULL, true), -EINVAL);
	KEXPECT_EQ(t, smp_call_one(MAX_CPUS, mark_reached, NULL, true), -EINVAL);
}

static spinlock_t torture_lock = SPINLOCK_INIT("torture");
static u64 torture_count;

static void spin_torture(void *arg)
{
	unsigned rounds = *(const unsigned *)arg;

	for (unsigned i = 0; i < rounds; i++) {
		unsigned long flags = spin_lock_irqsave(&torture_lock);

		/* A plain read-modify-write: only the lock keeps it exact. */
		WRITE_ONCE(torture_count, READ_ONCE(torture_count) + 1);
		spin_unlock_irqrestore(&torture_lock, flags);
	}
}

static void test_smp_spinlock_torture(struct ktest *t)
{
	static unsigned rounds;

	rounds = torture_rounds();
	torture_count = 0;
	KASSERT_EQ(t, run_everywhere(spin_torture, &rounds), 0);
	KEXPECT_EQ(t, torture_count, (u64)rounds * ncpus_online);
	KEXPECT(t, !spin_is_locked(&torture_lock));
}

static rwlock_t torture_rw = RWLOCK_INIT("torture-rw");
static u64 rw_a, rw_b, rw_torn;

static void rw_torture(void *arg)
{
	unsigned rounds = *(const unsigned *)arg;

	for (unsigned i = 0; i < rounds; i++) {
		if (i % 4 == 0) {
			write_lock(&torture_rw);
			WRITE_ONCE(rw_a, READ_ONCE(rw_a) + 1);
			WRITE_ONCE(rw_b, READ_ONCE(rw_b) + 1);
			write_unlock(&torture_rw);
			continue;
		}
		read_lock(&torture_rw);
		if (READ_ONCE(rw_a) != READ_ONCE(rw_b))
			atomic_fetch_add(&rw_torn, 1);
		read_unlock(&torture_rw);
	}
}

static void test_smp_rwlock_torture(struct ktest *t)
{
	static unsigned rounds;

	rounds = torture_rounds();
	rw_a = rw_b = rw_torn = 0;
	KASSERT_EQ(t, run_everywhere(rw_torture, &rounds), 0);
	KEXPECT_EQ(t, rw_a, (u64)((rounds + 3) / 4) * ncpus_online);
	KEXPECT_EQ(t, rw_b, rw_a);
	KEXPECT_EQ(t, rw_torn, 0);
}

static void bump_private(void *arg)
{
	(void)arg;
	/* Each CPU bumps only its own counter, cpu_id + 1 times. */
	for (unsigned i = 0; i <= this_cpu()->cpu_id; i++)
		this_cpu_inc(PCPU_PAGE_FAULTS);
}

static void test_smp_percpu_private(struct ktest *t)
{
	static u64 before[MAX_CPUS];
	unsigned n = ncpus_online;

	for (unsigned cpu = 0; cpu < n; cpu++)
		before[cpu] = percpu_counter_read(cpu, PCPU_PAGE_FAULTS);
	KASSERT_EQ(t, run_everywhere(bump_private, NULL), 0);
	for (unsigned cpu = 0; cpu < n; cpu++)
		KEXPECT_EQ(t, percpu_counter_read(cpu, PCPU_PAGE_FAULTS) - before[cpu], cpu + 1);
}

/* Spins until *@flag == @want, at most TORTURE_WAIT_MS. */
static bool wait_for(const u32 *flag, u32 want)
{
	u64 end = arch_tsc_read() + arch_tsc_hz() / 1000 * TORTURE_WAIT_MS;

	while (atomic_load_acquire(flag) != want)
		if (arch_tsc_read() > end)
			return false;
	return true;
}

/* @cpu sits with interrupts off once this returns true. */
static bool hold_cpu(struct ktest *t, unsigned cpu)
{
	return KEXPECT_EQ(t, cpu_hold(cpu), 0);
}

/* Lets @cpu go, waits until it took the IPI it missed (@ipis: its count before), revives it. */
static void release_cpu(struct ktest *t, unsigned cpu, u64 ipis)
{
	u64 end = arch_tsc_read() + arch_tsc_hz() / 1000 * TORTURE_WAIT_MS;

	KEXPECT(t, cpu_hold_release());
	while (percpu_counter_read(cpu, PCPU_IPI_RECEIVED) == ipis && arch_tsc_read() < end)
		arch_cpu_relax();
	KEXPECT_GT(t, percpu_counter_read(cpu, PCPU_IPI_RECEIVED), ipis);
	KEXPECT_EQ(t, smp_cpu_revive(cpu), 0);
}

static u32 late_runs;

static void count_late_run(void *arg)
{
	(void)arg;
	atomic_fetch_add(&late_runs, 1);
}

/*
 * A CPU that misses the deadline is named, goes out of the run (a later
 * call fails at once and sends nothing), and when it comes back it does
 * not run the call it missed: the caller took it back from its mailbox.
 */
static void test_smp_timeout_names_cpu(struct ktest *t)
{
	unsigned target, self = this_cpu()->cpu_id, saved = smp_timeout_ms();
	u64 runs, ipis, sent;
	int err;

	if (!need_cpus(t, 2))
		return;
	target = ncpus_online - 1;
	if (!hold_cpu(t, target))
		return;
	late_runs = 0;
	runs = percpu_counter_read(target, PCPU_CALLS_RUN);
	ipis = percpu_counter_read(target, PCPU_IPI_RECEIVED);
	smp_set_timeout_ms(TIMEOUT_TEST_MS);
	err = smp_call_one(target, count_late_run, NULL, true);
	smp_set_timeout_ms(saved);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT(t, smp_cpu_dead(target));
	KEXPECT(t, cpumask_empty(&this_cpu()->call.waiting)); /* taken back before it claimed it */
	sent = percpu_counter_read(self, PCPU_IPI_SENT);
	KEXPECT_EQ(t, smp_call_one(target, count_late_run, NULL, true), -ETIMEDOUT);
	KEXPECT_EQ(t, percpu_counter_read(self, PCPU_IPI_SENT), sent);
	release_cpu(t, target, ipis);
	KEXPECT_EQ(t, atomic_load_acquire(&late_runs), 0);
	KEXPECT_EQ(t, percpu_counter_read(target, PCPU_CALLS_RUN), runs);
	KEXPECT(t, !smp_cpu_dead(target));
	KEXPECT_EQ(t, smp_call_one(target, mark_reached, NULL, true), 0);
}

static u32 late_release, late_in;
static u64 late_seen;

/* A call function that claims its call, then is held past the caller's deadline. */
static void late_reader(void *arg)
{
	const u64 *v = arg;

	atomic_store_release(&late_in, 1);
	while (!atomic_load_acquire(&late_release))
		arch_cpu_relax();
	late_seen = READ_ONCE(*v); /* read after the caller gave up and went on */
	atomic_store_release(&late_in, 2);
}

/*
 * A CPU that claimed a call and answers late reads the argument's copy in
 * the descriptor, not the caller's frame, and the descriptor stays held
 * (the CPU is still waited for) until it answers.
 */
static void test_smp_late_call_keeps_its_copy(struct ktest *t)
{
	unsigned target, saved = smp_timeout_ms();
	u64 v = 0x1234;
	cpumask_t mask;
	int err;

	if (!need_cpus(t, 2))
		return;
	target = ncpus_online - 1;
	cpumask_clear(&mask);
	cpumask_set_cpu(target, &mask);
	atomic_store_release(&late_release, 0);
	atomic_store_release(&late_in, 0);
	KASSERT_EQ(t, smp_call_copy(&mask, late_reader, &v, sizeof(v), false), 0);
	/* Only once it is inside the call does the deadline pass (however slow the machine). */
	KEXPECT(t, wait_for(&late_in, 1));
	smp_set_timeout_ms(TIMEOUT_TEST_MS);
	err = smp_call_wait();
	smp_set_timeout_ms(saved);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT(t, smp_cpu_dead(target));
	KEXPECT(t, cpumask_test_cpu(target, &this_cpu()->call.waiting));
	KEXPECT_EQ(t, smp_call_wait(), -ETIMEDOUT); /* held: fails at once */
	v = 0xdead; /* what the late CPU would see through a pointer to our frame */
	atomic_store_release(&late_release, 1);
	KEXPECT(t, wait_for(&late_in, 2));
	KEXPECT_EQ(t, late_seen, 0x1234);
	KEXPECT_EQ(t, smp_call_wait(), -ETIMEDOUT); /* answered, but the call had failed */
	KEXPECT(t, cpumask_empty(&this_cpu()->call.waiting));
	KEXPECT_EQ(t, smp_cpu_revive(target), 0);
	KEXPECT_EQ(t, smp_call_one(target, mark_reached, NULL, true), 0);
}

/* An argument copied into the descriptor: @fn sees the copy, and what it writes comes back. */
static void bump_copy(void *arg)
{
	u64 *v = arg;

	atomic_fetch_add(v, 1);
}

static void test_smp_call_copy(struct ktest *t)
{
	u64 v = 40;
	cpumask_t mask;

	if (!need_cpus(t, 2))
		return;
	cpumask_clear(&mask);
	cpumask_set_cpu(ncpus_online - 1, &mask);
	KEXPECT_EQ(t, smp_call_copy(&mask, bump_copy, &v, sizeof(v), true), 0);
	KEXPECT_EQ(t, v, 41);
	KEXPECT_EQ(t, smp_call_copy(&mask, bump_copy, &v, SMP_CALL_DATA_MAX + 1, true), -EINVAL);
}

/*
 * Every CPU the check did run with: the held one misses its deadline at
 * once, the live ones must not, even on a loaded host under TCG (50 ms
 * did not hold there: a live CPU was written off too).
 */
#define TSC_SYNC_TEST_MS 2000

/*
 * A live CPU the check wrote off is a failure of this case, not of every
 * suite after it: it is named and brought back.
 */
static void revive_live_cpus(struct ktest *t, unsigned held)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu == held || !smp_cpu_dead(cpu))
			continue;
		KEXPECT_EQ(t, cpu, held);
		KEXPECT_EQ(t, smp_cpu_revive(cpu), 0);
	}
}

/*
 * A dead target hides no live one: the TSC skew check with an AP that never answers (it
 * sits with interrupts off) must end within its deadlines, name the AP,
 * leave it out of the result and out of the run, and measure the others.
 * Before: the boot CPU waited for the AP's first answer for good (the
 * boot hung here until run.sh's timeout).
 */
static void test_smp_tsc_sync_deadline(struct ktest *t)
{
	unsigned target, saved = smp_timeout_ms();
	struct tsc_sync_result res;
	u64 ipis;

	if (!need_cpus(t, 2))
		return;
	target = ncpus_online - 1;
	if (!hold_cpu(t, target))
		return;
	ipis = percpu_counter_read(target, PCPU_IPI_RECEIVED);
	smp_set_timeout_ms(TSC_SYNC_TEST_MS);
	tsc_sync_check(&res);
	smp_set_timeout_ms(saved);
	KEXPECT(t, smp_cpu_dead(target));
	KEXPECT_EQ(t, res.checked, ncpus_online - 2);
	KEXPECT_EQ(t, res.unchecked, 0);
	release_cpu(t, target, ipis);
	KEXPECT(t, cpumask_empty(&this_cpu()->call.waiting));
	revive_live_cpus(t, target);
}

static u32 late_ap, late_ap_in, late_ap_go;

/* The skew check's hook on each AP: the late one stalls, its call claimed, until let go. */
static void tsc_late_hook(void)
{
	if (this_cpu()->cpu_id != atomic_load_acquire(&late_ap))
		return;
	atomic_store_release(&late_ap_in, 1);
	(void)wait_for(&late_ap_go, 1);
}

/* Revives @cpu once no call waits for it; false if one still does after TORTURE_WAIT_MS. */
static bool revive_when_free(unsigned cpu)
{
	u64 end = arch_tsc_read() + arch_tsc_hz() / 1000 * TORTURE_WAIT_MS;

	while (smp_cpu_revive(cpu) == -EBUSY)
		if (arch_tsc_read() > end)
			return false;
	return true;
}

/* Runs the check with @hook on the first AP measured (others come after it); returns that AP. */
static unsigned check_with_late_ap(struct ktest *t, void (*hook)(void), bool before_ack)
{
	unsigned cpu, saved = smp_timeout_ms();
	struct tsc_sync_result res;

	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != this_cpu()->cpu_id)
			break;
	atomic_store_release(&late_ap, cpu);
	atomic_store_release(&late_ap_in, 0);
	atomic_store_release(&late_ap_go, 0);
	smp_set_timeout_ms(TSC_SYNC_TEST_MS);
	tsc_sync_check_hooked(&res, hook, before_ack);
	smp_set_timeout_ms(saved);
	KEXPECT_EQ(t, atomic_load_acquire(&late_ap_in), 1); /* it did claim the call */
	KEXPECT(t, smp_cpu_dead(cpu));
	KEXPECT_EQ(t, res.checked, ncpus_online - 2);
	KEXPECT_EQ(t, res.unchecked, 0);
	return cpu;
}

/* Once let go, @cpu has left the check's call: nothing waits for it and it answers a new one. */
static void expect_left(struct ktest *t, unsigned cpu)
{
	atomic_store_release(&late_ap_go, 1);
	KEXPECT(t, revive_when_free(cpu));
	KEXPECT_EQ(t, smp_call_one(cpu, mark_reached, NULL, true), 0);
	atomic_store_release(&late_ap, MAX_CPUS);
	revive_live_cpus(t, cpu);
}

/*
 * An AP that claims the skew check's call but looks at the ping line only
 * once the boot CPU gave up on it (its host thread did not run) must find
 * itself told to stop, whatever the boot CPU did since: it is named and
 * out of the run, every other AP is still measured, and once it runs it
 * leaves the call and the boot CPU's calls work. Before: it found the line
 * reset for the next AP and spun there for good with interrupts off,
 * holding the boot CPU's call descriptor, so the APs after it went
 * unchecked and unnamed and every later call from the boot CPU failed.
 */
static void test_smp_tsc_sync_late_ap(struct ktest *t)
{
	if (!need_cpus(t, 3))
		return;
	expect_left(t, check_with_late_ap(t, tsc_late_hook, false));
}

/*
 * The late AP's hook, before it acknowledges: it holds the boot CPU's
 * descriptor past its write-off, for a while (well inside the deadline).
 */
static void tsc_late_ack_hook(void)
{
	unsigned self = this_cpu()->cpu_id;
	u64 end;

	if (self != atomic_load_acquire(&late_ap))
		return;
	atomic_store_release(&late_ap_in, 1);
	end = arch_tsc_read() + arch_tsc_hz() / 1000 * TORTURE_WAIT_MS;
	while (!smp_cpu_dead(self) && arch_tsc_read() < end)
		arch_cpu_relax();
	end = arch_tsc_read() + arch_tsc_hz() / 1000 * TIMEOUT_TEST_MS * smp_deadline_scale();
	while (arch_tsc_read() < end)
		arch_cpu_relax();
}

/*
 * An AP that stalls after claiming the call and before acknowledging it
 * holds the boot CPU's descriptor when the boot CPU gives up on it: the
 * next AP's check waits for the descriptor (bounded) instead of going
 * unsent, and the late AP, once it runs, acknowledges and leaves.
 */
static void test_smp_tsc_sync_late_ack(struct ktest *t)
{
	if (!need_cpus(t, 3))
		return;
	expect_left(t, check_with_late_ap(t, tsc_late_ack_hook, true));
}

/*
 * Every wait's deadline is timeout_ms times the scale bring-up chose: more
 * than one only under a hypervisor, by the number of vCPUs that share its
 * host's cores (arch/x86_64/smpboot.c).
 */
static void test_smp_deadline_scaled(struct ktest *t)
{
	u32 scale = smp_deadline_scale(), saved = smp_timeout_ms();

	KEXPECT_GE(t, scale, 1);
	if (!cpuinfo.hypervisor_bit) {
		KEXPECT_EQ(t, scale, 1);
	} else {
		KEXPECT_GE(t, scale * SMPBOOT_VCPUS_PER_DEADLINE, ncpus_online);
		KEXPECT_LT(t, (scale - 1) * SMPBOOT_VCPUS_PER_DEADLINE, ncpus_online);
	}
	smp_set_timeout_ms(TIMEOUT_TEST_MS);
	KEXPECT_EQ(t, smp_deadline_ms(), TIMEOUT_TEST_MS * scale);
	smp_set_timeout_ms(saved);
	KEXPECT_EQ(t, smp_timeout_ms(), saved); /* the option itself is never scaled */
}

static void test_smp_tsc_known(struct ktest *t)
{
	KEXPECT_GT(t, arch_tsc_hz(), 1000000);
}

static const struct ktest_case smp_cases[] = {
	KTEST_CASE(test_smp_all_cpus_online),
	KTEST_CASE(test_smp_apic_ids_match_madt),
	KTEST_CASE(test_smp_each_cpu_answers),
	KTEST_CASE(test_smp_call_reaches_exactly_mask),
	KTEST_CASE(test_smp_call_ipi_counts),
	KTEST_CASE(test_smp_offline_target_rejected),
	KTEST_CASE(test_smp_spinlock_torture),
	KTEST_CASE(test_smp_rwlock_torture),
	KTEST_CASE(test_smp_percpu_private),
	KTEST_CASE(test_smp_timeout_names_cpu),
	KTEST_CASE(test_smp_late_call_keeps_its_copy),
	KTEST_CASE(test_smp_call_copy),
	KTEST_CASE(test_smp_tsc_known),
	KTEST_CASE(test_smp_deadline_scaled),
	KTEST_CASE(test_smp_tsc_sync_late_ap),
	KTEST_CASE(test_smp_tsc_sync_late_ack),
	KTEST_CASE(test_smp_tsc_sync_deadline),
};
KTEST_SUITE(smp, smp_cases);
