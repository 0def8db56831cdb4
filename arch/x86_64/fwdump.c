/*
 * fwdump=1: hex-dumps the firmware input mmlab parses, as the parsers see it,
 * for tools/fwdump.py (fuzzing seeds from real machines): "FWDUMP region NAME
 * 0xPA LEN" then "FWDUMP data HEX..." lines, between "FWDUMP begin" and
 * "FWDUMP end N". Written straight to the UART before the header, while the
 * loader's memory is untouched. Boot CPU only, once.
 */
#include "arch/x86_64/fwdump.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/serial.h"
#include "boot/bootinfo.h"
#include "lib/format.h"
#include "lib/string.h"
#include <arch/layout.h>

#define FWDUMP_LINE_BYTES 32
#define FWDUMP_STR_MAX 4096	    /* longest string dumped (a command line is shorter) */
#define FWDUMP_MODS_MAX 64	    /* module entries dumped; the parser keeps 8 */
#define FWDUMP_TABLE_MAX (1u << 20) /* a bigger table is left out (none of QEMU's is) */

/* Multiboot 0.6.96 section 3.3: the fields of the information block read here. */
#define MB1_OFF_FLAGS 0
#define MB1_OFF_CMDLINE 16
#define MB1_OFF_MODS_COUNT 20
#define MB1_OFF_MODS_ADDR 24
#define MB1_OFF_MMAP_LENGTH 44
#define MB1_OFF_MMAP_ADDR 48
#define MB1_OFF_LOADER 64
#define MB1_INFO_LEN 68
#define MB1_CMDLINE (1u << 2)
#define MB1_MODS (1u << 3)
#define MB1_MMAP (1u << 6)
#define MB1_LOADER (1u << 9)

static unsigned fwdump_nregions;

static void fwdump_printf(const char *fmt, ...) __printf(1, 2);
static void fwdump_printf(const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	serial_write(line, (size_t)MIN(MAX(n, 0), (int)sizeof(line) - 1));
}

static void fwdump_region(const char *name, paddr_t pa, const void *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const u8 *b = p;
	char line[16 + 2 * FWDUMP_LINE_BYTES];

	fwdump_printf("FWDUMP region %s %#lx %lu\n", name, pa, (unsigned long)len);
	for (size_t off = 0; off < len; off += FWDUMP_LINE_BYTES) {
		size_t n = MIN(len - off, (size_t)FWDUMP_LINE_BYTES), k = 0;

		memcpy(line, "FWDUMP data ", 12);
		k = 12;
		for (size_t i = 0; i < n; i++) {
			line[k++] = hex[b[off + i] >> 4];
			line[k++] = hex[b[off + i] & 0xf];
		}
		line[k++] = '\n';
		serial_write(line, k);
	}
	fwdump_nregions++;
}

static bool fwdump_low(paddr_t pa, u64 len)
{
	return pa < BOOT_MAP_BYTES && len <= BOOT_MAP_BYTES - pa;
}

/* Low memory through the boot direct map; nothing when it reaches beyond 4 GiB. */
static void fwdump_phys(const char *name, paddr_t pa, u64 len)
{
	if (len && fwdump_low(pa, len))
		fwdump_region(name, pa, (const void *)(DIRECT_MAP_BASE + pa), len);
}

/* A NUL-terminated string at @pa, its NUL included. */
static void fwdump_string(const char *name, paddr_t pa)
{
	const char *s = (const char *)(DIRECT_MAP_BASE + pa);
	u64 room = fwdump_low(pa, 1) ? MIN(BOOT_MAP_BYTES - pa, (u64)FWDUMP_STR_MAX) : 0;

	if (room)
		fwdump_phys(name, pa, MIN(strnlen(s, room - 1) + 1, room));
}

static u32 mb1_field(const u8 *info, unsigned off)
{
	u32 v;

	memcpy(&v, info + off, sizeof(v));
	return v;
}

static void fwdump_mb1(paddr_t info_pa)
{
	const u8 *info = (const u8 *)(DIRECT_MAP_BASE + info_pa);
	u32 flags = mb1_field(info, MB1_OFF_FLAGS);

	fwdump_phys("mb1-info", info_pa, MB1_INFO_LEN);
	if (flags & MB1_CMDLINE)
		fwdump_string("mb1-cmdline", mb1_field(info, MB1_OFF_CMDLINE));
	if (flags & MB1_LOADER)
		fwdump_string("mb1-loader", mb1_field(info, MB1_OFF_LOADER));
	if (flags & MB1_MMAP)
		fwdump_phys("mb1-mmap", mb1_field(info, MB1_OFF_MMAP_ADDR),
			    mb1_field(info, MB1_OFF_MMAP_LENGTH));
	if (flags & MB1_MODS)
		fwdump_phys("mb1-mods", mb1_field(info, MB1_OFF_MODS_ADDR),
			    16ull * MIN(mb1_field(info, MB1_OFF_MODS_COUNT), (u32)FWDUMP_MODS_MAX));
}

/* What the BIOS RSDP scan reads before it finds the RSDP: the EBDA pointer. */
static void fwdump_bios(void)
{
	fwdump_phys("bios-ebda-ptr", 0x40e, 2);
}

static void fwdump_acpi_table(const char *name, paddr_t pa)
{
	const struct acpi_sdt_header *h = acpi_map(pa, sizeof(*h));
	u32 len = h ? h->length : 0;

	if (len < sizeof(*h) || len > FWDUMP_TABLE_MAX)
		return;
	h = acpi_map(pa, len);
	if (h)
		fwdump_region(name, pa, h, len);
}

static void fwdump_acpi(void)
{
	static struct acpi_info info; /* large: never on the stack */
	const struct acpi_rsdp *r;
	size_t len = ACPI_RSDP_V1_LEN;

	acpi_init(&info);
	r = acpi_map(boot_info.rsdp, sizeof(*r));
	if (!boot_info.rsdp || !r)
		return;
	if (r->revision >= 2 && r->length >= sizeof(*r) && r->length <= 4096)
		len = r->length;
	r = acpi_map(boot_info.rsdp, len);
	if (r)
		fwdump_region("acpi-rsdp", boot_info.rsdp, r, len);
	if (info.root)
		fwdump_acpi_table("acpi-root", info.root);
	for (u32 i = 0; i < info.ntables; i++)
		fwdump_acpi_table("acpi-table", info.tables[i].pa);
}

/**
 * fwdump_write - dump the boot information and ACPI tables (see fwdump.h)
 */
void fwdump_write(void)
{
	const struct boot_info *bi = &boot_info;

	fwdump_nregions = 0;
	fwdump_printf("FWDUMP begin %s %s\n",
		      bi->protocol == BOOT_MULTIBOOT2 ? "multiboot2" : "multiboot1",
		      bi->firmware == BOOT_FW_UEFI ? "uefi" : "bios");
	fwdump_region("cmdline", 0, bi->cmdline, strlen(bi->cmdline));
	if (bi->protocol == BOOT_MULTIBOOT2)
		fwdump_phys("mb2-info", bi->info_start, bi->info_end - bi->info_start);
	else
		fwdump_mb1(bi->info_start);
	if (bi->firmware == BOOT_FW_BIOS)
		fwdump_bios();
	fwdump_acpi();
	fwdump_printf("FWDUMP end %u\n", fwdump_nregions);
}
