/*
 * Checks shared by the multiboot1 and multiboot2 fuzz targets: the promises
 * of boot/bootinfo.h that hold for any boot information. Host only.
 */
#include "tests/fuzz/fuzz_mem.h"

#include <string.h>

#include "boot/bootinfo.h"
#include "errno.h"
#include <arch/layout.h>

/* An RSDP the parser reports must be one: the signature and its 20-byte checksum. */
static void fuzz_check_rsdp(const struct boot_info *bi)
{
	const u8 *r = bootinfo_host_mem + bi->rsdp;
	u8 sum = 0;

	if (!bi->rsdp) {
		FUZZ_CHECK(strcmp(bi->rsdp_source, "none") == 0);
		return;
	}
	FUZZ_CHECK(bi->rsdp < BOOT_MAP_BYTES);
	if (strcmp(bi->rsdp_source, "bios-scan") != 0)
		return; /* multiboot2 hands over a copy; whether it is valid is ACPI's to say */
	FUZZ_CHECK(bi->rsdp + 20 <= 0x100000 && bi->rsdp % 16 == 0);
	FUZZ_CHECK(memcmp(r, "RSD PTR ", 8) == 0);
	for (int i = 0; i < 20; i++)
		sum += r[i];
	FUZZ_CHECK(sum == 0);
	FUZZ_CHECK(bi->rsdp_revision == r[15]);
}

/**
 * fuzz_bootinfo_check - abort unless boot_info is consistent after a parse returning @rc
 */
void fuzz_bootinfo_check(int rc)
{
	const struct boot_info *bi = &boot_info;

	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	FUZZ_CHECK(memchr(bi->cmdline, '\0', sizeof(bi->cmdline)) != NULL);
	FUZZ_CHECK(memchr(bi->loader, '\0', sizeof(bi->loader)) != NULL);
	FUZZ_CHECK(bi->nmem <= BOOT_MEM_MAX && bi->nmods <= BOOT_MOD_MAX);
	for (unsigned i = 0; i < bi->nmem; i++) {
		FUZZ_CHECK(bi->mem[i].len != 0);
		FUZZ_CHECK(bi->mem[i].type >= BOOT_MEM_USABLE && bi->mem[i].type <= BOOT_MEM_BAD);
		FUZZ_CHECK(strcmp(bootinfo_mem_type_name(bi->mem[i].type), "unknown") != 0);
	}
	bootinfo_usable_bytes(bi);
	FUZZ_CHECK(rc != 0 || bi->info_start <= bi->info_end);
	FUZZ_CHECK(rc != 0 || bi->info_end <= BOOT_MAP_BYTES);
	fuzz_check_rsdp(bi);
}
