/*
 * The host tests' model of each fake CPU's TLB (tests/host/fake_tlb.c). An
 * entry caches a translation under the ASID loaded when it was filled and
 * stays until the SDM says it goes (INVLPG, CR3 reload, root load, a fault,
 * eviction); rewriting a page-table entry changes nothing here: that is the
 * point. A flush also notices an entry whose frame was freed before it. Each
 * CPU's entries are under a lock. Include only under HOST_BUILD.
 */
#ifndef TESTS_HOST_FAKE_TLB_H
#define TESTS_HOST_FAKE_TLB_H

#include "types.h"

/*
 * Entries per fake CPU, direct-mapped by page number: as many as a
 * second-level TLB of a recent x86 core holds, so a case's whole working
 * set stays cached and only a flush (or a conflicting page) drops it.
 */
#define FAKE_TLB_ENTRIES 1024
/* Fake CPUs with a TLB; any above cache nothing. */
#define FAKE_TLB_CPUS 16

/* A translation the TLB returned. */
struct fake_tlb_hit {
	paddr_t pa;	/* the frame address for the looked-up va (offset included) */
	unsigned prot;	/* PROT_* the entry allows */
};

/* Drops every entry of every fake CPU and zeroes the counters (suite init). */
void fake_tlb_reset(void);

/*
 * Looks @va up in fake CPU @cpu's TLB under its current ASID. Returns
 * true and fills *@hit when an entry covers it; a hit may be stale.
 */
bool fake_tlb_lookup(unsigned cpu, vaddr_t va, struct fake_tlb_hit *hit);

/* Caches a walk's result: @va maps @pa (of the page of @size bytes) with @prot. */
void fake_tlb_fill(unsigned cpu, vaddr_t va, paddr_t pa, u64 size, unsigned prot);

/* A page fault at @va: the CPU drops its entries for it (SDM Vol. 3A 4.10.4.1). */
void fake_tlb_fault(unsigned cpu, vaddr_t va);

/* The invalidations the arch hooks do on fake CPU @cpu (fake_arch.c calls these). */
void fake_tlb_flush_va(unsigned cpu, vaddr_t va);
void fake_tlb_flush_asid(unsigned cpu);
void fake_tlb_flush_everything(unsigned cpu);
/* CR3 load: @asid is current from now on; with @flush its entries go (all when @asid is 0). */
void fake_tlb_load(unsigned cpu, u16 asid, bool flush);

/*
 * True when an entry of fake CPU @cpu's running ASID translates to a frame
 * in [@pa, @pa + @len): the CPU could still reach it without a walk.
 */
bool fake_tlb_holds(unsigned cpu, paddr_t pa, u64 len);

/*
 * Calls @fn for each entry of fake CPU @cpu's running ASID, under its
 * TLB's lock (@fn must not call back into this file).
 */
typedef void fake_tlb_visit_fn(void *arg, vaddr_t base, paddr_t pa, u64 size, unsigned prot);
void fake_tlb_visit(unsigned cpu, fake_tlb_visit_fn *fn, void *arg);

/* Lookups that hit, since fake_tlb_reset(). */
u64 fake_tlb_hits(void);

/*
 * Entries a flush (INVLPG, flush_all, flush_everything; not a root load)
 * dropped from the running ASID whose frame page_free() had freed already:
 * each is a frame freed before its flush. The last such frame in *@last_pa.
 */
u64 fake_tlb_early_frees(paddr_t *last_pa);

#endif
