/*
 * placement=: the CPU order of the benchmark sweep (see bench/placement.h).
 * Greedy: each step takes the CPU whose key is least, the key saying how
 * crowded its node, socket and core already are (spread) or how far it
 * sits from the initiator's socket and core (pack, smt).
 */
#include "bench/placement.h"
#include "compiler.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/report.h"

static const char *const placement_words[] = {
	[PLACE_SPREAD] = "spread",
	[PLACE_PACK] = "pack",
	[PLACE_SMT] = "smt",
	[PLACE_NODE] = "node",
	[PLACE_COUNT] = NULL,
};

enum bench_placement bench_placement;
OPTION_ENUM(placement, bench_placement, placement_words, PLACE_SPREAD);

/* The header states the sweep's order, given or not. */
static void placement_describe(struct json *j)
{
	json_str(j, "placement", placement_words[bench_placement]);
}
REPORT_HEADER_FIELD(placement, placement_describe);

static const char *const mem_node_words[] = {
	[MEM_NODE_LOCAL] = "local",
	[MEM_NODE_REMOTE] = "remote",
	[MEM_NODE_COUNT] = NULL,
};

enum bench_mem_node bench_mem_node;
OPTION_ENUM(mem_node, bench_mem_node, mem_node_words, MEM_NODE_LOCAL);

const char *placement_name(enum bench_placement p)
{
	return p < PLACE_COUNT ? placement_words[p] : "?";
}

#define PLACE_KEYS 4

static bool same_core(const struct place_cpu *a, const struct place_cpu *b)
{
	return a->socket == b->socket && a->core == b->core;
}

/* Spread's key: CPUs already taken in @c's node, socket and core. */
static void key_spread(const struct place_cpu *cpus, const unsigned *order, unsigned k,
		       const struct place_cpu *c, u32 *key)
{
	for (unsigned i = 0; i < k; i++) {
		const struct place_cpu *o = &cpus[order[i]];

		key[0] += o->node == c->node;
		key[1] += o->socket == c->socket;
		key[2] += same_core(o, c);
	}
}

/* 0 for the initiator's socket, 1 for another in its node, 2 beyond. */
static u32 socket_rank(const struct place_cpu *f, const struct place_cpu *c)
{
	return c->socket == f->socket ? 0 : c->node == f->node ? 1 : 2;
}

static void place_key(enum bench_placement p, const struct place_cpu *cpus, const unsigned *order,
		      unsigned k, const struct place_cpu *c, u32 *key)
{
	const struct place_cpu *f = &cpus[order[0]];

	if (p == PLACE_SPREAD || p == PLACE_NODE) {
		key_spread(cpus, order, k, c, key);
		return;
	}
	key[0] = socket_rank(f, c);
	key[1] = c->socket;
	if (p == PLACE_PACK) {
		for (unsigned i = 0; i < k; i++)
			key[2] += same_core(&cpus[order[i]], c);
		return;
	}
	key[2] = !same_core(f, c);
	key[3] = c->core;
}

static bool key_less(const u32 *a, const u32 *b)
{
	for (unsigned i = 0; i < PLACE_KEYS; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return false;
}

static bool taken(const unsigned *order, unsigned k, unsigned idx)
{
	for (unsigned i = 0; i < k; i++)
		if (order[i] == idx)
			return true;
	return false;
}

unsigned placement_order(enum bench_placement p, const struct place_cpu *cpus, unsigned n,
			 unsigned first, unsigned *order)
{
	unsigned k = 0;

	if (first >= n)
		return 0;
	order[k++] = first;
	for (; k < n; k++) {
		u32 best[PLACE_KEYS];
		unsigned pick = n;

		for (unsigned i = 0; i < n; i++) {
			u32 key[PLACE_KEYS] = { 0 };

			if (taken(order, k, i) ||
			    (p == PLACE_NODE && cpus[i].node != cpus[first].node))
				continue;
			place_key(p, cpus, order, k, &cpus[i], key);
			if (pick == n || key_less(key, best)) {
				pick = i;
				for (unsigned j = 0; j < PLACE_KEYS; j++)
					best[j] = key[j];
			}
		}
		if (pick == n)
			break;
		order[k] = pick;
	}
	return k;
}

unsigned placement_remote_node(unsigned from, unsigned nnodes, const u32 *dist_from,
			       const bool *has_mem)
{
	unsigned best = from;

	for (unsigned n = 0; n < nnodes; n++) {
		if (n == from || !has_mem[n])
			continue;
		if (best == from || dist_from[n] > dist_from[best])
			best = n;
	}
	return best;
}
