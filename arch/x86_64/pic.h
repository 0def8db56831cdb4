/*
 * The legacy 8259A pair (master 0x20/0x21, slave 0xa0/0xa1 on IRQ2). mmlab
 * takes no device interrupts: bring-up moves both off the exception vectors
 * (the BIOS's master at 8-15 makes the timer look like a double fault) and
 * masks every line. Only the spurious IRQ7/IRQ15 can still arrive; it is
 * counted and dropped. Boot CPU only.
 */
#ifndef ARCH_PIC_H
#define ARCH_PIC_H

#include "types.h"

/*
 * Remaps the master to PIC_VEC_MASTER and the slave to PIC_VEC_SLAVE,
 * masks all sixteen lines and installs the spurious IRQ7/IRQ15 handlers.
 * Interrupts off, before the first sti. Returns whether an 8259 answered
 * (a hardware-reduced machine has none; the writes to its unused ports are
 * then harmless).
 */
bool pic_init(void);

/* Whether pic_init() found an 8259. */
bool pic_present(void);

/* Interrupt mask register (OCW1) and in-service register (OCW3) of one PIC. */
u8 pic_imr(bool slave);
u8 pic_isr(bool slave);

/* Spurious IRQ7 (master) or IRQ15 (slave) interrupts seen since boot. */
u64 pic_spurious_count(bool slave);

/* In-service (real) IRQ7/IRQ15 on lines that are masked: 0 while masking works. */
u64 pic_unexpected_count(void);

#endif
