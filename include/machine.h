/*
 * The machine as arch describes it to mm at boot (struct machine_desc) and
 * the map mm hands back (struct machine_kmap); kernel/main.c drives the
 * order. Neither side calls the other: both are plain data, and later
 * additions to the kernel half reach arch as function pointers in the map.
 * After lk's mmu_initial_mappings, which the platform fills and vm reads.
 */
#ifndef MACHINE_H
#define MACHINE_H

#include "types.h"

/* Bounds on the description's tables (the multiboot map has at most 256 entries). */
#define MACHINE_MAX_RANGES 256
#define MACHINE_MAX_RESERVED 64
#define MACHINE_MAX_SECTIONS 4
/* Most interrupt stacks (x86: IST entries) a CPU's stack slot holds. */
#define MACHINE_MAX_IRQ_STACKS 3
/* NUMA nodes (a struct page keeps its node in a byte), and memory ranges naming theirs. */
#define MACHINE_MAX_NODES 64
#define MACHINE_MAX_NODE_RANGES 64

/* A physical address range [start, end) in bytes. */
struct machine_range {
	paddr_t start, end;
};

/* A physical address range [start, end) of NUMA node @node. */
struct machine_node_range {
	paddr_t start, end;
	unsigned node;
};

/* Access an image section needs; read is implied. */
enum machine_sec_access {
	MACHINE_SEC_WRITE = 1u << 0,
	MACHINE_SEC_EXEC = 1u << 1,
};

/* One section of the kernel image: mapped at [start, end), from physical start - virt_offset. */
struct machine_section {
	vaddr_t start, end;
	unsigned access; /* enum machine_sec_access */
};

struct machine_desc {
	/* Memory the frame allocator may manage, and what it must never hand out. */
	struct machine_range usable[MACHINE_MAX_RANGES];
	unsigned nusable;
	struct machine_range reserved[MACHINE_MAX_RESERVED];
	unsigned nreserved;
	/* RAM-like memory (firmware tables included) for the direct map, any order. */
	struct machine_range ram[MACHINE_MAX_RANGES + 1];
	unsigned nram;
	/* Below this, the gaps between RAM are device or firmware space: mapped uncached. */
	paddr_t uncached_gaps_below;
	/* Highest physical address + 1 the boot-time tables reach (0: all of it). */
	paddr_t boot_map_limit;
	/* NUMA (x86: the SRAT): nodes, nodes with no memory or CPU included, and their memory. */
	unsigned nnodes;
	struct machine_node_range node_mem[MACHINE_MAX_NODE_RANGES];
	unsigned nnode_mem;

	/* The image, by section, and the virtual minus physical address of it. */
	struct machine_section image[MACHINE_MAX_SECTIONS];
	unsigned nimage;
	vaddr_t image_virt_offset;

	/* The kernel half: every top-level entry of it gets a table at boot, so roots share it. */
	vaddr_t kernel_half_base;
	u64 kernel_half_size;

	/*
	 * What the APs' first root needs: low memory [0, ap_identity_bytes)
	 * mapped where it lies, the root itself below ap_root_below (x86: it is
	 * loaded in 32-bit mode). ap_identity_bytes 0: no such root.
	 */
	u64 ap_identity_bytes;
	paddr_t ap_root_below;

	/* The MMU: 1 GiB leaves, no-execute, and address-space identifiers besides 0. */
	bool huge_1g;
	bool nx;
	unsigned nasids;

	/* Stacks: how many CPUs may come up, and interrupt stacks per CPU. */
	unsigned ncpus;
	unsigned irq_stacks;
};

/* One CPU's stacks, as mm mapped them (tops: initial stack pointers). */
struct machine_stacks {
	vaddr_t top;
	vaddr_t irq_top[MACHINE_MAX_IRQ_STACKS];
};

/* What mm built from a struct machine_desc, for arch to load. */
struct machine_kmap {
	paddr_t root;	 /* the kernel root, every CPU's after boot */
	paddr_t ap_root; /* the APs' first root; 0 once mm freed it */
	bool asids;	 /* the kernel root runs as ASID 0 and address spaces get their own */
	/*
	 * CPUs 0..nstacks-1 have stacks (nstacks < ncpus: memory ran out): CPU
	 * n's are at CPU 0's addresses (stack0) plus n * stack_stride.
	 */
	struct machine_stacks stack0;
	u64 stack_stride;
	unsigned nstacks;
	/*
	 * Later additions to the kernel half: device registers uncached (returns
	 * their kernel address or NULL), firmware tables through the direct map
	 * (false when they cannot be mapped). Any CPU, task context.
	 */
	void *(*map_mmio)(paddr_t pa, u64 len);
	bool (*map_firmware)(paddr_t pa, u64 len);
};

#endif
