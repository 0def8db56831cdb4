/*
 * AP bring-up (SDM Vol. 3A 9.4.4, "MP initialization example"): the boot
 * CPU copies ap_start.S to a free page below 1 MiB, then for each AP in
 * turn patches the trampoline's parameters (stack, CPU number), sends INIT,
 * waits 10 ms, sends STARTUP twice 200 us apart, and waits for the AP to
 * report itself online. Only the boot CPU runs this file's bring-up path;
 * each AP runs ap_main() once, then idles with interrupts on.
 */
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/kpt.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/tsc.h"
#include "boot/bootinfo.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "lib/format.h"
#include "lib/string.h"
#include <arch/cpu.h>
#include <arch/layout.h>

#define TRAMPOLINE_LOW 0x1000
#define TRAMPOLINE_HIGH 0x9f000 /* below the EBDA */
#define AP_ONLINE_TIMEOUT_MS 2000
#define INIT_DELAY_US 10000
#define SIPI_DELAY_US 200

extern const u8 ap_trampoline_start[], ap_trampoline_end[];
extern const u8 ap_tramp_far32[], ap_tramp_far64[], ap_tramp_gdt_ptr[], ap_tramp_gdt[];
extern const u8 ap_tramp_cr3[], ap_tramp_cr4[], ap_tramp_efer[], ap_tramp_stack[];
extern const u8 ap_tramp_entry[], ap_tramp_cpu[];
extern const u8 ap_tramp_32_off[], ap_tramp_64_off[];

static paddr_t trampoline_pa;
static u32 ap_online_flag;
static unsigned nostart; /* ap_nostart=: the last this many APs get no INIT/SIPI */

void smpboot_set_nostart(unsigned n)
{
	nostart = n;
}

/* Offset of trampoline symbol @sym from its start. */
#define TRAMP_OFF(sym) ((size_t)((sym) - ap_trampoline_start))

static void *tramp_field(const u8 *sym)
{
	return (void *)(DIRECT_MAP_BASE + trampoline_pa + TRAMP_OFF(sym));
}

/* The first usable, page-aligned page below the EBDA that the memory map calls usable. */
static paddr_t find_trampoline_page(void)
{
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		paddr_t pa = ALIGN_UP(MAX(r->base, (paddr_t)TRAMPOLINE_LOW), PAGE_SIZE);

		if (r->type != BOOT_MEM_USABLE)
			continue;
		if (pa + PAGE_SIZE <= r->base + r->len && pa + PAGE_SIZE <= TRAMPOLINE_HIGH)
			return pa;
	}
	return 0;
}

static void percpu_init(unsigned cpu, u32 apic)
{
	struct percpu *pc = percpu_of(cpu);

	pc->self = pc;
	pc->cpu_id = cpu;
	pc->apic_id = apic;
}

void smpboot_init_bsp(u32 apic)
{
	percpu_init(0, apic);
	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)percpu_of(0));
	percpu_set_online(0);
}

void ap_main(unsigned cpu);

/* First C code on an AP, on its own stack, on the trampoline root until kpt_load_ap(). */
__noreturn void ap_main(unsigned cpu)
{
	struct percpu *pc = percpu_of(cpu);
	struct machine_stacks st;

	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)pc);
	kpt_stacks(cpu, &st); /* start_one() checked */
	gdt_init_cpu(cpu, st.irq_top);
	idt_load();
	/* Only now: the trampoline's GDT lies in the identity map this drops. */
	kpt_load_ap();
	apic_init_ap();
	pc->apic_id = apic_id();
	percpu_set_online(cpu);
	atomic_store_release(&ap_online_flag, cpu);
	cpu_idle();
}

static void trampoline_install(void)
{
	u8 *page = (u8 *)(DIRECT_MAP_BASE + trampoline_pa);
	u32 base = (u32)trampoline_pa;

	memcpy(page, ap_trampoline_start, ap_trampoline_end - ap_trampoline_start);
	*(u32 *)(tramp_field(ap_tramp_gdt_ptr) + 2) = base + TRAMP_OFF(ap_tramp_gdt);
	*(u32 *)tramp_field(ap_tramp_far32) = base + (u32)(uintptr_t)ap_tramp_32_off;
	*(u32 *)tramp_field(ap_tramp_far64) = base + (u32)(uintptr_t)ap_tramp_64_off;
	*(u64 *)tramp_field(ap_tramp_cr3) = kpt_trampoline_root();
	*(u64 *)tramp_field(ap_tramp_cr4) = read_cr4() & (X86_CR4_PAE | X86_CR4_PGE);
	*(u64 *)tramp_field(ap_tramp_efer) = rdmsr(MSR_EFER) & ((1u << 8) | (1u << 11));
	*(u64 *)tramp_field(ap_tramp_entry) = (u64)(uintptr_t)ap_main;
}

