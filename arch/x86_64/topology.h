/*
 * Where each CPU sits: package (socket), core and SMT thread from its APIC
 * ID and CPUID's topology leaves, node from the SRAT, node distances from
 * the SLIT (arch/x86_64/topology.c, portable: the CPUID values come in as
 * data, so host tests give them), and the kernel side that reads CPUID,
 * answers arch_cpu_node() and writes the header's "topology" object
 * (topology_report.c). Built once on the boot CPU before the APs start.
 */
#ifndef ARCH_X86_64_TOPOLOGY_H
#define ARCH_X86_64_TOPOLOGY_H

#include "arch/x86_64/acpi_numa.h"
#include <arch/cpu.h> /* struct cpuid_regs */

#define TOPO_MAX_LEVELS 6 /* subleaves of CPUID 0x1f / 0xb read */
#define TOPO_MSG_MAX 8
#define TOPO_MSG_LEN 112

/* The CPUID values the derivation reads, captured on one CPU. */
struct topo_cpuid {
	u32 max_leaf, max_ext;
	bool amd;			    /* AuthenticAMD or HygonGenuine */
	struct cpuid_regs leaf1, leaf4;	    /* leaf 4 subleaf 0 */
	struct cpuid_regs v2[TOPO_MAX_LEVELS]; /* 0x1f when valid, else 0xb, by subleaf */
	u32 v2_leaf;			    /* 0x1f, 0xb or 0: which v2[] holds */
	struct cpuid_regs ext1, ext8, ext1e; /* 0x80000001, 0x80000008, 0x8000001e */
};

/* How an APIC ID splits: thread in bits [0, smt), core in [smt, pkg), package above. */
struct topo_shifts {
	u32 smt, pkg;
	const char *source; /* the leaf used: "cpuid.1f", "cpuid.b", "amd", "legacy", "none" */
};

struct topo_cpu {
	u32 apic_id;
	u32 node, package, core, thread;
};

struct topo_info {
	struct topo_shifts shifts;
	u32 ncpus;
	struct topo_cpu cpu[MAX_CPUS];
	u32 nnodes;
	bool distance_valid; /* from a valid SLIT; else no distances are known */
	u8 distance[MACHINE_MAX_NODES][MACHINE_MAX_NODES];
	u32 nmsgs;
	char msgs[TOPO_MSG_MAX][TOPO_MSG_LEN]; /* disagreements, printed as # WARN */
};

/* Reads the leaves into @c (kernel only: executes CPUID on the calling CPU). */
void topo_cpuid_read(struct topo_cpuid *c);

/* The APIC ID split that @c describes (SDM vol 2A CPUID leaves 0xb, 0x1f; AMD APM vol 3 E.4). */
void topo_shifts_from(const struct topo_cpuid *c, struct topo_shifts *s);

/*
 * Fills @out (large: static storage) for the CPUs @apic_ids[0..@n) in
 * bring-up order, split by @s and placed in nodes by @numa. A CPU the SRAT
 * does not list goes to node 0; SMT siblings the SRAT puts in different
 * nodes keep their SRAT node. Both are recorded as messages.
 */
void topo_build(struct topo_info *out, const struct topo_shifts *s, const u32 *apic_ids, u32 n,
		const struct acpi_numa_info *numa);

/* Adds a message to @out when AMD's leaves disagree with the leaf 0xb/0x1f split @s. */
void topo_cross_check(const struct topo_cpuid *c, const struct topo_shifts *s,
		      struct topo_info *out);

/* The entry for @apic_id, or NULL. */
const struct topo_cpu *topo_find(const struct topo_info *t, u32 apic_id);

#ifndef HOST_BUILD
struct json;
/*
 * Kernel only (topology_report.c). topology_init(): parse the SRAT and
 * SLIT, read CPUID, build the table over the MADT's CPUs and print its
 * "# topology:" line and warnings. topology_bind_cpus(): after bring-up,
 * name each online CPU's node for arch_cpu_node(). topology_describe():
 * the header's "topology" object. topology_numa(): the parsed SRAT/SLIT.
 */
void topology_init(const struct acpi_madt_info *madt, u32 boot_apic);
void topology_bind_cpus(void);
void topology_describe(struct json *j);
const struct topo_info *topology_get(void);
const struct acpi_numa_info *topology_numa(void);
#endif

#endif
