/*
 * The kernel side of the CPU topology (kernel only; the derivation is
 * topology.c): CPUID read on the boot CPU, the table built over the MADT's
 * CPUs before bring-up, each online CPU's node for arch_cpu_node() after
 * it, the "# topology:" boot lines and the header's "topology" object.
 * topology_init() and topology_bind_cpus() run on the boot CPU alone;
 * arch_cpu_node() reads a table nobody writes after that.
 */
#include "arch/x86_64/topology.h"
#include "arch/x86_64/cpuinfo.h"
#include "kernel/json.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include <arch/arch.h>

/*
 * The header is one line of bounded length, and fields follow "topology"
 * (memory, compiler, trace, timing): the per-CPU list goes in only if it
 * leaves this much room, else "cpus" is null and the boot line says why.
 */
#define TOPO_HEADER_RESERVE 768

static struct acpi_numa_info topo_numa;
static struct topo_info topo;
static u8 topo_cpu_node[MAX_CPUS]; /* by logical CPU number, after topology_bind_cpus() */

void topo_cpuid_read(struct topo_cpuid *c)
{
	u32 leaf = 0;

	*c = (struct topo_cpuid){ .max_leaf = cpuid(0).eax, .max_ext = cpuid(0x80000000).eax };
	c->amd = !strcmp(cpuinfo.vendor, "AuthenticAMD") || !strcmp(cpuinfo.vendor, "HygonGenuine");
	c->leaf1 = cpuid(1);
	if (c->max_leaf >= 4)
		c->leaf4 = cpuid_count(4, 0);
	/* SDM vol 2A: a leaf whose subleaf 0 reports EBX 0 is not implemented. */
	if (c->max_leaf >= 0x1f && cpuid_count(0x1f, 0).ebx)
		leaf = 0x1f;
	else if (c->max_leaf >= 0xb && cpuid_count(0xb, 0).ebx)
		leaf = 0xb;
	c->v2_leaf = leaf;
	for (u32 i = 0; leaf && i < TOPO_MAX_LEVELS; i++)
		c->v2[i] = cpuid_count(leaf, i);
	if (c->max_ext >= 0x80000001)
		c->ext1 = cpuid(0x80000001);
	if (c->max_ext >= 0x80000008)
		c->ext8 = cpuid(0x80000008);
	if (c->max_ext >= 0x8000001e)
		c->ext1e = cpuid(0x8000001e);
}

static void topology_print(void)
{
	const struct topo_shifts *s = &topo.shifts;

	printk("# topology: %u CPUs, %u nodes (%s%s), APIC ID split from %s: thread bits %u, "
	       "core bits %u\n",
	       topo.ncpus, topo.nnodes, topo_numa.srat ? "SRAT" : "no SRAT",
	       topo_numa.slit ? " and SLIT" : ", no distances", s->source, s->smt, s->pkg - s->smt);
	for (u32 i = 0; i < topo_numa.nmsgs; i++)
		printk("# WARN acpi: %s\n", topo_numa.msgs[i]);
	for (u32 i = 0; i < topo.nmsgs; i++)
		printk("# WARN %s\n", topo.msgs[i]);
}

/**
 * topology_init - SRAT, SLIT and CPUID into the table, over @madt's CPUs
 *
 * Boot CPU (@boot_apic, numbered 0 as bring-up numbers it), before the APs
 * start and after acpi_parse(). Prints the "# topology:" line and warnings.
 */
void topology_init(const struct acpi_madt_info *madt, u32 boot_apic)
{
	static u32 ids[MAX_CPUS];
	struct topo_cpuid c;
	struct topo_shifts s;
	u32 n = 0;

	acpi_numa_parse(&topo_numa);
	topo_cpuid_read(&c);
	topo_shifts_from(&c, &s);
	if (madt->present)
		n = acpi_madt_cpu_order(madt, boot_apic, ids);
	if (n == 0)
		ids[n++] = boot_apic;
	topo_build(&topo, &s, ids, n, &topo_numa);
	topo_cross_check(&c, &s, &topo);
	/* The per-CPU data is not placed yet: CPU 0 is the boot CPU, the rest wait for bring-up. */
	topo_cpu_node[0] = (u8)topo.cpu[0].node;
	topology_print();
}

