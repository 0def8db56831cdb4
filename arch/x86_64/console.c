/*
 * Console selection (see console.h): console= first, then the ACPI SPCR
 * table's UART when mmlab can drive it, then COM1. The choice itself is
 * pure and runs on the host too; the kernel-only part at the end keeps the
 * choice for the MMLAB header and prints it once the header is out. Boot
 * CPU, before the other CPUs start; read-only afterwards.
 */
#include "arch/x86_64/console.h"
#include "arch/x86_64/acpi.h"
#include "kernel/cmdline.h"
#include "lib/format.h"
#include "lib/string.h"
#include <arch/layout.h>

static const u16 console_ports[] = { SERIAL_COM1, SERIAL_COM2 };

static const char *const console_words[] = {
	[OPT_CONSOLE_TTYS0] = "ttyS0",
	[OPT_CONSOLE_TTYS1] = "ttyS1",
	[OPT_CONSOLE_COUNT] = NULL,
};
enum opt_console console_opt;
/* console=: arch/x86_64/arch.c hands it to console_choose() when given. */
OPTION_ENUM(console, console_opt, console_words, OPT_CONSOLE_TTYS0);

static struct serial_uart console_io(u16 port, u32 baud)
{
	return (struct serial_uart){ .space = SERIAL_IO, .base = port, .width = 1, .baud = baud };
}

/* Interface types of the SPCR spec that are register-compatible with a 16550. */
static bool spcr_is_16550(u8 type)
{
	return type == ACPI_SPCR_16550 || type == ACPI_SPCR_16450 || type == ACPI_SPCR_16550_GAS;
}

/*
 * Turns the SPCR UART into @u; returns NULL, or why it cannot be used. An
 * MMIO UART must be in the boot direct map: the console is set up before
 * the kernel maps anything else.
 */
static const char *spcr_uart(const struct acpi_spcr_info *s, struct serial_uart *u)
{
	u8 width = s->bit_width ? s->bit_width / 8 : 1;

	if (!spcr_is_16550(s->interface_type))
		return "interface is not 16550-compatible";
	if (!s->mmio) {
		if (s->address > 0xfff8)
			return "I/O port beyond 0xfff8";
		*u = console_io((u16)s->address, s->baud);
		return NULL;
	}
	if (width != 1 && width != 2 && width != 4)
		return "register width is not 8, 16 or 32 bits";
	if (s->address >= BOOT_MAP_BYTES || BOOT_MAP_BYTES - s->address < 8u * width)
		return "MMIO address beyond the boot direct map (4 GiB)";
	*u = (struct serial_uart){
		.space = SERIAL_MMIO, .base = s->address, .width = width, .baud = s->baud
	};
	return NULL;
}

static __printf(2, 3) void console_note(struct console_choice *c, const char *fmt, ...)
{
	size_t len = strnlen(c->note, sizeof(c->note) - 1);
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(c->note + len, sizeof(c->note) - len, fmt, ap);
	va_end(ap);
}

/* Adds "SPCR UART io:0x2f8 type 0x0: " to the note, for messages about it. */
static void console_note_spcr(struct console_choice *c, const struct acpi_spcr_info *s)
{
	struct serial_uart u = {
		.space = s->mmio ? SERIAL_MMIO : SERIAL_IO,
		.base = s->address,
		.width = s->mmio && s->bit_width ? s->bit_width / 8 : 1,
	};
	char where[40];

	console_address(&u, where, sizeof(where));
	console_note(c, "SPCR UART %s (type 0x%02x): ", where, s->interface_type);
}

/**
 * console_choose - decide the console UART
 *
 * See console.h. console= always wins; an SPCR UART mmlab cannot drive is
 * passed over with the reason in @out->note.
 */
void console_choose(const struct acpi_spcr_info *spcr, int cmdline_index,
		    struct console_choice *out)
{
	bool have_spcr = spcr && spcr->present;
	const char *why;

