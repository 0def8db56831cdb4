/*
 * Per-CPU tracing of a benchmark's timed regions (trace=1): IPIs, acks,
 * flushes, locks and faults as records in this CPU's buffer, allocated
 * before the run, printed after each case (docs/output.md, "Trace"). A hook
 * is one predictable branch on a read-mostly flag (nothing with TRACE=0), in
 * any context: one atomic add reserves a slot, so an interrupting record
 * takes the next. Everything else: boot CPU, between regions.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include "compiler.h"
#include "types.h"

/* make TRACE=0 compiles every hook out; the trace= option then refuses 1. */
#ifndef MMLAB_TRACE
#define MMLAB_TRACE 1
#endif

/* What a record says; the console form names each with two letters (trace.c). */
enum trace_ev {
	TRACE_REGION_BEGIN, /* a timed run starts: arg = the variant's index */
	TRACE_REGION_END,   /* it ended */
	TRACE_CALL,	    /* a cross-CPU call is posted: peer = targets, arg = its sequence */
	TRACE_IPI_SENT,	    /* peer = target CPU, arg = the call's sequence */
	TRACE_IPI_RECV,	    /* a target claimed the call: peer = caller, arg = its sequence */
	TRACE_ACK_SENT,	    /* the target acknowledges: peer = caller, arg = sequence */
	TRACE_ACK_SEEN,	    /* the caller saw every acknowledgement: arg = sequence */
	TRACE_FLUSH_PAGES,  /* a flush starts, page by page: arg = pages */
	TRACE_FLUSH_FULL,   /* a flush starts, the whole TLB */
	TRACE_FLUSH_END,    /* the flush is done */
	TRACE_LOCK_ACQ,	    /* a lock is held from now: peer = enum trace_lock */
	TRACE_LOCK_REL,	    /* and released: peer = enum trace_lock */
	TRACE_FAULT_BEGIN,  /* a page fault enters its handler: arg = page number (low 32 bits) */
	TRACE_FAULT_END,    /* and leaves: arg = the negated error, 0 on success */
	/* The steps of one cross-CPU call round (docs/design.md, "What one round costs"): */
	TRACE_ICR_WRITE,    /* the caller writes the ICR now: peer = target CPU, arg = sequence */
	/* the call vector's handler starts (the first instant after HLT exit) */
	TRACE_IRQ_ENTRY,
	TRACE_EOI,	    /* the call vector's handler wrote the EOI */
	TRACE_IDLE_HALT,    /* an idle CPU halts now (sti; hlt) */
	TRACE_IDLE_WAKE,    /* its HLT returned: back in the idle loop after the handler */
	TRACE_NR_EVENTS,
};

/* The locks the lock-based mechanisms take (peer of TRACE_LOCK_*). */
enum trace_lock {
	TRACE_LOCK_MAPPING,	 /* a mapping's rwlock, read side (faultlock, pin) */
	TRACE_LOCK_SWAP_CLUSTER, /* a swap cluster's spinlock (swapfree) */
	TRACE_LOCK_SWAP_DEVICE,	 /* the swap device's spinlock (swapfree) */
	TRACE_LOCK_VMA,		 /* a region's own rwlock, read side (faultlock vma_lock) */
};

struct trace_rec {
	u64 tsc;
	u8 ev;	  /* enum trace_ev */
	u8 pad;
	u16 peer; /* a CPU or an enum trace_lock */
	u32 arg;
};

/* One CPU's buffer: records 0..min(n, cap)-1 are valid; n beyond cap counts the lost. */
struct trace_cpu {
	struct trace_rec *buf;
	u32 cap;
	u32 n;	 /* records attempted since the last reset */
	u32 seq; /* sequence of this CPU's last TRACE_CALL */
} __cacheline_aligned;

/*
 * Nonzero while a timed region is open and trace=1: the only thing a hook
 * reads. Alone on its cache line, written only at region begin and end.
 */
struct trace_flag {
	u32 active;
} __cacheline_aligned;
extern struct trace_flag trace_flag;

/* Appends one record to this CPU's buffer (or counts it lost). Call through trace_event(). */
void trace_record(enum trace_ev ev, unsigned peer, u32 arg);

#if MMLAB_TRACE && !defined(HOST_BUILD)
#define trace_event(ev, peer, arg)					\
	do {								\
		if (unlikely(READ_ONCE(trace_flag.active)))		\
			trace_record((ev), (peer), (arg));		\
	} while (0)
#else
/*
 * Compiled out: the arguments are still type-checked and count as used, never
 * evaluated at run time.
 */
#define trace_event(ev, peer, arg)					\
	do {								\
		if (0)							\
			trace_record((ev), (peer), (arg));		\
	} while (0)
#endif

/* The sequence of @cpu's call in flight (TRACE_CALL's arg): for its targets' records. */
u32 trace_seq(unsigned cpu);

/* True when trace=1 was given (and tracing is compiled in). */
bool trace_enabled(void);

/*
 * Before the first region, boot CPU: gives every online CPU a buffer of
 * trace_buf= records from @alloc (the caller's boot memory: kernel/ sits
 * below mm/), once per boot. Returns 0 (also when trace=0, calling
 * nothing), -EINVAL when trace=1 but tracing is compiled out, -ENOMEM when
 * @alloc returns NULL; the error is printed, and the caller stops the run.
 */
int trace_init(void *(*alloc)(size_t bytes));

/* Opens a timed region on the boot CPU (records TRACE_REGION_BEGIN, @variant). */
void trace_region_begin(unsigned variant);
/* Closes it; records TRACE_REGION_END. Every CPU's part of the region must be over. */
void trace_region_end(void);

/*
 * Prints every CPU's records since the last dump (docs/output.md, "Trace"),
 * framed by TRACE-BEGIN (@bench, @ncpus, @label, the @nvariants names a
 * region's variant index refers to) and TRACE-END (totals, lost records),
 * then empties the buffers. Boot CPU, no region open. Nothing when trace=0.
 */
void trace_dump(const char *bench, unsigned ncpus, const char *label,
		const char *const *variants, unsigned nvariants);

/* Empties every CPU's buffer unprinted (runs whose results are discarded). Boot CPU. */
void trace_discard(void);

struct json;
/* Adds the header's "trace" object: on or off, compiled in, buffer size, cycles per record. */
void trace_describe(struct json *j);

/*
 * For the self-tests: gives @cpu the buffer @buf of @cap records (NULL:
 * none) and empties it, and turns trace= on or off (@on). Returns the
 * state it replaced in @old, for trace_test_restore().
 */
void trace_test_use(unsigned cpu, struct trace_rec *buf, u32 cap, bool on, struct trace_cpu *old);
void trace_test_restore(unsigned cpu, const struct trace_cpu *old, bool on);
/* @cpu's buffer as it stands (for the self-tests and the dump). */
const struct trace_cpu *trace_cpu_state(unsigned cpu);

#endif
