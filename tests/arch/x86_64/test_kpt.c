/*
 * Self-tests of the kernel's own page tables (mm/kernel_map.c from
 * arch/x86_64/mem.c's description, loaded by arch/x86_64/kpt.c): every CPU
 * on the kernel root with global pages and PCIDs where present; the
 * kernel-half entries shared; the image, direct map and local APIC mapped
 * with the right access and caching; boot maps gone. Then writes to text,
 * executes from data and stack-guard touches must fault. Kernel only.
 */
/* build: kernel only */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/init.h"
#include "arch/x86_64/kpt.h"
#include "arch/x86_64/traps.h"
#include "boot/bootinfo.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "mm/kernel_map.h"
#include "mm/kstack.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include <arch/arch.h>
#include <arch/cpu.h>
#include <arch/layout.h>
#include <arch/pte.h>

#define PF_PRESENT 0x1ul
#define PF_WRITE 0x2ul
#define PF_FETCH 0x10ul
#define RET_OPCODE 0xc3

static const char kpt_rodata[] = "read-only";
static u64 kpt_data = 1;
static u8 kpt_bss_page[PAGE_SIZE] __aligned(PAGE_SIZE);

struct cpu_regs {
	u64 cr3, cr4;
};

static void read_regs(void *arg)
{
	struct cpu_regs *r = arg;

	r[arch_cpu_id()] = (struct cpu_regs){ read_cr3(), read_cr4() };
}

static void test_kpt_every_cpu_on_root(struct ktest *t)
{
	static struct cpu_regs regs[MAX_CPUS];
	unsigned cpu;

	KASSERT_EQ(t, smp_call_others(read_regs, regs, true), 0);
	read_regs(regs);
	for_each_cpu(cpu, &cpu_online_mask) {
		KEXPECT_EQ(t, regs[cpu].cr3 & ~X86_CR3_PCID_MASK, kpt_root());
		KEXPECT_EQ(t, regs[cpu].cr3 & X86_CR3_PCID_MASK, 0); /* the kernel's PCID */
		KEXPECT(t, regs[cpu].cr4 & X86_CR4_PGE);
		KEXPECT_EQ(t, !!(regs[cpu].cr4 & X86_CR4_PCIDE), cpuinfo.pcid);
	}
	KEXPECT_EQ(t, kpt_trampoline_root(), 0);
	KEXPECT_EQ(t, mm_kernel_root(), kpt_root());
}

/* All 256 kernel-half entries exist, and an address space's root holds the same ones. */
static void test_kpt_kernel_half_shared(struct ktest *t)
{
	const pte_t *k = phys_to_virt(kpt_root());
	const pte_t *m;
	struct mm *mm;

	for (unsigned i = PML4_KERNEL_FIRST; i < PTE_PER_TABLE; i++)
		KEXPECT(t, pte_present(k[i]));
	for (unsigned i = 0; i < PML4_KERNEL_FIRST; i++)
		KEXPECT_EQ(t, k[i], 0); /* the boot identity map is gone */
	KASSERT_EQ(t, mm_create(&mm), 0);
	m = phys_to_virt(mm->root);
	for (unsigned i = PML4_KERNEL_FIRST; i < PTE_PER_TABLE; i++)
		KEXPECT_EQ(t, m[i], k[i]);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* True when one usable region of the memory map holds [start, end). */
static bool ram_covers(paddr_t start, paddr_t end)
{
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];

		if (r->type == BOOT_MEM_USABLE && r->base <= start && end <= r->base + r->len)
			return true;
	}
	return false;
}

static void expect_kmap(struct ktest *t, vaddr_t va, unsigned prot, u64 size)
{
	unsigned got = 0;
	u64 got_size = 0;

	KEXPECT_EQ(t, pt_lookup(kpt_root(), va, NULL, &got, &got_size), 0);
	if (!pt_nx_enabled)
		prot |= PROT_EXEC;
	if (!KEXPECT_EQ(t, got, prot))
		ktest_log(t, "at 0x%lx", va);
	if (size)
		KEXPECT_EQ(t, got_size, size);
}

