/*
 * mmpeer: user-space equivalents of mmlab's benchmarks, run inside the
 * distribution's Linux kernel booted by tools/peer/linux.sh. Each workload
 * file owns one benchmark; peer_result.c prints mmlab's BENCH line contract
 * (docs/output.md) with "system":"linux-<release>"; peer_main.c parses the
 * key=value words and runs the workloads. Single-threaded except where a
 * workload starts its own threads or processes.
 */
#ifndef MMPEER_H
#define MMPEER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define PEER_MAX_RUNS 1000
#define PEER_MAX_LIST 16
#define PEER_MAX_COUNTERS 4
#define PEER_MAX_EXTRA 2048 /* a series' own JSON members */
#define PEER_PAGE 4096UL

struct peer_opts {
	int iters;  /* timed runs per variant */
	int warmup; /* discarded runs before each timed one */
	int ncpus;  /* online CPUs */
	int cpus[PEER_MAX_LIST];
	int ncpus_list;
	long pages[PEER_MAX_LIST]; /* tlb page counts */
	int npages;
	long swapfree_mb; /* swapfree: MiB unmapped per run, split over the CPUs */
	long fault_pages; /* faultlock: pages each thread writes */
	long pin_pages;	  /* pin: pages per registration */
	int ktrace;	  /* tlb: time Linux's functions inside the kernel (ftrace) */
	int exact;	  /* QEMU counts instructions: busy loops PAUSE, as mmlab's do */
	double tsc_hz;
	char system[80]; /* "linux-<uname -r>" */
};

/* One variant's timed runs of a case, and its per-operation counters. */
struct peer_series {
	const char *variant;
	double samples[PEER_MAX_RUNS];
	int seq[PEER_MAX_RUNS];
	int n;
	const char *counter_names[PEER_MAX_COUNTERS];
	double counter_sums[PEER_MAX_COUNTERS]; /* summed per-op values, one per run */
	int ncounters;
	int count_rejects; /* print rejected_runs: runs rejected by the workload's check */
	int rejected;
	char extra[PEER_MAX_EXTRA]; /* this variant's own JSON members (leading comma), or "" */
};

/* What a case's BENCH lines share. */
struct peer_case {
	const char *bench;
	const char *metric;
	const char *unit;
	const char *better; /* "lower" or "higher" */
	int cpus;
	char params[160]; /* JSON members, e.g. "pages":512,"remote":"busy" */
	char label[160];  /* the same as words, e.g. pages=512 remote=busy */
	long ops_per_run;
	int cycles;		 /* the metric is TSC cycles: add median_ns */
	const char *extra;	 /* more JSON members (with a leading comma) or NULL */
	const char *control_why; /* the variants do the same work here, and why; or NULL */
};

extern struct peer_opts peer_opts;
extern int peer_passed, peer_failed, peer_skipped;

/* peer_result.c */
void peer_emit(const struct peer_case *c, const struct peer_series *s);
void peer_fail(const struct peer_case *c, const char *variant, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void peer_skip(const char *bench, const char *why);
void peer_series_init(struct peer_series *s, const char *variant);
void peer_series_add(struct peer_series *s, double value, int seq, const double *counters);
double peer_median(double *v, int n);
double peer_series_median(const struct peer_series *s);
double peer_median_sorted(const double *v, int n);
int peer_median_ci_rank(int n);

/* peer_sys.c */
uint64_t peer_rdtsc(void);
double peer_tsc_calibrate(void);
int peer_pin_cpu(int cpu);
long peer_proc_interrupts(const char *row);
long peer_resident_pages(const void *addr, size_t len);
void *peer_map_4k(size_t len);
long peer_proc_kb(const char *path, const char *key);
#define peer_meminfo_kb(key) peer_proc_kb("/proc/meminfo", key)

/* peer_env.c: the header's configuration facts */
void peer_mitigations(const char *dir, char *out, size_t size);
int peer_init_on_free(const char *cmdline);
int peer_memcg(const char *cgroups);

/* peer_ftrace.c: one kernel function's calls and their summed durations */
struct peer_ftrace_sum {
	const char *fn;
	long calls;
	double ns;
};
const char *peer_ftrace_usable(void);
int peer_ftrace_traceable(const char *name, const char *path);
int peer_ftrace_function_ok(const char *fn);
int peer_ftrace_start(const char *fn);
void peer_ftrace_on(void);
void peer_ftrace_off(void);
void peer_ftrace_stop(void);
int peer_ftrace_parse_line(const char *line, char *fn, size_t size, double *ns);
long peer_ftrace_sum_file(FILE *f, struct peer_ftrace_sum *sums, int n);
long peer_ftrace_collect(struct peer_ftrace_sum *sums, int n);

/* peer_check.c: the TLB interrupts a tlb run must show */
long peer_tlb_irqs_expected(int cpus, long pages, int batched);
int peer_tlb_irqs_ok(long delta, int cpus, long pages, int batched);

/* one per workload: 0 when every case passed (or skipped), -1 otherwise */
int peer_tlb(void);
int peer_faultlock(void);
int peer_swapfree(void);
int peer_pin(void);

#endif
