/*
 * SRAT and SLIT parser, shared by the kernel and the host tests (see
 * acpi_numa.h). Two walks of the SRAT: the first collects the proximity
 * domains of enabled entries (they become nodes in ascending order), the
 * second records CPUs and memory by node. The SLIT is read for those
 * domains only and must say 10 on its diagonal and more elsewhere, or it
 * is dropped. Single-threaded: the boot CPU, after acpi_parse().
 */
#include "arch/x86_64/acpi_numa.h"
#include "lib/format.h"
#include "lib/string.h"

/* A SLIT larger than this is garbage (the matrix would pass the table length limit anyway). */
#define ACPI_SLIT_MAX_LOCALITIES 4096u

static __printf(2, 3) void numa_warn(struct acpi_numa_info *n, const char *fmt, ...)
{
	va_list ap;

	if (n->nmsgs == ACPI_MSG_MAX)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(n->msgs[n->nmsgs++], ACPI_MSG_LEN, fmt, ap);
	va_end(ap);
}

/* One SRAT entry decoded: what both walks need. */
struct srat_entry {
	u8 type;
	bool enabled;
	u32 pxm;
	const u8 *p;
};

static u32 get_u32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The entry's minimum length, or 0 for types not read here. */
static u8 srat_min_len(u8 type)
{
	switch (type) {
	case ACPI_SRAT_LAPIC:
		return sizeof(struct acpi_srat_lapic);
	case ACPI_SRAT_MEMORY:
		return sizeof(struct acpi_srat_mem);
	case ACPI_SRAT_X2APIC:
		return sizeof(struct acpi_srat_x2apic);
	default:
		return 0;
	}
}

static void srat_decode(const u8 *p, struct srat_entry *e)
{
	struct acpi_srat_lapic l;
	struct acpi_srat_mem m;
	struct acpi_srat_x2apic x;

	e->type = p[0];
	e->p = p;
	if (e->type == ACPI_SRAT_LAPIC) {
		memcpy(&l, p, sizeof(l));
		e->pxm = l.pxm_lo | l.pxm_hi[0] << 8 | l.pxm_hi[1] << 16 | (u32)l.pxm_hi[2] << 24;
		e->enabled = l.flags & ACPI_SRAT_ENABLED;
	} else if (e->type == ACPI_SRAT_MEMORY) {
		memcpy(&m, p, sizeof(m));
		e->pxm = m.pxm;
		e->enabled = m.flags & ACPI_SRAT_ENABLED;
	} else {
		memcpy(&x, p, sizeof(x));
		e->pxm = x.pxm;
		e->enabled = x.flags & ACPI_SRAT_ENABLED;
	}
}

typedef void srat_fn(struct acpi_numa_info *n, const struct srat_entry *e);

/*
 * Calls @fn for every well-formed entry of a type read here. A length
 * that runs past the table (or below 2) ends the walk; one too short for
 * its type skips that entry. Only the first walk counts them.
 */
static void srat_walk(struct acpi_numa_info *n, const struct acpi_sdt_header *h, srat_fn *fn,
		      bool count)
{
	const u8 *p = (const u8 *)h;
	u32 off = sizeof(struct acpi_srat);
	struct srat_entry e;

	while (off + 2 <= h->length) {
		u8 type = p[off], len = p[off + 1];

		if (len < 2 || off + len > h->length) {
			if (count) {
				n->nbad_entries++;
				numa_warn(n, "SRAT entry at offset %u: bad length %u, rest skipped",
					  off, len);
			}
			return;
		}
		if (srat_min_len(type) && len < srat_min_len(type)) {
			if (count) {
				n->nbad_entries++;
				numa_warn(n, "SRAT type %u entry at offset %u: length %u too short",
					  type, off, len);
			}
		} else if (srat_min_len(type)) {
			srat_decode(p + off, &e);
			n->ndisabled += count && !e.enabled;
			if (e.enabled)
				fn(n, &e);
		}
		off += len;
	}
}

/* First walk: the sorted set of proximity domains. */
static void srat_add_pxm(struct acpi_numa_info *n, const struct srat_entry *e)
{
	u32 i = 0;

	while (i < n->nnodes && n->pxm[i] < e->pxm)
		i++;
	if (i < n->nnodes && n->pxm[i] == e->pxm)
		return;
	if (n->nnodes == MACHINE_MAX_NODES) {
		n->nignored++;
		numa_warn(n, "SRAT proximity domain %u: more than %u nodes, left out", e->pxm,
			  MACHINE_MAX_NODES);
		return;
	}
	memmove(&n->pxm[i + 1], &n->pxm[i], (n->nnodes - i) * sizeof(n->pxm[0]));
	n->pxm[i] = e->pxm;
	n->nnodes++;
}

static int pxm_node(const struct acpi_numa_info *n, u32 pxm)
{
	for (u32 i = 0; i < n->nnodes; i++)
		if (n->pxm[i] == pxm)
			return (int)i;
	return -1;
}

static void srat_add_cpu(struct acpi_numa_info *n, u32 apic_id, u32 node, bool x2)
{
	if (acpi_numa_cpu_node(n, apic_id) >= 0) {
		numa_warn(n, "SRAT lists APIC ID %u twice; the first entry kept", apic_id);
		return;
	}
	if (n->ncpus == MAX_CPUS) {
		n->nignored++;
		return;
	}
	n->cpu[n->ncpus++] = (struct acpi_numa_cpu){ apic_id, node, x2 };
}

