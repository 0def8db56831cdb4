/*
 * Header, trailer and tallies of a run (see kernel/report.h). The header
 * records what is needed to reproduce the run: build, command line, machine,
 * firmware and memory.
 */
#include "kernel/report.h"
#include "boot/bootinfo.h"
#include "kernel/json.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/timing.h"
#include "kernel/trace.h"
#include "lib/format.h"
#include "kernel/version.h"
#include <arch/arch.h>

/* The header's bound: its per-CPU topology list fits up to a few hundred CPUs. */
#define REPORT_LINE_MAX 4096

static struct report_totals totals;

void report_count(unsigned passed, unsigned failed, unsigned skipped)
{
	totals.passed += passed;
	totals.failed += failed;
	totals.skipped += skipped;
}

struct report_totals report_totals(void)
{
	return totals;
}

static void emit(const char *tag, struct json *j)
{
	if (json_end(j) < 0)
		printk("%s {\"error\":\"line too long\"}\n", tag);
	else
		printk("%s %s\n", tag, j->buf);
}

extern const struct report_header_field __start_report_header_fields[] __attribute__((weak));
extern const struct report_header_field __stop_report_header_fields[] __attribute__((weak));

/* The header goes out first, ahead of everything printk held back. */
static void emit_header(struct json *j)
{
	static char line[REPORT_LINE_MAX + 16];
	int n;

	if (json_end(j) < 0)
		n = fmt_snprintf(line, sizeof(line), "\nMMLAB {\"error\":\"header too long\"}\n");
	else
		n = fmt_snprintf(line, sizeof(line), "\nMMLAB %s\n", j->buf);
	printk_release(line, (size_t)n);
}

void report_header(void)
{
	static char buf[REPORT_LINE_MAX];
	const struct boot_info *bi = &boot_info;
	struct json j;

	json_begin(&j, buf, sizeof(buf));
	json_str(&j, "version", mmlab_version);
	json_str(&j, "cmdline", bi->cmdline);
	json_str(&j, "timing", timing_name());
	for (const struct report_header_field *f = __start_report_header_fields;
	     f < __stop_report_header_fields; f++)
		f->describe(&j);
	arch_describe(&j);
	json_u64(&j, "cpus", ncpus_online ? ncpus_online : 1);
	json_str(&j, "firmware", bi->firmware == BOOT_FW_UEFI ? "uefi" : "bios");
	json_str(&j, "boot", bi->protocol == BOOT_MULTIBOOT2 ? "multiboot2" : "multiboot1");
	json_str(&j, "loader", bi->loader[0] ? bi->loader : NULL);
	json_u64(&j, "mem_bytes", bootinfo_usable_bytes(bi));
	json_u64(&j, "mem_regions", bi->nmem);
	json_str(&j, "compiler", mmlab_compiler);
	json_u64(&j, "max_cpus", mmlab_max_cpus);
	trace_describe(&j);
	/* The leading newline ends any partial firmware line ("Booting from ROM.."). */
	emit_header(&j);
}

void report_trailer(const char *status, const char *reason)
{
	static char buf[512];
	struct json j;

	json_begin(&j, buf, sizeof(buf));
	json_u64(&j, "passed", totals.passed);
	json_u64(&j, "failed", totals.failed);
	json_u64(&j, "skipped", totals.skipped);
	json_str(&j, "status", status);
	if (reason)
		json_str(&j, "reason", reason);
	emit("MMLAB-DONE", &j);
}
