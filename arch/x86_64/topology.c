/*
 * CPU topology from APIC IDs (see topology.h), portable: CPUID values come
 * in as data. The split of an APIC ID into thread, core and package comes
 * from the first source that answers: leaf 0x1f, leaf 0xb, AMD's extended
 * leaves, the legacy leaf 1 and 4 counts. Nodes come from the SRAT, and
 * where the SRAT and CPUID disagree the table says so in a message.
 * Single-threaded: the boot CPU, before the APs start.
 */
#include "arch/x86_64/topology.h"
#include "lib/format.h"
#include "lib/string.h"

#define LEVEL_SMT 1 /* CPUID 0xb/0x1f ECX[15:8] level types (SDM vol 2A) */
#define AMD_TOPOEXT (1u << 22) /* CPUID 0x80000001 ECX: leaf 0x8000001e exists */
#define CPUID_HTT (1u << 28)   /* CPUID 1 EDX: leaf 1 EBX[23:16] is meaningful */

static __printf(2, 3) void topo_warn(struct topo_info *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nmsgs == TOPO_MSG_MAX)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(t->msgs[t->nmsgs++], TOPO_MSG_LEN, fmt, ap);
	va_end(ap);
}

/* Bits needed to number @n things. */
static u32 log2_ceil(u32 n)
{
	u32 s = 0;

	while (s < 31 && (1u << s) < n)
		s++;
	return s;
}

/* Leaf 0x1f or 0xb: each level's EAX[4:0] shifts the APIC ID to the next level's ID. */
static bool shifts_v2(const struct topo_cpuid *c, struct topo_shifts *s)
{
	bool found = false;

	s->smt = s->pkg = 0;
	for (u32 i = 0; c->v2_leaf && i < TOPO_MAX_LEVELS; i++) {
		u32 type = (c->v2[i].ecx >> 8) & 0xff, shift = c->v2[i].eax & 0x1f;

		if (type == 0)
			break;
		if (type == LEVEL_SMT)
			s->smt = shift;
		s->pkg = MAX(s->pkg, shift);
		found = true;
	}
	s->source = c->v2_leaf == 0x1f ? "cpuid.1f" : "cpuid.b";
	return found;
}

/* AMD APM vol 3, E.4.7 and E.4.15: ID size from 0x80000008, threads a core from 0x8000001e. */
static bool shifts_amd(const struct topo_cpuid *c, struct topo_shifts *s)
{
	u32 size;

	if (!c->amd || c->max_ext < 0x80000008)
		return false;
	size = (c->ext8.ecx >> 12) & 0xf;
	s->pkg = size ? size : log2_ceil((c->ext8.ecx & 0xff) + 1);
	s->smt = 0;
	if (c->max_ext >= 0x8000001e && (c->ext1.ecx & AMD_TOPOEXT))
		s->smt = MIN(log2_ceil(((c->ext1e.ebx >> 8) & 0xff) + 1), s->pkg);
	s->source = "amd";
	return true;
}

/* Leaf 1 EBX[23:16] logical CPUs per package, leaf 4 EAX[31:26] cores per package - 1. */
static bool shifts_legacy(const struct topo_cpuid *c, struct topo_shifts *s)
{
	u32 logical, cores = 1;

	if (c->max_leaf < 1 || !(c->leaf1.edx & CPUID_HTT))
		return false;
	logical = (c->leaf1.ebx >> 16) & 0xff;
	if (c->max_leaf >= 4 && !c->amd)
		cores = ((c->leaf4.eax >> 26) & 0x3f) + 1;
	s->pkg = log2_ceil(logical);
	s->smt = s->pkg - MIN(log2_ceil(cores), s->pkg);
	s->source = "legacy";
	return true;
}

/**
 * topo_shifts_from - how an APIC ID splits into thread, core and package
 */
void topo_shifts_from(const struct topo_cpuid *c, struct topo_shifts *s)
{
	if (shifts_v2(c, s) || shifts_amd(c, s) || shifts_legacy(c, s))
		return;
	*s = (struct topo_shifts){ 0, 0, "none" }; /* each CPU a package of its own */
}