static void srat_add_mem(struct acpi_numa_info *n, const struct acpi_srat_mem *m, u32 node)
{
	if (m->len == 0 || m->base + m->len < m->base) {
		numa_warn(n, "SRAT memory %#lx+%#lx: empty or wrapping, skipped",
			  (unsigned long)m->base, (unsigned long)m->len);
		return;
	}
	if (n->nmem == ACPI_NUMA_MAX_MEM) {
		n->nignored++;
		return;
	}
	n->mem[n->nmem++] = (struct acpi_numa_mem){ m->base, m->base + m->len, node,
						     m->flags & ACPI_SRAT_MEM_HOTPLUG };
}

/* Second walk: each enabled entry under its node. */
static void srat_add_entry(struct acpi_numa_info *n, const struct srat_entry *e)
{
	int node = pxm_node(n, e->pxm);
	struct acpi_srat_mem m;

	if (node < 0)
		return; /* its domain was left out (beyond MACHINE_MAX_NODES) */
	if (e->type == ACPI_SRAT_LAPIC) {
		srat_add_cpu(n, e->p[3], (u32)node, false);
	} else if (e->type == ACPI_SRAT_X2APIC) {
		srat_add_cpu(n, get_u32(e->p + 8), (u32)node, true);
	} else {
		memcpy(&m, e->p, sizeof(m));
		srat_add_mem(n, &m, (u32)node);
	}
}

/* Whether the SLIT's matrix is what ACPI 6.5 5.2.17 allows for our nodes. */
static bool slit_check(struct acpi_numa_info *n)
{
	for (u32 i = 0; i < n->nnodes; i++) {
		for (u32 j = 0; j < n->nnodes; j++) {
			u8 d = n->distance[i][j];

			if (i == j ? d == ACPI_SLIT_LOCAL : d > ACPI_SLIT_LOCAL)
				continue;
			numa_warn(n, "SLIT distance %u from domain %u to %u is invalid; SLIT ignored",
				  d, n->pxm[i], n->pxm[j]);
			return false;
		}
	}
	return true;
}

static void slit_parse(struct acpi_numa_info *n, const struct acpi_sdt_header *h)
{
	const u8 *p = (const u8 *)h;
	u64 nloc;

	if (h->length < sizeof(struct acpi_slit)) {
		numa_warn(n, "SLIT: length %u too short; ignored", h->length);
		return;
	}
	memcpy(&nloc, p + offsetof(struct acpi_slit, nlocalities), sizeof(nloc));
	if (nloc > ACPI_SLIT_MAX_LOCALITIES || sizeof(struct acpi_slit) + nloc * nloc > h->length) {
		numa_warn(n, "SLIT: %lu localities do not fit its %u bytes; ignored",
			  (unsigned long)nloc, h->length);
		return;
	}
	if (n->nnodes && n->pxm[n->nnodes - 1] >= nloc) {
		numa_warn(n, "SLIT: %lu localities, but the SRAT names domain %u; ignored",
			  (unsigned long)nloc, n->pxm[n->nnodes - 1]);
		return;
	}
	p += sizeof(struct acpi_slit);
	for (u32 i = 0; i < n->nnodes; i++)
		for (u32 j = 0; j < n->nnodes; j++)
			n->distance[i][j] = p[n->pxm[i] * nloc + n->pxm[j]];
	n->slit = slit_check(n);
}

/**
 * acpi_numa_parse_tables - SRAT and SLIT into @out; returns the node count
 */
u32 acpi_numa_parse_tables(const struct acpi_sdt_header *srat, const struct acpi_sdt_header *slit,
			   struct acpi_numa_info *out)
{
	memset(out, 0, sizeof(*out));
	if (srat && srat->length < sizeof(struct acpi_srat)) {
		numa_warn(out, "SRAT: length %u too short; ignored", srat->length);
		srat = NULL;
	}
	if (srat) {
		srat_walk(out, srat, srat_add_pxm, true);
		srat_walk(out, srat, srat_add_entry, false);
		out->srat = out->nnodes > 0;
		if (!out->srat)
			numa_warn(out, "SRAT lists no enabled entry; one node");
	}
	if (!out->srat) {
		memset(out->pxm, 0, sizeof(out->pxm));
		out->nnodes = 1;
		out->ncpus = out->nmem = 0;
	}
	if (slit && out->srat)
		slit_parse(out, slit);
	else if (slit)
		numa_warn(out, "SLIT without a usable SRAT; ignored");
	return out->nnodes;
}

/**
 * acpi_numa_parse - acpi_numa_parse_tables() over the tables acpi_parse() found
 */
u32 acpi_numa_parse(struct acpi_numa_info *out)
{
	return acpi_numa_parse_tables(acpi_find_table("SRAT", 0), acpi_find_table("SLIT", 0), out);
}

/**
 * acpi_numa_cpu_node - the SRAT's node of the CPU with @apic_id, or -1
 */
int acpi_numa_cpu_node(const struct acpi_numa_info *n, u32 apic_id)
{
	for (u32 i = 0; i < n->ncpus; i++)
		if (n->cpu[i].apic_id == apic_id)
			return (int)n->cpu[i].node;
	return -1;
}
