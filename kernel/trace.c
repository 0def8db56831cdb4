/*
 * The trace buffers (kernel/trace.h): options, the per-CPU buffers allocated
 * before the run, the record path, the boot-time cost of a record and the
 * dump after each case (docs/output.md, "Trace"). A buffer never wraps: once
 * full, records are counted as lost, so every CPU's record of a case starts
 * at the same region. A CPU writes only its own buffer; the boot CPU reads
 * them in trace_dump(), after the bench's barriers closed the region.
 */
#include "kernel/trace.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include <arch/arch.h>

#define TRACE_BUF_DEFAULT 65536 /* records per CPU: 1 MiB, every timed run of tlb up to 512 pages */
#define TRACE_BUF_MAX 262144	/* 4 MiB per CPU, the largest block mm's page_alloc() gives */
#define TRACE_LINE_RECORDS 24	/* records per console line, well inside PRINTK_MAX */
#define TRACE_CALIBRATE_RECORDS 256

BUILD_ASSERT(sizeof(struct trace_rec) == 16);

struct trace_flag trace_flag;

static u32 trace_opt;
/* trace=1: record the timed regions' events and print them after each case. */
OPTION_UINT(trace, trace_opt, 0, 1, 0);
static u32 trace_buf_records = TRACE_BUF_DEFAULT;
/* trace_buf=: records per CPU buffer (16 bytes each), allocated once before the run. */
OPTION_UINT(trace_buf, trace_buf_records, 64, TRACE_BUF_MAX, TRACE_BUF_DEFAULT);

static struct trace_cpu trace_cpus[MAX_CPUS];
static u32 trace_regions; /* regions opened since the last dump */
static u64 trace_record_cycles;

static const char *const trace_ev_names[TRACE_NR_EVENTS] = {
	[TRACE_REGION_BEGIN] = "rb", [TRACE_REGION_END] = "re", [TRACE_CALL] = "cp",
	[TRACE_IPI_SENT] = "is",     [TRACE_IPI_RECV] = "ir",	[TRACE_ACK_SENT] = "as",
	[TRACE_ACK_SEEN] = "aw",     [TRACE_FLUSH_PAGES] = "fp", [TRACE_FLUSH_FULL] = "ff",
	[TRACE_FLUSH_END] = "fe",    [TRACE_LOCK_ACQ] = "la",	[TRACE_LOCK_REL] = "lr",
	[TRACE_FAULT_BEGIN] = "fb",  [TRACE_FAULT_END] = "fx",
	[TRACE_ICR_WRITE] = "ic",    [TRACE_IRQ_ENTRY] = "ie",	[TRACE_EOI] = "eo",
	[TRACE_IDLE_HALT] = "ih",    [TRACE_IDLE_WAKE] = "iw",
};

void trace_record(enum trace_ev ev, unsigned peer, u32 arg)
{
	struct trace_cpu *tc = &trace_cpus[this_cpu()->cpu_id];
	u32 slot;

	if (ev == TRACE_CALL)
		arg = atomic_add_return(&tc->seq, 1);
	slot = atomic_fetch_add(&tc->n, 1);
	if (slot >= tc->cap)
		return; /* lost: tc->n keeps counting them */
	tc->buf[slot] = (struct trace_rec){
		.tsc = arch_tsc_read(), .ev = (u8)ev, .peer = (u16)peer, .arg = arg,
	};
}

u32 trace_seq(unsigned cpu)
{
	return cpu < MAX_CPUS ? atomic_load_relaxed(&trace_cpus[cpu].seq) : 0;
}

bool trace_enabled(void)
{
	return MMLAB_TRACE && trace_opt;
}

