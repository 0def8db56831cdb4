/*
 * NUMA tables as mmlab reads them (arch/x86_64/acpi_numa.c): the SRAT's
 * processor (xAPIC and x2APIC) and memory affinity entries, and the SLIT's
 * distance matrix, turned into dense node numbers. Like acpi.c it never
 * prints: problems become messages and the parse keeps what it can trust.
 * Boot CPU only, after acpi_parse(). Layouts follow ACPI 6.5 5.2.16-17.
 */
#ifndef ARCH_X86_64_ACPI_NUMA_H
#define ARCH_X86_64_ACPI_NUMA_H

#include "arch/x86_64/acpi.h"
#include "machine.h" /* MACHINE_MAX_NODES */

#define ACPI_NUMA_MAX_MEM 64 /* memory affinity ranges kept */
#define ACPI_SLIT_LOCAL 10   /* a node's distance to itself (ACPI 6.5 5.2.17) */
#define ACPI_SLIT_NONE 0xff  /* no path between the two localities */

/* ACPI 6.5 5.2.16: the SRAT header, then entries of {type, length}. */
struct acpi_srat {
	struct acpi_sdt_header hdr;
	u32 reserved1; /* 1, for backward compatibility */
	u64 reserved2;
} __packed;

enum acpi_srat_type {
	ACPI_SRAT_LAPIC = 0,
	ACPI_SRAT_MEMORY = 1,
	ACPI_SRAT_X2APIC = 2,
};

#define ACPI_SRAT_ENABLED (1u << 0)
#define ACPI_SRAT_MEM_HOTPLUG (1u << 1)
#define ACPI_SRAT_MEM_NONVOLATILE (1u << 2)

struct acpi_srat_lapic {
	u8 type, length;
	u8 pxm_lo; /* proximity domain bits 7:0 */
	u8 apic_id;
	u32 flags;
	u8 sapic_eid;
	u8 pxm_hi[3]; /* bits 31:8 */
	u32 clock_domain;
} __packed;

struct acpi_srat_mem {
	u8 type, length;
	u32 pxm;
	u16 reserved1;
	u64 base, len;
	u32 reserved2;
	u32 flags;
	u64 reserved3;
} __packed;

struct acpi_srat_x2apic {
	u8 type, length;
	u16 reserved1;
	u32 pxm;
	u32 x2apic_id;
	u32 flags;
	u32 clock_domain;
	u32 reserved2;
} __packed;

/* ACPI 6.5 5.2.17: the SLIT, then an n x n byte matrix, row = from. */
struct acpi_slit {
	struct acpi_sdt_header hdr;
	u64 nlocalities;
} __packed;

BUILD_ASSERT(sizeof(struct acpi_srat) == 48);
BUILD_ASSERT(sizeof(struct acpi_srat_lapic) == 16);
BUILD_ASSERT(sizeof(struct acpi_srat_mem) == 40);
BUILD_ASSERT(sizeof(struct acpi_srat_x2apic) == 24);
BUILD_ASSERT(sizeof(struct acpi_slit) == 44);

/* One enabled CPU of the SRAT and the node it sits in. */
struct acpi_numa_cpu {
	u32 apic_id;
	u32 node;
	bool x2apic_entry;
};

/* One enabled memory range of the SRAT. */
struct acpi_numa_mem {
	paddr_t base, end;
	u32 node;
	bool hotplug;
};

struct acpi_numa_info {
	bool srat;   /* a valid SRAT was parsed */
	bool slit;   /* a valid SLIT gave the distances below */
	u32 nnodes;  /* distinct proximity domains of enabled entries (1 without SRAT) */
	u32 pxm[MACHINE_MAX_NODES]; /* node -> proximity domain, ascending */
	u32 ncpus;
	struct acpi_numa_cpu cpu[MAX_CPUS];
	u32 nmem;
	struct acpi_numa_mem mem[ACPI_NUMA_MAX_MEM];
	u32 ndisabled;	  /* entries without the enabled flag */
	u32 nignored;	  /* enabled entries beyond the arrays, or in a node beyond them */
	u32 nbad_entries; /* entries too short, or the rest of the table after a bad length */
	u8 distance[MACHINE_MAX_NODES][MACHINE_MAX_NODES]; /* valid when slit */
	u32 nmsgs;
	char msgs[ACPI_MSG_MAX][ACPI_MSG_LEN];
};

/*
 * Parses @srat and @slit (either may be NULL; each already validated as a
 * whole table) into @out (cleared first; large: static storage). Nodes
 * are the proximity domains of enabled entries, numbered in ascending
 * order so that QEMU's nodeid= is the node. Returns the node count.
 */
u32 acpi_numa_parse_tables(const struct acpi_sdt_header *srat, const struct acpi_sdt_header *slit,
			   struct acpi_numa_info *out);

/* acpi_numa_parse_tables() over the SRAT and SLIT the last acpi_parse() found. */
u32 acpi_numa_parse(struct acpi_numa_info *out);

/* The node the SRAT puts the CPU with @apic_id in, or -1 when it is not listed. */
int acpi_numa_cpu_node(const struct acpi_numa_info *n, u32 apic_id);

#endif
