/*
 * The fuzz harness behind tests/fuzz/fuzz_mem.h: chunked memory images, the
 * ACPI accessor over them with checksum fix-ups, and the 4 GiB physical
 * memory bootinfo.c reads through bootinfo_host_mem. Host only,
 * single-threaded.
 */
#include "tests/fuzz/fuzz_mem.h"

#include <sanitizer/asan_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/x86_64/acpi.h"
#include "boot/bootinfo.h"
#include <arch/layout.h>

#define FUZZ_PAGE 4096ul
#define FUZZ_GUARD (64ul << 10) /* unmapped above 4 GiB, as in the boot page tables */

/**
 * fuzz_fail - report a broken invariant and abort (libFuzzer saves the input)
 */
void fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz: invariant broken: %s\n", what);
	abort();
}

static u32 fuzz_get_u32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/* Memory has one value per address: a chunk overlapping an earlier one is left out. */
static bool fuzz_image_overlaps(const struct fuzz_image *img, paddr_t pa, u32 len)
{
	for (unsigned i = 0; i < img->n; i++) {
		const struct fuzz_chunk *c = &img->chunk[i];

		if (pa < c->pa + c->len && c->pa < pa + len)
			return true;
	}
	return false;
}

/**
 * fuzz_image_load - split @data into chunks, copying each (see fuzz_mem.h)
 */
void fuzz_image_load(struct fuzz_image *img, const u8 *data, size_t size)
{
	size_t off = 0;

	img->n = 0;
	while (size - off >= 8 && img->n < FUZZ_CHUNKS_MAX) {
		struct fuzz_chunk *c = &img->chunk[img->n];
		size_t room = size - off - 8;

		c->pa = fuzz_get_u32(data + off);
		c->len = fuzz_get_u32(data + off + 4);
		if (c->len > room)
			c->len = (u32)room;
		off += 8 + (size_t)c->len;
		if (!c->len || fuzz_image_overlaps(img, c->pa, c->len))
			continue;
		c->data = malloc(c->len);
		if (!c->data)
			fuzz_fail("malloc");
		memcpy(c->data, data + off - c->len, c->len);
		img->n++;
	}
}

/**
 * fuzz_image_free - free the chunk copies
 */
void fuzz_image_free(struct fuzz_image *img)
{
	for (unsigned i = 0; i < img->n; i++)
		free(img->chunk[i].data);
	img->n = 0;
}

/* ---- ACPI ---- */

static struct fuzz_image *fuzz_acpi_img;

/* The bytes at [@pa, @pa + @len) when one chunk holds them all, else NULL. */
static u8 *fuzz_image_at(struct fuzz_image *img, paddr_t pa, size_t len)
{
	for (unsigned i = 0; i < img->n; i++) {
		const struct fuzz_chunk *c = &img->chunk[i];

		if (pa >= c->pa && pa - c->pa <= c->len && len <= c->len - (pa - c->pa))
			return c->data + (pa - c->pa);
	}
	return NULL;
}

static const void *fuzz_acpi_map(paddr_t pa, size_t len)
{
	return fuzz_image_at(fuzz_acpi_img, pa, len);
}

/* Sets the byte at @sum so the @len bytes at @p add up to 0 mod 256. */
static void fuzz_fix_sum(u8 *p, size_t len, size_t sum)
{
	p[sum] = 0;
	p[sum] = (u8)-acpi_checksum(p, len);
}

/*
 * Fixes the checksum of the table at @pa if it lies whole in a chunk;
 * returns it, its length (as acpi.c read it) in *@lenp.
 */
static u8 *fuzz_fix_table(struct fuzz_image *img, paddr_t pa, u32 *lenp)
{
	u8 *h = fuzz_image_at(img, pa, sizeof(struct acpi_sdt_header));
	u32 len;

	if (!h)
		return NULL;
	len = fuzz_get_u32(h + offsetof(struct acpi_sdt_header, length));
	h = len >= sizeof(struct acpi_sdt_header) ? fuzz_image_at(img, pa, len) : NULL;
	if (!h)
		return NULL;
	fuzz_fix_sum(h, len, offsetof(struct acpi_sdt_header, checksum));
	*lenp = len;
	return h;
}

/* Fixes the tables the root table at @pa lists (entries of @esize bytes), then the root. */
static void fuzz_fix_root(struct fuzz_image *img, paddr_t pa, unsigned esize)
{
	u32 len, n, entry_len;
	u8 *h = fuzz_fix_table(img, pa, &len);

	if (!h)
		return;
	n = (len - sizeof(struct acpi_sdt_header)) / esize;
	for (u32 i = 0; i < n && i < ACPI_MAX_TABLES; i++) {
		const u8 *e = h + sizeof(struct acpi_sdt_header) + i * esize;
		u64 entry = fuzz_get_u32(e);

		if (esize == 8)
			entry |= (u64)fuzz_get_u32(e + 4) << 32;
		fuzz_fix_table(img, entry, &entry_len);
	}
	fuzz_fix_table(img, pa, &len); /* a listed table may overlap the root */
}

