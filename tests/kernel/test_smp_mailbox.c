/*
 * Self-tests of the cross-CPU call mailbox (kernel/smp.c): a target finds
 * its callers through the pending summary word in every word of the
 * callers mask (made up from an offline CPU's slot, or a real CPU of a word
 * fully online), runs each claimed call exactly once, and runs nothing for
 * a summary bit whose word is empty (a call taken back); many callers
 * posting to one target at once lose no call. Kernel only.
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "tests/ktest.h"
#include <arch/arch.h>

/* The storm's calls, shared out among its callers: its work is bounded at any CPU count. */
#define STORM_TOTAL_CALLS 4800
#define STORM_CALLS_MIN 16
#define STORM_WAIT_MS 120000 /* vCPUs outnumber host cores: a caller may wait long */

static u64 fake_runs[CPUMASK_WORDS];

static void count_fake_run(void *arg)
{
	atomic_fetch_add((u64 *)arg, 1);
}

/*
 * Posts a call from offline CPU @caller (its descriptor unused) to this CPU,
 * as a caller on another CPU would: descriptor, caller bit, summary bit.
 */
static void post_fake(unsigned caller, unsigned self, u64 *counter)
{
	struct smp_call_desc *d = &percpu_of(caller)->call;
	struct smp_mailbox *box = &this_cpu()->mailbox;

	d->fn = count_fake_run;
	d->arg = counter;
	d->words = 1ull << (self / CPUMASK_WORD_BITS);
	cpumask_set_cpu_atomic(self, &d->waiting);
	cpumask_set_cpu_atomic(caller, &box->callers);
	atomic_fetch_or(&box->pending, 1ull << (caller / CPUMASK_WORD_BITS));
}

/* The offline CPU of word @w used as a made-up caller, or MAX_CPUS if all are online. */
static unsigned fake_caller(unsigned w)
{
	for (unsigned b = CPUMASK_WORD_BITS; b-- > 0;) {
		unsigned cpu = w * CPUMASK_WORD_BITS + b;

		if (cpu < MAX_CPUS && !cpumask_test_cpu(cpu, &cpu_online_mask))
			return cpu;
	}
	return MAX_CPUS;
}

struct word_caller {
	unsigned target;
	u32 done;
	int err;
};

static struct word_caller word_callers[CPUMASK_WORDS];

/* Task-context work on a real CPU of word @arg's index: one waited call to the target. */
static void word_caller_task(void *arg)
{
	struct word_caller *c = arg;
	unsigned w = (unsigned)(c - word_callers);

	c->err = smp_call_one(c->target, count_fake_run, &fake_runs[w], true);
	atomic_store_release(&c->done, 1);
}

/* The highest CPU of word @w but @self (online: the word has no offline one). */
static unsigned word_real_caller(unsigned w, unsigned self)
{
	unsigned cpu = w * CPUMASK_WORD_BITS + CPUMASK_WORD_BITS - 1;

	return cpu == self ? cpu - 1 : cpu;
}

/* A real CPU of fully online word @w calls us (interrupts on) and waits; true once it did. */
static bool call_from_real(struct ktest *t, unsigned w, unsigned self)
{
	struct word_caller *c = &word_callers[w];
	u64 end;

	c->target = self;
	c->err = 0;
	atomic_store_release(&c->done, 0);
	if (!KEXPECT_EQ(t, smp_run_async(word_real_caller(w, self), word_caller_task, c), 0))
		return false;
	end = arch_tsc_read() + arch_tsc_hz() / 1000 * STORM_WAIT_MS;
	while (!atomic_load_acquire(&c->done))
		if (arch_tsc_read() > end)
			return false;
	return KEXPECT_EQ(t, c->err, 0);
}

/*
 * Every word of the callers mask has a caller: a made-up one from an
 * offline slot (posted together, one pass of the mailbox takes them all),
 * or, where every CPU of the word is online, a real one. Each call runs
 * once and the box empties.
 */
static void test_mailbox_every_word(struct ktest *t)
{
	unsigned self = this_cpu()->cpu_id, callers[CPUMASK_WORDS];
	struct smp_mailbox *box = &this_cpu()->mailbox;
	u64 runs = percpu_counter_read(self, PCPU_CALLS_RUN), posted = 0;
	unsigned long flags;

	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		fake_runs[w] = 0;
		callers[w] = fake_caller(w);
		if (callers[w] >= MAX_CPUS)
			posted += call_from_real(t, w, self);
	}
	flags = arch_irq_save(); /* no real IPI may take our made-up calls */
	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		if (callers[w] < MAX_CPUS) {
			post_fake(callers[w], self, &fake_runs[w]);
			posted++;
		}
	}
	smp_handle_mailbox();
	arch_irq_restore(flags);
	KEXPECT_EQ(t, posted, CPUMASK_WORDS);
	for (unsigned w = 0; w < CPUMASK_WORDS; w++) {
		KEXPECT_EQ(t, fake_runs[w], 1);
		if (callers[w] >= MAX_CPUS)
			continue;
		KEXPECT(t, !cpumask_test_cpu(self, &percpu_of(callers[w])->call.waiting));
		percpu_of(callers[w])->call.fn = NULL;
	}
	KEXPECT_EQ(t, percpu_counter_read(self, PCPU_CALLS_RUN) - runs, posted);
	KEXPECT_EQ(t, atomic_load_acquire(&box->pending), 0);
	KEXPECT(t, cpumask_empty(&box->callers));
}

