/*
 * Tests for the SRAT and SLIT parser (arch/x86_64/acpi_numa.c) over tables
 * built by tests/acpi_fw.c: QEMU's two-node layout, four nodes of unequal
 * sizes with sparse proximity domains, a node with CPUs and no memory, a
 * memory-only node, x2APIC entries, disabled entries, bad lengths and bad
 * SLITs. The same cases run on the host and in the kernel.
 */
#include "arch/x86_64/acpi_numa.h"
#include "lib/string.h"
#include "tests/acpi_fw.h"
#include "tests/ktest.h"

#define EN ACPI_SRAT_ENABLED
#define GIB (1ull << 30)
#define MIB (1ull << 20)

static struct acpi_numa_info numa; /* large: never on the stack */

static bool has_msg(const char *fragment)
{
	for (u32 k = 0; k < numa.nmsgs; k++)
		if (strstr(numa.msgs[k], fragment))
			return true;
	return false;
}

static void log_msgs(struct ktest *t)
{
	for (u32 k = 0; t->failed && k < numa.nmsgs; k++)
		ktest_log(t, "numa message: %s", numa.msgs[k]);
}

static const struct acpi_sdt_header *tab(paddr_t pa)
{
	return pa ? fw_ptr(pa) : NULL;
}

static u32 parse(paddr_t srat, paddr_t slit)
{
	return acpi_numa_parse_tables(tab(srat), tab(slit), &numa);
}

/* What QEMU lists for -smp 8 and two 1 GiB nodes, cpus 0-3 and 4-7, distance 20. */
static void test_acpi_numa_qemu_two_nodes(struct ktest *t)
{
	static const u8 d[] = { 10, 20, 20, 10 };
	struct fw_madt s;
	paddr_t srat, slit;

	fw_reset(t);
	s = fw_srat_begin(1024);
	for (u8 i = 0; i < 8; i++)
		fw_srat_lapic(&s, i, i / 4, EN);
	fw_srat_mem(&s, 0, 640 << 10, 0, EN);
	fw_srat_mem(&s, MIB, GIB - MIB, 0, EN);
	fw_srat_mem(&s, GIB, GIB, 1, EN);
	fw_srat_mem(&s, 4 * GIB, 16 * GIB, 1, EN | ACPI_SRAT_MEM_HOTPLUG);
	srat = fw_madt_end(&s);
	slit = fw_slit(2, d);
	KASSERT_EQ(t, parse(srat, slit), 2);
	KEXPECT(t, numa.srat && numa.slit);
	KASSERT_EQ(t, numa.ncpus, 8);
	for (u32 i = 0; i < 8; i++)
		KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, i), (int)(i / 4));
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 8), -1);
	KASSERT_EQ(t, numa.nmem, 4);
	KEXPECT_EQ(t, numa.mem[2].base, GIB);
	KEXPECT_EQ(t, numa.mem[2].end, 2 * GIB);
	KEXPECT_EQ(t, numa.mem[2].node, 1);
	KEXPECT(t, numa.mem[3].hotplug && !numa.mem[2].hotplug);
	KEXPECT_EQ(t, numa.distance[0][1], 20);
	KEXPECT_EQ(t, numa.distance[1][0], 20);
	KEXPECT_EQ(t, numa.distance[1][1], 10);
	KEXPECT_EQ(t, numa.nmsgs + numa.ndisabled + numa.nbad_entries + numa.nignored, 0);
	log_msgs(t);
}

/* Domains 7, 2, 5, 0 become nodes 3, 1, 2, 0; the SLIT is read at the domains' rows. */
static void test_acpi_numa_four_sparse(struct ktest *t)
{
	static const u32 pxm[4] = { 7, 2, 5, 0 };
	static const u64 size[4] = { 256 * MIB, 1 * GIB, 64 * MIB, 512 * MIB };
	u8 d[8 * 8];
	struct fw_madt s;
	u64 base = 0;

	fw_reset(t);
	for (u32 i = 0; i < 8; i++)
		for (u32 j = 0; j < 8; j++)
			d[i * 8 + j] = i == j ? 10 : (u8)(10 + i * 8 + j); /* asymmetric */
	s = fw_srat_begin(1024);
	for (u32 i = 0; i < 4; i++) {
		fw_srat_lapic(&s, (u8)(2 * i), pxm[i], EN);
		fw_srat_lapic(&s, (u8)(2 * i + 1), pxm[i], EN);
		fw_srat_mem(&s, base, size[i], pxm[i], EN);
		base += size[i];
	}
	KASSERT_EQ(t, parse(fw_madt_end(&s), fw_slit(8, d)), 4);
	KEXPECT_EQ(t, numa.pxm[0], 0);
	KEXPECT_EQ(t, numa.pxm[3], 7);
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 0), 3);
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 3), 1);
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 7), 0);
	KEXPECT_EQ(t, numa.mem[1].node, 1);
	KEXPECT_EQ(t, numa.mem[1].end - numa.mem[1].base, GIB);
	KEXPECT(t, numa.slit);
	KEXPECT_EQ(t, numa.distance[3][1], 10 + 7 * 8 + 2); /* domain 7 to domain 2 */
	KEXPECT_EQ(t, numa.distance[1][3], 10 + 2 * 8 + 7);
	KEXPECT_EQ(t, numa.distance[2][2], 10);
	log_msgs(t);
}

