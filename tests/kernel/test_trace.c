/*
 * Self-tests of the trace buffers (kernel/trace.h): a region records exactly
 * the events its hooks saw, in order; a cross-CPU call leaves caller and
 * target records with the same sequence (what the tool's flow arrows pair); a
 * full buffer keeps its first records and counts the rest lost; trace=0 or no
 * region records nothing. Kernel only (on the host the hooks are empty).
 */
/* build: kernel only */
#include "kernel/percpu.h"
#include "lib/atomic.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "mm/tlb/tlb.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define TEST_BUF 32

static struct trace_rec buf_self[TEST_BUF], buf_peer[TEST_BUF];

static bool need_trace(struct ktest *t)
{
	if (MMLAB_TRACE)
		return true;
	ktest_skip(t, "tracing compiled out (make TRACE=0)");
	return false;
}

static unsigned self_cpu(void)
{
	return this_cpu()->cpu_id;
}

/* Checks record @i of @cpu's buffer. */
static void expect_rec(struct ktest *t, unsigned cpu, u32 i, enum trace_ev ev, unsigned peer,
		       u32 arg)
{
	const struct trace_rec *r = &trace_cpu_state(cpu)->buf[i];

	KEXPECT_EQ(t, r->ev, ev);
	KEXPECT_EQ(t, r->peer, peer);
	KEXPECT_EQ(t, r->arg, arg);
}

static void test_trace_records_region(struct ktest *t)
{
	unsigned cpu = self_cpu();
	bool was = trace_enabled();
	struct trace_cpu old;
	const struct trace_cpu *tc = trace_cpu_state(cpu);

	if (!need_trace(t))
		return;
	trace_test_use(cpu, buf_self, TEST_BUF, true, &old);
	trace_region_begin(2);
	tlb_flush_local(0x400000, 0x402fff, false); /* 3 pages, page by page */
	tlb_flush_local(1, 0, false);		    /* start > last: everything */
	trace_event(TRACE_LOCK_ACQ, TRACE_LOCK_SWAP_DEVICE, 7);
	trace_region_end();
	KEXPECT_EQ(t, tc->n, 7);
	if (tc->n == 7) {
		expect_rec(t, cpu, 0, TRACE_REGION_BEGIN, 0, 2);
		expect_rec(t, cpu, 1, TRACE_FLUSH_PAGES, 0, 3);
		expect_rec(t, cpu, 2, TRACE_FLUSH_END, 0, 0);
		expect_rec(t, cpu, 3, TRACE_FLUSH_FULL, 0, 0xffffffffu);
		expect_rec(t, cpu, 4, TRACE_FLUSH_END, 0, 0);
		expect_rec(t, cpu, 5, TRACE_LOCK_ACQ, TRACE_LOCK_SWAP_DEVICE, 7);
		expect_rec(t, cpu, 6, TRACE_REGION_END, 0, 0);
		for (u32 i = 1; i < 7; i++)
			KEXPECT_LE(t, tc->buf[i - 1].tsc, tc->buf[i].tsc);
	}
	KEXPECT_EQ(t, trace_flag.active, 0);
	trace_test_restore(cpu, &old, was);
}

static void nothing(void *arg)
{
	(void)arg;
}

/* Waits (bounded) until @cpu has made @n records: its part of a call ends after our wait. */
static void wait_records(unsigned cpu, u32 n)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz();

	while (atomic_load_acquire(&trace_cpu_state(cpu)->n) < n && arch_tsc_read() < deadline)
		arch_cpu_relax();
}

/*
 * One call to one idle CPU, every step of the round (docs/design.md, "What
 * one round costs"): here the call, the ICR write, the IPI sent and the
 * acks seen; there the call vector's entry, the claim, the ack, the EOI,
 * HLT returning and the idle loop halting again. The target's last three
 * come after our wait ends, so the region stays open until they are in.
 */
