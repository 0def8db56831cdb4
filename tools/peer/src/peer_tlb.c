/*
 * tlb: P touched anonymous pages dropped with MADV_DONTNEED, one call per
 * page ("naive") or one for all ("batched": mmu_gather flushes once per
 * call), while a reader on each other CPU keeps the mm live and its TLB full
 * of the range, as mmlab's remote=busy readers do. The shootdowns are
 * /proc/interrupts' TLB row around each call; a run that misses a reader is
 * rejected and rerun (peer_check.c). Variants alternate; main runs on CPU 0.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TLB_READ_PAGES 32 /* mmlab's reader working set in the mapping */
#define TLB_RETRIES 5	  /* rejected runs of one episode before the variant fails */
/*
 * The same for a traced episode: a traced naive run of 512 pages is twice
 * as long, so a reader preempted by a kernel thread (its CPU then lazy,
 * sent no IPI) spoils more of them; 5 in a row were seen rejected.
 */
#define TLB_TRACED_RETRIES 20
#define TLB_WHY 128 /* a traced variant's reason for no figures */
#define TLB_READY_SPINS 2000000000L /* sched_yield()s to wait for the readers' handshake */

/*
 * The kernel functions the traced pass times, outermost first: Linux
 * 6.1's MADV_DONTNEED path (mm/madvise.c, mm/memory.c, mm/mmu_gather.c,
 * arch/x86/mm/tlb/tlb.c). One not traceable here is left out with a note.
 * The whole zap is zap_page_range_single: Debian's 6.1.192 calls it from
 * madvise_dontneed_single_vma (zap_page_range, 6.1.0's, is never called).
 */
static const char *const tlb_kernel_fns[] = {
	"zap_page_range_single",  /* the whole zap of one madvise call's range */
	"unmap_page_range",	  /* clearing the entries, gathering the pages */
	"tlb_finish_mmu",	  /* the flush, then freeing the gathered pages */
	"flush_tlb_mm_range",	  /* the flush: local, and remote when others hold the mm */
	"native_flush_tlb_multi", /* the remote part: the IPIs and the wait for their acks */
};
#define TLB_KERNEL_FNS (int)(sizeof(tlb_kernel_fns) / sizeof(tlb_kernel_fns[0]))

/*
 * What a variant's traced pass measured: per function, the calls and ns
 * of all its traced runs and of each run.
 */
struct tlb_kernel {
	struct peer_ftrace_sum sum[TLB_KERNEL_FNS];
	int runs[TLB_KERNEL_FNS];
	long run_calls[TLB_KERNEL_FNS][PEER_MAX_RUNS];
	double run_ns[TLB_KERNEL_FNS][PEER_MAX_RUNS];
};

/*
 * The tracer's own cost, calibrated on a system call that does almost
 * nothing: TLB_CAL_CALLS getppid() calls back to back, untraced then with
 * one function of it traced (tlb_cal_fns), TLB_CAL_ROUNDS times. Per call,
 * medians over the rounds: extra, the traced loop's cycles less the
 * untraced one's (all that tracing adds to a traced call: both hooks, the
 * ring buffer writes); empty, the duration function_graph reports for the
 * nearly empty function (the part of the tracer's cost that falls between
 * a duration's two timestamps, so inside every duration it reports, plus
 * a body of a few instructions). The old estimate, a traced TLB run's
 * user-space cycles less the untraced median over its calls, was the
 * difference of two noisy times over one call per run for batched, and
 * came out anywhere from -52,552 to 82,677 cycles.
 */
#define TLB_CAL_CALLS 1000
#define TLB_CAL_ROUNDS 5

/*
 * What to trace, the first that available_filter_functions lists: the
 * system call itself, or the one function it calls (task_tgid_vnr() of
 * the parent is __task_pid_nr_ns(), out of line in kernel/pid.c).
 */
static const char *const tlb_cal_fns[] = { "__x64_sys_getppid", "__task_pid_nr_ns" };

