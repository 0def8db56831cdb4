/*
 * The mm torture (docs/testing.md): every CPU runs a random mix of every
 * mm operation on a small shared set of address spaces for a bounded time,
 * with invariants checked as it goes (at a barrier where all CPUs stop)
 * and at the end, and fault injection. tests/torture/torture.c is the
 * shared core; tests/torture/torture_host.c runs it on host threads over
 * the fake arch. The environment provides the torture_env_* calls.
 */
#ifndef TESTS_TORTURE_TORTURE_H
#define TESTS_TORTURE_TORTURE_H

#include "compiler.h"
#include "mm/mm_hook.h"
#include "types.h"

struct mm;

#define TORTURE_MAX_CPUS 16
#define TORTURE_RING 16

struct torture_config {
	u64 seed;
	u32 seconds;	 /* the whole run; each case gets its share */
	unsigned ncpus;	 /* CPUs (threads) that run operations */
	bool inject;	 /* fault injection: dead CPU, allocation failures, full swap */
	u32 audit_ms;	 /* period of the audit barrier */
	/*
	 * Dead-CPU injection (with @inject): in each case one CPU other than
	 * 0 goes dark at a random time (interrupts off, past timeout_ms, so
	 * callers write it off) and stays dark until the case ends; then
	 * @revive(cpu) brings it back, as a reset would (kernel:
	 * smp_cpu_revive()). NULL: no dead CPU.
	 */
	void (*revive)(unsigned cpu);
	/*
	 * At each audit while @cpu is dark (NULL: none): checks what its
	 * translations still reach (host: its fake TLB) against the tables.
	 */
	void (*audit_dark)(unsigned cpu);
};

/* One operation a CPU did, for the ring printed on failure. */
struct torture_rec {
	u16 op;
	u16 slot;
	u32 arg;
	u32 mm;	/* the address space's number (owner tags carry it) */
	u64 va;
	s64 ret;
};

/*
 * A user word of a frame, as the hardware reads or writes it: one aligned
 * 8-byte access, single-copy atomic (relaxed). CPUs sharing a page (a
 * shared region, a pin beside a fault) race on it as on hardware, not as
 * plain C accesses would (a data race ThreadSanitizer rightly reports).
 */
static inline u64 torture_user_load(const u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void torture_user_store(u64 *p, u64 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* ---- provided by the environment ---- */
u64 torture_env_now_ms(void);
/* A window for interrupts (host: the fake CPU's tick). */
void torture_env_service(void);
/* Writes a line (no newline in @s). */
void torture_env_line(const char *s);
/*
 * A load (or store of *@val) of the u64 at @va of @mm by this CPU, as one
 * instruction: the translation and the access happen with no interrupt
 * between them (host: through the fake TLB, interrupts off); faults as the
 * MMU would, retrying while the fault handler says -EAGAIN or resolves
 * nothing (another CPU is bringing the page in). Returns 0, the fault
 * handler's error, or -EAGAIN after TORTURE_TOUCH_RETRY_MS of retries: a
 * time, not a count, since the CPU bringing the page in may be a thread
 * (or vCPU) its host left off a core for tens of milliseconds.
 */
#define TORTURE_TOUCH_RETRY_MS 10000
int torture_env_touch(struct mm *mm, vaddr_t va, bool write, u64 *val);
/* The deadline of a cross-CPU call, ms. */
u32 torture_env_timeout_ms(void);
/* The machine's CPU id of torture CPU @cpu (host: the same). */
unsigned torture_env_cpu(unsigned cpu);
/* True when torture CPU @cpu was written off (missed a cross-CPU deadline). */
bool torture_env_cpu_written_off(unsigned cpu);

/* ---- the core ---- */
/* Prepares case @index (its TLB design and fault-lock design); 0 or error. */
int torture_setup(const struct torture_config *cfg);
/* Run the control designs (which must fail) instead of the real ones. */
extern bool torture_controls;
/*
 * One more case after the designs': lazy with its drain tick at its
 * slowest (TLB_LAZY_HZ_MIN), so queues hold entries for 100 ms: a CPU goes
 * dark with invalidations queued to it and settles meet live CPUs not yet
 * drained (lazy's settle writing off live CPUs). The kernel's: the host's fake tick fires at
 * every service point whatever its rate.
 */
extern bool torture_slow_tick_case;
/* Number of cases and their names. */
unsigned torture_ncases(void);
const char *torture_case_name(unsigned i);
/* Case @i: called on every CPU (0 .. ncpus-1) at once; CPU 0 leads. */
void torture_case_cpu(unsigned i, unsigned cpu);
/* Before and after case @i, on CPU 0 alone. Begin returns 0 or an error. */
int torture_case_begin(unsigned i);
/* Ends case @i: teardown and end checks. True when the case passed. */
bool torture_case_end(unsigned i);
/* Totals for the diagnostic line. */
u64 torture_ops_done(void);
u64 torture_checks_done(void);
/* Records a failure (the first message is kept); every CPU stops soon after. */
void torture_fail(const char *fmt, ...) __printf(1, 2);
bool torture_failed(void);
/* The CPU held dark now (dead-CPU injection), or -1. */
int torture_dark_cpu(void);
/*
 * The core's part of mm/mm_hook.h's hook (the environment sets mm_hook to
 * it, or calls it from its own): notes each frame quarantined, which keeps
 * one reference no leaf accounts for (the audit adds them).
 */
void torture_mm_hook(enum mm_hook_point at, void *arg);
/* CPUs that went dark so far (one a case at most). */
unsigned torture_deaths(void);
/* The seed the failure report names. */
void torture_set_seed(u64 seed);
/* Prints the seed, the first failure and each CPU's last operations. */
void torture_report_failure(void);

#endif
