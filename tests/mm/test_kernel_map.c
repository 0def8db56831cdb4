/*
 * Host tests of mm/kernel_map.c: a kernel map built from a made-up machine
 * description, on private roots no CPU loads. The direct map's page sizes and
 * caching follow the description; the image gets each section's access; the
 * APs' first root shares the kernel half and frees all its tables; a root the
 * description rules out fails with the step named. Host only (the kernel's
 * own map is tests/arch/x86_64/test_kpt.c's).
 */
/* build: host only */
#include "errno.h"
#include "lib/string.h"
#include "machine.h"
#include "mm/kernel_map.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/host/fake_arch.h"
#include "tests/ktest.h"
#include <arch/layout.h>

#define MB (1ull << 20)
#define GB (1ull << 30)
#define KRW (PROT_READ | PROT_WRITE | PROT_GLOBAL)

static struct machine_desc kd;

/* Low memory, RAM to 3 GiB + 5 MiB, and 2 MiB at 5 GiB; a three-section image. */
static void describe(bool huge_1g)
{
	kd = (struct machine_desc){
		.ram = { { 0, 1 * MB }, { 1 * MB, 3 * GB + 5 * MB }, { 5 * GB, 5 * GB + 2 * MB } },
		.nram = 3,
		.uncached_gaps_below = 4 * GB,
		.image = { { KERNEL_VIRT_BASE + 0x100000, KERNEL_VIRT_BASE + 0x102000,
			     MACHINE_SEC_EXEC },
			   { KERNEL_VIRT_BASE + 0x102000, KERNEL_VIRT_BASE + 0x103000, 0 },
			   { KERNEL_VIRT_BASE + 0x103000, KERNEL_VIRT_BASE + 0x105000,
			     MACHINE_SEC_WRITE } },
		.nimage = 3,
		.image_virt_offset = KERNEL_VIRT_BASE,
		.kernel_half_base = 0xffff800000000000ul,
		.kernel_half_size = 1ul << 47,
		.ap_identity_bytes = 2 * MB,
		.ap_root_below = ~0ul,
		.huge_1g = huge_1g,
	};
}

static void expect_leaf(struct ktest *t, paddr_t root, vaddr_t va, paddr_t pa, unsigned prot,
			u64 size)
{
	paddr_t got_pa = 0;
	unsigned got_prot = 0;
	u64 got_size = 0;

	KASSERT_EQ(t, pt_lookup(root, va, &got_pa, &got_prot, &got_size), 0);
	KEXPECT_EQ(t, got_pa, pa);
	KEXPECT_EQ(t, got_prot, pt_prot_effective(prot));
	KEXPECT_EQ(t, got_size, size);
}

static int kmap_setup(struct ktest *t)
{
	(void)t;
	return fake_pmm_init(0);
}

static void test_kmap_direct_1g(struct ktest *t)
{
	static char err[128];
	struct kmap_stats s;

	describe(true);
	KASSERT_EQ(t, kmap_build(&kd, err, sizeof(err)), 0);
	kmap_stats_get(&s);
	/* [0, 3 GiB + 6 MiB) after widening, and [5 GiB, 5 GiB + 2 MiB). */
	KEXPECT_EQ(t, s.direct_bytes, 3 * GB + 8 * MB);
	KEXPECT_EQ(t, s.direct_1g, 3 * GB);
	KEXPECT_EQ(t, s.direct_2m, 8 * MB);
	KEXPECT_EQ(t, s.mmio_bytes, 1 * GB - 6 * MB);
	expect_leaf(t, kmap_root(), DIRECT_MAP_BASE + 2 * GB + 4096, 2 * GB + 4096, KRW, GB);
	expect_leaf(t, kmap_root(), DIRECT_MAP_BASE + 3 * GB + 4 * MB, 3 * GB + 4 * MB, KRW,
		    2 * MB);
	expect_leaf(t, kmap_root(), DIRECT_MAP_BASE + 4 * GB - 2 * MB, 4 * GB - 2 * MB,
		    KRW | PROT_NOCACHE, 2 * MB);
	expect_leaf(t, kmap_root(), DIRECT_MAP_BASE + 5 * GB, 5 * GB, KRW, 2 * MB);
	/* Above the gap bound only RAM is mapped. */
	KEXPECT_EQ(t, pt_lookup(kmap_root(), DIRECT_MAP_BASE + 4 * GB, NULL, NULL, NULL), -ENOENT);
	KEXPECT_EQ(t, pt_lookup(kmap_root(), DIRECT_MAP_BASE + 5 * GB + 2 * MB, NULL, NULL, NULL),
		   -ENOENT);
}