struct tlb_trace_cal {
	const char *fn;	     /* the function traced, or NULL */
	double extra, empty; /* cycles per call */
	int valid;
};

static int tlb_fn_traceable[TLB_KERNEL_FNS]; /* set by tlb_kernel_check() */

struct tlb_reader {
	pthread_t thread;
	int cpu;
	volatile char *base;
	volatile int *stop;
	volatile char *range;	  /* the P pages dropped: read once per run */
	long range_pages;
	volatile unsigned touched; /* the last tlb_touch.gen it read the range for */
	volatile int running_on; /* sched_getcpu() once started; -1 before */
	int policy;		  /* sched_getscheduler() once started */
	unsigned long sink;
};

/*
 * The readers of the case being run and the run they last read the range
 * for: tlb_run() bumps gen once the range is written and waits until every
 * reader has read it.
 */
static struct {
	struct tlb_reader *readers;
	int n;
	volatile unsigned gen;
} tlb_touch;

static void *tlb_reader_main(void *arg)
{
	struct tlb_reader *r = arg;
	unsigned long sink = 0;

	r->policy = sched_getscheduler(0);
	__atomic_store_n(&r->running_on, sched_getcpu(), __ATOMIC_RELEASE);
	while (!*r->stop) {
		unsigned gen = __atomic_load_n(&tlb_touch.gen, __ATOMIC_ACQUIRE);

		if (gen != r->touched) {
			for (long i = 0; i < r->range_pages; i++)
				sink += r->range[i * PEER_PAGE];
			__atomic_store_n(&r->touched, gen, __ATOMIC_RELEASE);
		}
		for (int i = 0; i < TLB_READ_PAGES; i++) {
			sink += r->base[i * PEER_PAGE];
			/*
			 * Exact mode: the emulator runs one vCPU at a time and
			 * moves on at a PAUSE; mmlab's readers pause every
			 * TR_CHUNK (16) reads there, and so do these.
			 */
			if (peer_opts.exact && i % 16 == 15)
				__builtin_ia32_pause();
		}
	}
	r->sink = sink;
	return NULL;
}

/*
 * Every reader reads the whole range (just written) before the run is
 * timed. 0, or -1 when one has not after TLB_READY_SPINS turns.
 */
static int tlb_touch_range(void)
{
	unsigned gen = __atomic_add_fetch(&tlb_touch.gen, 1, __ATOMIC_ACQ_REL);

	for (int i = 0; i < tlb_touch.n; i++) {
		long spin = 0;

		while (__atomic_load_n(&tlb_touch.readers[i].touched, __ATOMIC_ACQUIRE) != gen)
			if (++spin == TLB_READY_SPINS)
				return -1;
			else
				__builtin_ia32_pause();
	}
	return 0;
}

/*
 * One timed drop of pages pages; cycles per page and shootdown IRQs per
 * page, and the process's transparent huge pages once they are touched.
 * traced: the kernel records its trace around the drop (the traced pass).
 */
static int tlb_run(char *base, long pages, int batched, double *out, long *irqs, long *huge,
		   int traced)
{
	long before, after;
	uint64_t t0, t1;
	int rc = 0;

	for (long i = 0; i < pages; i++)
		base[i * PEER_PAGE] = 1;
	if (tlb_touch_range())
		return -ETIMEDOUT;
	*huge = peer_proc_kb("/proc/self/smaps_rollup", "AnonHugePages");
	before = peer_proc_interrupts("TLB");
	if (traced)
		peer_ftrace_on();
	t0 = peer_rdtsc();
	if (batched)
		rc = madvise(base, pages * PEER_PAGE, MADV_DONTNEED);
	for (long i = 0; !batched && i < pages && !rc; i++)
		rc = madvise(base + i * PEER_PAGE, PEER_PAGE, MADV_DONTNEED);
	t1 = peer_rdtsc();
	if (traced)
		peer_ftrace_off();
	after = peer_proc_interrupts("TLB");
	if (rc)
		return -errno;
	*out = (double)(t1 - t0) / pages;
	*irqs = before < 0 || after < 0 ? -1 : after - before;
	return 0;
}