static void topo_place(struct topo_info *out, const struct acpi_numa_info *numa, u32 i)
{
	struct topo_cpu *c = &out->cpu[i];
	int node = acpi_numa_cpu_node(numa, c->apic_id);

	if (node < 0 && numa->srat)
		topo_warn(out, "topology: CPU %u (APIC ID %u) is not in the SRAT; put in node 0", i,
			  c->apic_id);
	c->node = node < 0 ? 0 : (u32)node;
}

/* SMT siblings share a core's caches and TLB: the SRAT splitting them is a firmware bug. */
static void topo_check_siblings(struct topo_info *out)
{
	for (u32 i = 0; i < out->ncpus; i++) {
		const struct topo_cpu *a = &out->cpu[i];

		for (u32 j = 0; j < i; j++) {
			const struct topo_cpu *b = &out->cpu[j];

			if (a->package != b->package || a->core != b->core || a->node == b->node)
				continue;
			topo_warn(out, "topology: SMT siblings APIC %u and %u (package %u core %u) "
				       "are in SRAT nodes %u and %u",
				  b->apic_id, a->apic_id, a->package, a->core, b->node, a->node);
			return;
		}
	}
}

/**
 * topo_build - each CPU's package, core, thread and node; disagreements as messages
 */
void topo_build(struct topo_info *out, const struct topo_shifts *s, const u32 *apic_ids, u32 n,
		const struct acpi_numa_info *numa)
{
	u32 core_mask = (1u << (s->pkg - s->smt)) - 1, listed = 0;

	memset(out, 0, sizeof(*out));
	out->shifts = *s;
	out->nnodes = numa->nnodes;
	out->distance_valid = numa->slit;
	if (numa->slit)
		memcpy(out->distance, numa->distance, sizeof(out->distance));
	out->ncpus = MIN(n, (u32)MAX_CPUS);
	for (u32 i = 0; i < out->ncpus; i++) {
		u32 id = apic_ids[i];

		out->cpu[i] = (struct topo_cpu){ .apic_id = id,
						 .package = id >> s->pkg,
						 .core = (id >> s->smt) & core_mask,
						 .thread = id & ((1u << s->smt) - 1) };
		topo_place(out, numa, i);
		listed += acpi_numa_cpu_node(numa, id) >= 0;
	}
	topo_check_siblings(out);
	if (numa->srat && numa->ncpus > listed)
		topo_warn(out, "topology: the SRAT lists %u CPUs the MADT does not",
			  numa->ncpus - listed);
}

/**
 * topo_cross_check - a message when AMD's leaves split APIC IDs otherwise than @s
 *
 * Only when @s came from leaf 0xb or 0x1f and the AMD leaves answer too.
 */
void topo_cross_check(const struct topo_cpuid *c, const struct topo_shifts *s,
		      struct topo_info *out)
{
	struct topo_shifts amd;
	bool smt_known = c->max_ext >= 0x8000001e && (c->ext1.ecx & AMD_TOPOEXT);

	if (!c->v2_leaf || strcmp(s->source, "amd") == 0 || !shifts_amd(c, &amd))
		return;
	/* Without TOPOEXT the AMD leaves say nothing of threads (QEMU's TCG "max" CPU). */
	if (amd.pkg == s->pkg && (amd.smt == s->smt || !smt_known))
		return;
	topo_warn(out, "topology: CPUID %s gives thread bits %u, core bits %u; the AMD leaves %u, %u",
		  s->source, s->smt, s->pkg - s->smt, amd.smt, amd.pkg - amd.smt);
}

/**
 * topo_find - the entry of @t for @apic_id, or NULL
 */
const struct topo_cpu *topo_find(const struct topo_info *t, u32 apic_id)
{
	for (u32 i = 0; i < t->ncpus; i++)
		if (t->cpu[i].apic_id == apic_id)
			return &t->cpu[i];
	return NULL;
}
