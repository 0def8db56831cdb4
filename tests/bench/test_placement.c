/*
 * Tests for placement= (bench/placement.c): the CPU order each placement
 * gives over shapes given as data, [node, socket, core, thread] per CPU,
 * as QEMU numbers them, and the error a bad word gets. Host and kernel.
 */
#include "bench/placement.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "lib/string.h"
#include "tests/ktest.h"

/* -smp 8,sockets=2,cores=2,threads=2, nodes cpus=0-3 and 4-7. */
static const struct place_cpu s2x2x2[8] = {
	{ 0, 0, 0, 0 }, { 0, 0, 0, 1 }, { 0, 0, 1, 0 }, { 0, 0, 1, 1 },
	{ 1, 1, 0, 0 }, { 1, 1, 0, 1 }, { 1, 1, 1, 0 }, { 1, 1, 1, 1 },
};
/* -smp 8,sockets=1,cores=4,threads=2 over nodes 0: 0-1, 1: 2-3, 2: 4-7. */
static const struct place_cpu s1x4x2[8] = {
	{ 0, 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 0, 1, 0 }, { 1, 0, 1, 1 },
	{ 2, 0, 2, 0 }, { 2, 0, 2, 1 }, { 2, 0, 3, 0 }, { 2, 0, 3, 1 },
};
/* -smp 8,sockets=2,cores=4,threads=1 (SMT off), a node per socket. */
static const struct place_cpu s2x4x1[8] = {
	{ 0, 0, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 2, 0 }, { 0, 0, 3, 0 },
	{ 1, 1, 0, 0 }, { 1, 1, 1, 0 }, { 1, 1, 2, 0 }, { 1, 1, 3, 0 },
};
/* Four sockets of one two-thread core, a node each. */
static const struct place_cpu s4nodes[8] = {
	{ 0, 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 0, 0 }, { 1, 1, 0, 1 },
	{ 2, 2, 0, 0 }, { 2, 2, 0, 1 }, { 3, 3, 0, 0 }, { 3, 3, 0, 1 },
};
/* Nodes 0 and 2 with CPUs, node 1 (memory only) with none. */
static const struct place_cpu s_cpuless[4] = {
	{ 0, 0, 0, 0 }, { 0, 0, 1, 0 }, { 2, 1, 0, 0 }, { 2, 1, 1, 0 },
};

/* @p over @cpus from @first gives exactly @want[0..@nwant). */
static void expect_order(struct ktest *t, enum bench_placement p, const struct place_cpu *cpus,
			 unsigned n, unsigned first, const unsigned *want, unsigned nwant)
{
	unsigned got[8];
	unsigned k = placement_order(p, cpus, n, first, got);

	if (!KEXPECT_EQ(t, k, nwant))
		return;
	for (unsigned i = 0; i < k; i++)
		if (!KEXPECT_EQ(t, got[i], want[i]))
			ktest_log(t, "%s from %u: position %u", placement_name(p), first, i);
}

#define ORDER(t, p, shape, first, ...)                                                             \
	do {                                                                                       \
		static const unsigned w_[] = { __VA_ARGS__ };                                      \
		expect_order(t, p, shape, sizeof(shape) / sizeof(shape[0]), first, w_,             \
			     sizeof(w_) / sizeof(w_[0]));                                          \
	} while (0)

static void test_placement_2x2x2(struct ktest *t)
{
	ORDER(t, PLACE_SPREAD, s2x2x2, 0, 0, 4, 2, 6, 1, 5, 3, 7);
	ORDER(t, PLACE_PACK, s2x2x2, 0, 0, 2, 1, 3, 4, 6, 5, 7);
	ORDER(t, PLACE_SMT, s2x2x2, 0, 0, 1, 2, 3, 4, 5, 6, 7);
	ORDER(t, PLACE_NODE, s2x2x2, 0, 0, 2, 1, 3);
	ORDER(t, PLACE_SPREAD, s2x2x2, 4, 4, 0, 2, 6, 1, 5, 3, 7);
	ORDER(t, PLACE_PACK, s2x2x2, 5, 5, 6, 4, 7, 0, 2, 1, 3);
	ORDER(t, PLACE_SMT, s2x2x2, 6, 6, 7, 4, 5, 0, 1, 2, 3);
}

static void test_placement_1x4x2(struct ktest *t)
{
	/* One socket: spreading over nodes and cores is what packing does too. */
	ORDER(t, PLACE_SPREAD, s1x4x2, 0, 0, 2, 4, 6, 1, 3, 5, 7);
	ORDER(t, PLACE_PACK, s1x4x2, 0, 0, 2, 4, 6, 1, 3, 5, 7);
	ORDER(t, PLACE_SMT, s1x4x2, 0, 0, 1, 2, 3, 4, 5, 6, 7);
	ORDER(t, PLACE_NODE, s1x4x2, 0, 0, 1);
	ORDER(t, PLACE_NODE, s1x4x2, 5, 5, 6, 4, 7);
}