/*
 * One episode: warm-up runs, then the timed one. 0, or why it failed.
 * traced: every run is traced, so the warm-ups run the tracer's own code
 * too, and their trace is consumed before the timed run.
 */
static const char *tlb_episode(char *base, long pages, int batched, double *v, long *irqs,
			       int traced)
{
	static char why[96];
	long left, huge = 0;
	int rc = 0;

	for (int w = 0; w <= peer_opts.warmup && !rc && huge <= 0; w++) {
		if (traced && w == peer_opts.warmup)
			peer_ftrace_collect(NULL, 0); /* the warm-ups' trace, thrown away */
		rc = tlb_run(base, pages, batched, v, irqs, &huge, traced);
	}
	if (rc) {
		snprintf(why, sizeof(why), "%s: %s", rc == -ETIMEDOUT ? "a reader never read the range"
			 : "madvise(MADV_DONTNEED) failed", strerror(-rc));
		return why;
	}
	if (huge > 0) {
		snprintf(why, sizeof(why), "%ld kB of transparent huge pages: not 4 KiB pages",
			 huge);
		return why;
	}
	left = peer_resident_pages(base, pages * PEER_PAGE);
	if (left != 0) {
		snprintf(why, sizeof(why), "%ld of %ld pages still resident after MADV_DONTNEED",
			 left, pages);
		return why;
	}
	return NULL;
}

/*
 * One episode that counts: run again while the TLB interrupts miss a
 * reader, each such run rejected and counted in s->rejected. 0, or why not.
 */
static const char *tlb_checked_episode(const struct peer_case *c, char *base, long pages,
				       int batched, struct peer_series *s, double *v, double *per,
				       int traced)
{
	static char why[128];
	int retries = traced ? TLB_TRACED_RETRIES : TLB_RETRIES;
	long irqs = 0;

	for (int t = 0; t < retries; t++) {
		const char *fail = tlb_episode(base, pages, batched, v, &irqs, traced);

		if (fail)
			return fail;
		*per = irqs < 0 ? 0 : (double)irqs / pages;
		if (irqs < 0 || peer_tlb_irqs_ok(irqs, c->cpus, pages, batched))
			return NULL;
		s->rejected++;
		printf("# bench tlb %s cpus=%d %s: %srun rejected: %ld TLB interrupts, want at "
		       "least %ld\n", s->variant, c->cpus, c->label, traced ? "traced " : "", irqs,
		       peer_tlb_irqs_expected(c->cpus, pages, batched));
	}
	snprintf(why, sizeof(why), "%d runs in a row missed a reader's TLB interrupt",
		 retries);
	return why;
}

/* The timed rounds, untraced; failed[b]: variant b failed (and was reported). */
static void tlb_rounds(struct peer_case *c, char *base, long pages, struct peer_series *s,
		       int *failed)
{
	int seq = 0;

	for (int r = 0; r < peer_opts.iters; r++) {
		for (int k = 0; k < 2; k++) {
			int batched = (r + k) % 2; /* who goes first alternates */
			double v = 0, irqs = 0;
			const char *why;

			if (failed[batched])
				continue;
			why = tlb_checked_episode(c, base, pages, batched, &s[batched], &v, &irqs,
						  0);
			if (why) {
				peer_fail(c, s[batched].variant, "%s (timed run %d)", why, r + 1);
				failed[batched] = 1;
				continue;
			}
			peer_series_add(&s[batched], v, seq++, &irqs);
		}
	}
}

/* One case's traced pass: what it runs on, and what it found per variant. */
struct tlb_pass {
	const struct peer_case *c;
	char *base;
	long pages;
	const int *failed;		 /* the variants whose timed rounds failed */
	const struct peer_series *timed; /* the timed rounds, untraced */
	struct peer_series scratch[2];	 /* the traced runs' rejects */
	struct tlb_kernel k[2];
	char why[2][TLB_WHY]; /* why a variant has no figures, or "" */
};

