/*
 * ACPI table parser, shared by the kernel and the host tests: validates the
 * RSDP, walks the XSDT (or RSDT), checks each table's signature, length and
 * checksum, and decodes the MADT, SPCR, HPET and FADT into struct acpi_info.
 * Memory is read only through acpi_map(). A bad table is skipped, a bad MADT
 * entry ends or skips only itself, each with a message. Boot CPU, before APs.
 */
#include "arch/x86_64/acpi.h"
#include "errno.h"
#include "lib/format.h"
#include "lib/string.h"

/* Longer than any real table (a big DSDT is ~1 MiB): a larger length is garbage. */
#define ACPI_TABLE_MAX_LEN (16u << 20)
/* The RSDP is 36 bytes in every revision so far; allow future growth, not garbage. */
#define ACPI_RSDP_MAX_LEN 4096u

static acpi_map_fn *acpi_mapper;
/* The boot CPU's APIC ID: a MADT listing too many CPUs keeps this one. */
static u32 acpi_boot_apic = ACPI_APIC_ID_NONE;
/* The valid tables of the last acpi_parse(), for acpi_find_table(). */
static struct acpi_table_ref acpi_found[ACPI_MAX_TABLES];
static u32 acpi_nfound;

/**
 * acpi_set_map - install the physical memory accessor; returns the old one
 */
acpi_map_fn *acpi_set_map(acpi_map_fn *fn)
{
	acpi_map_fn *old = acpi_mapper;

	acpi_mapper = fn;
	return old;
}

/**
 * acpi_set_boot_apic_id - name the boot CPU's APIC ID; returns the old one
 */
u32 acpi_set_boot_apic_id(u32 apic_id)
{
	u32 old = acpi_boot_apic;

	acpi_boot_apic = apic_id;
	return old;
}

/**
 * acpi_map - @len bytes at physical @pa through the accessor, or NULL
 */
const void *acpi_map(paddr_t pa, size_t len)
{
	if (!acpi_mapper || len == 0)
		return NULL;
	return acpi_mapper(pa, len);
}

/**
 * acpi_checksum - byte sum of @len bytes at @p, mod 256 (0 means valid)
 */