	memset(out, 0, sizeof(*out));
	if (cmdline_index >= 0 && (size_t)cmdline_index < ARRAY_SIZE(console_ports)) {
		out->uart = console_io(console_ports[cmdline_index], SERIAL_BAUD_DEFAULT);
		out->source = CONSOLE_CMDLINE;
		if (have_spcr) {
			console_note_spcr(out, spcr);
			console_note(out, "not used: console= overrides it");
		}
		return;
	}
	out->uart = console_io(SERIAL_COM1, SERIAL_BAUD_DEFAULT);
	out->source = CONSOLE_DEFAULT;
	if (!have_spcr)
		return;
	why = spcr_uart(spcr, &out->uart);
	if (why) {
		console_note_spcr(out, spcr);
		console_note(out, "not used: %s", why);
		return;
	}
	out->source = CONSOLE_SPCR;
}

/**
 * console_fall_back - COM1 at 115200 after @out's UART did not answer
 */
void console_fall_back(struct console_choice *out)
{
	char where[40];

	console_address(&out->uart, where, sizeof(where));
	if (out->note[0])
		console_note(out, "; ");
	console_note(out, "%s UART %s did not answer: COM1 instead",
		     out->source == CONSOLE_CMDLINE ? "console=" : "SPCR", where);
	out->uart = console_io(SERIAL_COM1, SERIAL_BAUD_DEFAULT);
	out->source = CONSOLE_DEFAULT;
}

/**
 * console_source_name - "default", "cmdline" or "spcr"
 */
const char *console_source_name(enum console_source s)
{
	switch (s) {
	case CONSOLE_CMDLINE:
		return "cmdline";
	case CONSOLE_SPCR:
		return "spcr";
	default:
		return "default";
	}
}

/**
 * console_address - "io:0x3f8" or "mmio32:0xfe030000" for @u, in @buf
 */
void console_address(const struct serial_uart *u, char *buf, size_t len)
{
	if (u->space == SERIAL_IO)
		fmt_snprintf(buf, len, "io:%#lx", (unsigned long)u->base);
	else
		fmt_snprintf(buf, len, "mmio%u:%#lx", u->width * 8u, (unsigned long)u->base);
}

/* ---- kernel: the console in use, for the header and the boot log ---- */

#ifndef HOST_BUILD
#include "kernel/json.h"
#include "kernel/printk.h"

static struct console_choice console_used;

/**
 * console_record - remember @c as the console in use (boot CPU, early)
 */
void console_record(const struct console_choice *c)
{
	console_used = *c;
}

/**
 * console_describe - add "console" {port, address, source, baud} and "console_port"
 *
 * "port" is ttyS0/ttyS1 for COM1/COM2, else null; "baud" is null when the
 * firmware's rate was kept. Any context once the console is chosen.
 */
void console_describe(struct json *j)
{
	const struct serial_uart *u = &console_used.uart;
	char where[40];
	const char *port = NULL;

	console_address(u, where, sizeof(where));
	if (u->space == SERIAL_IO && u->base == SERIAL_COM1)
		port = "ttyS0";
	else if (u->space == SERIAL_IO && u->base == SERIAL_COM2)
		port = "ttyS1";
	json_u64(j, "console_port", u->space == SERIAL_IO ? u->base : 0);
	json_object_begin(j, "console");
	json_str(j, "port", port);
	json_str(j, "address", where);
	json_str(j, "source", console_source_name(console_used.source));
	if (u->baud)
		json_u64(j, "baud", u->baud);
	else
		json_null(j, "baud");
	json_str(j, "note", console_used.note[0] ? console_used.note : NULL);
	json_object_end(j);
}

/**
 * console_report - print the "# console:" line, and a warning when SPCR was passed over
 */
void console_report(void)
{
	const struct serial_uart *u = &console_used.uart;
	char where[40], baud[24] = "firmware's baud rate";

	console_address(u, where, sizeof(where));
	if (u->baud)
		fmt_snprintf(baud, sizeof(baud), "%u baud", u->baud);
	printk("# console: %s from %s, %s\n", where, console_source_name(console_used.source),
	       baud);
	if (console_used.note[0])
		printk("# %sconsole: %s\n", console_used.source == CONSOLE_CMDLINE ? "" : "WARN ",
		       console_used.note);
}
#endif
