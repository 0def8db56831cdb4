/*
 * Host-only test doubles (tests/host/fake_arch.c): the arch.h hooks with
 * call counters, smp_call() run in the calling thread, a settable
 * per-thread CPU number, panic() that tests can catch, and a fake physical
 * memory arena above 4 GiB with a helper that initialises the frame
 * allocator over it. Include only under HOST_BUILD.
 */
#ifndef TESTS_HOST_FAKE_ARCH_H
#define TESTS_HOST_FAKE_ARCH_H

#include "mm/pmm.h"
#include "types.h"

/* Calls to each hook since the last fake_arch_reset_counts(); atomic counters. */
extern u64 fake_flush_one_calls, fake_flush_all_calls, fake_flush_everything_calls;
extern u64 fake_load_root_calls, fake_warn_calls;
/* Targets smp_call() ran a function on (one "IPI" each). */
extern u64 fake_ipi_calls;
extern vaddr_t fake_flush_last_va;
/* The last arch_load_root() call's arguments. */
extern paddr_t fake_loaded_root;
extern u16 fake_loaded_asid;
extern bool fake_load_flushed;

void fake_arch_reset_counts(void);

/*
 * Tests only (NULL: none): called on the calling thread at the start of
 * every arch TLB flush hook, where a test may play an interrupt arriving
 * (checking arch_irqs_enabled() first) or another CPU's step.
 */
extern void (*fake_flush_hook)(void);

/*
 * One tick of the calling fake CPU's arch_tick_start() timer, if it is
 * on: true when the tick function ran. The fake timer never fires alone.
 */
bool fake_tick(void);

/* arch_cpu_id() of the calling thread (0 until set). */
void fake_arch_set_cpu(unsigned cpu);

/* What arch_spin_unfair() answers, for every thread (false until set). */
void fake_arch_set_spin_unfair(bool on);

/*
 * Runs fn(arg) and returns true if it called panic(); the panic is caught
 * (longjmp back here) instead of aborting. fake_panic_message() is the
 * message of the last caught panic.
 */
bool fake_expect_panic(void (*fn)(void *), void *arg);
const char *fake_panic_message(void);

/*
 * The fake RAM: FAKE_MEM_SIZE bytes whose physical addresses start at
 * FAKE_PHYS_BASE. A build may set more (the torture does: Makefile).
 */
#define FAKE_PHYS_BASE (4ull << 30)
#ifndef FAKE_MEM_SIZE
#define FAKE_MEM_SIZE (64ull << 20)
#endif

/* Its layout as the allocator is told it: unaligned, overlapping and with holes, on purpose. */
extern const struct pmm_range fake_usable[];
extern const unsigned fake_nusable;
extern const struct pmm_range fake_reserved[];
extern const unsigned fake_nreserved;

/*
 * Allocates the arena on first use, points the direct map at it and runs
 * pmm_init() over the layout above with @direct_limit. Returns its result.
 */
int fake_pmm_init(paddr_t direct_limit);

/*
 * A fake NUMA layout for arch_cpu_node() and friends: @nnodes nodes, CPU i
 * in @cpu_node[i] (the rest in node 0), distances @dist row-major
 * (@nnodes x @nnodes; NULL: none known). fake_numa_set(1, NULL, 0, NULL)
 * restores the default single node.
 */
void fake_numa_set(unsigned nnodes, const u8 *cpu_node, unsigned ncpus, const u8 *dist);

/* fake_pmm_init(0) with the fake memory split into nodes by @r. */
int fake_pmm_init_nodes(const struct pmm_node_range *r, unsigned n, unsigned nnodes);

/* arch_cpu_relax() calls so far, all threads (an atomic count). */
extern unsigned long fake_relax_count;

#endif