/*
 * One traced episode of function f, variant b: the timed run (its
 * warm-ups traced too), checked as a timed round's is (a rejected run is
 * run again), then its calls and durations added to p->k[b]. NULL, or why
 * not.
 */
static const char *tlb_traced_episode(struct tlb_pass *p, int b, int f)
{
	struct peer_ftrace_sum run = { .fn = tlb_kernel_fns[f] };
	struct tlb_kernel *k = &p->k[b];
	double v = 0, irqs = 0;
	const char *why = tlb_checked_episode(p->c, p->base, p->pages, b, &p->scratch[b], &v,
					      &irqs, 1);
	long lost;
	int i = k->runs[f];

	if (why)
		return why;
	lost = peer_ftrace_collect(&run, 1);
	if (lost < 0)
		return "tracing could not be turned on or off, or the trace read";
	if (lost > 0)
		return "the trace lost events";
	if (i == PEER_MAX_RUNS)
		return NULL;
	k->sum[f].calls += run.calls;
	k->sum[f].ns += run.ns;
	k->run_calls[f][i] = run.calls;
	k->run_ns[f][i] = run.ns;
	k->runs[f]++;
	return NULL;
}

/*
 * Function f's share of the traced pass: iters episodes of each variant,
 * alternating; a variant that failed, here or before, is left out.
 */
static void tlb_kernel_fn_pass(struct tlb_pass *p, int f)
{
	if (peer_ftrace_start(tlb_kernel_fns[f])) {
		for (int b = 0; b < 2; b++)
			snprintf(p->why[b], TLB_WHY, "function_graph could not be set up");
		return;
	}
	for (int r = 0; r < peer_opts.iters; r++) {
		for (int i = 0; i < 2; i++) {
			int b = (r + i) % 2;
			const char *fail;

			if (p->failed[b] || p->why[b][0])
				continue;
			fail = tlb_traced_episode(p, b, f);
			if (fail)
				snprintf(p->why[b], TLB_WHY, "%s", fail);
		}
	}
}

/* Append printf-style text to s's own JSON members; cut at PEER_MAX_EXTRA. */
static void __attribute__((format(printf, 2, 3))) tlb_extra(struct peer_series *s,
							    const char *fmt, ...)
{
	size_t used = strlen(s->extra);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->extra + used, sizeof(s->extra) - used, fmt, ap);
	va_end(ap);
}

/* ,"kernel_<fn><what>":value with 3 decimals, or null when no run had data for it. */
static void tlb_extra_number(struct peer_series *s, const char *fn, const char *what,
			     double value, int valid)
{
	if (valid)
		tlb_extra(s, ",\"kernel_%s%s\":%.3f", fn, what, value);
	else
		tlb_extra(s, ",\"kernel_%s%s\":null", fn, what);
}

/*
 * Function f's members: its calls per madvise call over all the traced
 * runs, and the medians over the runs of its cycles per call (each run's
 * mean; runs with no call left out) and per page.
 */
static void tlb_kernel_fn_extra(struct peer_series *s, const struct tlb_kernel *k, int f,
				long pages, long madvises)
{
	double per_call[PEER_MAX_RUNS], per_page[PEER_MAX_RUNS], cycles_per_ns;
	int n = 0;

	cycles_per_ns = peer_opts.tsc_hz / 1e9;
	for (int i = 0; i < k->runs[f]; i++) {
		if (k->run_calls[f][i])
			per_call[n++] = k->run_ns[f][i] * cycles_per_ns / k->run_calls[f][i];
		per_page[i] = k->run_ns[f][i] * cycles_per_ns / pages;
	}
	tlb_extra_number(s, k->sum[f].fn, "_calls_per_madvise",
			 (double)k->sum[f].calls / ((double)k->runs[f] * madvises), 1);
	tlb_extra_number(s, k->sum[f].fn, "_cycles_per_call", peer_median(per_call, n), n > 0);
	tlb_extra_number(s, k->sum[f].fn, "_cycles_per_page", peer_median(per_page, k->runs[f]),
			 1);
}

