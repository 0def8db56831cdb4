/*
 * libFuzzer target for the ACPI parser (arch/x86_64/acpi.c). Input: a flags
 * byte (FUZZ_ACPI_KEEP_*: checksums the harness leaves alone), then a memory
 * image whose first chunk is the RSDP (tests/fuzz/fuzz_mem.h). Besides what
 * the sanitizers catch, checks the promises of acpi.h, acpi_numa.h and
 * topology.h: counts within their arrays, tables whole and valid, nodes
 * dense, every CPU and range placed.
 */
#include "tests/fuzz/fuzz_mem.h"

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/acpi_numa.h"
#include "arch/x86_64/topology.h"
#include "errno.h"

#include <string.h>

static struct acpi_info info; /* large: never on the stack */

static u32 fuzz_ids[MAX_CPUS];
static struct acpi_numa_info numa;
static struct topo_info topo;

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

static void fuzz_numa_check_slit(void)
{
	for (u32 i = 0; numa.slit && i < numa.nnodes; i++)
		for (u32 j = 0; j < numa.nnodes; j++)
			FUZZ_CHECK(i == j ? numa.distance[i][j] == ACPI_SLIT_LOCAL :
					    numa.distance[i][j] > ACPI_SLIT_LOCAL);
}

static void fuzz_numa_check(void)
{
	FUZZ_CHECK(numa.nnodes >= 1 && numa.nnodes <= MACHINE_MAX_NODES);
	FUZZ_CHECK(numa.srat || (numa.nnodes == 1 && numa.ncpus == 0 && numa.nmem == 0));
	FUZZ_CHECK(!numa.slit || numa.srat);
	FUZZ_CHECK(numa.ncpus <= MAX_CPUS && numa.nmem <= ACPI_NUMA_MAX_MEM);
	FUZZ_CHECK(numa.nmsgs <= ACPI_MSG_MAX);
	for (u32 i = 0; i < numa.nmsgs; i++)
		FUZZ_CHECK(memchr(numa.msgs[i], '\0', ACPI_MSG_LEN) != NULL);
	for (u32 i = 1; numa.srat && i < numa.nnodes; i++)
		FUZZ_CHECK(numa.pxm[i - 1] < numa.pxm[i]);
	for (u32 i = 0; i < numa.ncpus; i++) {
		FUZZ_CHECK(numa.cpu[i].node < numa.nnodes);
		FUZZ_CHECK(acpi_numa_cpu_node(&numa, numa.cpu[i].apic_id) == (int)numa.cpu[i].node);
	}
	for (u32 i = 0; i < numa.nmem; i++)
		FUZZ_CHECK(numa.mem[i].node < numa.nnodes && numa.mem[i].base < numa.mem[i].end);
	fuzz_numa_check_slit();
}

/* The MADT's CPUs placed as the kernel places them: each in a node that exists. */
static void fuzz_topology_check(void)
{
	static const struct topo_shifts shifts = { 1, 2, "fuzz" };
	unsigned n = acpi_madt_cpu_order(&info.madt, 0, fuzz_ids);

	topo_build(&topo, &shifts, fuzz_ids, n, &numa);
	FUZZ_CHECK(topo.ncpus == n && topo.nnodes == numa.nnodes);
	FUZZ_CHECK(topo.nmsgs <= TOPO_MSG_MAX);
	for (u32 i = 0; i < topo.ncpus; i++) {
		FUZZ_CHECK(topo.cpu[i].node < topo.nnodes);
		FUZZ_CHECK(topo.cpu[i].thread <= 1 && topo.cpu[i].core <= 1);
	}
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
	acpi_numa_parse(&numa);
	fuzz_numa_check();
	fuzz_topology_check();
	fuzz_image_free(&img);
	return 0;
}
