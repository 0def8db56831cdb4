/*
 * 16550 UART on an I/O port: the console. Polled, no interrupts, so it works
 * from any context, exception handlers and panics included.
 */
#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

#include "types.h"

#define SERIAL_COM1 0x3f8
#define SERIAL_COM2 0x2f8

/* Programs the UART at I/O port @port for 115200 8N1. Returns false if no UART answers. */
bool serial_init(u16 port);

/* Writes @n bytes, turning "\n" into "\r\n". Caller serialises (printk's lock). */
void serial_write(const char *s, size_t n);

/* The I/O port in use, or 0 before serial_init(). */
u16 serial_port(void);

#endif