/* Cycles for TLB_CAL_CALLS getppid() calls back to back. */
static double tlb_cal_loop(void)
{
	uint64_t t0 = peer_rdtsc();

	for (int i = 0; i < TLB_CAL_CALLS; i++)
		syscall(SYS_getppid);
	return (double)(peer_rdtsc() - t0);
}

/* tlb_trace_cal's calibration; cal->valid 0 when it could not run (a note says why). */
static void tlb_trace_calibrate(struct tlb_trace_cal *cal)
{
	double extra[TLB_CAL_ROUNDS], empty[TLB_CAL_ROUNDS];
	int n = 0;

	cal->valid = 0;
	cal->fn = NULL;
	for (size_t i = 0; i < sizeof(tlb_cal_fns) / sizeof(tlb_cal_fns[0]) && !cal->fn; i++)
		if (peer_ftrace_function_ok(tlb_cal_fns[i]))
			cal->fn = tlb_cal_fns[i];
	if (!cal->fn || peer_ftrace_start(cal->fn)) {
		printf("# bench tlb: kernel trace: %s: the tracer's cost is not calibrated\n",
		       cal->fn ? "function_graph could not be set up"
			       : "neither __x64_sys_getppid nor __task_pid_nr_ns can be traced");
		return;
	}
	for (int r = 0; r < TLB_CAL_ROUNDS; r++) {
		struct peer_ftrace_sum sum = { .fn = cal->fn };
		double plain = tlb_cal_loop(), traced;

		peer_ftrace_on();
		traced = tlb_cal_loop();
		peer_ftrace_off();
		if (peer_ftrace_collect(&sum, 1) != 0 || sum.calls != TLB_CAL_CALLS)
			continue; /* lost events, or not one call per getppid(): not this round */
		extra[n] = (traced - plain) / TLB_CAL_CALLS;
		empty[n++] = sum.ns * peer_opts.tsc_hz / 1e9 / TLB_CAL_CALLS;
	}
	peer_ftrace_stop();
	if (!n) {
		printf("# bench tlb: kernel trace: no calibration round saw one %s call per "
		       "getppid(): the tracer's cost is not calibrated\n", cal->fn);
		return;
	}
	cal->extra = peer_median(extra, n);
	cal->empty = peer_median(empty, n);
	cal->valid = 1;
}

/*
 * A variant's kernel_* members from its traced pass (docs/output.md): per
 * function traced, tlb_kernel_fn_extra()'s; the traced runs per function;
 * and the tracer's calibrated cost per call (tlb_trace_cal).
 */
static void tlb_kernel_extra(struct peer_series *s, struct tlb_kernel *k, long pages,
			     int batched, const struct tlb_trace_cal *cal)
{
	int runs = 0;

	for (int f = 0; f < TLB_KERNEL_FNS; f++) {
		if (!k->runs[f])
			continue;
		runs = k->runs[f];
		tlb_kernel_fn_extra(s, k, f, pages, batched ? 1 : pages);
	}
	tlb_extra(s, ",\"kernel_traced_runs_per_function\":%d", runs);
	tlb_extra_number(s, "trace_overhead_cycles_per_traced_call", "", cal->extra, cal->valid);
	tlb_extra_number(s, "trace_empty_call_cycles", "", cal->empty, cal->valid);
	if (cal->valid)
		tlb_extra(s, ",\"kernel_trace_calibrated_on\":\"%s\"", cal->fn);
}

/*
 * The traced pass after a case's timed rounds: each traceable function
 * alone (tlb_kernel_fns), iters episodes of each variant that did not
 * fail; its figures go on the variants' lines. A variant whose traced
 * episodes cannot finish gets a note and no kernel_* figures, never a
 * failed case.
 */
