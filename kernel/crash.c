/*
 * crash=KIND: end the run with a deliberate failure right after the header,
 * so tests can check what a real one looks like on the console (exception
 * report, registers, named backtrace, panic trailer) and that run.sh maps it
 * to the right exit status, including a hang that only the timeout stops.
 */
#include "kernel/crash.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include <arch/arch.h>

/* Low half, PML4 slot 32: never mapped (same address as tests/arch/x86_64/test_traps.c). */
#define CRASH_UNMAPPED_ADDR 0x0000100000000000ul
#define CRASH_NONCANONICAL_ADDR 0x8000000000000000ul

static volatile u64 crash_sink;

static __attribute__((noinline)) void crash_ud(void)
{
	__builtin_trap();
}

static __attribute__((noinline)) void crash_de(void)
{
	volatile u64 dividend = 1000, zero = 0;

	/* Both volatile: gcc turns 1 / x into (x == 1) and never divides. */
	crash_sink = dividend / zero;
}

static __attribute__((noinline)) void crash_pf(void)
{
	crash_sink = *(volatile u64 *)CRASH_UNMAPPED_ADDR;
}

static __attribute__((noinline)) void crash_gp(void)
{
	crash_sink = *(volatile u64 *)CRASH_NONCANONICAL_ADDR;
}

static __attribute__((noinline)) __noreturn void crash_hang(void)
{
	arch_irq_save();
	for (;;)
		arch_cpu_relax();
}

void crash_on_purpose(int kind)
{
	switch (kind) {
	case OPT_CRASH_UD:
		crash_ud();
		break;
	case OPT_CRASH_DE:
		crash_de();
		break;
	case OPT_CRASH_PF:
		crash_pf();
		break;
	case OPT_CRASH_GP:
		crash_gp();
		break;
	case OPT_CRASH_PANIC:
		panic("crash=panic asked for a panic");
	case OPT_CRASH_HANG:
		crash_hang();
	default:
		return;
	}
	panic("crash=%d did not crash", kind);
}
