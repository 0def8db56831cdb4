/*
 * Every interrupt vector mmlab uses, in one place. Exceptions are 0..31;
 * the priority class is the vector's high nibble (SDM Vol. 3A 11.8.3), so
 * the IPI vectors sit high, above anything a device could raise.
 */
#ifndef ARCH_VECTORS_H
#define ARCH_VECTORS_H

#define IPI_VEC_CALL 0xf0	/* kernel/smp.c: run a function on other CPUs */
#define VEC_APIC_TIMER 0xef	/* local APIC timer (unused by default) */
#define VEC_APIC_ERROR 0xfe	/* local APIC error interrupt */
#define VEC_APIC_SPURIOUS 0xff	/* spurious-interrupt vector (low nibble all ones) */

#endif
