/*
 * libFuzzer target for the multiboot2 parser (boot/bootinfo.c). Input: a
 * memory image (tests/fuzz/fuzz_mem.h) whose first chunk is the multiboot2
 * information block, placed as every loader places it (aligned, total_size
 * its chunk's length). The memory after the block is poisoned, so a read
 * past the block is reported.
 */
#include "tests/fuzz/fuzz_mem.h"

#include <string.h>

#include "boot/bootinfo.h"
#include "errno.h"

#define MB2_BOOT_MAGIC 0x36d76289u
#define FUZZ_MB2_POISON 4096
#define FUZZ_BIOS_AREA 0xe0000u /* 0xe0000-0xfffff: the RSDP scan reads it, never poisoned */

/* 8-aligned, total_size = the chunk's length; returns the block's address. */
static paddr_t fuzz_mb2_fix(struct fuzz_image *img)
{
	struct fuzz_chunk *c = &img->chunk[0];
	u32 total = c->len;

	c->pa &= ~(paddr_t)7;
	memcpy(c->data, &total, 4);
	/* Moved down, the block may now overlap a later chunk: that one goes (len 0). */
	for (unsigned i = 1; i < img->n; i++) {
		struct fuzz_chunk *o = &img->chunk[i];

		if (o->pa < c->pa + c->len && c->pa < o->pa + o->len)
			o->len = 0;
	}
	return c->pa;
}

/* Cuts [*start, *end) short before [lo, hi), or empties it when it starts inside. */
static void fuzz_clip(u64 *start, u64 *end, u64 lo, u64 hi)
{
	if (*start >= hi || *end <= lo)
		return;
	*end = *start < lo ? lo : *start;
}

/*
 * Poisons the bytes after the block, except what the BIOS RSDP scan reads
 * (the EBDA pointer, the EBDA's first KiB, 0xe0000-0xfffff): they are
 * memory the parser may read whatever the block says.
 */
static void fuzz_mb2_poison(u64 start)
{
	u16 ebda_seg;
	u64 end = start + FUZZ_MB2_POISON, ebda;

	memcpy(&ebda_seg, bootinfo_host_mem + 0x40e, 2);
	ebda = (u64)ebda_seg << 4;
	fuzz_clip(&start, &end, 0x40e, 0x410);
	fuzz_clip(&start, &end, ebda, ebda + 1024);
	fuzz_clip(&start, &end, FUZZ_BIOS_AREA, 0x100000);
	if (end > start)
		fuzz_phys_poison(start, end - start);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_image img;
	paddr_t info;
	int rc;

	fuzz_image_load(&img, data, size);
	if (!img.n || img.chunk[0].len < 8) { /* no loader hands over less than the fixed part */
		fuzz_image_free(&img);
		return 0;
	}
	info = fuzz_mb2_fix(&img);
	fuzz_phys_load(&img);
	fuzz_mb2_poison(info + img.chunk[0].len);
	rc = bootinfo_parse(MB2_BOOT_MAGIC, info);
	fuzz_bootinfo_check(rc);
	FUZZ_CHECK(rc != 0 || boot_info.protocol == BOOT_MULTIBOOT2);
	FUZZ_CHECK(rc != 0 || boot_info.info_end - boot_info.info_start == img.chunk[0].len);
	if (rc == 0 && strcmp(boot_info.rsdp_source, "multiboot2") == 0)
		FUZZ_CHECK(boot_info.rsdp >= boot_info.info_start &&
			   boot_info.rsdp + 20 <= boot_info.info_end); /* a whole v1 RSDP */
	fuzz_phys_clear();
	fuzz_image_free(&img);
	return 0;
}
