/*
 * libFuzzer target for the ACPI parser (arch/x86_64/acpi.c). Input: one
 * flags byte (FUZZ_ACPI_KEEP_*: which checksums the harness leaves alone),
 * then a memory image whose first chunk is the RSDP (tests/fuzz/fuzz_mem.h).
 * Besides what ASan and UBSan catch, checks the promises of acpi.h: counts
 * within their arrays, messages NUL-terminated, found tables whole and
 * valid.
 */
#include "tests/fuzz/fuzz_mem.h"

#include "arch/x86_64/acpi.h"
#include "errno.h"

#include <string.h>

static struct acpi_info info; /* large: never on the stack */

static u32 fuzz_ids[MAX_CPUS];

/* Bring-up's numbering: every enabled CPU once, the boot CPU (APIC ID 0) first when listed. */
static void fuzz_acpi_check_order(const struct acpi_madt_info *m)
{
	unsigned n = acpi_madt_cpu_order(m, 0, fuzz_ids), enabled = 0;
	bool boot_listed = false;

	for (u32 i = 0; i < m->ncpus; i++) {
		enabled += m->cpu[i].enabled;
		boot_listed |= m->cpu[i].enabled && m->cpu[i].apic_id == 0;
	}
	FUZZ_CHECK(n == enabled);
	FUZZ_CHECK(!boot_listed || fuzz_ids[0] == 0);
	for (unsigned i = 0; i < n; i++) {
		FUZZ_CHECK(acpi_madt_has_apic_id(m, fuzz_ids[i]));
		FUZZ_CHECK(i == 0 || fuzz_ids[i] != 0);
	}
}

static void fuzz_acpi_check_madt(const struct acpi_madt_info *m)
{
	FUZZ_CHECK(m->ncpus <= MAX_CPUS);
	FUZZ_CHECK(m->nioapic <= ACPI_MAX_IOAPICS);
	FUZZ_CHECK(m->noverrides <= ACPI_MAX_OVERRIDES);
	FUZZ_CHECK(m->truncated == (m->nignored > 0));
	for (u32 i = 0; i < m->ncpus; i++) {
		FUZZ_CHECK(m->cpu[i].enabled || m->cpu[i].online_capable);
		FUZZ_CHECK(m->cpu[i].apic_id != 0xffffffffu); /* the x2APIC broadcast ID */
		FUZZ_CHECK(acpi_madt_has_apic_id(m, m->cpu[i].apic_id));
		for (u32 j = 0; j < i; j++)
			FUZZ_CHECK(m->cpu[j].apic_id != m->cpu[i].apic_id);
	}
	fuzz_acpi_check_order(m);
}

static void fuzz_acpi_check(int rc)
{
	FUZZ_CHECK(rc == 0 || rc == -ENOENT || rc == -EINVAL);
	FUZZ_CHECK(rc != 0 || (info.madt.present && info.madt.ncpus > 0));
	FUZZ_CHECK(info.nmsgs <= ACPI_MSG_MAX);
	for (u32 i = 0; i < info.nmsgs; i++)
		FUZZ_CHECK(memchr(info.msgs[i], '\0', ACPI_MSG_LEN) != NULL);
	FUZZ_CHECK(info.ntables <= ACPI_MAX_TABLES);
	for (u32 i = 0; i < info.ntables; i++) {
		const struct acpi_sdt_header *h = acpi_find_table(info.tables[i].sig, 0);

		if (rc == -EINVAL)
			break; /* the root was not trusted: nothing is remembered */
		FUZZ_CHECK(h != NULL);
		FUZZ_CHECK(h->length >= sizeof(*h) && acpi_checksum(h, h->length) == 0);
	}
	fuzz_acpi_check_madt(&info.madt);
	FUZZ_CHECK(!info.spcr.present || info.spcr.address != 0);
	FUZZ_CHECK(!info.hpet.present || info.hpet.base != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_image img;
	paddr_t rsdp;

	if (size < 1)
		return 0;
	fuzz_image_load(&img, data + 1, size - 1);
	rsdp = fuzz_acpi_install(&img, data[0]);
	acpi_set_boot_apic_id(0); /* where a PC's boot CPU usually is */
	fuzz_acpi_check(acpi_parse(rsdp, &info));
	fuzz_image_free(&img);
	return 0;
}