static void test_kpt_sections(struct ktest *t)
{
	struct page *p = page_alloc(0, 0);
	u64 big = cpuinfo.pdpe1gb ? PT_PAGE_1G : PT_PAGE_2M;

	expect_kmap(t, (vaddr_t)(uintptr_t)test_kpt_sections, PROT_READ | PROT_EXEC | PROT_GLOBAL,
		    PT_PAGE_4K);
	expect_kmap(t, (vaddr_t)(uintptr_t)kpt_rodata, PROT_READ | PROT_GLOBAL, PT_PAGE_4K);
	expect_kmap(t, (vaddr_t)(uintptr_t)&kpt_data, PROT_READ | PROT_WRITE | PROT_GLOBAL,
		    PT_PAGE_4K);
	expect_kmap(t, (vaddr_t)(uintptr_t)kpt_bss_page, PROT_READ | PROT_WRITE | PROT_GLOBAL,
		    PT_PAGE_4K);
	KASSERT(t, p != NULL);
	expect_kmap(t, (vaddr_t)(uintptr_t)page_address(p),
		    PROT_READ | PROT_WRITE | PROT_GLOBAL, 0);
	page_free(p, 0);
	/* The first 1 GiB holds RAM from 0: one 1 GiB page where the CPU has them. */
	if (ram_covers(0x100000, PT_PAGE_1G - PT_PAGE_2M))
		expect_kmap(t, DIRECT_MAP_BASE + KERNEL_PHYS_BASE,
			    PROT_READ | PROT_WRITE | PROT_GLOBAL, big);
	/* Below 4 GiB, what is not RAM is still mapped, uncached. */
	expect_kmap(t, DIRECT_MAP_BASE + 0xfee00000ul,
		    PROT_READ | PROT_WRITE | PROT_NOCACHE | PROT_GLOBAL, 0);
	KEXPECT_EQ(t, pt_lookup(kpt_root(), KERNEL_PHYS_BASE, NULL, NULL, NULL), -ENOENT);
}

/* The local APIC's registers: mapped uncached in the MMIO area (xAPIC mode; x2APIC uses MSRs). */
static void test_kpt_lapic_uncached(struct ktest *t)
{
	const struct acpi_info *acpi = arch_acpi_info();
	unsigned prot = 0;
	paddr_t pa = 0;

	if (apic_mode() != APIC_MODE_XAPIC) {
		ktest_skip(t, "x2APIC mode: no MMIO");
		return;
	}
	KASSERT_EQ(t, pt_lookup(kpt_root(), MMIO_AREA_BASE, &pa, &prot, NULL), 0);
	KEXPECT_EQ(t, pa, acpi->madt.present ? acpi->madt.lapic_base : 0xfee00000ul);
	KEXPECT(t, prot & PROT_NOCACHE);
	KEXPECT(t, prot & PROT_GLOBAL);
	KEXPECT(t, !(prot & PROT_EXEC) || !pt_nx_enabled);
}

static __attribute__((noinline)) void provoke_write(void *arg)
{
	volatile u8 *p = arg;

	*p = *p;
}

static __attribute__((noinline)) void provoke_read(void *arg)
{
	(void)*(volatile u64 *)arg;
}

static __attribute__((noinline)) void provoke_call(void *arg)
{
	((void (*)(void))arg)();
}

static void expect_pf(struct ktest *t, void (*fn)(void *), void *arg, u64 bits, u64 clear)
{
	struct fault_info fi;

	if (!KEXPECT(t, trap_catch(fn, arg, &fi)))
		return;
	KEXPECT_EQ(t, fi.vector, VEC_PF);
	KEXPECT_EQ(t, fi.cr2, (u64)(uintptr_t)arg);
	KEXPECT_EQ(t, fi.error & (bits | clear), bits);
}

static void test_kpt_text_readonly(struct ktest *t)
{
	expect_pf(t, provoke_write, (void *)(uintptr_t)provoke_read, PF_PRESENT | PF_WRITE, 0);
	expect_pf(t, provoke_write, (void *)(uintptr_t)&kpt_rodata[2], PF_PRESENT | PF_WRITE, 0);
	KEXPECT(t, !trap_catch(provoke_write, &kpt_data, NULL));
}

/* A ret instruction where data lives: fetching it faults when NX is on. */
static void test_kpt_no_execute(struct ktest *t)
{
	struct page *p = page_alloc(0, PMM_ZERO);
	u8 *direct = p ? page_address(p) : NULL;
	struct fault_info fi;

	KASSERT(t, p != NULL);
	if (!cpuinfo.nx) {
		ktest_skip(t, "the CPU has no NX");
		page_free(p, 0);
		return;
	}
	direct[0] = RET_OPCODE;
	expect_pf(t, provoke_call, direct, PF_PRESENT | PF_FETCH, PF_WRITE);
	kpt_bss_page[0] = RET_OPCODE;
	expect_pf(t, provoke_call, kpt_bss_page, PF_PRESENT | PF_FETCH, PF_WRITE);
	KASSERT(t, trap_catch(provoke_call, direct, &fi));
	KEXPECT_EQ(t, fi.rip, (u64)(uintptr_t)direct);
	page_free(p, 0);
}