static void tlb_kernel_pass(const struct peer_case *c, char *base, long pages,
			    struct peer_series *s, const int *failed)
{
	static struct tlb_pass p; /* ~0.3 MB: not on the stack */
	struct tlb_trace_cal cal;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.base = base;
	p.pages = pages;
	p.failed = failed;
	p.timed = s;
	for (int b = 0; b < 2; b++) {
		peer_series_init(&p.scratch[b], s[b].variant);
		for (int f = 0; f < TLB_KERNEL_FNS; f++)
			p.k[b].sum[f].fn = tlb_kernel_fns[f];
	}
	for (int f = 0; f < TLB_KERNEL_FNS; f++)
		if (tlb_fn_traceable[f])
			tlb_kernel_fn_pass(&p, f);
	peer_ftrace_stop();
	tlb_trace_calibrate(&cal);
	for (int b = 0; b < 2; b++) {
		if (failed[b])
			continue;
		if (p.why[b][0])
			printf("# bench tlb %s cpus=%d %s: kernel trace: %s: no kernel_ figures\n",
			       s[b].variant, c->cpus, c->label, p.why[b]);
		else
			tlb_kernel_extra(&s[b], &p.k[b], pages, b, &cal);
	}
}

/*
 * Whether the traced pass can run (ktrace=1, function_graph free to use)
 * and which functions it can time; a note line for each that it cannot.
 */
static int tlb_kernel_check(void)
{
	const char *why = peer_opts.ktrace ? peer_ftrace_usable() : "ktrace=0";
	int any = 0;

	if (why) {
		printf("# bench tlb: kernel trace: not timed inside the kernel: %s\n", why);
		return 0;
	}
	for (int f = 0; f < TLB_KERNEL_FNS; f++) {
		tlb_fn_traceable[f] = peer_ftrace_function_ok(tlb_kernel_fns[f]);
		any |= tlb_fn_traceable[f];
		if (!tlb_fn_traceable[f])
			printf("# bench tlb: kernel trace: %s is not in available_filter_functions: "
			       "not timed\n", tlb_kernel_fns[f]);
	}
	if (any)
		printf("# bench tlb: kernel trace: function_graph, one function per pass, %d "
		       "traced runs of each variant per function after each case's timed runs\n",
		       peer_opts.iters);
	return any;
}

/* The timed rounds (untraced), then the traced pass when tracing: then the lines. */
static void tlb_measure(struct peer_case *c, char *base, long pages, struct peer_series *s,
			int tracing)
{
	int failed[2] = { 0, 0 };

	tlb_rounds(c, base, pages, s, failed);
	if (tracing && !(failed[0] && failed[1]))
		tlb_kernel_pass(c, base, pages, s, failed);
	for (int b = 0; b < 2; b++)
		if (!failed[b])
			peer_emit(c, &s[b]);
}

/*
 * Start a reader per other CPU, each created on its CPU; how many started.
 * Each runs SCHED_FIFO (priority 1) where the kernel lets us: a kernel
 * thread that preempts a SCHED_OTHER reader leaves its CPU lazy, sent no
 * IPI, and a naive run of 512 pages (512 calls) was rejected five times
 * in a row for 5-34 missing interrupts. RT throttling still gives the
 * CPU's kernel threads 5% of each second.
 */
static int tlb_start_readers(struct tlb_reader *readers, int n, char *base, long pages,
			     volatile int *stop)
{
	for (int i = 0; i < n; i++) {
		struct sched_param fifo = { .sched_priority = 1 };
		pthread_attr_t attr;
		cpu_set_t set;
		int rc;

		readers[i] = (struct tlb_reader){ .cpu = i + 1, .stop = stop,
						  .base = base + pages * PEER_PAGE, .range = base,
						  .range_pages = pages, .touched = tlb_touch.gen,
						  .running_on = -1 };
		CPU_ZERO(&set);
		CPU_SET(i + 1, &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &fifo);
		rc = pthread_create(&readers[i].thread, &attr, tlb_reader_main, &readers[i]);
		if (rc == EPERM) { /* no real-time scheduling here: an ordinary reader */
			pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
			rc = pthread_create(&readers[i].thread, &attr, tlb_reader_main,
					    &readers[i]);
		}
		pthread_attr_destroy(&attr);
		if (rc)
			return i;
	}
	return n;
}

