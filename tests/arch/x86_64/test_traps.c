/*
 * Kernel self-tests of the exception path: each test provokes one exception
 * on purpose under trap_catch() and checks the vector, error code and the
 * faulting address, including that the RIP resolves to the provoking
 * function through the build-time symbol table. Kernel only.
 */
/* build: kernel only */
#include "arch/x86_64/traps.h"
#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "lib/string.h"
#include "tests/ktest.h"
#include <arch/arch.h>
#include <arch/vectors.h>

/* Low half, PML4 slot 32: never mapped by the boot tables. */
#define UNMAPPED_ADDR 0x0000100000000000ul
/* Bit 63 set but not a sign extension of bit 47: a #GP, not a #PF (SDM Vol. 3A 6.15). */
#define NONCANONICAL_ADDR 0x8000000000000000ul

static volatile u64 trap_sink;

static __attribute__((noinline)) void provoke_ud(void *arg)
{
	(void)arg;
	__builtin_trap();
}

static __attribute__((noinline)) void provoke_de(void *arg)
{
	volatile u64 dividend = 1000, zero = 0;

	(void)arg;
	/* Both volatile, so no constant folding or strength reduction avoids the div. */
	trap_sink = dividend / zero;
}

static __attribute__((noinline)) void provoke_pf_read(void *arg)
{
	trap_sink = *(volatile u64 *)arg;
}

static __attribute__((noinline)) void provoke_pf_write(void *arg)
{
	*(volatile u64 *)arg = 42;
}

static __attribute__((noinline)) void provoke_gp(void *arg)
{
	trap_sink = *(volatile u64 *)arg;
}

static __attribute__((noinline)) void provoke_nothing(void *arg)
{
	*(u64 *)arg += 1;
}

static void expect_rip_in(struct ktest *t, u64 rip, const char *fn)
{
	u64 off = 0;
	const char *name = ksym_lookup(rip, &off);

	if (!KEXPECT(t, name != NULL))
		return;
	KEXPECT_STREQ(t, name, fn);
}

static void test_traps_ud(struct ktest *t)
{
	struct fault_info fi;

	KASSERT(t, trap_catch(provoke_ud, NULL, &fi));
	KEXPECT_EQ(t, fi.vector, VEC_UD);
	expect_rip_in(t, fi.rip, "provoke_ud");
}

static void test_traps_de(struct ktest *t)
{
	struct fault_info fi;

	KASSERT(t, trap_catch(provoke_de, NULL, &fi));
	KEXPECT_EQ(t, fi.vector, VEC_DE);
	expect_rip_in(t, fi.rip, "provoke_de");
}

static void test_traps_pf_read(struct ktest *t)
{
	struct fault_info fi;

	KASSERT(t, trap_catch(provoke_pf_read, (void *)UNMAPPED_ADDR, &fi));
	KEXPECT_EQ(t, fi.vector, VEC_PF);
	KEXPECT_EQ(t, fi.cr2, UNMAPPED_ADDR);
	KEXPECT_EQ(t, fi.error & 0x3, 0); /* not present, read */
	expect_rip_in(t, fi.rip, "provoke_pf_read");
}

static void test_traps_pf_write(struct ktest *t)
{
	struct fault_info fi;

	KASSERT(t, trap_catch(provoke_pf_write, (void *)(UNMAPPED_ADDR + 8), &fi));
	KEXPECT_EQ(t, fi.vector, VEC_PF);
	KEXPECT_EQ(t, fi.cr2, UNMAPPED_ADDR + 8);
	KEXPECT_EQ(t, fi.error & 0x3, 0x2); /* not present, write */
	expect_rip_in(t, fi.rip, "provoke_pf_write");
}

static void test_traps_gp(struct ktest *t)
{
	struct fault_info fi;

	KASSERT(t, trap_catch(provoke_gp, (void *)NONCANONICAL_ADDR, &fi));
	KEXPECT_EQ(t, fi.vector, VEC_GP);
	KEXPECT_EQ(t, fi.error, 0);
	expect_rip_in(t, fi.rip, "provoke_gp");
}

