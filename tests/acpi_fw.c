/*
 * The synthetic ACPI firmware builder behind tests/acpi_fw.h: a bump
 * allocator over a static arena, shown to acpi.c at FW_BASE through
 * fw_map(), and one builder per table. Contracts are in the header.
 */
#include "tests/acpi_fw.h"
#include "lib/string.h"

static u8 fw_mem[FW_SIZE] __aligned(16);
static u32 fw_used;
static struct ktest *fw_test; /* the running case, for arena overflow */

static const void *fw_map(paddr_t pa, size_t len)
{
	if (pa < FW_BASE || pa - FW_BASE > FW_SIZE || len > FW_SIZE - (pa - FW_BASE))
		return NULL;
	return fw_mem + (pa - FW_BASE);
}

void fw_reset(struct ktest *t)
{
	memset(fw_mem, 0, sizeof(fw_mem));
	fw_used = 0;
	fw_test = t;
	acpi_set_map(fw_map);
}

void *fw_ptr(paddr_t pa)
{
	return fw_mem + (pa - FW_BASE);
}

paddr_t fw_pa(const void *p)
{
	return FW_BASE + (paddr_t)((const u8 *)p - fw_mem);
}

static paddr_t fw_alloc(u32 len)
{
	paddr_t pa = FW_BASE + fw_used;

	if (!KEXPECT_LE(fw_test, len, FW_SIZE - fw_used))
		return FW_BASE; /* the case has failed; stay inside the arena */
	fw_used += ALIGN_UP(len, 16);
	return pa;
}

/* Sets the checksum byte so the whole table sums to zero. */
void fw_fix(paddr_t pa)
{
	struct acpi_sdt_header *h = fw_ptr(pa);

	h->checksum = 0;
	h->checksum = (u8)-acpi_checksum(h, h->length);
}

/* A zeroed table of @len bytes (room reserved for @cap) with its header filled. */
static paddr_t fw_table_cap(const char *sig, u32 len, u32 cap, u8 rev)
{
	paddr_t pa = fw_alloc(cap);
	struct acpi_sdt_header *h = fw_ptr(pa);

	memcpy(h->sig, sig, 4);
	h->length = len;
	h->revision = rev;
	memcpy(h->oem_id, "MMLAB ", 6);
	memcpy(h->oem_table_id, "SYNTHETC", 8);
	return pa;
}

paddr_t fw_table(const char *sig, u32 len, u8 rev)
{
	return fw_table_cap(sig, len, len, rev);
}

paddr_t fw_rsdp(u8 rev, paddr_t rsdt, paddr_t xsdt)
{
	paddr_t pa = fw_alloc(sizeof(struct acpi_rsdp));
	struct acpi_rsdp *r = fw_ptr(pa);

	memcpy(r->sig, "RSD PTR ", 8);
	memcpy(r->oem_id, "MMLAB ", 6);
	r->revision = rev;
	r->rsdt_address = (u32)rsdt;
	r->checksum = (u8)-acpi_checksum(r, ACPI_RSDP_V1_LEN);
	if (rev >= 2) {
		r->length = sizeof(*r);
		r->xsdt_address = xsdt;
		r->ext_checksum = (u8)-acpi_checksum(r, sizeof(*r));
	}
	return pa;
}

/* An XSDT (@xsdt) or RSDT listing @n tables, @extra stray bytes at the end. */
paddr_t fw_root(bool xsdt, const paddr_t *tables, unsigned n, u32 extra)
{
	u32 esize = xsdt ? 8 : 4;
	u32 len = sizeof(struct acpi_sdt_header) + n * esize + extra;
	paddr_t pa = fw_table(xsdt ? "XSDT" : "RSDT", len, 1);
	u8 *p = (u8 *)fw_ptr(pa) + sizeof(struct acpi_sdt_header);

	for (unsigned i = 0; i < n; i++) {
		u64 v64 = tables[i];
		u32 v32 = (u32)tables[i];

		memcpy(p + i * esize, xsdt ? (const void *)&v64 : (const void *)&v32, esize);
	}
	fw_fix(pa);
	return pa;
}

