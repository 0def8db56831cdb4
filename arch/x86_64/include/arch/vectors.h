/*
 * Every interrupt vector mmlab uses, in one place. Exceptions are 0..31;
 * the priority class is the vector's high nibble (SDM Vol. 3A 11.8.3), so
 * the IPI vectors sit high, above anything a device could raise.
 */
#ifndef ARCH_VECTORS_H
#define ARCH_VECTORS_H

/*
 * The legacy 8259 pair, remapped at boot (arch/x86_64/pic.c) off the
 * exception vectors it powers up on (the BIOS leaves the master at 8-15).
 * Every line is masked; only the spurious IRQ7/IRQ15 vectors can arrive.
 */
#define PIC_VEC_MASTER 0x20		   /* IRQ0-7 -> 0x20-0x27 */
#define PIC_VEC_SLAVE 0x28		   /* IRQ8-15 -> 0x28-0x2f */
#define PIC_VEC_SPURIOUS_MASTER (PIC_VEC_MASTER + 7)
#define PIC_VEC_SPURIOUS_SLAVE (PIC_VEC_SLAVE + 7)

#define IPI_VEC_CALL 0xf0	/* kernel/smp.c: run a function on other CPUs */
#define VEC_APIC_TIMER 0xef	/* local APIC timer: arch_tick_start(), off unless started */
#define VEC_APIC_ERROR 0xfe	/* local APIC error interrupt */
#define VEC_APIC_SPURIOUS 0xff	/* spurious-interrupt vector (low nibble all ones) */

#endif
