/*
 * Turns multiboot1 and multiboot2 boot information into struct boot_info.
 * Runs once on the boot CPU before anything else, with the boot page tables
 * (low 4 GiB reachable through the direct map). Where multiboot1 gives no
 * ACPI pointer, the RSDP is found by scanning the BIOS areas.
 */
#include "boot/bootinfo.h"
#include "boot/mb1_cmdline.h"
#include "compiler.h"
#include "errno.h"
#include "lib/format.h"
#include "lib/string.h"
#include <arch/layout.h>

#define MB2_BOOT_MAGIC 0x36d76289u
#define MB1_BOOT_MAGIC 0x2badb002u

#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_LOADER 2
#define MB2_TAG_MODULE 3
#define MB2_TAG_MMAP 6
#define MB2_TAG_EFI32 11
#define MB2_TAG_EFI64 12
#define MB2_TAG_ACPI_OLD 14
#define MB2_TAG_ACPI_NEW 15
#define MB2_TAG_EFI_MMAP 17
#define MB2_TAG_EFI_BS 18
#define MB2_TAG_EFI32_IH 19
#define MB2_TAG_EFI64_IH 20

#define MB1_FLAG_CMDLINE (1u << 2)
#define MB1_FLAG_MODS (1u << 3)
#define MB1_FLAG_MMAP (1u << 6)
#define MB1_FLAG_LOADER (1u << 9)

struct boot_info boot_info;

struct mb2_tag {
	u32 type, size;
};

struct mb2_mmap_entry {
	u64 base, len;
	u32 type, reserved;
};

struct mb1_info {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline;
	u32 mods_count, mods_addr;
	u32 syms[4];
	u32 mmap_length, mmap_addr;
	u32 drives_length, drives_addr, config_table, boot_loader_name;
} __packed;

struct mb1_mmap_entry {
	u32 size;
	u64 base, len;
	u32 type;
} __packed;

struct mb1_module {
	u32 start, end, cmdline, pad;
};

static const void *phys(paddr_t pa)
{
	return (const void *)(DIRECT_MAP_BASE + pa);
}

static bool reachable(paddr_t pa, u64 len)
{
	return pa < BOOT_MAP_BYTES && len <= BOOT_MAP_BYTES - pa;
}

static void copy_string(char *dst, size_t size, const char *src, bool *truncated)
{
	size_t n = strlcpy(dst, src, size);

	if (truncated)
		*truncated = n >= size;
}

static void add_region(struct boot_info *bi, u64 base, u64 len, u32 type)
{
	if (len == 0)
		return;
	if (bi->nmem == BOOT_MEM_MAX) {
		bi->mem_truncated = true;
		return;
	}
	if (type < BOOT_MEM_USABLE || type > BOOT_MEM_BAD)
		type = BOOT_MEM_RESERVED;
	bi->mem[bi->nmem++] = (struct boot_mem_region){ base, len, type };
}

static void add_module(struct boot_info *bi, paddr_t start, paddr_t end)
{
	if (bi->nmods < BOOT_MOD_MAX)
		bi->mods[bi->nmods++] = (struct boot_module){ start, end };
}

static u8 checksum(const u8 *p, size_t n)
{
	u8 sum = 0;

	while (n--)
		sum += *p++;
	return sum;
}

/* An RSDP is "RSD PTR " with a zero checksum over its first 20 bytes. */
static bool rsdp_valid(const u8 *p)
{
	return memcmp(p, "RSD PTR ", 8) == 0 && checksum(p, 20) == 0;
}

static void set_rsdp(struct boot_info *bi, paddr_t pa, const char *source)
{
	const u8 *p = phys(pa);

	bi->rsdp = pa;
	bi->rsdp_revision = p[15];
	bi->rsdp_source = source;
}

/* ACPI 6.5 section 5.2.5.1: the first KiB of the EBDA, then 0xe0000-0xfffff. */
static void rsdp_scan_bios(struct boot_info *bi)
{
	paddr_t ebda = (paddr_t)(*(const u16 *)phys(0x40e)) << 4;
	paddr_t areas[2][2] = { { ebda, ebda + 1024 }, { 0xe0000, 0x100000 } };

	for (unsigned a = 0; a < 2; a++) {
		if (areas[a][0] < 0x400 || areas[a][1] > 0x100000)
			continue;
		for (paddr_t pa = areas[a][0]; pa + 20 <= areas[a][1]; pa += 16) {
			if (rsdp_valid(phys(pa))) {
				set_rsdp(bi, pa, "bios-scan");
				return;
			}
		}
	}
}

static void mb2_mmap(struct boot_info *bi, const struct mb2_tag *tag)
{
	const u32 *hdr = (const u32 *)(tag + 1);
	u32 entry_size = hdr[0];
	const u8 *p = (const u8 *)(hdr + 2);
	const u8 *end = (const u8 *)tag + tag->size;

	if (entry_size < sizeof(struct mb2_mmap_entry))
		return;
	for (; p + entry_size <= end; p += entry_size) {
		const struct mb2_mmap_entry *e = (const void *)p;

		add_region(bi, e->base, e->len, e->type);
	}
}

