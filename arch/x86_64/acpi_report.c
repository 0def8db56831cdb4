/*
 * The kernel side of ACPI (kernel only; the parser is acpi.c): the physical
 * memory accessor over the direct map, acpi_init() from boot_info, and the
 * boot-log report, one "# acpi:" summary line plus one "# WARN acpi:" line
 * per problem. Boot CPU only, before the APs start.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/kpt.h"
#include "boot/bootinfo.h"
#include "kernel/printk.h"
#include <arch/cpu.h>
#include <arch/layout.h>

/* Through the direct map: the boot map's 4 GiB, then anything kpt can map. */
static const void *acpi_map_direct(paddr_t pa, size_t len)
{
	if (!kpt_map_firmware(pa, len))
		return NULL;
	return (const void *)(DIRECT_MAP_BASE + pa);
}

/**
 * acpi_init - parse the firmware's tables from boot_info.rsdp into @out
 *
 * Installs the direct-map accessor and names the calling CPU as the boot
 * CPU first. Returns as acpi_parse().
 */
int acpi_init(struct acpi_info *out)
{
	acpi_set_map(acpi_map_direct);
	acpi_set_boot_apic_id(acpi_this_cpu_apic_id());
	return acpi_parse(boot_info.rsdp, out);
}

/**
 * acpi_this_cpu_apic_id - the calling CPU's initial APIC ID, from CPUID
 *
 * Leaf 0xb gives the whole 32-bit x2APIC ID where it exists; leaf 1
 * EBX[31:24] only the low 8 bits (SDM vol 2A, CPUID).
 */
u32 acpi_this_cpu_apic_id(void)
{
	if (cpuid(0).eax >= 0xb && cpuid_count(0xb, 0).ebx != 0)
		return cpuid_count(0xb, 0).edx;
	return cpuid(1).ebx >> 24;
}

/* A line being built for one printk, so it never interleaves with others. */
struct acpi_line {
	char buf[1536];
	size_t n;
};

static __printf(2, 3) void line_add(struct acpi_line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->n >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = fmt_vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
	va_end(ap);
	l->n = MIN(l->n + (size_t)n, sizeof(l->buf) - 1);
}

static void acpi_report_tables(struct acpi_line *l, const struct acpi_info *info)
{
	line_add(l, "rev %u %s at %#lx (oem %s), %u tables", info->revision,
		 info->xsdt ? "XSDT" : "RSDT", info->root, info->oem_id, info->ntables);
	for (u32 i = 0; i < info->ntables; i++)
		line_add(l, "%s%.4s", i ? " " : ": ", info->tables[i].sig);
	if (info->nbad_tables)
		line_add(l, ", %u bad", info->nbad_tables);
}

static void acpi_report_madt(struct acpi_line *l, const struct acpi_madt_info *m)
{
	u32 offline = 0, x2 = 0;

	if (!m->present) {
		line_add(l, "; no MADT");
		return;
	}
	for (u32 i = 0; i < m->ncpus; i++) {
		offline += !m->cpu[i].enabled;
		x2 += m->cpu[i].x2apic_entry;
	}
	line_add(l, "; lapic %#lx%s, %u cpus (%u online-capable, %u x2apic entries, ",
		 m->lapic_base, m->lapic_override ? " (override)" : "", m->ncpus, offline, x2);
	line_add(l, "%u disabled, %u duplicate%s), %u ioapic, %u irq overrides, %u nmi%s",
		 m->ndisabled, m->nduplicates, m->truncated ? ", truncated" : "", m->nioapic,
		 m->noverrides, m->nnmi, m->pcat_compat ? ", 8259 pics" : "");
}

static void acpi_report_devices(struct acpi_line *l, const struct acpi_info *info)
{
	const struct acpi_spcr_info *s = &info->spcr;
	const struct acpi_fadt_info *f = &info->fadt;

	if (info->hpet.present)
		line_add(l, "; hpet %#lx", info->hpet.base);
	else
		line_add(l, "; no hpet");
	if (s->present)
		line_add(l, "; spcr type %#x %s %#lx baud %u", s->interface_type,
			 s->mmio ? "mmio" : "io", (unsigned long)s->address, s->baud);
	else
		line_add(l, "; no spcr");
	if (!f->present)
		line_add(l, "; no fadt");
	else if (f->boot_arch_valid)
		line_add(l, "; fadt rev %u boot-arch %#x%s%s%s", f->revision, f->boot_arch,
			 f->boot_arch & ACPI_BOOT_LEGACY_DEVICES ? " legacy-devices" : "",
			 f->boot_arch & ACPI_BOOT_8042 ? " 8042" : "",
			 f->flags & ACPI_FADT_HW_REDUCED ? " hw-reduced" : "");
	else
		line_add(l, "; fadt rev %u (no boot-arch flags)", f->revision);
}

/**
 * acpi_report - print what acpi_parse() found in @info, and every problem
 *
 * One "# acpi:" line, then "# WARN acpi:" lines. Boot CPU (it reads CPUID
 * to check that the MADT lists the calling CPU).
 */
void acpi_report(const struct acpi_info *info)
{
	static struct acpi_line line;
	u32 self = acpi_this_cpu_apic_id();

	line.n = 0;
	if (info->root) {
		acpi_report_tables(&line, info);
		acpi_report_madt(&line, &info->madt);
		acpi_report_devices(&line, info);
	} else {
		line_add(&line, "no usable tables (rsdp %#lx)", info->rsdp);
	}
	printk("# acpi: %s\n", line.buf);
	for (u32 i = 0; i < info->nmsgs; i++)
		printk("# WARN acpi: %s\n", info->msgs[i]);
	if (info->nmsgs_dropped)
		printk("# WARN acpi: %u more problems not recorded\n", info->nmsgs_dropped);
	if (info->madt.present && !acpi_madt_has_apic_id(&info->madt, self))
		printk("# WARN acpi: the boot CPU (APIC ID %u) is not listed in the MADT\n", self);
}
