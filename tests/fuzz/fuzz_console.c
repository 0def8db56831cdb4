/*
 * libFuzzer target for the console choice (arch/x86_64/console.c) from an
 * ACPI SPCR table. Input: a control byte (the console= word, whether the UART
 * answers, whether checksums stay as given), then the SPCR table's bytes,
 * which the harness wraps in an RSDP and an XSDT and parses with acpi.c as
 * the kernel does before deciding the console.
 */
#include "tests/fuzz/fuzz_mem.h"

#include <stdlib.h>
#include <string.h>

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/console.h"
#include <arch/layout.h>

#define FUZZ_RSDP_PA 0xf0000u
#define FUZZ_XSDT_PA 0x7fff0000u
#define FUZZ_SPCR_PA 0x7fff1000u
#define FUZZ_CTL_KEEP_SUM (1u << 2)
#define FUZZ_CTL_FALL_BACK (1u << 3)

static struct acpi_info info; /* large: never on the stack */

/* An XSDT listing one table. */
struct fuzz_xsdt {
	struct acpi_sdt_header h;
	u64 entry;
} __attribute__((packed));

static u8 *fuzz_put_chunk(u8 *p, u32 pa, const void *data, u32 len)
{
	memcpy(p, &pa, 4);
	memcpy(p + 4, &len, 4);
	memcpy(p + 8, data, len);
	return p + 8 + len;
}

/* The RSDP, an XSDT listing one table, and the table: a memory image in @buf. */
static size_t fuzz_console_image(u8 *buf, const u8 *spcr, u32 len)
{
	struct acpi_rsdp r = { .revision = 2, .length = sizeof(r), .xsdt_address = FUZZ_XSDT_PA };
	struct fuzz_xsdt x = { .h = { .length = sizeof(x), .revision = 1 }, .entry = FUZZ_SPCR_PA };
	u8 *p = buf;

	memcpy(r.sig, "RSD PTR ", 8);
	memcpy(x.h.sig, "XSDT", 4);
	p = fuzz_put_chunk(p, FUZZ_RSDP_PA, &r, sizeof(r));
	p = fuzz_put_chunk(p, FUZZ_XSDT_PA, &x, sizeof(x));
	p = fuzz_put_chunk(p, FUZZ_SPCR_PA, spcr, len);
	return (size_t)(p - buf);
}

static int fuzz_console_index(u8 ctl)
{
	switch (ctl & 3) {
	case 0:
		return CONSOLE_NOT_GIVEN;
	case 1:
		return 0;
	case 2:
		return 1;
	default:
		return (int)(ctl >> 4) - 8; /* -8..7: neither absent nor a known port */
	}
}

static void fuzz_console_check(const struct console_choice *c)
{
	const struct serial_uart *u = &c->uart;
	char where[40];

	FUZZ_CHECK(memchr(c->note, '\0', sizeof(c->note)) != NULL);
	FUZZ_CHECK(c->source == CONSOLE_DEFAULT || c->source == CONSOLE_CMDLINE ||
		   c->source == CONSOLE_SPCR);
	FUZZ_CHECK(u->space == SERIAL_IO || u->space == SERIAL_MMIO);
	if (u->space == SERIAL_IO)
		FUZZ_CHECK(u->width == 1 && u->base <= 0xfff8);
	else
		FUZZ_CHECK((u->width == 1 || u->width == 2 || u->width == 4) &&
			   u->base < BOOT_MAP_BYTES && BOOT_MAP_BYTES - u->base >= 8u * u->width);
	FUZZ_CHECK(c->source == CONSOLE_SPCR || (u->space == SERIAL_IO && u->baud == 115200));
	console_address(u, where, sizeof(where));
	FUZZ_CHECK(memchr(where, '\0', sizeof(where)) != NULL);
	FUZZ_CHECK(console_source_name(c->source) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_choice c;
	struct fuzz_image img;
	u8 *buf;
	size_t n;

	if (size < 1 || size > (1u << 20))
		return 0;
	buf = malloc(size - 1 + 3 * 8 + sizeof(struct acpi_rsdp) + sizeof(struct fuzz_xsdt));
	if (!buf)
		fuzz_fail("malloc");
	n = fuzz_console_image(buf, data + 1, (u32)(size - 1));
	fuzz_image_load(&img, buf, n);
	free(buf);
	fuzz_acpi_install(&img, 0);
	if ((data[0] & FUZZ_CTL_KEEP_SUM) && img.chunk[2].len > 9)
		img.chunk[2].data[9] = data[1 + 9]; /* the SPCR's checksum byte, as given */
	acpi_parse(FUZZ_RSDP_PA, &info);
	console_choose(&info.spcr, fuzz_console_index(data[0]), &c);
	fuzz_console_check(&c);
	if (data[0] & FUZZ_CTL_FALL_BACK) {
		console_fall_back(&c);
		fuzz_console_check(&c);
		FUZZ_CHECK(c.source == CONSOLE_DEFAULT && c.uart.base == 0x3f8);
	}
	fuzz_image_free(&img);
	return 0;
}
