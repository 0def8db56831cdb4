/*
 * Synthetic ACPI firmware for tests (tests/acpi_fw.c): builds an RSDP, an
 * XSDT or RSDT, a MADT, a SRAT and SLIT and the small tables in one arena that an accessor
 * installed with acpi_set_map() shows at physical address FW_BASE, fixing
 * every checksum as it goes so that a test breaks exactly one thing on
 * purpose. Host and kernel builds alike; one test case at a time.
 */
#ifndef TESTS_ACPI_FW_H
#define TESTS_ACPI_FW_H

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/acpi_numa.h"
#include "tests/ktest.h"

/* Below 4 GiB, so the RSDT's 32-bit entries can point into the arena. */
#define FW_BASE 0x7f000000ul
/* Room for MAX_CPUS + a few x2APIC entries (16 bytes each) and the other tables. */
#define FW_SIZE ((u32)MAX_CPUS * 16 + 64 * 1024)

/* Empties the arena and installs its accessor; an overflow fails case @t. */
void fw_reset(struct ktest *t);

/* Arena address <-> pointer. */
void *fw_ptr(paddr_t pa);
paddr_t fw_pa(const void *p);

/* Sets a table's checksum byte so its length bytes sum to zero. */
void fw_fix(paddr_t pa);

/* A zeroed table of @len bytes with its header filled, checksum not yet fixed. */
paddr_t fw_table(const char *sig, u32 len, u8 rev);

/* An RSDP of revision @rev (the extended part when @rev >= 2), checksums fixed. */
paddr_t fw_rsdp(u8 rev, paddr_t rsdt, paddr_t xsdt);

/* An XSDT (@xsdt) or RSDT listing @n tables, then @extra stray bytes. */
paddr_t fw_root(bool xsdt, const paddr_t *tables, unsigned n, u32 extra);

/* RSDP of @rev over an RSDT listing @tables, and an XSDT too when @rev >= 2. */
paddr_t fw_boot(u8 rev, const paddr_t *tables, unsigned n);

/* A MADT being built: entries are appended up to @cap bytes, then fw_madt_end(). */
struct fw_madt {
	paddr_t pa;
	u32 len, cap;
};

struct fw_madt fw_madt_begin(u32 lapic, u32 flags, u32 cap);
/* Appends an entry whose length field says @len but which takes @room bytes. */
u8 *fw_madt_raw(struct fw_madt *m, u8 type, u8 len, u32 room);
void *fw_madt_add(struct fw_madt *m, u8 type, u8 len);
void fw_madt_lapic(struct fw_madt *m, u8 uid, u8 apic_id, u32 flags);
void fw_madt_x2apic(struct fw_madt *m, u32 x2apic_id, u32 flags, u32 uid);
void fw_madt_ioapic(struct fw_madt *m, u8 id, u32 addr, u32 gsi_base);
void fw_madt_override(struct fw_madt *m, u8 source, u32 gsi, u16 flags);
/* Sets the length to what was appended, fixes the checksum; returns the address. */
paddr_t fw_madt_end(struct fw_madt *m);

/* What QEMU's pc machine lists for -smp 4: four CPUs, one I/O APIC, two overrides, an NMI. */
paddr_t fw_qemu_madt(void);

/* A SRAT is built like a MADT (same appenders, fw_madt_end() closes it). */
struct fw_madt fw_srat_begin(u32 cap);
void fw_srat_lapic(struct fw_madt *m, u8 apic_id, u32 pxm, u32 flags);
void fw_srat_x2apic(struct fw_madt *m, u32 x2apic_id, u32 pxm, u32 flags);
void fw_srat_mem(struct fw_madt *m, u64 base, u64 len, u32 pxm, u32 flags);
/* A SLIT of @n localities with the row-major @n x @n matrix @d. */
paddr_t fw_slit(u32 n, const u8 *d);

paddr_t fw_hpet(u64 base);
/* A FADT of @len bytes with IAPC_BOOT_ARCH @boot_arch and fixed feature @flags. */
paddr_t fw_fadt(u8 rev, u32 len, u16 boot_arch, u32 flags);
/* An SPCR of @rev; revision 4 tables carry @precise baud after the base layout. */
paddr_t fw_spcr(u8 rev, u8 type, u8 space, u64 addr, u8 baud, u32 precise);

#endif
