/*
 * Which UART is the console: console= on the command line if given, else
 * the one the ACPI SPCR table names (servers often use COM2 or an MMIO
 * UART for serial-over-LAN), else COM1. The decision is a pure function of
 * its inputs (host-tested in tests/arch/x86_64/test_console.c); arch_early_init()
 * applies it before anything is printed. The result is kept for the MMLAB
 * header's "console" object and the "# console:" boot line.
 */
#ifndef ARCH_CONSOLE_H
#define ARCH_CONSOLE_H

#include "arch/x86_64/serial.h"
#include "types.h"

struct acpi_spcr_info;
struct json;

/* console=ttyS0|ttyS1, an option of arch/x86_64/console.c. */
enum opt_console { OPT_CONSOLE_TTYS0, OPT_CONSOLE_TTYS1, OPT_CONSOLE_COUNT };

/* The console= value (OPT_CONSOLE_TTYS0 when not given: see options_given()). */
extern enum opt_console console_opt;

enum console_source {
	CONSOLE_DEFAULT, /* COM1: no console=, no usable SPCR */
	CONSOLE_CMDLINE, /* console=ttyS0|ttyS1 */
	CONSOLE_SPCR,	 /* the ACPI SPCR table */
};

#define CONSOLE_NOTE_LEN 112

struct console_choice {
	struct serial_uart uart;
	enum console_source source;
	/* Why an SPCR UART was not used (or was overridden); "" when there is nothing to say. */
	char note[CONSOLE_NOTE_LEN];
};

/* Console words as console= spells them; CONSOLE_NOT_GIVEN when console= was absent. */
#define CONSOLE_NOT_GIVEN (-1)

/*
 * Decides the console from @spcr (NULL or !present: no table) and
 * @cmdline_index (0 = ttyS0, 1 = ttyS1, or CONSOLE_NOT_GIVEN). An SPCR UART
 * is used when its interface is 16550-compatible (types 0x00, 0x01, 0x12)
 * and it is an I/O port or an MMIO block with 1-, 2- or 4-byte registers
 * inside the boot direct map; otherwise @out->note says why not. Pure.
 */
void console_choose(const struct acpi_spcr_info *spcr, int cmdline_index,
		    struct console_choice *out);

/*
 * Falls back to COM1 at 115200 after @out's UART did not answer the probe,
 * appending the reason to the note. Pure.
 */
void console_fall_back(struct console_choice *out);

/* "default", "cmdline" or "spcr". */
const char *console_source_name(enum console_source s);

/* Writes "io:0x3f8" or "mmio32:0xfe030000" (width in bits) into @buf. */
void console_address(const struct serial_uart *u, char *buf, size_t len);

#ifndef HOST_BUILD
/* Remembers @c as the console in use (arch_early_init()). */
void console_record(const struct console_choice *c);

/* The "console" object of the MMLAB header and the legacy "console_port" number. */
void console_describe(struct json *j);

/* Prints the "# console:" line (and a "# WARN console:" line when SPCR was passed over). */
void console_report(void);
#endif

#endif
