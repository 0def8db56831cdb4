/*
 * libFuzzer target for the multiboot1 parser (boot/bootinfo.c). Input: a
 * memory image (tests/fuzz/fuzz_mem.h) whose first chunk is the multiboot1
 * information block; the other chunks are what it points to (command line,
 * loader name, memory map, modules) and the BIOS areas the RSDP scan reads.
 * Memory not in the image reads as zeros up to 4 GiB and faults beyond.
 */
#include "tests/fuzz/fuzz_mem.h"

#include <string.h>

#include "boot/bootinfo.h"
#include "errno.h"

#define MB1_BOOT_MAGIC 0x2badb002u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_image img;
	int rc;

	fuzz_image_load(&img, data, size);
	fuzz_phys_load(&img);
	rc = bootinfo_parse(MB1_BOOT_MAGIC, img.n ? img.chunk[0].pa : 0);
	fuzz_bootinfo_check(rc);
	FUZZ_CHECK(rc != 0 || boot_info.protocol == BOOT_MULTIBOOT1);
	FUZZ_CHECK(rc != 0 || boot_info.firmware == BOOT_FW_BIOS);
	fuzz_phys_clear();
	fuzz_image_free(&img);
	return 0;
}