static void test_trace_call_flow(struct ktest *t)
{
	unsigned cpu = self_cpu(), peer = cpu == 0 ? 1 : 0;
	bool was = trace_enabled();
	struct trace_cpu old_self, old_peer;
	u32 seq;

	if (!need_trace(t) || !ktest_need_second_cpu(t))
		return;
	trace_test_use(cpu, buf_self, TEST_BUF, true, &old_self);
	trace_test_use(peer, buf_peer, TEST_BUF, true, &old_peer);
	trace_region_begin(0);
	KEXPECT_EQ(t, smp_call_one(peer, nothing, NULL, true), 0);
	wait_records(peer, 6);
	trace_region_end();
	seq = trace_seq(cpu);
	KEXPECT_EQ(t, trace_cpu_state(cpu)->n, 6);
	KEXPECT_EQ(t, trace_cpu_state(peer)->n, 6);
	if (trace_cpu_state(cpu)->n == 6 && trace_cpu_state(peer)->n == 6) {
		expect_rec(t, cpu, 1, TRACE_CALL, 1, seq);
		expect_rec(t, cpu, 2, TRACE_ICR_WRITE, peer, seq);
		expect_rec(t, cpu, 3, TRACE_IPI_SENT, peer, seq);
		expect_rec(t, cpu, 4, TRACE_ACK_SEEN, 0, seq);
		expect_rec(t, peer, 0, TRACE_IRQ_ENTRY, 0, 0);
		expect_rec(t, peer, 1, TRACE_IPI_RECV, cpu, seq);
		expect_rec(t, peer, 2, TRACE_ACK_SENT, cpu, seq);
		expect_rec(t, peer, 3, TRACE_EOI, 0, 0);
		expect_rec(t, peer, 4, TRACE_IDLE_WAKE, 0, 0);
		expect_rec(t, peer, 5, TRACE_IDLE_HALT, 0, 0);
	}
	trace_test_restore(peer, &old_peer, was);
	trace_test_restore(cpu, &old_self, was);
}

/* A full buffer keeps its first records; every later one is counted, none stored. */
static void test_trace_overflow_counted(struct ktest *t)
{
	unsigned cpu = self_cpu();
	bool was = trace_enabled();
	struct trace_cpu old;
	const struct trace_cpu *tc = trace_cpu_state(cpu);

	if (!need_trace(t))
		return;
	buf_self[8].ev = 0xee; /* just past the end: must stay untouched */
	trace_test_use(cpu, buf_self, 8, true, &old);
	trace_region_begin(1);
	for (u32 i = 0; i < 20; i++)
		trace_event(TRACE_FAULT_BEGIN, 0, i);
	trace_region_end();
	KEXPECT_EQ(t, tc->n, 22); /* begin, 20 events, end */
	KEXPECT_EQ(t, tc->n - tc->cap, 14);
	expect_rec(t, cpu, 0, TRACE_REGION_BEGIN, 0, 1);
	expect_rec(t, cpu, 7, TRACE_FAULT_BEGIN, 0, 6);
	KEXPECT_EQ(t, buf_self[8].ev, 0xee);
	trace_test_restore(cpu, &old, was);
}

/* trace=0, or no region open: the hooks store nothing and count nothing. */
static void test_trace_off_records_nothing(struct ktest *t)
{
	unsigned cpu = self_cpu();
	bool was = trace_enabled();
	struct trace_cpu old;
	const struct trace_cpu *tc = trace_cpu_state(cpu);

	trace_test_use(cpu, buf_self, TEST_BUF, false, &old);
	trace_region_begin(0);
	trace_event(TRACE_FAULT_BEGIN, 0, 1);
	tlb_flush_local(0x400000, 0x400fff, false);
	trace_region_end();
	KEXPECT_EQ(t, tc->n, 0);
	KEXPECT_EQ(t, trace_flag.active, 0);
	trace_test_restore(cpu, &old, was);

	trace_test_use(cpu, buf_self, TEST_BUF, true, &old);
	trace_event(TRACE_FAULT_BEGIN, 0, 1); /* on, but outside a region */
	tlb_flush_local(0x400000, 0x400fff, false);
	trace_region_end();		      /* closing a region never opened records nothing */
	KEXPECT_EQ(t, tc->n, 0);
	trace_test_restore(cpu, &old, was);
}

static const struct ktest_case trace_cases[] = {
	KTEST_CASE(test_trace_records_region),
	KTEST_CASE(test_trace_call_flow),
	KTEST_CASE(test_trace_overflow_counted),
	KTEST_CASE(test_trace_off_records_nothing),
};
KTEST_SUITE(trace, trace_cases);
