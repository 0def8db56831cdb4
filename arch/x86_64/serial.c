/*
 * 16550 UART driver for the console: programmed I/O, polled transmit. The
 * caller (printk) serialises writers; this file holds no lock so that a
 * panic can still print when a lock holder died.
 */
#include "arch/x86_64/serial.h"
#include <arch/cpu.h>

#define UART_DATA 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCRATCH 7

#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define LSR_THRE 0x20
#define UART_CLOCK 115200

static u16 uart_port;

bool serial_init(u16 port)
{
	/* A missing UART reads back 0xff: probe the scratch register first. */
	outb(port + UART_SCRATCH, 0x5a);
	if (inb(port + UART_SCRATCH) != 0x5a)
		return false;
	outb(port + UART_IER, 0);
	outb(port + UART_LCR, LCR_DLAB);
	outb(port + UART_DATA, UART_CLOCK / 115200);
	outb(port + UART_IER, 0);
	outb(port + UART_LCR, LCR_8N1);
	outb(port + UART_FCR, 0x07); /* enable and clear FIFOs */
	outb(port + UART_MCR, 0x03); /* DTR | RTS */
	uart_port = port;
	return true;
}

static void serial_putc(char c)
{
	/* Bounded wait: a wedged UART must not hang a panic forever. */
	for (unsigned spin = 0; spin < 1000000; spin++) {
		if (inb(uart_port + UART_LSR) & LSR_THRE)
			break;
		pause();
	}
	outb(uart_port + UART_DATA, (u8)c);
}

void serial_write(const char *s, size_t n)
{
	if (!uart_port)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

u16 serial_port(void)
{
	return uart_port;
}
