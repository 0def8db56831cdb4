/*
 * Machine bring-up after the console, in the steps kernel/main.c calls
 * around mm's: firmware tables, TSC and memory description (arch_init());
 * the kernel map mm built (arch_load_kmap()); the boot CPU's TSS, APIC and
 * legacy controllers (arch_start_boot_cpu()); the APs and the TSC check
 * (arch_start_aps()). Boot CPU only. Problems that leave a usable machine
 * are "# WARN" lines, printed after the header (printk holds early output).
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/console.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/init.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/kpt.h"
#include "arch/x86_64/mem.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/topology.h"
#include "arch/x86_64/tsc_sync.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/format.h"
#include <arch/arch.h>
#include <arch/cpu.h>

#define DEFAULT_LAPIC_BASE 0xfee00000ul

void ipi_mark_aps_started(void);

static struct acpi_info acpi;
static struct smpboot_result smp_res;
static struct tsc_sync_result sync_res;
static const char *deadline_why; /* smpboot_scale_deadlines() */
static u32 apic_ids[MAX_CPUS];
static unsigned cpus_wanted = 1;

static const char *const apic_words[] = {
	[OPT_APIC_AUTO] = "auto",
	[OPT_APIC_XAPIC] = "xapic",
	[OPT_APIC_X2APIC] = "x2apic",
	[OPT_APIC_COUNT] = NULL,
};
static enum opt_apic apic_opt;
static u32 apic_fw_off; /* test hook: disable the local APIC as firmware could */
OPTION_ENUM(apic, apic_opt, apic_words, OPT_APIC_AUTO);
OPTION_UINT(apic_fw_off, apic_fw_off, 0, 1, 0);

const struct acpi_info *arch_acpi_info(void)
{
	return &acpi;
}

const struct smpboot_result *arch_smpboot_result(void)
{
	return &smp_res;
}

const struct tsc_sync_result *arch_tsc_sync_result(void)
{
	return &sync_res;
}

unsigned arch_cpus_wanted(void)
{
	return cpus_wanted;
}

/* How many CPUs to start: as many as the run mode will use (bench/'s cpus=), or all. */
static unsigned cpu_limit(const struct options *opt)
{
	return options_cpus_wanted(opt);
}

static unsigned usable_apic_ids(void)
{
	return acpi_madt_cpu_order(&acpi.madt, acpi_this_cpu_apic_id(), apic_ids);
}

static void report_smp(unsigned limit)
{
	printk("# smp: %u CPUs online (%u started, %u did not answer, %u left out), apic %s, "
	       "bring-up %lu us (slowest AP %lu us)\n",
	       ncpus_online, smp_res.started, smp_res.failed, smp_res.skipped, apic_mode_name(),
	       tsc_cycles_to_ns(smp_res.total_cycles) / 1000,
	       tsc_cycles_to_ns(smp_res.max_cycles) / 1000);
	for (unsigned i = 0; i < smp_res.failed && i < SMPBOOT_MAX_FAILED; i++)
		printk("# WARN smp: CPU with APIC ID %u did not come online; left out\n",
		       smp_res.failed_apic[i]);
	if (smp_res.skipped)
		printk("# WARN smp: %u CPUs left out (APIC ID beyond %s mode, or no memory)\n",
		       smp_res.skipped, apic_mode_name());
	if (limit < MAX_CPUS && ncpus_online < limit)
		printk("# WARN smp: cpus= asked for %u CPUs, %u are online\n", limit, ncpus_online);
}

static int bring_up_cpus(const struct options *opt, char *err, size_t errlen)
{
	unsigned limit = cpu_limit(opt);
	unsigned n;
	int rc;

	sti();
	if (!acpi.madt.present || limit == 1) {
		if (!acpi.madt.present)
			printk("# WARN smp: no usable MADT; running on the boot CPU only\n");
		return 0;
	}
	n = usable_apic_ids();
	cpus_wanted = MIN(MAX(n, 1u), limit);
	rc = smpboot_start_aps(apic_ids, n, limit, &smp_res);
	if (rc) {
		fmt_snprintf(err, errlen,
			     "AP bring-up: no free page below 1 MiB for the trampoline");
		return rc;
	}
	ipi_mark_aps_started();
	report_smp(limit);
	deadline_why = smpboot_scale_deadlines(ncpus_online);
	printk("# smp: deadlines x%u: %s\n", smp_deadline_scale(), deadline_why);
	tsc_sync_check(&sync_res);
	printk("# tsc: %lu Hz (%s), invariant %s; max skew %ld cycles (CPU %u, +-%lu)\n", tsc_hz(),
	       tsc_method(), cpuinfo.tsc_invariant ? "yes" : "no", sync_res.worst_offset,
	       sync_res.worst_cpu, sync_res.max_bound);
	return 0;
}

/*
 * Whatever the firmware left programmed must not reach the CPU once
 * interrupts are on: the 8259s (the BIOS leaves the master at vectors
 * 8-15, so its timer looks like a double fault) and the I/O APICs. One
 * "# pic:" line says what was found and done.
 */
