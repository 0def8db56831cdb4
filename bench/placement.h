/*
 * Which CPUs a benchmark case with N CPUs runs on (placement=): an order
 * over the online CPUs from the initiator, computed from each CPU's
 * [node, socket, core, thread] as data (bench/placement.c, portable, so
 * host tests give shapes). The sweep takes the order's first N.
 */
#ifndef BENCH_PLACEMENT_H
#define BENCH_PLACEMENT_H

#include "types.h"

enum bench_placement {
	PLACE_SPREAD, /* other nodes and sockets first, then other cores, siblings last */
	PLACE_PACK,   /* fill the initiator's socket (cores before siblings), then the next */
	PLACE_SMT,    /* the initiator's siblings first, core by core */
	PLACE_NODE,   /* only the initiator's node, spread within it */
	PLACE_COUNT,
};

struct place_cpu {
	u32 node, socket, core, thread;
};

extern enum bench_placement bench_placement;

/* mem_node=: where a case's address space takes its frames, seen from the initiator. */
enum bench_mem_node { MEM_NODE_LOCAL, MEM_NODE_REMOTE, MEM_NODE_COUNT };
extern enum bench_mem_node bench_mem_node;

const char *placement_name(enum bench_placement p);

/*
 * Writes into @order the indices into @cpus[0..@n) in the order @p takes
 * them, @first (the initiator) first; returns how many (fewer than @n
 * only for PLACE_NODE). Ties go to the lower index.
 */
unsigned placement_order(enum bench_placement p, const struct place_cpu *cpus, unsigned n,
			 unsigned first, unsigned *order);

/*
 * mem_node=remote's node: of @nnodes nodes, the one farthest from @from
 * (@dist_from[n], 0 when no distances are known: every other node alike)
 * among those with memory (@has_mem[n]), ties to the lower number; @from
 * itself when no other node has memory.
 */
unsigned placement_remote_node(unsigned from, unsigned nnodes, const u32 *dist_from,
			       const bool *has_mem);

#endif