/* No fault: the call returns normally and the catcher is disarmed again. */
static void test_traps_no_fault(struct ktest *t)
{
	struct fault_info fi;
	u64 counter = 0;

	KEXPECT(t, !trap_catch(provoke_nothing, &counter, &fi));
	KEXPECT_EQ(t, counter, 1);
	KEXPECT(t, trap_catch(provoke_ud, NULL, &fi));
	KEXPECT(t, !trap_catch(provoke_nothing, &counter, &fi));
	KEXPECT_EQ(t, counter, 2);
}

static void test_traps_ksyms(struct ktest *t)
{
	u64 addr = ksym_address("provoke_gp"), off = 1;

	KASSERT(t, addr != 0);
	KEXPECT_EQ(t, addr, (u64)(uintptr_t)provoke_gp);
	KEXPECT_STREQ(t, ksym_lookup(addr + 3, &off), "provoke_gp");
	KEXPECT_EQ(t, off, 3);
	KEXPECT(t, ksym_lookup(0x1000, &off) == NULL);
}

/*
 * The call vector's lean stub (isr.S ipi_call_stub) saves only what its
 * handler may clobber: every general register must still hold what the
 * interrupted code had (a software INT takes the same gate and frame as
 * the IPI). Nothing is posted, so the handler finds an empty mailbox; it
 * still counts one interrupt and one IPI received, exactly.
 */
static void test_traps_call_vector_keeps_registers(struct ktest *t)
{
	static const u64 want[14] = {
		0x1111111111111101, 0x2222222222222202, 0x3333333333333303, 0x4444444444444404,
		0x5555555555555505, 0x6666666666666606, 0x7777777777777707, 0x8888888888888808,
		0x9999999999999909, 0xaaaaaaaaaaaaaa0a, 0xbbbbbbbbbbbbbb0b, 0xcccccccccccccc0c,
		0xdddddddddddddd0d, 0xeeeeeeeeeeeeee0e,
	};
	u64 got[14];
	u64 irqs = percpu_counter_read(this_cpu()->cpu_id, PCPU_INTERRUPTS);
	u64 recv = percpu_counter_read(this_cpu()->cpu_id, PCPU_IPI_RECEIVED);
	unsigned long flags = arch_irq_save();
	register u64 r8 __asm__("r8") = want[6], r9 __asm__("r9") = want[7];
	register u64 r10 __asm__("r10") = want[8], r11 __asm__("r11") = want[9];
	register u64 r12 __asm__("r12") = want[10], r13 __asm__("r13") = want[11];
	register u64 r14 __asm__("r14") = want[12], r15 __asm__("r15") = want[13];
	u64 rax = want[0], rbx = want[1], rcx = want[2], rdx = want[3], rsi = want[4],
	    rdi = want[5];

	__asm__ volatile("int %[vec]"
			 : "+a"(rax), "+b"(rbx), "+c"(rcx), "+d"(rdx), "+S"(rsi), "+D"(rdi),
			   "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r11), "+r"(r12), "+r"(r13),
			   "+r"(r14), "+r"(r15)
			 : [vec] "i"(IPI_VEC_CALL)
			 : "memory", "cc");
	arch_irq_restore(flags);
	got[0] = rax, got[1] = rbx, got[2] = rcx, got[3] = rdx, got[4] = rsi, got[5] = rdi;
	got[6] = r8, got[7] = r9, got[8] = r10, got[9] = r11, got[10] = r12, got[11] = r13;
	got[12] = r14, got[13] = r15;
	for (unsigned i = 0; i < 14; i++)
		if (!KEXPECT_EQ(t, got[i], want[i]))
			ktest_log(t, "register %u (rax rbx rcx rdx rsi rdi r8..r15) changed", i);
	KEXPECT_EQ(t, percpu_counter_read(this_cpu()->cpu_id, PCPU_INTERRUPTS), irqs + 1);
	KEXPECT_EQ(t, percpu_counter_read(this_cpu()->cpu_id, PCPU_IPI_RECEIVED), recv + 1);
}

static const struct ktest_case traps_cases[] = {
	KTEST_CASE(test_traps_ud),	 KTEST_CASE(test_traps_de),
	KTEST_CASE(test_traps_pf_read),	 KTEST_CASE(test_traps_pf_write),
	KTEST_CASE(test_traps_gp),	 KTEST_CASE(test_traps_no_fault),
	KTEST_CASE(test_traps_ksyms),
	KTEST_CASE(test_traps_call_vector_keeps_registers),
};
KTEST_SUITE(traps, traps_cases);
