/*
 * Masking the I/O APICs (82093AA datasheet; ACPI 6.5 5.2.12.3 for where
 * they are). Each is reached through two registers: IOREGSEL selects a
 * 32-bit register, IOWIN reads or writes it. Boot CPU only, interrupts
 * off, before the APs start: the index/data pair is not safe to share.
 */
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/kpt.h"
#include "compiler.h"

BUILD_ASSERT(IOAPIC_MAX == ACPI_MAX_IOAPICS);

#define IOREGSEL 0x00 /* u32 index of IOREGSEL, in words */
#define IOWIN 0x04    /* u32 index of IOWIN (offset 0x10) */
#define IOAPIC_REG_VER 0x01
#define IOAPIC_REG_REDIR 0x10 /* entry n: low half 0x10 + 2n, high half 0x11 + 2n */
#define IOAPIC_MMIO_BYTES 0x20

static struct ioapic_dev ioapics[IOAPIC_MAX];
static unsigned nioapics;

static u32 ioapic_read(const struct ioapic_dev *io, u32 reg)
{
	io->regs[IOREGSEL] = reg;
	return io->regs[IOWIN];
}

static void ioapic_write(const struct ioapic_dev *io, u32 reg, u32 v)
{
	io->regs[IOREGSEL] = reg;
	io->regs[IOWIN] = v;
}

u32 ioapic_redir_low(const struct ioapic_dev *io, u32 entry)
{
	return ioapic_read(io, IOAPIC_REG_REDIR + 2 * entry);
}

/* Maps @io and reads its size; a version register of all ones is no device. */
static void ioapic_probe(struct ioapic_dev *io)
{
	u32 ver;

	io->regs = kpt_map_mmio(io->addr, IOAPIC_MMIO_BYTES);
	if (!io->regs) {
		io->dead = true;
		return;
	}
	ver = ioapic_read(io, IOAPIC_REG_VER);
	if (ver == 0xffffffffu) {
		io->dead = true;
		io->regs = NULL;
		return;
	}
	io->entries = ((ver >> 16) & 0xff) + 1;
}

unsigned ioapic_mask_all(const struct acpi_madt_info *m)
{
	unsigned masked = 0;

	nioapics = MIN(m->nioapic, (u32)IOAPIC_MAX);
	for (unsigned i = 0; i < nioapics; i++) {
		struct ioapic_dev *io = &ioapics[i];

		*io = (struct ioapic_dev){ .id = m->ioapic[i].id,
					   .addr = m->ioapic[i].addr,
					   .gsi_base = m->ioapic[i].gsi_base };
		ioapic_probe(io);
		if (io->dead)
			continue;
		/* Only the mask bit changes: the rest stays as the firmware left it. */
		for (u32 e = 0; e < io->entries; e++)
			ioapic_write(io, IOAPIC_REG_REDIR + 2 * e,
				     ioapic_redir_low(io, e) | IOAPIC_REDIR_MASKED);
		masked++;
	}
	return masked;
}

const struct ioapic_dev *ioapic_get(unsigned index)
{
	return index < nioapics ? &ioapics[index] : NULL;
}

unsigned ioapic_count(void)
{
	return nioapics;
}
