/*
 * Tests for the console choice (arch/x86_64/console.c) over synthetic SPCR
 * tables from tests/acpi_fw.c, run on the host and in the kernel: console=
 * wins, a 16550 at an I/O port or in MMIO below 4 GiB is used, anything
 * else is passed over with a reason. In the kernel, the 16550 driver's MMIO
 * path (serial.c) also runs against a register block in RAM, and the exit
 * hook re-parses the firmware's own tables.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/console.h"
#include "lib/string.h"
#include "tests/acpi_fw.h"
#include "tests/ktest.h"

static struct acpi_info info; /* large: never on the stack */

/* Parses firmware with QEMU's MADT and an SPCR built from the arguments. */
static const struct acpi_spcr_info *spcr_of(struct ktest *t, u8 type, u8 space, u8 width, u64 addr,
					    u8 baud)
{
	paddr_t tables[2];
	struct acpi_spcr *s;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_spcr(2, type, space, addr, baud, 0);
	s = fw_ptr(tables[1]);
	s->base.bit_width = width;
	fw_fix(tables[1]);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	return &info.spcr;
}

static void test_console_default(struct ktest *t)
{
	struct console_choice c;

	console_choose(NULL, CONSOLE_NOT_GIVEN, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_DEFAULT);
	KEXPECT_EQ(t, c.uart.space, SERIAL_IO);
	KEXPECT_EQ(t, c.uart.base, SERIAL_COM1);
	KEXPECT_EQ(t, c.uart.baud, 115200);
	KEXPECT_STREQ(t, c.note, "");
	KEXPECT_STREQ(t, console_source_name(c.source), "default");

	console_choose(NULL, 1, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_CMDLINE);
	KEXPECT_EQ(t, c.uart.base, SERIAL_COM2);
	KEXPECT_STREQ(t, c.note, "");
}

static void test_console_spcr_com2(struct ktest *t)
{
	const struct acpi_spcr_info *s = spcr_of(t, ACPI_SPCR_16550, ACPI_GAS_IO, 8, 0x2f8, 7);
	struct console_choice c;
	char where[40];

	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_SPCR);
	KEXPECT_EQ(t, c.uart.space, SERIAL_IO);
	KEXPECT_EQ(t, c.uart.base, SERIAL_COM2);
	KEXPECT_EQ(t, c.uart.baud, 115200);
	KEXPECT_STREQ(t, c.note, "");
	console_address(&c.uart, where, sizeof(where));
	KEXPECT_STREQ(t, where, "io:0x2f8");

	/* Baud code 0: keep what the firmware programmed. */
	s = spcr_of(t, ACPI_SPCR_16450, ACPI_GAS_IO, 8, 0x3e8, 0);
	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_SPCR);
	KEXPECT_EQ(t, c.uart.base, 0x3e8);
	KEXPECT_EQ(t, c.uart.baud, 0);
}

static void test_console_cmdline_overrides(struct ktest *t)
{
	const struct acpi_spcr_info *s = spcr_of(t, ACPI_SPCR_16550, ACPI_GAS_IO, 8, 0x2f8, 7);
	struct console_choice c;

	console_choose(s, 0, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_CMDLINE);
	KEXPECT_EQ(t, c.uart.base, SERIAL_COM1);
	KEXPECT(t, strstr(c.note, "io:0x2f8") && strstr(c.note, "console= overrides"));
}

static void test_console_spcr_mmio(struct ktest *t)
{
	const struct acpi_spcr_info *s;
	struct console_choice c;
	char where[40];

	s = spcr_of(t, ACPI_SPCR_16550_GAS, ACPI_GAS_MEMORY, 32, 0xfe030000, 7);
	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_SPCR);
	KEXPECT_EQ(t, c.uart.space, SERIAL_MMIO);
	KEXPECT_EQ(t, c.uart.width, 4);
	KEXPECT_EQ(t, c.uart.base, 0xfe030000);
	console_address(&c.uart, where, sizeof(where));
	KEXPECT_STREQ(t, where, "mmio32:0xfe030000");

	s = spcr_of(t, ACPI_SPCR_16550, ACPI_GAS_MEMORY, 8, 0xfedc9000, 7);
	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	KEXPECT(t, c.source == CONSOLE_SPCR && c.uart.width == 1);
}