int trace_init(void *(*alloc)(size_t bytes))
{
	size_t bytes = (size_t)trace_buf_records * sizeof(struct trace_rec);
	unsigned cpu;

	if (!trace_opt)
		return 0;
	if (!MMLAB_TRACE) {
		printk("mmlab: error: trace=1: tracing is compiled out of this kernel (make TRACE=0)\n");
		return -EINVAL;
	}
	for_each_cpu(cpu, &cpu_online_mask) {
		struct trace_rec *buf = trace_cpus[cpu].buf ? NULL : alloc(bytes);

		if (trace_cpus[cpu].buf)
			continue;
		if (!buf) {
			printk("mmlab: error: trace_buf=%u: no room for CPU %u's %lu KiB buffer\n",
			       trace_buf_records, cpu, (unsigned long)(bytes >> 10));
			return -ENOMEM;
		}
		trace_cpus[cpu].buf = buf;
		trace_cpus[cpu].cap = trace_buf_records;
		trace_cpus[cpu].n = 0;
	}
	return 0;
}

void trace_region_begin(unsigned variant)
{
	if (!trace_enabled())
		return;
	trace_regions++;
	/* Seen by the other CPUs through the release of the barrier that starts the run. */
	atomic_store_release(&trace_flag.active, 1);
	trace_record(TRACE_REGION_BEGIN, 0, variant);
}

void trace_region_end(void)
{
	/* After a warm-up run no region is open: nothing to close. */
	if (!trace_enabled() || !atomic_load_relaxed(&trace_flag.active))
		return;
	trace_record(TRACE_REGION_END, 0, 0);
	atomic_store_release(&trace_flag.active, 0);
}

/* ---- the console dump ---- */

static u32 trace_stored(const struct trace_cpu *tc)
{
	return tc->n < tc->cap ? tc->n : tc->cap;
}

/* The earliest record of the case on any CPU: every delta is taken from it. */
static u64 trace_base(void)
{
	u64 base = ~0ull;
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		if (trace_stored(&trace_cpus[cpu]) && trace_cpus[cpu].buf[0].tsc < base)
			base = trace_cpus[cpu].buf[0].tsc;
	return base == ~0ull ? 0 : base;
}

/* One console line: @count records of @cpu from @r; *@prev: the TSC before the first. */
static void trace_print_line(unsigned cpu, const struct trace_rec *r, u32 count, u64 *prev)
{
	static char line[PRINTK_MAX];
	size_t n = fmt_snprintf(line, sizeof(line), "TRACE %u", cpu);

	for (u32 i = 0; i < count; i++, r++) {
		s64 d = (s64)(r->tsc - *prev);
		u64 mag = d < 0 ? (u64)-d : (u64)d;

		n += fmt_snprintf(line + n, sizeof(line) - n, " %s,%s%lx,%u,%u",
				  trace_ev_names[r->ev], d < 0 ? "-" : "", (unsigned long)mag,
				  r->peer, r->arg);
		*prev = r->tsc;
	}
	printk("%s\n", line);
}

static void trace_print_cpu(unsigned cpu, u64 base)
{
	const struct trace_cpu *tc = &trace_cpus[cpu];
	u32 stored = trace_stored(tc);
	u64 prev = base;

	printk("TRACE-CPU {\"cpu\":%u,\"records\":%u,\"lost\":%u}\n", cpu, stored, tc->n - stored);
	for (u32 i = 0; i < stored; i += TRACE_LINE_RECORDS)
		trace_print_line(cpu, tc->buf + i, MIN(stored - i, (u32)TRACE_LINE_RECORDS), &prev);
}

static void trace_print_begin(const char *bench, unsigned ncpus, const char *label,
			      const char *const *variants, unsigned nvariants, u64 base)
{
	static char buf[1024];
	struct json j;
	char key[12];

	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "bench", bench);
	json_u64(&j, "cpus", ncpus);
	json_str(&j, "case", label);
	json_object_begin(&j, "variants");
	for (unsigned v = 0; v < nvariants; v++) {
		fmt_snprintf(key, sizeof(key), "%u", v);
		json_str(&j, key, variants[v]);
	}
	json_object_end(&j);
	json_u64(&j, "tsc_hz", arch_tsc_hz());
	json_u64(&j, "base", base);
	json_u64(&j, "buf_records", trace_buf_records);
	printk("TRACE-BEGIN %s\n", json_end(&j) < 0 ? "{\"error\":\"line too long\"}" : buf);
}

