/*
 * One description of what the boot loader handed over, whichever protocol
 * (multiboot2 from GRUB, multiboot1 from QEMU -kernel or iPXE) it used.
 * bootinfo_parse() copies everything out of the loader's structures, so the
 * memory they occupy can be reused afterwards.
 */
#ifndef BOOT_BOOTINFO_H
#define BOOT_BOOTINFO_H

#include "types.h"

#define BOOT_MEM_MAX 256
#define BOOT_MOD_MAX 8
#define BOOT_CMDLINE_MAX 1024

enum boot_protocol { BOOT_MULTIBOOT1 = 1, BOOT_MULTIBOOT2 = 2 };
enum boot_firmware { BOOT_FW_BIOS, BOOT_FW_UEFI };

/* Memory map types, numbered as multiboot (and the e820 map) number them. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,
	BOOT_MEM_RESERVED = 2,
	BOOT_MEM_ACPI_RECLAIM = 3,
	BOOT_MEM_ACPI_NVS = 4,
	BOOT_MEM_BAD = 5,
};

struct boot_mem_region {
	paddr_t base;
	u64 len;
	u32 type;
};

struct boot_module {
	paddr_t start, end;
};

struct boot_info {
	enum boot_protocol protocol;
	enum boot_firmware firmware;
	char cmdline[BOOT_CMDLINE_MAX];
	bool cmdline_truncated;
	/* multiboot1: the image path the loader put first (boot/mb1_cmdline.h), or "" */
	char image[128];
	char loader[64];
	struct boot_mem_region mem[BOOT_MEM_MAX];
	unsigned nmem;
	bool mem_truncated;
	struct boot_module mods[BOOT_MOD_MAX];
	unsigned nmods;
	paddr_t info_start, info_end; /* the loader's own structure */
	paddr_t rsdp;                 /* 0 when none was found */
	unsigned rsdp_revision;       /* 0: ACPI 1.0 (RSDT); 2+: XSDT present */
	const char *rsdp_source;      /* "multiboot2", "bios-scan" or "none" */
	paddr_t efi_system_table;     /* 0 when not booted through UEFI */
};

extern struct boot_info boot_info;

/*
 * Parses the boot information at physical address @info for boot magic
 * @magic into boot_info. Returns 0, or -EINVAL for an unknown magic (the
 * kernel was not started by a multiboot loader) or unreadable information.
 */
int bootinfo_parse(u32 magic, paddr_t info);

/* Sum of the usable RAM in the memory map, in bytes. */
u64 bootinfo_usable_bytes(const struct boot_info *bi);

/* Name of a memory map type, e.g. "usable". */
const char *bootinfo_mem_type_name(u32 type);

#ifdef HOST_BUILD
/*
 * Host builds only (tests/fuzz): where physical address 0 is, standing in for
 * the kernel's direct map. The caller maps at least BOOT_MAP_BYTES there.
 */
extern u8 *bootinfo_host_mem;
#endif

#endif