/* RSDP revision @rev: the RSDT lists @tables, and so does the XSDT for rev >= 2. */
paddr_t fw_boot(u8 rev, const paddr_t *tables, unsigned n)
{
	paddr_t rsdt = fw_root(false, tables, n, 0);
	paddr_t xsdt = rev >= 2 ? fw_root(true, tables, n, 0) : 0;

	return fw_rsdp(rev, rsdt, xsdt);
}

/* ---- MADT builder ---- */

struct fw_madt fw_madt_begin(u32 lapic, u32 flags, u32 cap)
{
	struct fw_madt m = { 0, sizeof(struct acpi_madt), cap };
	struct acpi_madt *h;

	m.pa = fw_table_cap("APIC", m.len, cap, 3);
	h = fw_ptr(m.pa);
	h->lapic_address = lapic;
	h->flags = flags;
	return m;
}

/* Appends an entry whose length field says @len but which takes @room bytes. */
u8 *fw_madt_raw(struct fw_madt *m, u8 type, u8 len, u32 room)
{
	u8 *e = (u8 *)fw_ptr(m->pa) + m->len;

	if (!KEXPECT_LE(fw_test, m->len + room, m->cap))
		return (u8 *)fw_ptr(m->pa) + sizeof(struct acpi_madt); /* scratch; case failed */
	e[0] = type;
	e[1] = len;
	m->len += room;
	return e;
}

void *fw_madt_add(struct fw_madt *m, u8 type, u8 len)
{
	return fw_madt_raw(m, type, len, len);
}

void fw_madt_lapic(struct fw_madt *m, u8 uid, u8 apic_id, u32 flags)
{
	struct acpi_madt_lapic *e = fw_madt_add(m, ACPI_MADT_LAPIC, sizeof(*e));

	e->uid = uid;
	e->apic_id = apic_id;
	e->flags = flags;
}

void fw_madt_x2apic(struct fw_madt *m, u32 x2apic_id, u32 flags, u32 uid)
{
	struct acpi_madt_x2apic *e = fw_madt_add(m, ACPI_MADT_X2APIC, sizeof(*e));

	e->x2apic_id = x2apic_id;
	e->flags = flags;
	e->uid = uid;
}

void fw_madt_ioapic(struct fw_madt *m, u8 id, u32 addr, u32 gsi_base)
{
	struct acpi_madt_ioapic *e = fw_madt_add(m, ACPI_MADT_IOAPIC, sizeof(*e));

	e->id = id;
	e->address = addr;
	e->gsi_base = gsi_base;
}

void fw_madt_override(struct fw_madt *m, u8 source, u32 gsi, u16 flags)
{
	struct acpi_madt_irq_override *e = fw_madt_add(m, ACPI_MADT_IRQ_OVERRIDE, sizeof(*e));

	e->source = source;
	e->gsi = gsi;
	e->flags = flags;
}

paddr_t fw_madt_end(struct fw_madt *m)
{
	struct acpi_sdt_header *h = fw_ptr(m->pa);

	h->length = m->len;
	fw_fix(m->pa);
	return m->pa;
}

/* What QEMU's pc machine lists for -smp 4: four CPUs, one I/O APIC, overrides, an NMI. */
paddr_t fw_qemu_madt(void)
{
	struct fw_madt m = fw_madt_begin(0xfee00000, ACPI_MADT_PCAT_COMPAT, 256);

	for (u8 i = 0; i < 4; i++)
		fw_madt_lapic(&m, i, i, ACPI_MADT_CPU_ENABLED);
	fw_madt_ioapic(&m, 0, 0xfec00000, 0);
	fw_madt_override(&m, 0, 2, 0);
	fw_madt_override(&m, 9, 9, 0xd);
	fw_madt_add(&m, ACPI_MADT_LAPIC_NMI, 6);
	return fw_madt_end(&m);
}