/* Node 1 has CPUs and no memory, node 2 memory and no CPUs: both are nodes. */
static void test_acpi_numa_cpuless_memoryless(struct ktest *t)
{
	static const u8 d[] = { 10, 21, 31, 21, 10, 21, 31, 21, 10 };
	struct fw_madt s;

	fw_reset(t);
	s = fw_srat_begin(512);
	fw_srat_lapic(&s, 0, 0, EN);
	fw_srat_lapic(&s, 1, 1, EN);
	fw_srat_mem(&s, 0, GIB, 0, EN);
	fw_srat_mem(&s, GIB, GIB, 2, EN);
	KASSERT_EQ(t, parse(fw_madt_end(&s), fw_slit(3, d)), 3);
	KEXPECT_EQ(t, numa.ncpus, 2);
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 1), 1);
	KEXPECT_EQ(t, numa.nmem, 2);
	KEXPECT(t, numa.mem[0].node == 0 && numa.mem[1].node == 2);
	KEXPECT_EQ(t, numa.distance[0][2], 31);
	log_msgs(t);
}

/* Type 2 entries: 32-bit IDs and domains; a type 0 domain uses its high bytes too. */
static void test_acpi_numa_x2apic(struct ktest *t)
{
	struct fw_madt s;

	fw_reset(t);
	s = fw_srat_begin(512);
	fw_srat_x2apic(&s, 300, 0x10000, EN);
	fw_srat_x2apic(&s, 0x12345678, 0x10000, EN);
	fw_srat_lapic(&s, 5, 0x1000000, EN);
	fw_srat_mem(&s, 0, GIB, 0x10000, EN);
	KASSERT_EQ(t, parse(fw_madt_end(&s), 0), 2);
	KEXPECT_EQ(t, numa.pxm[0], 0x10000);
	KEXPECT_EQ(t, numa.pxm[1], 0x1000000);
	KASSERT_EQ(t, numa.ncpus, 3);
	KEXPECT(t, numa.cpu[0].x2apic_entry && !numa.cpu[2].x2apic_entry);
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 0x12345678), 0);
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 5), 1);
	KEXPECT(t, !numa.slit);
	log_msgs(t);
}

/* Disabled entries are counted, make no node and list no CPU or memory. */
static void test_acpi_numa_disabled(struct ktest *t)
{
	struct fw_madt s;

	fw_reset(t);
	s = fw_srat_begin(512);
	fw_srat_lapic(&s, 0, 0, EN);
	fw_srat_lapic(&s, 1, 3, 0);
	fw_srat_x2apic(&s, 400, 4, 0);
	fw_srat_mem(&s, 0, GIB, 0, EN);
	fw_srat_mem(&s, GIB, GIB, 5, ACPI_SRAT_MEM_HOTPLUG);
	KEXPECT_EQ(t, parse(fw_madt_end(&s), 0), 1);
	KEXPECT_EQ(t, numa.ndisabled, 3);
	KEXPECT_EQ(t, numa.ncpus, 1);
	KEXPECT_EQ(t, numa.nmem, 1);
	KEXPECT_EQ(t, acpi_numa_cpu_node(&numa, 1), -1);
	log_msgs(t);
}

/* A short entry is skipped, a length past the end or of 0 ends the walk. */
static void test_acpi_numa_bad_lengths(struct ktest *t)
{
	struct fw_madt s;
	u8 *e;

	fw_reset(t);
	s = fw_srat_begin(512);
	fw_srat_lapic(&s, 0, 0, EN);
	e = fw_madt_raw(&s, ACPI_SRAT_MEMORY, 20, 20); /* too short for a memory entry */
	e[2] = 9;				       /* would be domain 9 */
	fw_madt_raw(&s, 0x7f, 6, 6);		       /* an unknown type is stepped over */
	fw_srat_lapic(&s, 1, 1, EN);
	fw_madt_raw(&s, ACPI_SRAT_LAPIC, 0, 16); /* ends the walk */
	fw_srat_lapic(&s, 2, 2, EN);
	KEXPECT_EQ(t, parse(fw_madt_end(&s), 0), 2);
	KEXPECT_EQ(t, numa.nbad_entries, 2);
	KEXPECT_EQ(t, numa.ncpus, 2);
	KEXPECT(t, has_msg("too short") && has_msg("bad length 0"));

	fw_reset(t);
	s = fw_srat_begin(512);
	fw_srat_lapic(&s, 0, 0, EN);
	fw_madt_raw(&s, ACPI_SRAT_X2APIC, 24, 8); /* claims 24 bytes, 8 left */
	KEXPECT_EQ(t, parse(fw_madt_end(&s), 0), 1);
	KEXPECT_EQ(t, numa.nbad_entries, 1);
	KEXPECT_EQ(t, numa.ncpus, 1);
	log_msgs(t);
}

