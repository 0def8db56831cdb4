/*
 * Tests for the CPU topology derivation (arch/x86_64/topology.c) from CPUID
 * values given as data: QEMU's leaf 0xb for 2x2x2, 1x4x2 and SMT off, leaf
 * 0x1f with a die level, AMD's extended leaves, the legacy leaf 1 and 4
 * counts, no topology at all, and the cross-checks against the SRAT. The
 * same cases run on the host and in the kernel.
 */
#include "arch/x86_64/topology.h"
#include "lib/string.h"
#include "tests/ktest.h"

static struct topo_info topo;	       /* large: never on the stack */
static struct acpi_numa_info numa_in; /* built by hand: the parser has its own tests */
static const u32 ids8[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

/* Level @i of leaf 0xb/0x1f: @type (1 SMT, 2 core, 5 die), @shift to the next level's ID. */
static void level(struct topo_cpuid *c, u32 i, u32 type, u32 shift, u32 count)
{
	c->v2[i] = (struct cpuid_regs){ .eax = shift, .ebx = count, .ecx = type << 8 | i };
}

/* QEMU's leaf 0xb for @threads per core and @cores per socket (both powers of 2 here). */
static void qemu_leaf_b(struct topo_cpuid *c, u32 threads, u32 cores)
{
	u32 smt = threads > 1 ? (threads == 2 ? 1 : 2) : 0;
	u32 core = cores > 1 ? (cores == 2 ? 1 : 2) : 0;

	*c = (struct topo_cpuid){ .max_leaf = 0xd, .v2_leaf = 0xb };
	level(c, 0, 1, smt, threads);
	level(c, 1, 2, smt + core, threads * cores);
}

/* @n nodes, CPU i (APIC ID i) in node_of[i]. */
static void numa_layout(u32 nnodes, const u8 *node_of, u32 ncpus)
{
	memset(&numa_in, 0, sizeof(numa_in));
	numa_in.srat = true;
	numa_in.nnodes = nnodes;
	for (u32 i = 0; i < ncpus; i++)
		numa_in.cpu[numa_in.ncpus++] = (struct acpi_numa_cpu){ ids8[i], node_of[i], false };
}

static bool has_msg(const char *fragment)
{
	for (u32 k = 0; k < topo.nmsgs; k++)
		if (strstr(topo.msgs[k], fragment))
			return true;
	return false;
}

/* -smp 8,sockets=2,cores=2,threads=2 with nodes cpus=0-3 and 4-7. */
static void test_topology_qemu_2x2x2(struct ktest *t)
{
	static const u8 nodes[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	struct topo_cpuid c;
	struct topo_shifts s;

	qemu_leaf_b(&c, 2, 2);
	topo_shifts_from(&c, &s);
	KEXPECT_STREQ(t, s.source, "cpuid.b");
	KEXPECT(t, s.smt == 1 && s.pkg == 2);
	numa_layout(2, nodes, 8);
	topo_build(&topo, &s, ids8, 8, &numa_in);
	KASSERT_EQ(t, topo.ncpus, 8);
	for (u32 i = 0; i < 8; i++) {
		KEXPECT_EQ(t, topo.cpu[i].package, i / 4);
		KEXPECT_EQ(t, topo.cpu[i].core, (i / 2) % 2);
		KEXPECT_EQ(t, topo.cpu[i].thread, i % 2);
		KEXPECT_EQ(t, topo.cpu[i].node, i / 4);
	}
	KEXPECT_EQ(t, topo.nmsgs, 0);
	KEXPECT_EQ(t, topo_find(&topo, 5)->core, 0);
	KEXPECT(t, topo_find(&topo, 8) == NULL);
}

/* 1 socket x 4 cores x 2 threads, and SMT off (2 sockets x 2 cores x 1 thread). */
static void test_topology_qemu_shapes(struct ktest *t)
{
	static const u8 zero[8];
	struct topo_cpuid c;
	struct topo_shifts s;

	qemu_leaf_b(&c, 2, 4);
	topo_shifts_from(&c, &s);
	KEXPECT(t, s.smt == 1 && s.pkg == 3);
	numa_layout(1, zero, 8);
	topo_build(&topo, &s, ids8, 8, &numa_in);
	KEXPECT(t, topo.cpu[7].package == 0 && topo.cpu[7].core == 3 && topo.cpu[7].thread == 1);
	KEXPECT(t, topo.cpu[2].core == 1 && topo.cpu[2].thread == 0);

	qemu_leaf_b(&c, 1, 2);
	topo_shifts_from(&c, &s);
	KEXPECT(t, s.smt == 0 && s.pkg == 1);
	numa_layout(1, zero, 4);
	topo_build(&topo, &s, ids8, 4, &numa_in);
	KEXPECT(t, topo.cpu[3].package == 1 && topo.cpu[3].core == 1 && topo.cpu[3].thread == 0);
	KEXPECT(t, topo.cpu[1].package == 0 && topo.cpu[1].core == 1);
	KEXPECT_EQ(t, topo.nmsgs, 0);
}

/* Leaf 0x1f: a die level above the core level; the package is above the highest level. */
static void test_topology_leaf_1f(struct ktest *t)
{
	struct topo_cpuid c = { .max_leaf = 0x1f, .v2_leaf = 0x1f };
	struct topo_shifts s;

	level(&c, 0, 1, 1, 2);
	level(&c, 1, 2, 3, 8);
	level(&c, 2, 5, 4, 16);
	topo_shifts_from(&c, &s);
	KEXPECT_STREQ(t, s.source, "cpuid.1f");
	KEXPECT(t, s.smt == 1 && s.pkg == 4);
}

/* AMD: 0x80000008 ECX[15:12] (or ECX[7:0] + 1) per package, 0x8000001e EBX[15:8] + 1 per core. */
static void test_topology_amd(struct ktest *t)
{
	struct topo_cpuid c = { .max_leaf = 0xd, .max_ext = 0x8000001e, .amd = true };
	struct topo_shifts s;

	c.ext8.ecx = 4u << 12 | 15;
	c.ext1.ecx = 1u << 22;
	c.ext1e.ebx = 1u << 8;
	topo_shifts_from(&c, &s);
	KEXPECT_STREQ(t, s.source, "amd");
	KEXPECT(t, s.smt == 1 && s.pkg == 4);
	c.ext8.ecx = 6; /* no size field: 7 cores need 3 bits */
	c.ext1.ecx = 0; /* no TOPOEXT: no SMT information */
	topo_shifts_from(&c, &s);
	KEXPECT(t, s.smt == 0 && s.pkg == 3);
}

/* Leaf 1 says 8 logical CPUs per package, leaf 4 four cores: two threads each. */
static void test_topology_legacy_and_none(struct ktest *t)
{
	struct topo_cpuid c = { .max_leaf = 4 };
	struct topo_shifts s;
	static const u8 zero[8];

	c.leaf1.edx = 1u << 28;
	c.leaf1.ebx = 8u << 16;
	c.leaf4.eax = 3u << 26;
	topo_shifts_from(&c, &s);
	KEXPECT_STREQ(t, s.source, "legacy");
	KEXPECT(t, s.smt == 1 && s.pkg == 3);
	c.leaf1.edx = 0;
	topo_shifts_from(&c, &s);
	KEXPECT_STREQ(t, s.source, "none");
	numa_layout(1, zero, 8);
	topo_build(&topo, &s, ids8, 3, &numa_in);
	KEXPECT(t, topo.cpu[2].package == 2 && topo.cpu[2].core == 0 && topo.cpu[2].thread == 0);
}

/* SMT siblings in different nodes, a CPU the SRAT misses, one the MADT misses: said. */
static void test_topology_disagreements(struct ktest *t)
{
	static const u8 split[8] = { 0, 1, 0, 0, 1, 1, 1, 1 };
	struct topo_cpuid c;
	struct topo_shifts s;

	qemu_leaf_b(&c, 2, 2);
	topo_shifts_from(&c, &s);
	numa_layout(2, split, 8);
	topo_build(&topo, &s, ids8, 8, &numa_in);
	KEXPECT(t, has_msg("SMT siblings APIC 0 and 1"));
	KEXPECT_EQ(t, topo.cpu[1].node, 1); /* the SRAT's word is kept */

	numa_layout(2, split, 6); /* APIC IDs 6 and 7 not in the SRAT */
	numa_in.cpu[0].node = 1;  /* siblings 0 and 1 together again */
	topo_build(&topo, &s, ids8, 8, &numa_in);
	KEXPECT(t, has_msg("APIC ID 6) is not in the SRAT"));
	KEXPECT_EQ(t, topo.cpu[7].node, 0);
	KEXPECT(t, !has_msg("SMT siblings APIC 0"));

	numa_layout(2, split, 8);
	topo_build(&topo, &s, ids8, 4, &numa_in);
	KEXPECT(t, has_msg("lists 4 CPUs the MADT does not"));

	numa_layout(1, split, 0);
	numa_in.srat = false; /* no SRAT: everything node 0, nothing to disagree with */
	topo_build(&topo, &s, ids8, 8, &numa_in);
	KEXPECT_EQ(t, topo.nmsgs, 0);
	KEXPECT(t, topo.cpu[5].node == 0 && !topo.distance_valid);
}

/* Leaf 0xb and AMD's leaves both answer: silence when they agree, a message when not. */
static void test_topology_cross_check(struct ktest *t)
{
	struct topo_cpuid c;
	struct topo_shifts s;

	qemu_leaf_b(&c, 2, 2);
	c.amd = true;
	c.max_ext = 0x8000001e;
	c.ext8.ecx = 2u << 12 | 3;
	c.ext1.ecx = 1u << 22;
	c.ext1e.ebx = 1u << 8;
	topo_shifts_from(&c, &s);
	memset(&topo, 0, sizeof(topo));
	topo_cross_check(&c, &s, &topo);
	KEXPECT_EQ(t, topo.nmsgs, 0);
	c.ext1.ecx = 0; /* no TOPOEXT: the AMD leaves do not speak of threads */
	topo_cross_check(&c, &s, &topo);
	KEXPECT_EQ(t, topo.nmsgs, 0);
	c.ext1.ecx = 1u << 22;
	c.ext8.ecx = 3u << 12 | 7;
	topo_cross_check(&c, &s, &topo);
	KEXPECT(t, has_msg("the AMD leaves 1, 2"));
}

static const struct ktest_case topology_cases[] = {
	KTEST_CASE(test_topology_qemu_2x2x2),
	KTEST_CASE(test_topology_qemu_shapes),
	KTEST_CASE(test_topology_leaf_1f),
	KTEST_CASE(test_topology_amd),
	KTEST_CASE(test_topology_legacy_and_none),
	KTEST_CASE(test_topology_disagreements),
	KTEST_CASE(test_topology_cross_check),
};
KTEST_SUITE(topology, topology_cases);
