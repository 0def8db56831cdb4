/*
 * Per-CPU GDT and TSS. Each CPU gets its own TSS so that its interrupt stack
 * table (IST) points at its own emergency stacks: double faults (a stack
 * overflow into a guard page) and NMIs run on a known-good stack.
 */
#ifndef ARCH_GDT_H
#define ARCH_GDT_H

#include "types.h"

#define GDT_KERNEL_CS 0x08
#define GDT_KERNEL_DS 0x10
#define GDT_TSS 0x18

/* IST slots (1-based in the IDT gate; index = slot - 1 here). */
#define IST_DOUBLE_FAULT 1
#define IST_NMI 2
#define IST_MACHINE_CHECK 3
#define IST_COUNT 3
#define IST_STACK_SIZE 8192

/*
 * Builds and loads CPU @cpu's GDT and TSS with @ist_top[i] as the top of the
 * stack for IST slot i + 1. Runs on CPU @cpu itself, interrupts off.
 */
void gdt_init_cpu(unsigned cpu, const vaddr_t ist_top[IST_COUNT]);

/* Static IST stacks for the boot CPU, which starts before any allocator. */
void gdt_boot_ist(vaddr_t ist_top[IST_COUNT]);

#endif