static void test_console_spcr_unusable(struct ktest *t)
{
	const struct acpi_spcr_info *s;
	struct console_choice c;

	/* Above the boot direct map: found, reported, not used. */
	s = spcr_of(t, ACPI_SPCR_16550_GAS, ACPI_GAS_MEMORY, 32, 0x4000000000ull, 7);
	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_DEFAULT);
	KEXPECT_EQ(t, c.uart.base, SERIAL_COM1);
	KEXPECT(t, strstr(c.note, "mmio32:0x4000000000") && strstr(c.note, "not used"));

	/* An ARM PL011 (type 3) is no 16550. */
	s = spcr_of(t, 0x03, ACPI_GAS_MEMORY, 32, 0xfe030000, 7);
	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	KEXPECT_EQ(t, c.source, CONSOLE_DEFAULT);
	KEXPECT(t, strstr(c.note, "type 0x03") && strstr(c.note, "not 16550-compatible"));

	s = spcr_of(t, ACPI_SPCR_16550, ACPI_GAS_MEMORY, 64, 0xfe030000, 7);
	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	KEXPECT(t, c.source == CONSOLE_DEFAULT && strstr(c.note, "register width"));
}

static void test_console_fall_back(struct ktest *t)
{
	const struct acpi_spcr_info *s = spcr_of(t, ACPI_SPCR_16550, ACPI_GAS_IO, 8, 0x2f8, 7);
	struct console_choice c;

	console_choose(s, CONSOLE_NOT_GIVEN, &c);
	console_fall_back(&c);
	KEXPECT_EQ(t, c.source, CONSOLE_DEFAULT);
	KEXPECT_EQ(t, c.uart.base, SERIAL_COM1);
	KEXPECT(t, strstr(c.note, "SPCR UART io:0x2f8 did not answer"));
}

#ifndef HOST_BUILD
#include <arch/layout.h>

/* A 16550's eight registers as RAM, 4 bytes apart: writes stick, LSR says "ready". */
static u32 fake_regs[8] __aligned(64);

static void test_console_mmio_driver(struct ktest *t)
{
	struct serial_uart u = {
		.space = SERIAL_MMIO,
		.base = (paddr_t)((uintptr_t)fake_regs - KERNEL_VIRT_BASE),
		.width = 4,
		.baud = 38400,
	};

	memset(fake_regs, 0, sizeof(fake_regs));
	fake_regs[5] = 0x20; /* LSR: transmitter empty */
	KASSERT(t, serial_uart_init(&u));
	KEXPECT_EQ(t, fake_regs[7], 0x5a); /* the scratch probe */
	KEXPECT_EQ(t, fake_regs[3], 0x03); /* LCR: 8N1, DLAB clear again */
	KEXPECT_EQ(t, fake_regs[2], 0x07); /* FCR */
	KEXPECT_EQ(t, fake_regs[0], 3);	   /* divisor low: 115200 / 38400, not yet overwritten */
	serial_uart_putc(&u, 'k');
	KEXPECT_EQ(t, fake_regs[0], 'k');

	/* Refused before any access: a register width the driver does not know, or out of reach. */
	u.width = 8;
	KEXPECT(t, !serial_uart_init(&u));
	u.width = 4;
	u.base = BOOT_MAP_BYTES;
	KEXPECT(t, !serial_uart_init(&u));
}
#else
static void test_console_mmio_driver(struct ktest *t)
{
	ktest_skip(t, "the 16550 driver is kernel code");
}
#endif

/* Leaves acpi_map() and acpi_find_table() as they were before the synthetic tables. */
static void console_test_exit(struct ktest *t)
{
	(void)t;
#ifdef HOST_BUILD
	acpi_set_map(NULL);
#else
	acpi_init(&info);
#endif
}

static const struct ktest_case console_cases[] = {
	KTEST_CASE(test_console_default),
	KTEST_CASE(test_console_spcr_com2),
	KTEST_CASE(test_console_cmdline_overrides),
	KTEST_CASE(test_console_spcr_mmio),
	KTEST_CASE(test_console_spcr_unusable),
	KTEST_CASE(test_console_fall_back),
	KTEST_CASE(test_console_mmio_driver),
};
KTEST_SUITE_EXT(console, console_cases, NULL, console_test_exit, NULL);