/* No SRAT: one node, no CPU or memory listed, the SLIT ignored. */
static void test_acpi_numa_no_srat(struct ktest *t)
{
	static const u8 d[] = { 10, 20, 20, 10 };

	fw_reset(t);
	KEXPECT_EQ(t, parse(0, fw_slit(2, d)), 1);
	KEXPECT(t, !numa.srat && !numa.slit);
	KEXPECT_EQ(t, numa.ncpus + numa.nmem, 0);
	KEXPECT(t, has_msg("SLIT without"));
	KEXPECT_EQ(t, parse(0, 0), 1);
	KEXPECT_EQ(t, numa.nmsgs, 0);
}

/* SLITs that break ACPI's rules, or do not cover the SRAT's domains, are dropped. */
static void test_acpi_numa_bad_slit(struct ktest *t)
{
	static const u8 bad_diag[] = { 10, 20, 20, 0 };
	static const u8 bad_far[] = { 10, 10, 20, 10 };
	static const u8 ok[] = { 10, 20, 20, 10 };
	static const u8 one[] = { 10 };
	paddr_t srat, slit;
	struct fw_madt s;

	fw_reset(t);
	s = fw_srat_begin(256);
	fw_srat_lapic(&s, 0, 0, EN);
	fw_srat_lapic(&s, 1, 1, EN);
	srat = fw_madt_end(&s);
	parse(srat, fw_slit(2, bad_diag));
	KEXPECT(t, !numa.slit && has_msg("invalid"));
	parse(srat, fw_slit(2, bad_far));
	KEXPECT(t, !numa.slit && has_msg("invalid"));
	parse(srat, fw_slit(1, one));
	KEXPECT(t, !numa.slit && has_msg("names domain 1"));
	slit = fw_slit(2, ok);
	((struct acpi_slit *)fw_ptr(slit))->nlocalities = 3; /* 9 bytes in a 4-byte matrix */
	fw_fix(slit);
	parse(srat, slit);
	KEXPECT(t, !numa.slit && has_msg("do not fit"));
	((struct acpi_slit *)fw_ptr(slit))->nlocalities = 1ull << 40;
	fw_fix(slit);
	parse(srat, slit);
	KEXPECT(t, !numa.slit && has_msg("do not fit"));
	KEXPECT(t, parse(srat, fw_slit(2, ok)) == 2 && numa.slit);
	log_msgs(t);
}

/* Through acpi_parse(): the SRAT and SLIT an XSDT lists are the ones read. */
static void test_acpi_numa_from_xsdt(struct ktest *t)
{
	static const u8 d[] = { 10, 17, 17, 10 };
	static struct acpi_info info;
	paddr_t tables[3];
	struct fw_madt s;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	s = fw_srat_begin(256);
	fw_srat_lapic(&s, 0, 0, EN);
	fw_srat_lapic(&s, 1, 1, EN);
	tables[1] = fw_madt_end(&s);
	tables[2] = fw_slit(2, d);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 3), &info), 0);
	KEXPECT_EQ(t, acpi_numa_parse(&numa), 2);
	KEXPECT(t, numa.slit && numa.distance[0][1] == 17);
	log_msgs(t);
}

#ifndef HOST_BUILD
/* Leaves acpi_find_table() answering from the firmware's tables again. */
static void acpi_numa_exit(struct ktest *t)
{
	static struct acpi_info real;

	(void)t;
	acpi_init(&real);
}
#else
static void acpi_numa_exit(struct ktest *t)
{
	(void)t;
	acpi_set_map(NULL);
}
#endif

static const struct ktest_case acpi_numa_cases[] = {
	KTEST_CASE(test_acpi_numa_qemu_two_nodes),
	KTEST_CASE(test_acpi_numa_four_sparse),
	KTEST_CASE(test_acpi_numa_cpuless_memoryless),
	KTEST_CASE(test_acpi_numa_x2apic),
	KTEST_CASE(test_acpi_numa_disabled),
	KTEST_CASE(test_acpi_numa_bad_lengths),
	KTEST_CASE(test_acpi_numa_no_srat),
	KTEST_CASE(test_acpi_numa_bad_slit),
	KTEST_CASE(test_acpi_numa_from_xsdt),
};
KTEST_SUITE_EXT(acpi_numa, acpi_numa_cases, NULL, acpi_numa_exit, NULL);
