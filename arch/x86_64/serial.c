/*
 * 16550 UART driver for the console: programmed I/O or MMIO, polled
 * transmit. Register n is at base + n for a port UART and at
 * base + n * width for an MMIO one, accessed width bytes at a time (only
 * the low 8 bits carry data). The caller (printk) serialises writers; this
 * file holds no lock so that a panic can still print when a lock holder died.
 */
#include "arch/x86_64/serial.h"
#include <arch/cpu.h>
#include <arch/layout.h>

#define UART_DATA 0 /* divisor latch low while LCR.DLAB is set */
#define UART_IER 1  /* divisor latch high while LCR.DLAB is set */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCRATCH 7

#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define LSR_THRE 0x20
/* The 1.8432 MHz reference clock divided by 16: divisor 1 is 115200 baud. */
#define UART_BASE_BAUD 115200

static struct serial_uart console;
static bool console_set;

static u8 uart_read(const struct serial_uart *u, unsigned reg)
{
	if (u->space == SERIAL_IO)
		return inb((u16)(u->base + reg));
	switch (u->width) {
	case 4:
		return (u8) * (volatile u32 *)(u->mmio + reg * 4);
	case 2:
		return (u8) * (volatile u16 *)(u->mmio + reg * 2);
	default:
		return u->mmio[reg];
	}
}

static void uart_write(const struct serial_uart *u, unsigned reg, u8 v)
{
	if (u->space == SERIAL_IO) {
		outb((u16)(u->base + reg), v);
		return;
	}
	switch (u->width) {
	case 4:
		*(volatile u32 *)(u->mmio + reg * 4) = v;
		break;
	case 2:
		*(volatile u16 *)(u->mmio + reg * 2) = v;
		break;
	default:
		u->mmio[reg] = v;
		break;
	}
}

/* A baud rate 115200 does not divide exactly gets the nearest divisor. */
static u16 uart_divisor(u32 baud)
{
	u32 div = (UART_BASE_BAUD + baud / 2) / baud;

	return (u16)(div ? (div > 0xffff ? 0xffff : div) : 1);
}

bool serial_uart_init(struct serial_uart *u)
{
	if (u->space == SERIAL_MMIO) {
		if (u->width != 1 && u->width != 2 && u->width != 4)
			return false;
		if (u->base >= BOOT_MAP_BYTES || BOOT_MAP_BYTES - u->base < 8u * u->width)
			return false;
		u->mmio = (volatile u8 *)(DIRECT_MAP_BASE + u->base);
	}
	/* A missing UART reads back 0xff: probe the scratch register first. */
	uart_write(u, UART_SCRATCH, 0x5a);
	if (uart_read(u, UART_SCRATCH) != 0x5a)
		return false;
	uart_write(u, UART_IER, 0);
	if (u->baud) {
		u16 div = uart_divisor(u->baud);

		uart_write(u, UART_LCR, LCR_DLAB);
		uart_write(u, UART_DATA, div & 0xff);
		uart_write(u, UART_IER, div >> 8);
	}
	uart_write(u, UART_LCR, LCR_8N1);
	uart_write(u, UART_FCR, 0x07); /* enable and clear FIFOs */
	uart_write(u, UART_MCR, 0x03); /* DTR | RTS */
	return true;
}

void serial_uart_putc(const struct serial_uart *u, char c)
{
	/* Bounded wait: a wedged UART must not hang a panic forever. */
	for (unsigned spin = 0; spin < 1000000; spin++) {
		if (uart_read(u, UART_LSR) & LSR_THRE)
			break;
		pause();
	}
	uart_write(u, UART_DATA, (u8)c);
}

void serial_set_console(const struct serial_uart *u)
{
	console = *u;
	console_set = true;
}

void serial_write(const char *s, size_t n)
{
	if (!console_set)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_uart_putc(&console, '\r');
		serial_uart_putc(&console, s[i]);
	}
}

u16 serial_port(void)
{
	return console_set && console.space == SERIAL_IO ? (u16)console.base : 0;
}

const struct serial_uart *serial_console(void)
{
	return console_set ? &console : NULL;
}