/* INIT, 10 ms, STARTUP, 200 us, and a second STARTUP unless CPU @cpu is already up. */
static void send_startup(unsigned cpu, u32 apic)
{
	apic_send_init(apic);
	udelay(INIT_DELAY_US);
	apic_send_sipi(apic, (u8)(trampoline_pa >> 12));
	udelay(SIPI_DELAY_US);
	if (atomic_load_acquire(&ap_online_flag) != cpu)
		apic_send_sipi(apic, (u8)(trampoline_pa >> 12));
}

/*
 * Starts CPU @cpu at APIC ID @apic and waits for it. Returns true once the
 * AP is online. With @silent (the ap_nostart= test hook) nothing is sent,
 * so the wait times out as for a CPU that is dead.
 */
static bool start_one(unsigned cpu, u32 apic, bool silent, u64 *cycles)
{
	u64 start = rdtsc_ordered(), deadline;
	struct machine_stacks st;

	kpt_stacks(cpu, &st); /* smpboot_start_aps() checked */
	*(u64 *)tramp_field(ap_tramp_cpu) = cpu;
	*(u64 *)tramp_field(ap_tramp_stack) = st.top;
	atomic_store_release(&ap_online_flag, 0);
	if (!silent)
		send_startup(cpu, apic);
	deadline = tsc_deadline_ms(AP_ONLINE_TIMEOUT_MS);
	while (atomic_load_acquire(&ap_online_flag) != cpu) {
		if (rdtsc_ordered() > deadline) {
			apic_send_init(apic); /* park it: a late start would reuse the parameters */
			return false;
		}
		pause();
	}
	*cycles = rdtsc_ordered() - start;
	return true;
}

static void note_failure(struct smpboot_result *res, u32 apic)
{
	if (res->failed < SMPBOOT_MAX_FAILED)
		res->failed_apic[res->failed] = apic;
	res->failed++;
}

/* How many APs the loop below will try: every listed CPU but this one, up to @limit. */
static unsigned count_tries(const u32 *apic_ids, unsigned n, unsigned limit, u32 self)
{
	unsigned tries = 0;

	for (unsigned i = 0; i < n; i++)
		tries += apic_ids[i] != self;
	return MIN(tries, MIN(limit, (unsigned)MAX_CPUS) - 1);
}

int smpboot_start_aps(const u32 *apic_ids, unsigned n, unsigned limit, struct smpboot_result *res)
{
	u32 self = apic_id();
	u64 begin = rdtsc_ordered();
	unsigned next = 1, tried = 0, tries = count_tries(apic_ids, n, limit, self);
	struct machine_stacks st;

	memset(res, 0, sizeof(*res));
	trampoline_pa = find_trampoline_page();
	if (!trampoline_pa)
		return -ENOMEM;
	trampoline_install();
	for (unsigned i = 0; i < n && next < limit && next < MAX_CPUS; i++) {
		u64 cycles = 0;

		if (apic_ids[i] == self)
			continue;
		if (apic_ids[i] > apic_max_id() || !kpt_stacks(next, &st) ||
		    !percpu_data_placed(next)) {
			res->skipped++;
			continue;
		}
		percpu_init(next, apic_ids[i]);
		if (!start_one(next, apic_ids[i], tried++ + nostart >= tries, &cycles)) {
			note_failure(res, apic_ids[i]);
			continue;
		}
		res->max_cycles = MAX(res->max_cycles, cycles);
		res->started++;
		next++;
	}
	res->total_cycles = rdtsc_ordered() - begin;
	return 0;
}

const char *smpboot_scale_deadlines(unsigned ncpus)
{
	static char why[96];
	u32 scale = 1;

	if (cpuinfo.hypervisor_bit) {
		scale = (ncpus + SMPBOOT_VCPUS_PER_DEADLINE - 1) / SMPBOOT_VCPUS_PER_DEADLINE;
		fmt_snprintf(why, sizeof(why), "%u vCPUs are host threads of hypervisor %s", ncpus,
			     cpuinfo.hypervisor[0] ? cpuinfo.hypervisor : "(unnamed)");
	} else {
		fmt_snprintf(why, sizeof(why), "bare metal: no CPU waits for a host");
	}
	smp_set_deadline_scale(scale);
	return why;
}