/**
 * topology_bind_cpus - record each online CPU's node for arch_cpu_node()
 *
 * Boot CPU; again after bring-up, as a CPU that did not answer shifts the
 * numbers of the ones after it.
 */
void topology_bind_cpus(void)
{
	unsigned n = ncpus_online ? ncpus_online : 1;

	for (unsigned cpu = 0; cpu < n && cpu < MAX_CPUS; cpu++) {
		const struct topo_cpu *tc = topo_find(&topo, percpu_of(cpu)->apic_id);

		topo_cpu_node[cpu] = tc ? (u8)tc->node : 0;
	}
}

unsigned arch_cpu_node(unsigned cpu)
{
	return cpu < MAX_CPUS ? topo_cpu_node[cpu] : 0;
}

unsigned arch_node_count(void)
{
	return topo.nnodes ? topo.nnodes : 1;
}

unsigned arch_node_distance(unsigned from, unsigned to)
{
	if (!topo.distance_valid || from >= topo.nnodes || to >= topo.nnodes)
		return 0;
	return topo.distance[from][to];
}

const struct topo_info *topology_get(void)
{
	return &topo;
}

const struct acpi_numa_info *topology_numa(void)
{
	return &topo_numa;
}

static size_t dec_len(u32 v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Online CPU @cpu's entry; a CPU the table lacks (not in the MADT) reads as all zeroes. */
static struct topo_cpu topology_of(unsigned cpu)
{
	const struct topo_cpu *tc = topo_find(&topo, percpu_of(cpu)->apic_id);

	return tc ? *tc : (struct topo_cpu){ 0 };
}

struct arch_cpu_pos arch_cpu_where(unsigned cpu)
{
	struct topo_cpu c = topology_of(cpu);

	return (struct arch_cpu_pos){ c.node, c.package, c.core, c.thread };
}

/* Bytes of "cpus":[[n,s,c,t],...] for @n CPUs. */
static size_t topology_cpus_len(unsigned n)
{
	size_t len = sizeof("\"cpus\":[]");

	for (unsigned cpu = 0; cpu < n; cpu++) {
		struct topo_cpu c = topology_of(cpu);

		len += dec_len(c.node) + dec_len(c.package) + dec_len(c.core) + dec_len(c.thread) +
		       sizeof("[,,,],") - 1;
	}
	return len;
}

static void topology_describe_cpus(struct json *j)
{
	unsigned n = ncpus_online ? ncpus_online : 1;

	if (j->len + topology_cpus_len(n) + TOPO_HEADER_RESERVE >= j->size) {
		printk("# WARN topology: %u CPUs do not fit the header: \"cpus\" is null\n", n);
		json_null(j, "cpus");
		return;
	}
	json_array_begin(j, "cpus");
	for (unsigned cpu = 0; cpu < n; cpu++) {
		struct topo_cpu c = topology_of(cpu);

		json_elem_row_begin(j);
		json_elem_u64(j, c.node);
		json_elem_u64(j, c.package);
		json_elem_u64(j, c.core);
		json_elem_u64(j, c.thread);
		json_elem_row_end(j);
	}
	json_array_end(j);
}

/**
 * topology_describe - the header's "topology": per online CPU [node,socket,core,thread]
 *
 * "distance" is the SLIT's matrix by node, null without one. After bring-up.
 */
void topology_describe(struct json *j)
{
	json_object_begin(j, "topology");
	topology_describe_cpus(j);
	json_u64(j, "nodes", topo.nnodes);
	if (!topo.distance_valid) {
		json_null(j, "distance");
	} else {
		json_array_begin(j, "distance");
		for (u32 a = 0; a < topo.nnodes; a++) {
			json_elem_row_begin(j);
			for (u32 b = 0; b < topo.nnodes; b++)
				json_elem_u64(j, topo.distance[a][b]);
			json_elem_row_end(j);
		}
		json_array_end(j);
	}
	json_object_end(j);
}