/* Reads the RSDP as acpi.c does: 20 bytes, then 36, then its length. */
static void fuzz_fix_rsdp(struct fuzz_image *img, paddr_t pa)
{
	u8 *v1 = fuzz_image_at(img, pa, ACPI_RSDP_V1_LEN);
	const u8 *v2 = fuzz_image_at(img, pa, sizeof(struct acpi_rsdp));
	u8 *r;
	u32 len;

	if (!v1)
		return;
	fuzz_fix_sum(v1, ACPI_RSDP_V1_LEN, offsetof(struct acpi_rsdp, checksum));
	if (v1[offsetof(struct acpi_rsdp, revision)] < 2 || !v2)
		return;
	len = fuzz_get_u32(v2 + offsetof(struct acpi_rsdp, length));
	r = len >= sizeof(struct acpi_rsdp) ? fuzz_image_at(img, pa, len) : NULL;
	if (r)
		fuzz_fix_sum(r, len, offsetof(struct acpi_rsdp, ext_checksum));
}

/**
 * fuzz_acpi_install - show @img to acpi.c and fix its checksums; returns the RSDP
 */
paddr_t fuzz_acpi_install(struct fuzz_image *img, unsigned flags)
{
	paddr_t rsdp = img->n ? img->chunk[0].pa : 0;
	const u8 *v1 = fuzz_image_at(img, rsdp, ACPI_RSDP_V1_LEN);
	const u8 *v2 = fuzz_image_at(img, rsdp, sizeof(struct acpi_rsdp));

	fuzz_acpi_img = img;
	acpi_set_map(fuzz_acpi_map);
	if (!(flags & FUZZ_ACPI_KEEP_TABLE_SUM) && v1)
		fuzz_fix_root(img, fuzz_get_u32(v1 + offsetof(struct acpi_rsdp, rsdt_address)), 4);
	if (!(flags & FUZZ_ACPI_KEEP_TABLE_SUM) && v2) {
		const u8 *x = v2 + offsetof(struct acpi_rsdp, xsdt_address);

		fuzz_fix_root(img, fuzz_get_u32(x) | (u64)fuzz_get_u32(x + 4) << 32, 8);
	}
	if (!(flags & FUZZ_ACPI_KEEP_RSDP_SUM))
		fuzz_fix_rsdp(img, rsdp);
	return rsdp;
}

/* ---- boot information: 4 GiB of physical memory ---- */

struct fuzz_range {
	uintptr_t start, end;
};

static struct fuzz_range fuzz_touched[FUZZ_CHUNKS_MAX];
static unsigned fuzz_ntouched;
static struct fuzz_range fuzz_poisoned;

/* Maps the 4 GiB once: zeros, reserved lazily, with an unmapped guard above. */
static void fuzz_phys_setup(void)
{
	void *p;

	if (bootinfo_host_mem)
		return;
	p = mmap(NULL, BOOT_MAP_BYTES + FUZZ_GUARD, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED || mprotect(p, BOOT_MAP_BYTES, PROT_READ | PROT_WRITE))
		fuzz_fail("mmap of 4 GiB for physical memory");
	bootinfo_host_mem = p;
}

/**
 * fuzz_phys_load - copy @img into the 4 GiB bootinfo.c reads
 */
void fuzz_phys_load(const struct fuzz_image *img)
{
	fuzz_phys_setup();
	fuzz_ntouched = 0;
	for (unsigned i = 0; i < img->n; i++) {
		const struct fuzz_chunk *c = &img->chunk[i];
		u64 len = c->len;

		if (c->pa >= BOOT_MAP_BYTES || !len)
			continue;
		if (len > BOOT_MAP_BYTES - c->pa)
			len = BOOT_MAP_BYTES - c->pa;
		memcpy(bootinfo_host_mem + c->pa, c->data, len);
		fuzz_touched[fuzz_ntouched++] = (struct fuzz_range){
			(uintptr_t)bootinfo_host_mem + c->pa,
			(uintptr_t)bootinfo_host_mem + c->pa + len,
		};
	}
}

/**
 * fuzz_phys_poison - make @len bytes at @pa unreadable for ASan
 */
void fuzz_phys_poison(paddr_t pa, size_t len)
{
	if (pa >= BOOT_MAP_BYTES)
		return;
	if (len > BOOT_MAP_BYTES - pa)
		len = BOOT_MAP_BYTES - pa;
	fuzz_poisoned = (struct fuzz_range){ (uintptr_t)bootinfo_host_mem + pa,
					     (uintptr_t)bootinfo_host_mem + pa + len };
	ASAN_POISON_MEMORY_REGION((void *)fuzz_poisoned.start, len);
}

/**
 * fuzz_phys_clear - undo fuzz_phys_load() and fuzz_phys_poison()
 */
void fuzz_phys_clear(void)
{
	/* Whole pages handed back read as zeros again and cost no memory. */
	for (unsigned i = 0; i < fuzz_ntouched; i++) {
		uintptr_t start = fuzz_touched[i].start & ~(FUZZ_PAGE - 1);
		uintptr_t end = (fuzz_touched[i].end + FUZZ_PAGE - 1) & ~(FUZZ_PAGE - 1);

		if (madvise((void *)start, end - start, MADV_DONTNEED))
			fuzz_fail("madvise");
	}
	fuzz_ntouched = 0;
	if (fuzz_poisoned.end > fuzz_poisoned.start)
		ASAN_UNPOISON_MEMORY_REGION((void *)fuzz_poisoned.start,
					    fuzz_poisoned.end - fuzz_poisoned.start);
	fuzz_poisoned = (struct fuzz_range){ 0, 0 };
}