static void test_kpt_stack_guards(struct ktest *t)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask) {
		vaddr_t guard = kstack_guard(cpu);

		KEXPECT_EQ(t, pt_lookup(kpt_root(), guard, NULL, NULL, NULL), -ENOENT);
		expect_pf(t, provoke_read, (void *)(guard + PAGE_SIZE - 8), 0, PF_PRESENT);
		KEXPECT_EQ(t, pt_lookup(kpt_root(), guard + PAGE_SIZE, NULL, NULL, NULL), 0);
	}
	/* What was identity-mapped at boot (the kernel's load address) is gone. */
	expect_pf(t, provoke_read, (void *)KERNEL_PHYS_BASE, 0, PF_PRESENT);
}

/*
 * Firmware tables outside RAM are added to the direct map on demand,
 * read-only. This adds one page (and its tables) to the kernel root for
 * good, at an address QEMU's memory map reserves (nothing reads it).
 */
static void test_kpt_firmware_map(struct ktest *t)
{
	struct kmap_stats s, after;
	unsigned prot = 0;

	kmap_stats_get(&s);
	KEXPECT_GT(t, s.direct_bytes, 0);
	KEXPECT_EQ(t, s.direct_bytes, s.direct_1g + s.direct_2m);
	KEXPECT(t, kpt_map_firmware(0xf0000, 0x10000)); /* RAM-like: mapped already */
	KEXPECT(t, !kpt_map_firmware(DIRECT_MAP_MAX_BYTES - PAGE_SIZE, 2 * PAGE_SIZE));
	KEXPECT(t, !kpt_map_firmware(0x1000, 0));
	/* An address no RAM is at, far above it: gains one read-only page. */
	KEXPECT(t, kpt_map_firmware(0xfd00000000ul + 0x10, 8));
	KEXPECT_EQ(t, pt_lookup(kpt_root(), DIRECT_MAP_BASE + 0xfd00000000ul, NULL, &prot, NULL),
		   0);
	KEXPECT_EQ(t, prot & (PROT_WRITE | PROT_NOCACHE), 0);
	kmap_stats_get(&after);
	KEXPECT_EQ(t, after.firmware_4k, s.firmware_4k + 1);
}

/*
 * What arch loaded is what mm built from arch's description: the same
 * root, NX and PCIDs as CPUID has them, and every online CPU on the stacks
 * mm mapped for it (the table arch reads is kstack.c's layout).
 */
static void test_kpt_built_from_description(struct ktest *t)
{
	struct machine_stacks st;
	unsigned cpu;

	KEXPECT_EQ(t, kmap_root(), kpt_root());
	KEXPECT_EQ(t, kmap_ap_root(), 0);
	KEXPECT_EQ(t, pt_nx_enabled, cpuinfo.nx);
	KEXPECT_EQ(t, kpt_pcid(), cpuinfo.pcid);
	for_each_cpu(cpu, &cpu_online_mask) {
		KASSERT(t, kpt_stacks(cpu, &st));
		KEXPECT_EQ(t, st.top, kstack_top(cpu));
		KEXPECT_EQ(t, st.top, kstack_guard(cpu) + PAGE_SIZE + KSTACK_SIZE);
		for (unsigned i = 0; i < IST_COUNT; i++)
			KEXPECT_EQ(t, pt_lookup(kpt_root(), st.irq_top[i] - 8, NULL, NULL, NULL),
				   0);
	}
	KEXPECT(t, !kpt_stacks(MAX_CPUS, &st));
}

static const struct ktest_case kpt_cases[] = {
	KTEST_CASE(test_kpt_every_cpu_on_root),
	KTEST_CASE(test_kpt_kernel_half_shared),
	KTEST_CASE(test_kpt_sections),
	KTEST_CASE(test_kpt_lapic_uncached),
	KTEST_CASE(test_kpt_text_readonly),
	KTEST_CASE(test_kpt_no_execute),
	KTEST_CASE(test_kpt_stack_guards),
	KTEST_CASE(test_kpt_firmware_map),
	KTEST_CASE(test_kpt_built_from_description),
};
KTEST_SUITE(kpt, kpt_cases);