static void test_kmap_direct_2m(struct ktest *t)
{
	static char err[128];
	struct kmap_stats s;

	describe(false);
	KASSERT_EQ(t, kmap_build(&kd, err, sizeof(err)), 0);
	kmap_stats_get(&s);
	KEXPECT_EQ(t, s.direct_1g, 0);
	KEXPECT_EQ(t, s.direct_2m, 3 * GB + 8 * MB);
	KEXPECT_EQ(t, s.mmio_bytes, 1 * GB - 6 * MB);
	expect_leaf(t, kmap_root(), DIRECT_MAP_BASE + 2 * GB + 4096, 2 * GB + 4096, KRW, 2 * MB);
}

static void test_kmap_image_sections(struct ktest *t)
{
	static char err[128];

	describe(true);
	KASSERT_EQ(t, kmap_build(&kd, err, sizeof(err)), 0);
	expect_leaf(t, kmap_root(), KERNEL_VIRT_BASE + 0x101000, 0x101000,
		    PROT_READ | PROT_EXEC | PROT_GLOBAL, 4096);
	expect_leaf(t, kmap_root(), KERNEL_VIRT_BASE + 0x102000, 0x102000,
		    PROT_READ | PROT_GLOBAL, 4096);
	expect_leaf(t, kmap_root(), KERNEL_VIRT_BASE + 0x104000, 0x104000, KRW, 4096);
	KEXPECT_EQ(t, pt_lookup(kmap_root(), KERNEL_VIRT_BASE + 0x105000, NULL, NULL, NULL),
		   -ENOENT);
}

/* Root, PDPT and PD of the low identity map: all three go back on free. */
static void test_kmap_ap_root(struct ktest *t)
{
	static char err[128];
	u64 before;

	describe(true);
	KASSERT_EQ(t, kmap_build(&kd, err, sizeof(err)), 0);
	KASSERT(t, kmap_ap_root() != 0);
	expect_leaf(t, kmap_ap_root(), 0x1000, 0x1000, PROT_READ | PROT_WRITE | PROT_EXEC, 2 * MB);
	expect_leaf(t, kmap_ap_root(), DIRECT_MAP_BASE + 5 * GB, 5 * GB, KRW, 2 * MB);
	KEXPECT_EQ(t, pt_lookup(kmap_root(), 0x1000, NULL, NULL, NULL), -ENOENT);
	before = pt_table_pages();
	kmap_ap_root_free();
	KEXPECT_EQ(t, kmap_ap_root(), 0);
	KEXPECT_EQ(t, before - pt_table_pages(), 3);
}

static void test_kmap_ap_root_bound(struct ktest *t)
{
	static char err[128];

	describe(true);
	kd.ap_root_below = FAKE_PHYS_BASE; /* every frame of the fake RAM lies above */
	KEXPECT_EQ(t, kmap_build(&kd, err, sizeof(err)), -ENOMEM);
	KEXPECT_STREQ(t, err, "kernel page tables: AP trampoline root: ENOMEM");
}

/* Later additions: device registers in the MMIO area, firmware pages read-only. */
static void test_kmap_additions(struct ktest *t)
{
	static char err[128];
	struct kmap_stats s;
	void *regs;

	describe(true);
	KASSERT_EQ(t, kmap_build(&kd, err, sizeof(err)), 0);
	regs = kmap_map_mmio(0xfee00010, 4);
	KEXPECT_EQ(t, (vaddr_t)(uintptr_t)regs, MMIO_AREA_BASE + 0x10);
	expect_leaf(t, kmap_root(), MMIO_AREA_BASE + 0x10, 0xfee00010, KRW | PROT_NOCACHE, 4096);
	KEXPECT(t, kmap_map_firmware(6 * GB + 8, 16));
	expect_leaf(t, kmap_root(), DIRECT_MAP_BASE + 6 * GB + 8, 6 * GB + 8,
		    PROT_READ | PROT_GLOBAL, 4096);
	KEXPECT(t, kmap_map_firmware(5 * GB, 4096)); /* RAM: there already */
	kmap_stats_get(&s);
	KEXPECT_EQ(t, s.firmware_4k, 1);
	KEXPECT_EQ(t, s.mmio_bytes, 1 * GB - 6 * MB + 4096);
}

static const struct ktest_case kmap_cases[] = {
	KTEST_CASE(test_kmap_direct_1g),
	KTEST_CASE(test_kmap_direct_2m),
	KTEST_CASE(test_kmap_image_sections),
	KTEST_CASE(test_kmap_ap_root),
	KTEST_CASE(test_kmap_ap_root_bound),
	KTEST_CASE(test_kmap_additions),
};
KTEST_SUITE_EXT(kernel_map, kmap_cases, kmap_setup, NULL, NULL);
