/*
 * kmain: the boot CPU's path from boot/entry.S to the end of the run. Order
 * matters: boot information and command line (the console port is an
 * option), console, then arch describes the machine, mm builds the kernel's
 * memory from it, arch loads the map, starts devices and APs, and mm drops
 * the APs' first root; then the header and the run on a guarded stack.
 * printk holds earlier output, so the header is always the first line.
 */
#include "boot/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/design.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/run.h"
#include "machine.h"
#include "mm/boot_mem.h"
#include <arch/arch.h>

struct options options;
static struct machine_desc machine;
static struct machine_kmap kmap;

static void print_memory_map(void)
{
	const struct boot_info *bi = &boot_info;

	printk("# boot: %s via %s, rsdp 0x%lx (%s), %u memory regions%s\n",
	       bi->firmware == BOOT_FW_UEFI ? "uefi" : "bios",
	       bi->protocol == BOOT_MULTIBOOT2 ? "multiboot2" : "multiboot1", bi->rsdp,
	       bi->rsdp_source, bi->nmem, bi->mem_truncated ? " (truncated)" : "");
	if (bi->image[0])
		printk("# boot: the loader put the image path \"%s\" first on the command line: "
		       "not a kernel word, left out\n", bi->image);
	for (unsigned i = 0; i < bi->nmem; i++)
		printk("#   mem 0x%016lx-0x%016lx %s\n", bi->mem[i].base,
		       bi->mem[i].base + bi->mem[i].len - 1,
		       bootinfo_mem_type_name(bi->mem[i].type));
}

static __noreturn void stop(const char *status, enum arch_exit_status code, const char *why)
{
	report_header();
	printk("mmlab: error: %s\n", why);
	report_trailer(status, why);
	arch_exit(code);
}

/* Runs on the boot CPU's own stack (with a guard page), after bring-up. */
static __noreturn void kmain_late(void)
{
	report_header();
	run_main(&options);
}

/* The machine and its memory, in order (see the top of this file); stops on a fatal error. */
static void bring_up(char *err, size_t errlen)
{
	int rc;

	if (arch_init(&options, &machine, err, errlen) ||
	    mm_boot_build(&machine, &kmap, err, errlen))
		stop("fail", EXIT_FAIL, err);
	arch_load_kmap(&kmap);
	if (mm_boot_stacks(&machine, &kmap, err, errlen) ||
	    arch_start_boot_cpu(err, errlen))
		stop("fail", EXIT_FAIL, err);
	rc = arch_start_aps(&options, err, errlen);
	mm_boot_done(&kmap); /* every AP that came up runs on the kernel root now */
	if (rc)
		stop("fail", EXIT_FAIL, err);
}

void kmain(u32 magic, paddr_t info);

void kmain(u32 magic, paddr_t info)
{
	static char err[256];
	int boot_err = bootinfo_parse(magic, info);
	int opt_err;
	bool console_ok;

	design_tables_fill(); /* before anything reads a design table */
	options_set_defaults(&options);
	opt_err = cmdline_parse(boot_info.cmdline, &options, err, sizeof(err));
	console_ok = arch_early_init(opt_err ? NULL : &options);
	if (!console_ok)
		stop("usage", EXIT_USAGE, "no UART answers at the port console= names");
	if (percpu_counters_check())
		stop("fail", EXIT_FAIL, "more per-CPU counters registered than PCPU_COUNTER_SLOTS");
	if (boot_err) {
		fmt_snprintf(err, sizeof(err), "not started by a multiboot loader (magic 0x%x)",
			     magic);
		stop("usage", EXIT_USAGE, err);
	}
	if (boot_info.cmdline_truncated)
		stop("usage", EXIT_USAGE, "kernel command line too long");
	if (opt_err)
		stop("usage", EXIT_USAGE, err);
	print_memory_map();
	bring_up(err, sizeof(err));
	arch_run_on_stack(kmap.stack0.top, kmain_late);
}
