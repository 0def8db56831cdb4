/*
 * The I/O APICs the MADT lists (82093AA register model: an index register
 * at offset 0 and a data window at 0x10). mmlab routes no device
 * interrupts through them, so bring-up masks every redirection entry the
 * firmware may have left live. Boot CPU, before interrupts are enabled.
 */
#ifndef ARCH_IOAPIC_H
#define ARCH_IOAPIC_H

#include "types.h"

struct acpi_madt_info;

#define IOAPIC_MAX 16 /* as ACPI_MAX_IOAPICS */

struct ioapic_dev {
	u8 id;
	paddr_t addr;
	u32 gsi_base;
	u32 entries;	    /* redirection entries (version register bits 23:16, plus one) */
	bool dead;	    /* not mapped, or the version register read all ones: left alone */
	volatile u32 *regs; /* NULL when dead */
};

/*
 * Maps the registers of every I/O APIC @m lists (uncached, through kpt)
 * and sets the mask bit of each redirection entry, keeping its other
 * fields. Returns how many I/O APICs were masked.
 */
unsigned ioapic_mask_all(const struct acpi_madt_info *m);

/* The I/O APICs ioapic_mask_all() saw, and how many. */
const struct ioapic_dev *ioapic_get(unsigned index);
unsigned ioapic_count(void);

/* Low half of redirection entry @entry of @io (bit 16 is the mask). */
u32 ioapic_redir_low(const struct ioapic_dev *io, u32 entry);

#define IOAPIC_REDIR_MASKED (1u << 16)

#endif