u8 acpi_checksum(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

static __printf(2, 3) void acpi_warn(struct acpi_info *info, const char *fmt, ...)
{
	va_list ap;

	if (info->nmsgs == ACPI_MSG_MAX) {
		info->nmsgs_dropped++;
		return;
	}
	va_start(ap, fmt);
	fmt_vsnprintf(info->msgs[info->nmsgs++], ACPI_MSG_LEN, fmt, ap);
	va_end(ap);
}

static u16 get_u16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u32 get_u32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u64 get_u64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ACPI signatures are printable ASCII; anything else is a stray pointer. */
static bool acpi_sig_valid(const char *sig)
{
	for (int i = 0; i < 4; i++) {
		if (sig[i] < 0x20 || sig[i] > 0x7e)
			return false;
	}
	return true;
}

/*
 * Maps the table at @pa whole and checks it: signature @want (any printable
 * one when NULL), a length that holds the header, and the checksum.
 * Returns it, or NULL with a message.
 */
static const struct acpi_sdt_header *acpi_map_table(struct acpi_info *info, paddr_t pa,
						    const char *want)
{
	const struct acpi_sdt_header *h = acpi_map(pa, sizeof(*h));
	const char *what = want ? want : "table";
	u32 len;

	if (!h) {
		acpi_warn(info, "%s at %#lx: not reachable, skipped", what, pa);
		return NULL;
	}
	if (want ? memcmp(h->sig, want, 4) != 0 : !acpi_sig_valid(h->sig)) {
		acpi_warn(info, "%s at %#lx: bad signature, skipped", what, pa);
		return NULL;
	}
	len = h->length;
	if (len < sizeof(*h) || len > ACPI_TABLE_MAX_LEN) {
		acpi_warn(info, "%.4s at %#lx: bad length %u, skipped", h->sig, pa, len);
		return NULL;
	}
	h = acpi_map(pa, len);
	if (!h) {
		acpi_warn(info, "%s at %#lx: %u bytes not reachable, skipped", what, pa, len);
		return NULL;
	}
	if (acpi_checksum(h, len) != 0) {
		acpi_warn(info, "%.4s at %#lx: bad checksum, skipped", h->sig, pa);
		return NULL;
	}
	return h;
}

/* ---- RSDP and root table ---- */

struct acpi_roots {
	paddr_t xsdt, rsdt; /* 0 when absent or not trusted */
};

/* The XSDT address of a revision 2+ RSDP, or 0 when its extended part is bad. */
static paddr_t acpi_rsdp_xsdt(struct acpi_info *info, paddr_t pa)
{
	const struct acpi_rsdp *r = acpi_map(pa, sizeof(*r));
	u32 len;

	if (!r) {
		acpi_warn(info, "RSDP at %#lx: extended part not reachable; using the RSDT", pa);
		return 0;
	}
	len = r->length;
	if (len < sizeof(*r) || len > ACPI_RSDP_MAX_LEN) {
		acpi_warn(info, "RSDP at %#lx: bad length %u; using the RSDT", pa, len);
		return 0;
	}
	r = acpi_map(pa, len);
	if (!r || acpi_checksum(r, len) != 0) {
		acpi_warn(info, "RSDP at %#lx: bad extended checksum; using the RSDT", pa);
		return 0;
	}
	return r->xsdt_address;
}

/* The 6-byte OEM ID as a string: padding spaces dropped, odd bytes shown as '?'. */
static void acpi_copy_oem(char *dst, const char *src)
{
	int n = 6;

	for (int i = 0; i < 6; i++)
		dst[i] = src[i] >= 0x20 && src[i] <= 0x7e ? src[i] : '?';
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

static int acpi_read_rsdp(struct acpi_info *info, paddr_t pa, struct acpi_roots *roots)
{
	const struct acpi_rsdp *r = acpi_map(pa, ACPI_RSDP_V1_LEN);

	if (!r) {
		acpi_warn(info, "RSDP at %#lx: not reachable", pa);
		return -EINVAL;
	}
	if (memcmp(r->sig, "RSD PTR ", 8) != 0) {
		acpi_warn(info, "RSDP at %#lx: bad signature", pa);
		return -EINVAL;
	}
	if (acpi_checksum(r, ACPI_RSDP_V1_LEN) != 0) {
		acpi_warn(info, "RSDP at %#lx: bad checksum", pa);
		return -EINVAL;
	}
	info->revision = r->revision;
	acpi_copy_oem(info->oem_id, r->oem_id);
	roots->rsdt = r->rsdt_address;
	roots->xsdt = r->revision >= 2 ? acpi_rsdp_xsdt(info, pa) : 0;
	if (!roots->xsdt && !roots->rsdt) {
		acpi_warn(info, "RSDP at %#lx: no usable RSDT or XSDT address", pa);
		return -EINVAL;
	}
	return 0;
}

static bool acpi_table_listed(const struct acpi_info *info, paddr_t pa)
{
	for (u32 i = 0; i < info->ntables; i++) {
		if (info->tables[i].pa == pa)
			return true;
	}
	return false;
}

static void acpi_add_table(struct acpi_info *info, paddr_t pa)
{
	const struct acpi_sdt_header *h;
	struct acpi_table_ref *ref;

	if (acpi_table_listed(info, pa))
		return;
	h = pa ? acpi_map_table(info, pa, NULL) : NULL;
	if (!h) {
		if (!pa)
			acpi_warn(info, "root table lists a null table address, skipped");
		info->nbad_tables++;
		return;
	}
	ref = &info->tables[info->ntables++];
	memcpy(ref->sig, h->sig, 4);
	ref->length = h->length;
	ref->pa = pa;
}

/* Validates the XSDT (@xsdt) or RSDT at @pa and records each valid table it lists. */
static int acpi_walk_root(struct acpi_info *info, paddr_t pa, bool xsdt)
{
	const struct acpi_sdt_header *h = acpi_map_table(info, pa, xsdt ? "XSDT" : "RSDT");
	u32 esize = xsdt ? 8 : 4;
	const u8 *entries;
	u32 n;

	if (!h)
		return -EINVAL;
	entries = (const u8 *)(h + 1);
	n = (h->length - sizeof(*h)) / esize;
	if ((h->length - sizeof(*h)) % esize)
		acpi_warn(info, "%.4s at %#lx: truncated entry at the end, ignored", h->sig, pa);
	if (n > ACPI_MAX_TABLES) {
		acpi_warn(info, "%.4s lists %u tables; only the first %u are read", h->sig, n,
			  ACPI_MAX_TABLES);
		n = ACPI_MAX_TABLES;
	}
	info->xsdt = xsdt;
	info->root = pa;
	for (u32 i = 0; i < n; i++)
		acpi_add_table(info, xsdt ? get_u64(entries + i * 8) : get_u32(entries + i * 4));
	return 0;
}

/* The XSDT when the RSDP offers a trusted one, else (or when it is bad) the RSDT. */
static int acpi_walk(struct acpi_info *info, const struct acpi_roots *roots)
{
	if (roots->xsdt && acpi_walk_root(info, roots->xsdt, true) == 0)
		return 0;
	if (roots->rsdt && acpi_walk_root(info, roots->rsdt, false) == 0)
		return 0;
	return -EINVAL;
}

/**
 * acpi_find_table - the @index'th valid table named @sig from the last parse
 */
const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned index)
{
	for (u32 i = 0; i < acpi_nfound; i++) {
		if (memcmp(acpi_found[i].sig, sig, 4) != 0)
			continue;
		if (index-- == 0)
			return acpi_map(acpi_found[i].pa, acpi_found[i].length);
	}
	return NULL;
}

/* ---- MADT ---- */

/**
 * acpi_madt_has_apic_id - whether @m lists a usable CPU with @apic_id
 */
bool acpi_madt_has_apic_id(const struct acpi_madt_info *m, u32 apic_id)
{
	for (u32 i = 0; i < m->ncpus; i++) {
		if (m->cpu[i].apic_id == apic_id)
			return true;
	}
	return false;
}

/**
 * acpi_madt_cpu_order - enabled CPUs' APIC IDs, the boot CPU's first; returns how many
 */
unsigned acpi_madt_cpu_order(const struct acpi_madt_info *m, u32 boot_apic, u32 *ids)
{
	unsigned n = 0;

	for (u32 i = 0; i < m->ncpus; i++) {
		if (m->cpu[i].apic_id == boot_apic && m->cpu[i].enabled)
			ids[n++] = boot_apic;
	}
	for (u32 i = 0; i < m->ncpus; i++) {
		if (m->cpu[i].apic_id != boot_apic && m->cpu[i].enabled)
			ids[n++] = m->cpu[i].apic_id;
	}
	return n;
}

/*
 * Lists a CPU entry's CPU. Beyond MAX_CPUS a CPU is counted and left out,
 * except the boot CPU: it runs whatever the table says, so it takes the
 * last place from the CPU listed there.
 */
static void acpi_madt_cpu(struct acpi_info *info, u32 apic_id, u32 uid, u32 flags, bool x2)
{
	struct acpi_madt_info *m = &info->madt;
	struct acpi_cpu *c;

	if (!(flags & (ACPI_MADT_CPU_ENABLED | ACPI_MADT_CPU_ONLINE_CAPABLE))) {
		m->ndisabled++;
		return;
	}
	/* Firmware may list one CPU as both type 0 and type 9: keep the first. */
	if (acpi_madt_has_apic_id(m, apic_id)) {
		m->nduplicates++;
		return;
	}
	if (m->ncpus == MAX_CPUS) {
		m->nignored++;
		m->truncated = true;
		if (apic_id != acpi_boot_apic)
			return;
		acpi_warn(info,
			  "MADT: boot CPU (APIC ID %u) listed beyond MAX_CPUS, kept in place of %u",
			  apic_id, m->cpu[m->ncpus - 1].apic_id);
		m->ncpus--;
	}
	c = &m->cpu[m->ncpus++];
	c->apic_id = apic_id;
	c->uid = uid;
	c->enabled = flags & ACPI_MADT_CPU_ENABLED;
	c->online_capable = flags & ACPI_MADT_CPU_ONLINE_CAPABLE;
	c->x2apic_entry = x2;
}

static void acpi_madt_lapic(struct acpi_info *info, const struct acpi_madt_lapic *l)
{
	/* 0xff is the xAPIC broadcast ID: no CPU can have it (SDM vol 3A 10.6.1). */
	if (l->apic_id == 0xff &&
	    (l->flags & (ACPI_MADT_CPU_ENABLED | ACPI_MADT_CPU_ONLINE_CAPABLE))) {
		acpi_warn(info, "MADT: CPU uid %u has APIC ID 0xff, skipped", l->uid);
		info->madt.nbad_entries++;
		return;
	}
	acpi_madt_cpu(info, l->apic_id, l->uid, l->flags, false);
}

static void acpi_madt_x2apic(struct acpi_info *info, const struct acpi_madt_x2apic *x)
{
	/* 0xffffffff is the x2APIC broadcast ID (SDM vol 3A 10.12.9): an INIT to it reaches all. */
	if (x->x2apic_id == 0xffffffffu &&
	    (x->flags & (ACPI_MADT_CPU_ENABLED | ACPI_MADT_CPU_ONLINE_CAPABLE))) {
		acpi_warn(info, "MADT: CPU uid %u has x2APIC ID 0xffffffff, skipped", x->uid);
		info->madt.nbad_entries++;
		return;
	}
	acpi_madt_cpu(info, x->x2apic_id, x->uid, x->flags, true);
}

static void acpi_madt_ioapic(struct acpi_madt_info *m, const struct acpi_madt_ioapic *e)
{
	if (m->nioapic == ACPI_MAX_IOAPICS) {
		m->nioapic_ignored++;
		return;
	}
	m->ioapic[m->nioapic++] = (struct acpi_ioapic){ e->id, e->address, e->gsi_base };
}

static void acpi_madt_override(struct acpi_madt_info *m, const struct acpi_madt_irq_override *e)
{
	if (m->noverrides == ACPI_MAX_OVERRIDES) {
		m->noverrides_ignored++;
		return;
	}
	m->override[m->noverrides++] =
	    (struct acpi_irq_override){ e->bus, e->source, e->gsi, e->flags };
}

/* Smallest valid length of each entry type we decode (ACPI 6.5 5.2.12). */
static const u8 acpi_madt_min_len[] = {
	[ACPI_MADT_LAPIC] = sizeof(struct acpi_madt_lapic),
	[ACPI_MADT_IOAPIC] = sizeof(struct acpi_madt_ioapic),
	[ACPI_MADT_IRQ_OVERRIDE] = sizeof(struct acpi_madt_irq_override),
	[ACPI_MADT_NMI_SOURCE] = 8,
	[ACPI_MADT_LAPIC_NMI] = 6,
	[ACPI_MADT_LAPIC_OVERRIDE] = sizeof(struct acpi_madt_lapic_override),
	[ACPI_MADT_X2APIC] = sizeof(struct acpi_madt_x2apic),
	[ACPI_MADT_X2APIC_NMI] = 12,
};

static void acpi_madt_entry(struct acpi_info *info, const struct acpi_madt_entry *e, u32 off)
{
	struct acpi_madt_info *m = &info->madt;
	const struct acpi_madt_lapic_override *lo = (const void *)e;

	if (e->type < ARRAY_SIZE(acpi_madt_min_len) && e->length < acpi_madt_min_len[e->type]) {
		acpi_warn(info, "MADT entry type %u at offset %u: length %u is too short, skipped",
			  e->type, off, e->length);
		m->nbad_entries++;
		return;
	}
	switch (e->type) {
	case ACPI_MADT_LAPIC:
		acpi_madt_lapic(info, (const void *)e);
		break;
	case ACPI_MADT_X2APIC:
		acpi_madt_x2apic(info, (const void *)e);
		break;
	case ACPI_MADT_IOAPIC:
		acpi_madt_ioapic(m, (const void *)e);
		break;
	case ACPI_MADT_IRQ_OVERRIDE:
		acpi_madt_override(m, (const void *)e);
		break;
	case ACPI_MADT_LAPIC_NMI:
	case ACPI_MADT_X2APIC_NMI:
		m->nnmi++;
		break;
	case ACPI_MADT_LAPIC_OVERRIDE:
		m->lapic_base = lo->address;
		m->lapic_override = true;
		break;
	default: /* other controllers (SAPIC, GIC, ...) and future types */
		break;
	}
}

/* Walks the entries; a length that cannot be followed ends the walk (never loops). */
static void acpi_madt_walk(struct acpi_info *info, const struct acpi_madt *madt)
{
	const u8 *base = (const u8 *)madt;
	u32 end = madt->hdr.length;
	u32 off = sizeof(*madt);

	while (off < end) {
		const struct acpi_madt_entry *e = (const void *)(base + off);

		if (end - off < sizeof(*e) || e->length < sizeof(*e) || e->length > end - off) {
			acpi_warn(info,
				  "MADT entry at offset %u: length %u does not fit, rest ignored",
				  off, end - off < sizeof(*e) ? 0 : e->length);
			info->madt.nbad_entries++;
			return;
		}
		acpi_madt_entry(info, e, off);
		off += e->length;
	}
}

static void acpi_madt_limits(struct acpi_info *info)
{
	const struct acpi_madt_info *m = &info->madt;

	if (m->truncated)
		acpi_warn(info, "MADT: %u usable CPUs beyond MAX_CPUS=%u ignored", m->nignored,
			  (unsigned)MAX_CPUS);
	if (m->nioapic_ignored)
		acpi_warn(info, "MADT: %u I/O APICs beyond %u ignored", m->nioapic_ignored,
			  ACPI_MAX_IOAPICS);
	if (m->noverrides_ignored)
		acpi_warn(info, "MADT: %u interrupt overrides beyond %u ignored",
			  m->noverrides_ignored, ACPI_MAX_OVERRIDES);
}

static int acpi_parse_madt(struct acpi_info *info)
{
	const struct acpi_madt *madt = (const void *)acpi_find_table("APIC", 0);
	struct acpi_madt_info *m = &info->madt;

	if (!madt) {
		acpi_warn(info, "no valid MADT: running on one CPU");
		return -ENOENT;
	}
	if (madt->hdr.length < sizeof(*madt)) {
		acpi_warn(info, "MADT: length %u is too short: running on one CPU",
			  madt->hdr.length);
		return -ENOENT;
	}
	m->present = true;
	m->lapic_base = madt->lapic_address;
	m->pcat_compat = madt->flags & ACPI_MADT_PCAT_COMPAT;
	acpi_madt_walk(info, madt);
	acpi_madt_limits(info);
	if (!m->ncpus) {
		acpi_warn(info, "MADT lists no usable CPU: running on one CPU");
		return -ENOENT;
	}
	return 0;
}

/* ---- SPCR, HPET, FADT ---- */

/* The SPCR baud rate; 0 means "as the firmware left the UART". */
static u32 acpi_spcr_baud(struct acpi_info *info, const struct acpi_spcr *s)
{
	/* Revision 4 adds a precise rate at offset 80 that overrides the code. */
	if (s->hdr.revision >= 4 && s->hdr.length >= sizeof(*s) + 4) {
		u32 precise = get_u32((const u8 *)s + sizeof(*s));

		if (precise)
			return precise;
	}
	switch (s->baud) {
	case 0:
		return 0;
	case 3:
		return 9600;
	case 4:
		return 19200;
	case 6:
		return 57600;
	case 7:
		return 115200;
	default:
		acpi_warn(info, "SPCR: unknown baud rate code %u; keeping the firmware's", s->baud);
		return 0;
	}
}

static void acpi_parse_spcr(struct acpi_info *info)
{
	const struct acpi_spcr *s = (const void *)acpi_find_table("SPCR", 0);
	struct acpi_spcr_info *o = &info->spcr;

	if (!s)
		return;
	if (s->hdr.length < sizeof(*s)) {
		acpi_warn(info, "SPCR: length %u is too short, ignored", s->hdr.length);
		return;
	}
	if (s->base.space_id != ACPI_GAS_IO && s->base.space_id != ACPI_GAS_MEMORY) {
		acpi_warn(info, "SPCR: address space %u is neither I/O nor memory, ignored",
			  s->base.space_id);
		return;
	}
	/* A zero address means console redirection is disabled. */
	if (!s->base.address)
		return;
	o->present = true;
	o->interface_type = s->interface_type;
	o->space_id = s->base.space_id;
	o->mmio = s->base.space_id == ACPI_GAS_MEMORY;
	o->bit_width = s->base.bit_width;
	o->address = s->base.address;
	o->baud = acpi_spcr_baud(info, s);
	o->interrupt_type = s->interrupt_type;
	o->irq = s->irq;
	o->gsi = s->gsi;
}

static void acpi_parse_hpet(struct acpi_info *info)
{
	const struct acpi_hpet *h = (const void *)acpi_find_table("HPET", 0);

	if (!h)
		return;
	if (h->hdr.length < sizeof(*h)) {
		acpi_warn(info, "HPET: length %u is too short, ignored", h->hdr.length);
		return;
	}
	if (h->base.space_id != ACPI_GAS_MEMORY || !h->base.address) {
		acpi_warn(info, "HPET: base %#lx in address space %u is unusable, ignored",
			  (unsigned long)h->base.address, h->base.space_id);
		return;
	}
	info->hpet.present = true;
	info->hpet.base = h->base.address;
	info->hpet.number = h->number;
	info->hpet.min_tick = h->min_tick;
}

static void acpi_parse_fadt(struct acpi_info *info)
{
	const struct acpi_sdt_header *h = acpi_find_table("FACP", 0);
	struct acpi_fadt_info *f = &info->fadt;
	const u8 *p = (const u8 *)h;

	if (!h)
		return;
	f->present = true;
	f->revision = h->revision;
	if (h->length >= ACPI_FADT_FLAGS_OFFSET + 4) {
		f->flags_valid = true;
		f->flags = get_u32(p + ACPI_FADT_FLAGS_OFFSET);
	}
	if (h->revision >= ACPI_FADT_BOOT_ARCH_REV && h->length >= ACPI_FADT_BOOT_ARCH_OFFSET + 2) {
		f->boot_arch_valid = true;
		f->boot_arch = get_u16(p + ACPI_FADT_BOOT_ARCH_OFFSET);
	}
}

/**
 * acpi_parse - parse the tables reached from the RSDP at @rsdp into @out
 *
 * See acpi.h for the return values; @out always holds what validated.
 */
int acpi_parse(paddr_t rsdp, struct acpi_info *out)
{
	struct acpi_roots roots;
	int err;

	memset(out, 0, sizeof(*out));
	acpi_nfound = 0;
	out->rsdp = rsdp;
	if (!rsdp) {
		acpi_warn(out, "no RSDP found: running on one CPU");
		return -ENOENT;
	}
	err = acpi_read_rsdp(out, rsdp, &roots);
	if (!err)
		err = acpi_walk(out, &roots);
	if (err)
		return err;
	memcpy(acpi_found, out->tables, out->ntables * sizeof(out->tables[0]));
	acpi_nfound = out->ntables;
	acpi_parse_fadt(out);
	acpi_parse_hpet(out);
	acpi_parse_spcr(out);
	return acpi_parse_madt(out);
}