static void test_placement_smt_off(struct ktest *t)
{
	ORDER(t, PLACE_SPREAD, s2x4x1, 0, 0, 4, 1, 5, 2, 6, 3, 7);
	ORDER(t, PLACE_PACK, s2x4x1, 0, 0, 1, 2, 3, 4, 5, 6, 7);
	ORDER(t, PLACE_SMT, s2x4x1, 0, 0, 1, 2, 3, 4, 5, 6, 7);
	ORDER(t, PLACE_NODE, s2x4x1, 7, 7, 4, 5, 6);
}

static void test_placement_four_nodes(struct ktest *t)
{
	ORDER(t, PLACE_SPREAD, s4nodes, 0, 0, 2, 4, 6, 1, 3, 5, 7);
	ORDER(t, PLACE_PACK, s4nodes, 0, 0, 1, 2, 3, 4, 5, 6, 7);
	ORDER(t, PLACE_PACK, s4nodes, 3, 3, 2, 0, 1, 4, 5, 6, 7);
	ORDER(t, PLACE_NODE, s4nodes, 3, 3, 2);
}

static void test_placement_node_without_cpus(struct ktest *t)
{
	ORDER(t, PLACE_SPREAD, s_cpuless, 0, 0, 2, 1, 3);
	ORDER(t, PLACE_PACK, s_cpuless, 0, 0, 1, 2, 3);
	ORDER(t, PLACE_NODE, s_cpuless, 2, 2, 3);
	ORDER(t, PLACE_NODE, s_cpuless, 1, 1, 0);
}

/* The sweep's promise: at the same count, spread and pack choose different CPUs. */
static void test_placement_spread_differs_from_pack(struct ktest *t)
{
	unsigned a[8], b[8];

	placement_order(PLACE_SPREAD, s2x2x2, 8, 0, a);
	placement_order(PLACE_PACK, s2x2x2, 8, 0, b);
	for (unsigned n = 2; n < 8; n++)
		KEXPECT(t, memcmp(a, b, n * sizeof(a[0])) != 0);
	KEXPECT_EQ(t, placement_order(PLACE_SPREAD, s2x2x2, 8, 8, a), 0u);
}

static void test_placement_remote_node(struct ktest *t)
{
	/* The four-node shape: node 2 has no memory, node 3 no CPUs. */
	static const u32 from0[4] = { 10, 12, 21, 31 }, from2[4] = { 21, 13, 10, 14 };
	static const u32 none[4] = { 0 };
	static const bool mem[4] = { true, true, false, true };
	static const bool only0[4] = { true, false, false, false };

	KEXPECT_EQ(t, placement_remote_node(0, 4, from0, mem), 3u);
	KEXPECT_EQ(t, placement_remote_node(2, 4, from2, mem), 0u);
	KEXPECT_EQ(t, placement_remote_node(3, 4, none, mem), 0u);
	KEXPECT_EQ(t, placement_remote_node(0, 4, from0, only0), 0u);
	KEXPECT_EQ(t, placement_remote_node(0, 1, none, only0), 0u);
}

static void test_placement_word(struct ktest *t)
{
	struct options o;
	char err[160];

	KEXPECT_EQ(t, cmdline_parse("placement=pack", &o, err, sizeof(err)), 0);
	KEXPECT_EQ(t, cmdline_parse("placement=numa", &o, err, sizeof(err)), -EINVAL);
	KEXPECT_STREQ(t, err, "bad value 'numa' for 'placement' (expected spread|pack|smt|node)");
	KEXPECT_STREQ(t, placement_name(PLACE_SMT), "smt");
	KEXPECT_EQ(t, cmdline_parse("mem_node=far", &o, err, sizeof(err)), -EINVAL);
	KEXPECT_STREQ(t, err, "bad value 'far' for 'mem_node' (expected local|remote)");
}

static const struct ktest_case placement_cases[] = {
	KTEST_CASE(test_placement_2x2x2),
	KTEST_CASE(test_placement_1x4x2),
	KTEST_CASE(test_placement_smt_off),
	KTEST_CASE(test_placement_four_nodes),
	KTEST_CASE(test_placement_node_without_cpus),
	KTEST_CASE(test_placement_spread_differs_from_pack),
	KTEST_CASE(test_placement_remote_node),
	KTEST_CASE(test_placement_word),
};
KTEST_SUITE(placement, placement_cases);