/*
 * Totals of the case. The estimate charges every record the hooks made,
 * lost ones too (they paid for the slot), at the boot-time cost of one.
 */
static void trace_print_end(u64 stored, u64 lost)
{
	u64 per_region = trace_regions ? (stored + lost) / trace_regions : 0;

	printk("TRACE-END {\"records\":%lu,\"lost\":%lu,\"regions\":%u,\"record_cycles\":%lu,"
	       "\"overhead_cycles_per_region\":%lu}\n",
	       (unsigned long)stored, (unsigned long)lost, trace_regions,
	       (unsigned long)trace_record_cycles,
	       (unsigned long)(per_region * trace_record_cycles));
	if (lost)
		printk("# WARN trace: %lu records lost (buffers full): raise trace_buf= above %u\n",
		       (unsigned long)lost, trace_buf_records);
}

void trace_dump(const char *bench, unsigned ncpus, const char *label,
		const char *const *variants, unsigned nvariants)
{
	u64 base = trace_base(), stored = 0, lost = 0;
	unsigned cpu;

	if (!trace_enabled())
		return;
	trace_print_begin(bench, ncpus, label, variants, nvariants, base);
	for_each_cpu(cpu, &cpu_online_mask) {
		struct trace_cpu *tc = &trace_cpus[cpu];

		if (!tc->buf)
			continue;
		trace_print_cpu(cpu, base);
		stored += trace_stored(tc);
		lost += tc->n - trace_stored(tc);
		tc->n = 0;
	}
	trace_print_end(stored, lost);
	trace_regions = 0;
}

void trace_discard(void)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		trace_cpus[cpu].n = 0;
	trace_regions = 0;
}

/* ---- the header, and the cost of one record ---- */

/*
 * The least cycles per record over a few bursts into a scratch buffer on
 * this CPU: the price each hook pays while a region is open (the TSC
 * read, the slot's atomic add, the store). Boot CPU, percpu set up.
 */
static u64 trace_calibrate(void)
{
	static struct trace_rec scratch[TRACE_CALIBRATE_RECORDS];
	struct trace_cpu *tc = &trace_cpus[this_cpu()->cpu_id], saved = *tc;
	u64 best = ~0ull;

	for (int round = 0; round < 4; round++) {
		u64 t0;

		tc->buf = scratch;
		tc->cap = TRACE_CALIBRATE_RECORDS;
		tc->n = 0;
		t0 = arch_tsc_read();
		for (unsigned i = 0; i < TRACE_CALIBRATE_RECORDS; i++)
			trace_record(TRACE_FLUSH_END, 0, i);
		best = MIN(best, (arch_tsc_read() - t0) / TRACE_CALIBRATE_RECORDS);
	}
	*tc = saved;
	return best;
}

void trace_describe(struct json *j)
{
	json_object_begin(j, "trace");
	json_bool(j, "enabled", trace_enabled());
	json_bool(j, "compiled", MMLAB_TRACE);
	json_u64(j, "buf_records", trace_buf_records);
	json_u64(j, "record_bytes", sizeof(struct trace_rec));
	if (trace_enabled() && ncpus_online && !trace_record_cycles)
		trace_record_cycles = trace_calibrate();
	if (trace_record_cycles)
		json_u64(j, "record_cycles", trace_record_cycles);
	else
		json_null(j, "record_cycles");
	json_str(j, "overhead", "record_cycles x records per timed run: each case's trace totals");
	json_object_end(j);
}

/* ---- for the self-tests ---- */

void trace_test_use(unsigned cpu, struct trace_rec *buf, u32 cap, bool on, struct trace_cpu *old)
{
	*old = trace_cpus[cpu];
	trace_cpus[cpu].buf = buf;
	trace_cpus[cpu].cap = buf ? cap : 0;
	trace_cpus[cpu].n = 0;
	trace_opt = on;
}

void trace_test_restore(unsigned cpu, const struct trace_cpu *old, bool on)
{
	trace_cpus[cpu] = *old;
	trace_opt = on;
}

const struct trace_cpu *trace_cpu_state(unsigned cpu)
{
	return &trace_cpus[cpu];
}
