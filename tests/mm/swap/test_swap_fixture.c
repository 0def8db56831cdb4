/*
 * The fixture the swap tests share (tests/test_swap.h): per-case devices and
 * their teardown, page patterns and checksums, counters, and running a
 * function on several CPUs at once, through idle CPUs' task-context work
 * (kernel/smp.h) in the kernel and through threads acting as fake CPUs on
 * the host. Suites run one at a time on one CPU; only the jobs of
 * swapt_run_cpus() run elsewhere, and they touch only what their caller gave.
 */
#include "tests/test_swap.h"
#include "errno.h"
#include "lib/atomic.h"
#include "mm/pmm.h"
#include <arch/arch.h>
#include "tests/mm_test.h"

#ifdef HOST_BUILD
#include <pthread.h>

#include "tests/host/fake_arch.h"
#else
#include "kernel/smp.h"
#endif

/* ---- fixture ---- */

static unsigned swapt_types[SWAP_MAX_DEVS];
static unsigned swapt_ntypes;

int swapt_init(struct ktest *t)
{
	swapt_ntypes = 0;
	return mm_test_fresh_pmm(t);
}

void swapt_exit(struct ktest *t)
{
	(void)t;
	while (swapt_ntypes)
		swapt_dev_drain(swapt_types[--swapt_ntypes]);
	pmm_inject_fail(0, 0);
}

bool swapt_dev_new(struct ktest *t, u64 nslots, unsigned *type)
{
	int err = swap_on_ram(nslots, type);

	if (!KEXPECT_EQ(t, err, 0))
		return false;
	swapt_types[swapt_ntypes++] = *type;
	return true;
}

int swapt_dev_drain(unsigned type)
{
	struct swap_stats s;
	u64 off;

	if (swap_stats_get(type, &s))
		return -EINVAL;
	for (off = 0; off < s.nslots; off++) {
		swp_entry_t e = swap_entry_make(type, off);

		while (swap_count(e))
			swap_free_ops_naive.free(e, 1);
		if (swap_map_read(e) & SWAP_HAS_CACHE)
			swap_cache_del(e, 1);
	}
	return swap_off(type);
}

bool swapt_expect_consistent(struct ktest *t, unsigned type)
{
	const char *why;
	bool ok = KEXPECT_EQ(t, swap_check_consistency(type, &why), 0);

	if (!ok)
		ktest_log(t, "device %u: %s", type, why);
	return ok;
}

u64 swapt_counter(const struct pcpu_counter *c)
{
	return percpu_counter_read(arch_cpu_id(), c);
}

/* splitmix64's finaliser: distinct inputs give distinct words. */
static u64 swapt_mix(u64 x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void swapt_fill(void *page, u64 seed)
{
	u64 *w = page, i;

	for (i = 0; i < PAGE_SIZE / sizeof(u64); i++)
		w[i] = swapt_mix(seed * PAGE_SIZE + i);
}

u64 swapt_checksum(const void *page)
{
	const u64 *w = page;
	u64 h = 0xcbf29ce484222325ull, i;

	for (i = 0; i < PAGE_SIZE / sizeof(u64); i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return h;
}

void *swapt_page_alloc(void)
{
	struct page *p = page_alloc(0, 0);

	return p ? page_address(p) : NULL;
}

void swapt_page_free(void *page)
{
	if (page)
		page_free(phys_to_page(virt_to_phys(page)), 0);
}

u64 swapt_pmm_free(void)
{
	struct pmm_stats s;

	pmm_stats_get(&s);
	return s.free;
}

/* running on several CPUs */

struct swapt_job {
	void (*fn)(void *arg, unsigned idx);
	void *arg;
	unsigned idx;
};

static struct swapt_job swapt_jobs[SWAPT_MAX_CPUS];

#ifdef HOST_BUILD

unsigned swapt_cpus_available(void)
{
	return SWAPT_MAX_CPUS;
}

static void *swapt_thread(void *p)
{
	struct swapt_job *job = p;

	fake_arch_set_cpu(job->idx);
	job->fn(job->arg, job->idx);
	return NULL;
}

unsigned swapt_run_cpus(unsigned n, void (*fn)(void *arg, unsigned idx), void *arg)
{
	pthread_t th[SWAPT_MAX_CPUS];
	unsigned i, started;

	if (n > SWAPT_MAX_CPUS)
		return 0;
	for (started = 0; started < n; started++) {
		swapt_jobs[started] = (struct swapt_job){ fn, arg, started };
		if (pthread_create(&th[started], NULL, swapt_thread, &swapt_jobs[started]))
			break;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	fake_arch_set_cpu(0);
	return started == n ? n : 0;
}

/* Threads are always joined: they never need to cut their work short. */
bool swapt_stopping(void)
{
	return false;
}

#else

static u32 swapt_left;
static bool swapt_stop;

unsigned swapt_cpus_available(void)
{
	return ncpus_online;
}

static void swapt_job_run(void *p)
{
	struct swapt_job *job = p;

	job->fn(job->arg, job->idx);
	atomic_fetch_sub(&swapt_left, 1);
}

/*
 * Hands jobs 1..@n-1 to other online CPUs; returns how many took theirs.
 * The hand-over waits as long as the jobs may run: a CPU that answered
 * after a shorter timeout would run a job its caller thinks never started.
 */
static unsigned swapt_start_others(unsigned n)
{
	u32 saved = smp_timeout_ms();
	unsigned cpu, idx = 1;

	smp_set_timeout_ms(SWAPT_WAIT_MS);

	for_each_cpu(cpu, &cpu_online_mask) {
		if (idx == n)
			break;
		if (cpu == arch_cpu_id())
			continue;
		if (smp_run_async(cpu, swapt_job_run, &swapt_jobs[idx]))
			break;
		idx++;
	}
	smp_set_timeout_ms(saved);
	return idx - 1;
}

unsigned swapt_run_cpus(unsigned n, void (*fn)(void *arg, unsigned idx), void *arg)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * SWAPT_WAIT_MS;
	unsigned i, started;

	if (n > SWAPT_MAX_CPUS || n > ncpus_online)
		return 0;
	for (i = 0; i < n; i++)
		swapt_jobs[i] = (struct swapt_job){ fn, arg, i };
	atomic_store_relaxed(&swapt_stop, false);
	atomic_store_release(&swapt_left, n);
	started = swapt_start_others(n);
	atomic_fetch_sub(&swapt_left, n - 1 - started);
	swapt_job_run(&swapt_jobs[0]);
	/*
	 * Late jobs are told to stop, then awaited without a bound: the caller
	 * frees what they use. A CPU that never returns is a hang for run.sh.
	 */
	while (atomic_load_acquire(&swapt_left)) {
		if (arch_tsc_read() > deadline)
			atomic_store_relaxed(&swapt_stop, true);
		arch_cpu_relax();
	}
	return started == n - 1 && !atomic_load_relaxed(&swapt_stop) ? n : 0;
}

bool swapt_stopping(void)
{
	return atomic_load_relaxed(&swapt_stop);
}

#endif