static void mb2_tag(struct boot_info *bi, const struct mb2_tag *tag)
{
	const u8 *body = (const u8 *)(tag + 1);

	switch (tag->type) {
	case MB2_TAG_CMDLINE:
		copy_string(bi->cmdline, sizeof(bi->cmdline), (const char *)body,
			    &bi->cmdline_truncated);
		break;
	case MB2_TAG_LOADER:
		copy_string(bi->loader, sizeof(bi->loader), (const char *)body, NULL);
		break;
	case MB2_TAG_MODULE:
		add_module(bi, ((const u32 *)body)[0], ((const u32 *)body)[1]);
		break;
	case MB2_TAG_MMAP:
		mb2_mmap(bi, tag);
		break;
	case MB2_TAG_EFI32:
		bi->efi_system_table = *(const u32 *)body;
		break;
	case MB2_TAG_EFI64:
		bi->efi_system_table = *(const u64 *)body;
		break;
	case MB2_TAG_ACPI_OLD:
		if (!bi->rsdp || bi->rsdp_revision < 2)
			set_rsdp(bi, (paddr_t)((u64)(uintptr_t)body - DIRECT_MAP_BASE), "multiboot2");
		break;
	case MB2_TAG_ACPI_NEW:
		set_rsdp(bi, (paddr_t)((u64)(uintptr_t)body - DIRECT_MAP_BASE), "multiboot2");
		break;
	case MB2_TAG_EFI_MMAP:
	case MB2_TAG_EFI_BS:
	case MB2_TAG_EFI32_IH:
	case MB2_TAG_EFI64_IH:
		bi->firmware = BOOT_FW_UEFI;
		break;
	default:
		break;
	}
}

static int parse_mb2(struct boot_info *bi, paddr_t info)
{
	u32 total;
	const u8 *p, *end;

	if (!reachable(info, 8) || !IS_ALIGNED(info, 8))
		return -EINVAL;
	total = *(const u32 *)phys(info);
	if (total < 16 || !reachable(info, total))
		return -EINVAL;
	bi->info_start = info;
	bi->info_end = info + total;
	p = (const u8 *)phys(info) + 8;
	end = (const u8 *)phys(info) + total;
	while (p + sizeof(struct mb2_tag) <= end) {
		const struct mb2_tag *tag = (const void *)p;

		if (tag->type == MB2_TAG_END || tag->size < 8 || p + tag->size > end)
			break;
		mb2_tag(bi, tag);
		p += ALIGN_UP(tag->size, 8u);
	}
	if (bi->efi_system_table)
		bi->firmware = BOOT_FW_UEFI;
	return 0;
}

static void mb1_mmap(struct boot_info *bi, const struct mb1_info *mi)
{
	paddr_t pa = mi->mmap_addr, end = (paddr_t)mi->mmap_addr + mi->mmap_length;

	if (!reachable(mi->mmap_addr, mi->mmap_length))
		return;
	while (pa + sizeof(struct mb1_mmap_entry) <= end) {
		const struct mb1_mmap_entry *e = phys(pa);

		add_region(bi, e->base, e->len, e->type);
		pa += e->size + sizeof(e->size);
	}
}

/* Some multiboot1 loaders put the image path first, some do not: keep it apart. */
static void mb1_cmdline(struct boot_info *bi, const char *raw)
{
	const char *image;
	size_t len;
	const char *args = mb1_cmdline_args(raw, &image, &len);

	if (image)
		fmt_snprintf(bi->image, sizeof(bi->image), "%.*s", (int)len, image);
	copy_string(bi->cmdline, sizeof(bi->cmdline), args, &bi->cmdline_truncated);
}

static int parse_mb1(struct boot_info *bi, paddr_t info)
{
	const struct mb1_info *mi;

	if (!reachable(info, sizeof(*mi)))
		return -EINVAL;
	mi = phys(info);
	bi->info_start = info;
	bi->info_end = info + sizeof(*mi);
	if ((mi->flags & MB1_FLAG_CMDLINE) && reachable(mi->cmdline, 1))
		mb1_cmdline(bi, phys(mi->cmdline));
	if ((mi->flags & MB1_FLAG_LOADER) && reachable(mi->boot_loader_name, 1))
		copy_string(bi->loader, sizeof(bi->loader), phys(mi->boot_loader_name), NULL);
	if (mi->flags & MB1_FLAG_MMAP)
		mb1_mmap(bi, mi);
	if ((mi->flags & MB1_FLAG_MODS) && reachable(mi->mods_addr, 16ul * mi->mods_count)) {
		const struct mb1_module *m = phys(mi->mods_addr);

		for (u32 i = 0; i < mi->mods_count; i++)
			add_module(bi, m[i].start, m[i].end);
	}
	bi->firmware = BOOT_FW_BIOS;
	return 0;
}

int bootinfo_parse(u32 magic, paddr_t info)
{
	struct boot_info *bi = &boot_info;
	int err;

	memset(bi, 0, sizeof(*bi));
	bi->rsdp_source = "none";
	if (magic == MB2_BOOT_MAGIC) {
		bi->protocol = BOOT_MULTIBOOT2;
		err = parse_mb2(bi, info);
	} else if (magic == MB1_BOOT_MAGIC) {
		bi->protocol = BOOT_MULTIBOOT1;
		err = parse_mb1(bi, info);
	} else {
		return -EINVAL;
	}
	if (!err && !bi->rsdp && bi->firmware == BOOT_FW_BIOS)
		rsdp_scan_bios(bi);
	return err;
}

u64 bootinfo_usable_bytes(const struct boot_info *bi)
{
	u64 sum = 0;

	for (unsigned i = 0; i < bi->nmem; i++)
		if (bi->mem[i].type == BOOT_MEM_USABLE)
			sum += bi->mem[i].len;
	return sum;
}

const char *bootinfo_mem_type_name(u32 type)
{
	switch (type) {
	case BOOT_MEM_USABLE:
		return "usable";
	case BOOT_MEM_RESERVED:
		return "reserved";
	case BOOT_MEM_ACPI_RECLAIM:
		return "acpi-reclaimable";
	case BOOT_MEM_ACPI_NVS:
		return "acpi-nvs";
	case BOOT_MEM_BAD:
		return "bad";
	default:
		return "unknown";
	}
}