/*
 * The handshake before timing: every reader says it runs on its own CPU.
 * NULL, or why not (the caller fails the case).
 */
static const char *tlb_readers_ready(struct tlb_reader *readers, int n)
{
	static char why[96];

	for (int i = 0; i < n; i++) {
		int on = -1;

		for (long spin = 0; on < 0 && spin < TLB_READY_SPINS; spin++) {
			on = __atomic_load_n(&readers[i].running_on, __ATOMIC_ACQUIRE);
			if (on < 0)
				sched_yield();
		}
		if (on != readers[i].cpu) {
			snprintf(why, sizeof(why), "the reader for CPU %d runs on CPU %d",
				 readers[i].cpu, on);
			return why;
		}
		printf("# bench tlb: reader %d running on CPU %d, %s\n", i + 1, on,
		       readers[i].policy == SCHED_FIFO ? "SCHED_FIFO" : "not SCHED_FIFO");
	}
	return NULL;
}

static int tlb_case(int cpus, long pages, int tracing)
{
	static struct peer_series s[2];
	struct tlb_reader readers[PEER_MAX_LIST];
	volatile int stop = 0;
	/* Exact mode: the TSC counts one per instruction, mmlab's metric there. */
	struct peer_case c = { .bench = "tlb",
			       .metric = peer_opts.exact ? "instructions_per_page"
							 : "cycles_per_page",
			       .unit = peer_opts.exact ? "instructions" : "cycles",
			       .better = "lower",
			       .cpus = cpus,
			       .ops_per_run = pages,
			       .cycles = 1 };
	size_t len = (pages + TLB_READ_PAGES) * PEER_PAGE;
	char *base = peer_map_4k(len);
	int before = peer_failed, started;
	const char *why;

	snprintf(c.params, sizeof(c.params), "\"pages\":%ld,\"remote\":\"busy\"", pages);
	snprintf(c.label, sizeof(c.label), "pages=%ld remote=busy", pages);
	if (pages == 1)
		c.control_why = "pages=1: both variants make one call";
	if (base == MAP_FAILED) {
		peer_fail(&c, "naive", "mmap of %zu bytes failed: %s", len, strerror(errno));
		return -1;
	}
	memset(base + pages * PEER_PAGE, 1, TLB_READ_PAGES * PEER_PAGE);
	started = tlb_start_readers(readers, cpus - 1, base, pages, &stop);
	tlb_touch.readers = readers;
	tlb_touch.n = started;
	peer_series_init(&s[0], "naive");
	peer_series_init(&s[1], "batched");
	for (int b = 0; b < 2; b++) {
		s[b].counter_names[0] = "tlb_shootdown_irqs_per_op";
		s[b].ncounters = 1;
		s[b].count_rejects = 1;
	}
	printf("# bench tlb cpus=%d pages=%ld remote=busy: naive (one madvise per page) and "
	       "batched (one for all) alternate run by run, %d timed runs each\n",
	       cpus, pages, peer_opts.iters);
	why = started < cpus - 1 ? "a reader thread could not be created"
				 : tlb_readers_ready(readers, cpus - 1);
	if (why)
		peer_fail(&c, "naive", "%s", why);
	else
		tlb_measure(&c, base, pages, s, tracing);
	stop = 1;
	for (int i = 0; i < started; i++)
		pthread_join(readers[i].thread, NULL);
	tlb_touch.n = 0;
	munmap(base, len);
	return peer_failed == before ? 0 : -1;
}

/* Every (cpus, pages) case of the tlb workload. */
int peer_tlb(void)
{
	int rc = 0, tracing = tlb_kernel_check();

	for (int i = 0; i < peer_opts.ncpus_list; i++)
		for (int j = 0; j < peer_opts.npages; j++)
			rc |= tlb_case(peer_opts.cpus[i], peer_opts.pages[j], tracing);
	return rc;
}
