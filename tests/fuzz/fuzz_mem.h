/*
 * The fuzz targets' shared harness (tests/fuzz/fuzz_mem.c): turns a fuzz
 * input into the physical memory a firmware parser reads, a list of chunks
 * (address, length, bytes; the first is where the parser starts), and fixes
 * up checksums and sizes so the fuzzer reaches the code behind them.
 * tools/fwdump.py writes real machines' tables in this format
 * (tests/fuzz/corpus/). Host only; one input at a time.
 */
#ifndef TESTS_FUZZ_FUZZ_MEM_H
#define TESTS_FUZZ_FUZZ_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

#define FUZZ_CHUNKS_MAX 64

struct fuzz_chunk {
	paddr_t pa;
	u32 len;
	u8 *data; /* a heap copy of exactly len bytes: ASan sees any read past it */
};

struct fuzz_image {
	unsigned n;
	struct fuzz_chunk chunk[FUZZ_CHUNKS_MAX];
};

/* Splits @data into chunks (copies); the chunks beyond FUZZ_CHUNKS_MAX are dropped. */
void fuzz_image_load(struct fuzz_image *img, const u8 *data, size_t size);

/* Frees the copies fuzz_image_load() made. */
void fuzz_image_free(struct fuzz_image *img);

/* ---- ACPI: the image through acpi_set_map() ---- */

#define FUZZ_ACPI_KEEP_RSDP_SUM (1u << 0)  /* leave the RSDP's two checksums as they are */
#define FUZZ_ACPI_KEEP_TABLE_SUM (1u << 1) /* leave the root's and listed tables' checksums */

/*
 * Installs @img as ACPI's physical memory (a range is reachable when one
 * chunk holds all of it) and, unless @flags says otherwise, fixes the RSDP
 * checksum and extended checksum and the checksum of the XSDT, the RSDT and
 * every table they list that lies whole in a chunk. Returns the RSDP's
 * address (the first chunk's), or 0 for an empty image.
 */
paddr_t fuzz_acpi_install(struct fuzz_image *img, unsigned flags);

/* ---- boot information: the image in a 4 GiB physical memory ---- */

/*
 * Copies @img into the 4 GiB of zeros bootinfo.c reads as physical memory
 * (bootinfo_host_mem; reading at or beyond 4 GiB faults, as in the kernel,
 * whose boot page tables map 4 GiB). A chunk is cut at 4 GiB.
 */
void fuzz_phys_load(const struct fuzz_image *img);

/*
 * Makes @len bytes at @pa unreadable for ASan, to catch a parser reading
 * past the end of a structure; fuzz_phys_clear() undoes it.
 */
void fuzz_phys_poison(paddr_t pa, size_t len);

/* Zeros what fuzz_phys_load() wrote and lifts the poison. */
void fuzz_phys_clear(void);

/*
 * Aborts unless boot_info holds what boot/bootinfo.h promises after a parse
 * that returned @rc (tests/fuzz/fuzz_bootinfo.c; multiboot1 and 2 alike).
 */
void fuzz_bootinfo_check(int rc);

/* Aborts with @what on stderr: an invariant the parser promises was broken. */
void fuzz_fail(const char *what) __attribute__((noreturn));

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fuzz_fail(#cond);                                                          \
	} while (0)

#endif