/* A summary bit whose word was emptied (the caller took its call back) runs nothing. */
static void test_mailbox_stale_summary(struct ktest *t)
{
	unsigned self = this_cpu()->cpu_id, caller = fake_caller(CPUMASK_WORDS - 1);
	struct smp_mailbox *box = &this_cpu()->mailbox;
	u64 runs = percpu_counter_read(self, PCPU_CALLS_RUN);
	unsigned long flags;

	if (caller >= MAX_CPUS) {
		ktest_skip(t, "every CPU of the last mask word is online");
		return;
	}
	fake_runs[0] = 0;
	flags = arch_irq_save();
	post_fake(caller, self, &fake_runs[0]);
	/* What a caller past its deadline does: its bit back, the summary bit left. */
	cpumask_clear_cpu_atomic(caller, &box->callers);
	cpumask_clear_cpu_atomic(self, &percpu_of(caller)->call.waiting);
	smp_handle_mailbox();
	arch_irq_restore(flags);
	KEXPECT_EQ(t, fake_runs[0], 0);
	KEXPECT_EQ(t, percpu_counter_read(self, PCPU_CALLS_RUN), runs);
	KEXPECT_EQ(t, atomic_load_acquire(&box->pending), 0);
	percpu_of(caller)->call.fn = NULL;
}

struct storm {
	unsigned target;
	unsigned calls;	    /* each caller's */
	u64 runs[MAX_CPUS]; /* calls of each caller that ran */
	u32 left;	    /* callers still calling */
	int err;
};

static struct storm storm;

static void storm_hit(void *arg)
{
	atomic_fetch_add((u64 *)arg, 1);
}

/* Task-context work on each caller: storm.calls waited calls to the one target. */
static void storm_caller(void *arg)
{
	u64 *mine = &storm.runs[this_cpu()->cpu_id];

	(void)arg;
	for (unsigned i = 0; i < storm.calls; i++) {
		int err = smp_call_one(storm.target, storm_hit, mine, true);

		if (err) {
			atomic_store_release(&storm.err, err);
			break;
		}
	}
	atomic_fetch_sub(&storm.left, 1);
}

/* Waits until every storm caller is done; false at the deadline. */
static bool storm_wait(void)
{
	u64 end = arch_tsc_read() + arch_tsc_hz() / 1000 * STORM_WAIT_MS;

	while (atomic_load_acquire(&storm.left))
		if (arch_tsc_read() > end)
			return false;
	return true;
}

/*
 * Every CPU but the target calls it at once, over and over: posts land
 * while it is taking its summary or running another caller's call, and
 * none may be lost (a lost one would time out) or run twice.
 */
static void test_mailbox_storm(struct ktest *t)
{
	unsigned self = this_cpu()->cpu_id, cpu;
	u64 runs, total = 0;
	u32 saved = smp_timeout_ms();

	if (ncpus_online < 3) {
		ktest_skip(t, "needs 3 CPUs: two callers and a target");
		return;
	}
	storm.err = 0;
	storm.calls = MAX(STORM_TOTAL_CALLS / (ncpus_online - 1), (unsigned)STORM_CALLS_MIN);
	for_each_cpu(cpu, &cpu_online_mask) {
		storm.runs[cpu] = 0;
		if (cpu != self)
			storm.target = cpu; /* the highest online CPU but us; we call too */
	}
	runs = percpu_counter_read(storm.target, PCPU_CALLS_RUN);
	atomic_store_release(&storm.left, ncpus_online - 1);
	smp_set_timeout_ms(STORM_WAIT_MS);
	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != self && cpu != storm.target)
			KEXPECT_EQ(t, smp_run_async(cpu, storm_caller, NULL), 0);
	storm_caller(NULL);
	KEXPECT(t, storm_wait());
	smp_set_timeout_ms(saved);
	KEXPECT_EQ(t, storm.err, 0);
	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu == storm.target)
			continue;
		KEXPECT_EQ(t, storm.runs[cpu], storm.calls);
		total += storm.runs[cpu];
	}
	KEXPECT_EQ(t, percpu_counter_read(storm.target, PCPU_CALLS_RUN) - runs, total);
}

static const struct ktest_case smp_mailbox_cases[] = {
	KTEST_CASE(test_mailbox_every_word),
	KTEST_CASE(test_mailbox_stale_summary),
	KTEST_CASE(test_mailbox_storm),
};
KTEST_SUITE(smp_mailbox, smp_mailbox_cases);
