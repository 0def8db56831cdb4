/*
 * 16550-compatible UARTs: the console. A UART sits at an I/O port (COM1,
 * COM2) or in memory with registers 1, 2 or 4 bytes apart (what the ACPI
 * SPCR table describes on servers). Polled, no interrupts, so it works from
 * any context, exception handlers and panics included. Which UART is the
 * console is decided in arch/x86_64/console.c.
 */
#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

#include "types.h"

#define SERIAL_COM1 0x3f8
#define SERIAL_COM2 0x2f8
#define SERIAL_BAUD_DEFAULT 115200

enum serial_space { SERIAL_IO, SERIAL_MMIO };

/* Where a UART is and how to program it. */
struct serial_uart {
	enum serial_space space;
	u64 base;	   /* I/O port, or physical address of register 0 */
	u8 width;	   /* MMIO: register access size and spacing in bytes (1, 2 or 4); I/O: 1 */
	u32 baud;	   /* 0: keep the divisor the firmware programmed */
	volatile u8 *mmio; /* set by serial_uart_init() for SERIAL_MMIO */
};

/*
 * Probes the UART @u through its scratch register and programs it for 8N1
 * at u->baud (115200 / divisor; 0 keeps the firmware's rate). An MMIO UART
 * must lie in the boot direct map (below BOOT_MAP_BYTES). Returns false,
 * leaving the UART untouched but for the scratch register, if none answers.
 * Boot CPU; no locking (the UART is not yet shared).
 */
bool serial_uart_init(struct serial_uart *u);

/* Writes byte @c to @u, waiting (bounded) for room in the transmitter. */
void serial_uart_putc(const struct serial_uart *u, char c);

/* Makes @u, already initialised, the console that serial_write() uses. */
void serial_set_console(const struct serial_uart *u);

/* Writes @n bytes to the console, turning "\n" into "\r\n". Caller serialises (printk's lock). */
void serial_write(const char *s, size_t n);

/* The console's I/O port; 0 before a console is set or when it is an MMIO UART. */
u16 serial_port(void);

/* The console UART, or NULL before serial_set_console(). */
const struct serial_uart *serial_console(void);

#endif