/* ---- SRAT and SLIT ---- */

struct fw_madt fw_srat_begin(u32 cap)
{
	struct fw_madt m = { 0, sizeof(struct acpi_srat), cap };
	struct acpi_srat *h;

	m.pa = fw_table_cap("SRAT", m.len, cap, 3);
	h = fw_ptr(m.pa);
	h->reserved1 = 1;
	return m;
}

void fw_srat_lapic(struct fw_madt *m, u8 apic_id, u32 pxm, u32 flags)
{
	struct acpi_srat_lapic *e = fw_madt_add(m, ACPI_SRAT_LAPIC, sizeof(*e));

	e->apic_id = apic_id;
	e->pxm_lo = (u8)pxm;
	e->pxm_hi[0] = (u8)(pxm >> 8);
	e->pxm_hi[1] = (u8)(pxm >> 16);
	e->pxm_hi[2] = (u8)(pxm >> 24);
	e->flags = flags;
}

void fw_srat_x2apic(struct fw_madt *m, u32 x2apic_id, u32 pxm, u32 flags)
{
	struct acpi_srat_x2apic *e = fw_madt_add(m, ACPI_SRAT_X2APIC, sizeof(*e));

	e->x2apic_id = x2apic_id;
	e->pxm = pxm;
	e->flags = flags;
}

void fw_srat_mem(struct fw_madt *m, u64 base, u64 len, u32 pxm, u32 flags)
{
	struct acpi_srat_mem *e = fw_madt_add(m, ACPI_SRAT_MEMORY, sizeof(*e));

	e->base = base;
	e->len = len;
	e->pxm = pxm;
	e->flags = flags;
}

paddr_t fw_slit(u32 n, const u8 *d)
{
	paddr_t pa = fw_table("SLIT", sizeof(struct acpi_slit) + n * n, 1);
	struct acpi_slit *s = fw_ptr(pa);

	s->nlocalities = n;
	memcpy((u8 *)s + sizeof(*s), d, n * n);
	fw_fix(pa);
	return pa;
}

/* ---- other tables ---- */

paddr_t fw_hpet(u64 base)
{
	paddr_t pa = fw_table("HPET", sizeof(struct acpi_hpet), 1);
	struct acpi_hpet *h = fw_ptr(pa);

	h->base.space_id = ACPI_GAS_MEMORY;
	h->base.address = base;
	h->min_tick = 128;
	fw_fix(pa);
	return pa;
}

paddr_t fw_fadt(u8 rev, u32 len, u16 boot_arch, u32 flags)
{
	paddr_t pa = fw_table("FACP", len, rev);
	u8 *p = fw_ptr(pa);

	memcpy(p + ACPI_FADT_BOOT_ARCH_OFFSET, &boot_arch, 2);
	memcpy(p + ACPI_FADT_FLAGS_OFFSET, &flags, 4);
	fw_fix(pa);
	return pa;
}

/* An SPCR of @rev; revision 4 tables carry @precise baud after the base layout. */
paddr_t fw_spcr(u8 rev, u8 type, u8 space, u64 addr, u8 baud, u32 precise)
{
	u32 len = sizeof(struct acpi_spcr) + (rev >= 4 ? 8 : 0);
	paddr_t pa = fw_table("SPCR", len, rev);
	struct acpi_spcr *s = fw_ptr(pa);

	s->interface_type = type;
	s->base.space_id = space;
	s->base.bit_width = space == ACPI_GAS_MEMORY ? 32 : 8;
	s->base.address = addr;
	s->irq = 3;
	s->baud = baud;
	if (rev >= 4)
		memcpy((u8 *)s + sizeof(*s), &precise, 4);
	fw_fix(pa);
	return pa;
}
