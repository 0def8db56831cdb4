/*
 * Kernel self-tests of what the boot loader handed over: protocol, command
 * line, memory map sanity and the ACPI RSDP. Kernel only.
 */
/* build: kernel only */
#include "boot/bootinfo.h"
#include "kernel/percpu.h"
#include "lib/string.h"
#include "tests/ktest.h"
#include <arch/layout.h>

extern const char __image_start_phys[], __image_bss_end_phys[];

static void test_boot_protocol(struct ktest *t)
{
	KEXPECT(t, boot_info.protocol == BOOT_MULTIBOOT1 || boot_info.protocol == BOOT_MULTIBOOT2);
	KEXPECT(t, strstr(boot_info.cmdline, "mode=selftest") != NULL);
	if (boot_info.firmware == BOOT_FW_UEFI)
		KEXPECT_NE(t, boot_info.efi_system_table, 0);
}

static bool overlaps(const struct boot_mem_region *a, const struct boot_mem_region *b)
{
	return a->base < b->base + b->len && b->base < a->base + a->len;
}

static void test_boot_memmap_sane(struct ktest *t)
{
	const struct boot_info *bi = &boot_info;

	KASSERT_GT(t, bi->nmem, 0);
	KEXPECT(t, !bi->mem_truncated);
	for (unsigned i = 0; i < bi->nmem; i++) {
		KEXPECT_GT(t, bi->mem[i].len, 0);
		KEXPECT_GE(t, bi->mem[i].base + bi->mem[i].len, bi->mem[i].base);
		for (unsigned k = i + 1; k < bi->nmem; k++) {
			if (bi->mem[i].type == BOOT_MEM_USABLE ||
			    bi->mem[k].type == BOOT_MEM_USABLE)
				KEXPECT(t, !overlaps(&bi->mem[i], &bi->mem[k]));
		}
	}
	/* QEMU's smallest configuration in the test matrix is 64 MiB. */
	KEXPECT_GE(t, bootinfo_usable_bytes(bi), 48ul << 20);
}

static void test_boot_image_in_ram(struct ktest *t)
{
	paddr_t start = (paddr_t)(uintptr_t)__image_start_phys;
	paddr_t end = (paddr_t)(uintptr_t)__image_bss_end_phys;
	bool inside = false;

	KEXPECT_EQ(t, start, KERNEL_PHYS_BASE);
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];

		if (r->type == BOOT_MEM_USABLE && r->base <= start && end <= r->base + r->len)
			inside = true;
	}
	KEXPECT(t, inside);
}

static void test_boot_rsdp(struct ktest *t)
{
	const u8 *p;
	u8 sum = 0;

	/* No RSDP is a legal machine (no ACPI): the promise is one CPU, with a warning. */
	if (!boot_info.rsdp) {
		KEXPECT_EQ(t, ncpus_online, 1u);
		ktest_skip(t, "the firmware offers no ACPI RSDP (the kernel runs on the boot CPU)");
		return;
	}
	KASSERT_LT(t, boot_info.rsdp, BOOT_MAP_BYTES);
	p = (const u8 *)(DIRECT_MAP_BASE + boot_info.rsdp);
	KEXPECT_EQ(t, memcmp(p, "RSD PTR ", 8), 0);
	for (unsigned i = 0; i < 20; i++)
		sum += p[i];
	KEXPECT_EQ(t, sum, 0);
}

static const struct ktest_case boot_cases[] = {
	KTEST_CASE(test_boot_protocol),
	KTEST_CASE(test_boot_memmap_sane),
	KTEST_CASE(test_boot_image_in_ram),
	KTEST_CASE(test_boot_rsdp),
};
KTEST_SUITE(boot, boot_cases);