static void irqchips_quiesce(void)
{
	static char line[1024];
	size_t n;

	n = fmt_snprintf(line, sizeof(line), "# pic: %s",
			 pic_init() ? "8259 remapped to 0x20-0x2f, all masked" :
				      "no 8259 answered");
	ioapic_mask_all(&acpi.madt);
	if (!ioapic_count())
		n += fmt_snprintf(line + n, sizeof(line) - n, "; no ioapic in the MADT");
	for (unsigned i = 0; i < ioapic_count() && n < sizeof(line); i++) {
		const struct ioapic_dev *io = ioapic_get(i);

		n += fmt_snprintf(line + n, sizeof(line) - n, "; ioapic %u at %#lx: ", io->id,
				  io->addr);
		if (n < sizeof(line))
			n += fmt_snprintf(line + n, sizeof(line) - n,
					  io->dead ? "no answer, left alone" : "%u entries masked",
					  io->entries);
	}
	printk("%s\n", line);
}

/*
 * How many CPUs need stacks: this one, plus every other enabled one in the
 * MADT up to cpus= (MAX_CPUS at most), as smpboot_start_aps() will try them.
 */
static unsigned stack_cpus(const struct options *opt)
{
	unsigned limit = MIN(cpu_limit(opt), (unsigned)MAX_CPUS), others = 0;
	u32 self = acpi_this_cpu_apic_id();

	if (!acpi.madt.present || limit <= 1)
		return 1;
	for (unsigned i = 0; i < acpi.madt.ncpus; i++)
		others += acpi.madt.cpu[i].enabled && acpi.madt.cpu[i].apic_id != self;
	return 1 + MIN(others, limit - 1);
}

int arch_start_boot_cpu(char *err, size_t errlen)
{
	struct machine_stacks st;
	int rc;

	if (!kpt_stacks(0, &st)) {
		fmt_snprintf(err, errlen, "no memory for the boot CPU's stacks");
		return -ENOMEM;
	}
	gdt_init_cpu(0, st.irq_top);
	if (apic_fw_off && cpuinfo.apic)
		apic_fw_disable();
	rc = apic_probe(err, errlen);
	if (rc)
		return rc;
	rc = apic_init_bsp(apic_opt, acpi.madt.present ? acpi.madt.lapic_base : DEFAULT_LAPIC_BASE,
			   err, errlen);
	if (rc)
		return rc;
	percpu_of(0)->apic_id = apic_id();
	irqchips_quiesce();
	return 0;
}

int arch_init(const struct options *opt, struct machine_desc *d, char *err, size_t errlen)
{
	acpi_init(&acpi);
	acpi_report(&acpi);
	topology_init(&acpi.madt, acpi_this_cpu_apic_id());
	if (cpuinfo_missing()) {
		fmt_snprintf(err, errlen, "%s", cpuinfo_missing());
		return -EIO;
	}
	if (tsc_init()) {
		fmt_snprintf(err, errlen, "cannot tell the TSC frequency (no CPUID leaf, no PIT)");
		return -EIO;
	}
	if (!cpuinfo.tsc_invariant)
		printk("# WARN tsc: not invariant (CPUID 0x80000007 EDX[8] clear): cycle counts may "
		       "not be comparable across power states\n");
	mem_describe(d, stack_cpus(opt));
	return 0;
}

void arch_load_kmap(const struct machine_kmap *km)
{
	kpt_load(km);
}

int arch_start_aps(const struct options *opt, char *err, size_t errlen)
{
	int rc = bring_up_cpus(opt, err, errlen);

	topology_bind_cpus(); /* a CPU that did not answer shifts the numbers after it */
	return rc;
}

void arch_describe(struct json *j)
{
	json_str(j, "arch", "x86_64");
	json_str(j, "cpu_vendor", cpuinfo.vendor);
	json_str(j, "cpu_model", cpuinfo.model);
	json_u64(j, "cpu_family", cpuinfo.family);
	json_u64(j, "cpu_model_id", cpuinfo.model_id);
	json_str(j, "hypervisor", cpuinfo.hypervisor[0] ? cpuinfo.hypervisor : NULL);
	if (tsc_hz())
		json_u64(j, "tsc_hz", tsc_hz());
	else
		json_null(j, "tsc_hz");
	json_str(j, "tsc_method", tsc_method());
	json_bool(j, "tsc_invariant", cpuinfo.tsc_invariant);
	json_u64(j, "tsc_skew_cycles", sync_res.max_abs_offset);
	json_u64(j, "tsc_skew_bound_cycles", sync_res.max_bound);
	json_str(j, "apic", apic_mode_name());
	json_u64(j, "cpus_madt", acpi.madt.ncpus);
	topology_describe(j);
	json_u64(j, "cpus_failed", smp_res.failed);
	json_u64(j, "ap_bringup_us", tsc_cycles_to_ns(smp_res.total_cycles) / 1000);
	/* Every wait's deadline is timeout_ms times this: a write-off's bound, and why. */
	json_u64(j, "deadline_scale", smp_deadline_scale());
	json_str(j, "deadline_scale_why", deadline_why);
	console_describe(j); /* "console_port" and the "console" object */
	json_bool(j, "nx", cpuinfo.nx);
	json_bool(j, "pcid", cpuinfo.pcid);
	json_bool(j, "x2apic_cpu", cpuinfo.x2apic);
	/* Lock hand-over differs there, and lock costs are what benchmarks compare. */
	json_str(j, "spinlock", arch_spin_unfair() ? "unfair" : "ticket");
	json_bool(j, "spin_pause", arch_spin_pause);
}
