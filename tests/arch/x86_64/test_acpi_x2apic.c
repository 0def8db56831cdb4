/*
 * Tests for the MADT walk of arch/x86_64/acpi.c at the sizes of large
 * servers, which QEMU's TCG cannot boot (x2APIC IDs need KVM's irqchip):
 * type 0 and type 9 entries up to MAX_CPUS and beyond, their flags,
 * duplicates, IDs to the top of the 32-bit space, where the boot CPU is
 * listed and how bring-up numbers the CPUs. Tables come from
 * tests/acpi_fw.c; the same cases run on the host and in the kernel.
 */
#include "arch/x86_64/acpi.h"
#include "lib/string.h"
#include "tests/acpi_fw.h"
#include "tests/ktest.h"

#define EN ACPI_MADT_CPU_ENABLED
#define OC ACPI_MADT_CPU_ONLINE_CAPABLE
/* Room for @n x2APIC entries (16 bytes each) after the MADT's fixed part. */
#define MADT_ROOM(n) ((u32)sizeof(struct acpi_madt) + (u32)(n) * 16)

static struct acpi_info info; /* large: never on the stack */

static bool has_msg(const char *fragment)
{
	for (u32 k = 0; k < info.nmsgs; k++) {
		if (strstr(info.msgs[k], fragment))
			return true;
	}
	return false;
}

/* On failure, shows what the parser said. */
static void log_msgs(struct ktest *t)
{
	if (!t->failed)
		return;
	for (u32 k = 0; k < info.nmsgs; k++)
		ktest_log(t, "acpi message: %s", info.msgs[k]);
}

/* Ends the MADT being built and parses it as the only table an XSDT lists. */
static int madt_parse(struct fw_madt *mb)
{
	paddr_t tables[1] = { fw_madt_end(mb) };

	return acpi_parse(fw_boot(2, tables, 1), &info);
}

/*
 * Counts the entries from @first on whose APIC ID is not @id_of(i) or whose
 * kind is not @x2; logs the first such entry so a failure names it.
 */
static u32 cpus_mismatched(struct ktest *t, u32 first, u32 n, u32 (*id_of)(u32 i), bool x2)
{
	const struct acpi_madt_info *m = &info.madt;
	u32 bad = 0;

	for (u32 i = first; i < first + n && i < m->ncpus; i++) {
		if (m->cpu[i].apic_id == id_of(i) && m->cpu[i].x2apic_entry == x2)
			continue;
		if (!bad++)
			ktest_log(t, "cpu[%u]: APIC ID %#x (%s entry), expected %#x", i,
				  m->cpu[i].apic_id, m->cpu[i].x2apic_entry ? "x2apic" : "xapic",
				  id_of(i));
	}
	return bad;
}

static u32 id_above_255(u32 i)
{
	return 256 + 2 * i;
}

static u32 id_identity(u32 i)
{
	return i;
}

/* Spread evenly over the whole 32-bit space: 0 first, 0xfffffffe last. */
static u32 id_sparse(u32 i)
{
	return (u32)((u64)i * 0xfffffffeull / (MAX_CPUS - 1));
}

/* The sparse IDs as listed: from the top down. */
static u32 id_sparse_listed(u32 i)
{
	return id_sparse(MAX_CPUS - 1 - i);
}

/* 256, 512, 1000 and MAX_CPUS enabled type 9 entries are all kept, in order. */
static void test_acpi_x2apic_sizes(struct ktest *t)
{
	static const u32 sizes[] = { 256, 512, 1000, MAX_CPUS };
	const struct acpi_madt_info *m = &info.madt;

	for (u32 s = 0; s < ARRAY_SIZE(sizes); s++) {
		u32 n = sizes[s];
		struct fw_madt mb;

		fw_reset(t);
		mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(n));
		for (u32 i = 0; i < n; i++)
			fw_madt_x2apic(&mb, id_above_255(i), EN, i);
		KEXPECT_EQ(t, madt_parse(&mb), 0);
		KASSERT_EQ(t, m->ncpus, n);
		KEXPECT_EQ(t, cpus_mismatched(t, 0, n, id_above_255, true), 0);
		KEXPECT_EQ(t, m->cpu[n - 1].uid, n - 1);
		KEXPECT(t, m->cpu[n - 1].enabled && !m->cpu[n - 1].online_capable);
		KEXPECT_EQ(t, m->ndisabled + m->nduplicates + m->nignored + m->nbad_entries, 0);
		KEXPECT(t, !m->truncated);
		KEXPECT_EQ(t, info.nmsgs, 0);
		KEXPECT(t, acpi_madt_has_apic_id(m, id_above_255(n - 1)));
		KEXPECT(t, !acpi_madt_has_apic_id(m, id_above_255(n)));
		KEXPECT(t, !acpi_madt_has_apic_id(m, 257) && !acpi_madt_has_apic_id(m, 0));
		log_msgs(t);
	}
}

/*
 * Type 0 for IDs below 255, type 9 from 255, then every low CPU listed again
 * as type 9 (firmware may list both): exactly MAX_CPUS CPUs, the duplicates
 * counted as such even though the list is full by then, never as overflow.
 */
static void test_acpi_x2apic_mixed_types(struct ktest *t)
{
	const struct acpi_madt_info *m = &info.madt;
	struct fw_madt mb;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, ACPI_MADT_PCAT_COMPAT, MADT_ROOM(MAX_CPUS + 255));
	for (u32 i = 0; i < 255; i++)
		fw_madt_lapic(&mb, (u8)i, (u8)i, EN);
	for (u32 i = 255; i < MAX_CPUS; i++)
		fw_madt_x2apic(&mb, i, EN, i);
	for (u32 i = 0; i < 255; i++)
		fw_madt_x2apic(&mb, i, EN, 5000 + i);
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	KASSERT_EQ(t, m->ncpus, MAX_CPUS);
	KEXPECT_EQ(t, cpus_mismatched(t, 0, 255, id_identity, false), 0);
	KEXPECT_EQ(t, cpus_mismatched(t, 255, MAX_CPUS - 255, id_identity, true), 0);
	KEXPECT_EQ(t, m->cpu[254].uid, 254); /* the first listing is the one kept */
	KEXPECT_EQ(t, m->nduplicates, 255);
	KEXPECT_EQ(t, m->nignored + m->ndisabled + m->nbad_entries, 0);
	KEXPECT(t, !m->truncated);
	KEXPECT_EQ(t, info.nmsgs, 0);
	log_msgs(t);
}

/* Per entry: enabled, online-capable, neither (disabled), both. */
static const u32 flag_cycle[] = { EN, OC, 0, EN | OC };

/*
 * Disabled entries take no place: MAX_CPUS entries in the flag cycle, then
 * as many enabled ones as the disabled left room for, fill the list exactly.
 */
static void test_acpi_x2apic_flags(struct ktest *t)
{
	const u32 cycle = ARRAY_SIZE(flag_cycle), off = MAX_CPUS / cycle;
	const struct acpi_madt_info *m = &info.madt;
	struct fw_madt mb;
	u32 wrong = 0;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(MAX_CPUS + off));
	for (u32 i = 0; i < MAX_CPUS; i++)
		fw_madt_x2apic(&mb, 300 + i, flag_cycle[i % cycle], i);
	for (u32 i = 0; i < off; i++)
		fw_madt_x2apic(&mb, 0x10000 + i, EN, MAX_CPUS + i);
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	KASSERT_EQ(t, m->ncpus, MAX_CPUS);
	KEXPECT_EQ(t, m->ndisabled, off);
	KEXPECT(t, !m->truncated && m->nignored == 0);
	for (u32 i = 0, k = 0; i < MAX_CPUS; i++) {
		u32 f = flag_cycle[i % cycle];

		if (!f)
			continue;
		wrong += m->cpu[k].apic_id != 300 + i || m->cpu[k].uid != i ||
			 m->cpu[k].enabled != !!(f & EN) || m->cpu[k].online_capable != !!(f & OC);
		k++;
	}
	KEXPECT_EQ(t, wrong, 0);
	KEXPECT_EQ(t, m->cpu[MAX_CPUS - 1].apic_id, 0x10000 + off - 1);
	KEXPECT(t, !acpi_madt_has_apic_id(m, 302));
	KEXPECT_EQ(t, info.nmsgs, 0);
	log_msgs(t);
}

/* IDs spread up to 0xfffffffe, the highest a CPU can have, are kept exactly. */
static void test_acpi_x2apic_sparse_ids(struct ktest *t)
{
	const struct acpi_madt_info *m = &info.madt;
	struct fw_madt mb;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(MAX_CPUS));
	for (u32 i = MAX_CPUS; i-- > 0;)
		fw_madt_x2apic(&mb, id_sparse(i), EN, i);
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	KASSERT_EQ(t, m->ncpus, MAX_CPUS);
	KEXPECT_EQ(t, m->cpu[0].apic_id, 0xfffffffe);
	KEXPECT_EQ(t, m->cpu[MAX_CPUS - 1].uid, 0);
	KEXPECT_EQ(t, cpus_mismatched(t, 0, MAX_CPUS, id_sparse_listed, true), 0);
	KEXPECT_EQ(t, m->nduplicates + m->nbad_entries + m->nignored, 0);
	KEXPECT(t, acpi_madt_has_apic_id(m, 0xfffffffe) && !acpi_madt_has_apic_id(m, 1));
	KEXPECT_EQ(t, info.nmsgs, 0);
	log_msgs(t);
}

/* More usable CPUs than MAX_CPUS: the first MAX_CPUS kept, the rest counted and named. */
static void test_acpi_x2apic_over_max(struct ktest *t)
{
	const u32 extra = 7;
	const struct acpi_madt_info *m = &info.madt;
	struct fw_madt mb;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(MAX_CPUS + extra + 2));
	for (u32 i = 0; i < MAX_CPUS + extra; i++)
		fw_madt_x2apic(&mb, id_above_255(i), EN, i);
	fw_madt_x2apic(&mb, id_above_255(MAX_CPUS + 1), OC, 1); /* beyond, once more */
	fw_madt_x2apic(&mb, 0xfffffffe, 0, 2);			/* disabled: not overflow */
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	KASSERT_EQ(t, m->ncpus, MAX_CPUS);
	KEXPECT_EQ(t, cpus_mismatched(t, 0, MAX_CPUS, id_above_255, true), 0);
	KEXPECT(t, m->truncated);
	KEXPECT_EQ(t, m->nignored, extra + 1);
	KEXPECT_EQ(t, m->ndisabled, 1);
	KEXPECT_EQ(t, m->nduplicates, 0);
	KEXPECT(t, has_msg("8 usable CPUs beyond MAX_CPUS"));
	KEXPECT(t, !acpi_madt_has_apic_id(m, id_above_255(MAX_CPUS)));
	log_msgs(t);
}

/*
 * 0xffffffff is the x2APIC broadcast ID (SDM vol 3A 10.12.9): no CPU can
 * have it, and an INIT sent to it would reach every CPU. An enabled entry
 * with it is as bad as a type 0 entry with 0xff.
 */
static void test_acpi_x2apic_broadcast_id(struct ktest *t)
{
	const struct acpi_madt_info *m = &info.madt;
	struct fw_madt mb;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(4));
	fw_madt_x2apic(&mb, 0, EN, 0);
	fw_madt_x2apic(&mb, 0xffffffff, EN, 1);
	fw_madt_x2apic(&mb, 0xffffffff, 0, 2); /* disabled: harmless, counted as such */
	fw_madt_x2apic(&mb, 0xfffffffe, EN, 3);
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	KASSERT_EQ(t, m->ncpus, 2);
	KEXPECT_EQ(t, m->cpu[1].apic_id, 0xfffffffe);
	KEXPECT(t, !acpi_madt_has_apic_id(m, 0xffffffff));
	KEXPECT_EQ(t, m->nbad_entries, 1);
	KEXPECT_EQ(t, m->ndisabled, 1);
	KEXPECT(t, has_msg("uid 1 has x2APIC ID 0xffffffff"));
	log_msgs(t);
}

/*
 * Wherever the boot CPU is listed among MAX_CPUS, it keeps that place: the
 * list is in MADT order, and smpboot numbers the other CPUs from it.
 */
static void test_acpi_x2apic_boot_cpu_position(struct ktest *t)
{
	static const u32 at[] = { 0, 1, MAX_CPUS / 2, MAX_CPUS - 1 };
	const struct acpi_madt_info *m = &info.madt;

	for (u32 k = 0; k < ARRAY_SIZE(at); k++) {
		struct fw_madt mb;

		fw_reset(t);
		acpi_set_boot_apic_id(id_above_255(at[k]));
		mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(MAX_CPUS));
		for (u32 i = 0; i < MAX_CPUS; i++)
			fw_madt_x2apic(&mb, id_above_255(i), EN, i);
		KEXPECT_EQ(t, madt_parse(&mb), 0);
		KASSERT_EQ(t, m->ncpus, MAX_CPUS);
		KEXPECT_EQ(t, m->cpu[at[k]].apic_id, id_above_255(at[k]));
		KEXPECT_EQ(t, cpus_mismatched(t, 0, MAX_CPUS, id_above_255, true), 0);
		KEXPECT_EQ(t, info.nmsgs, 0);
	}
	log_msgs(t);
}

/*
 * The boot CPU listed after MAX_CPUS others (firmware should list it first,
 * but need not): it runs whatever the table says, so it is kept, in place of
 * the last CPU kept before it, and the warning says so.
 */
static void test_acpi_x2apic_boot_cpu_late(struct ktest *t)
{
	const u32 extra = 3, boot = id_above_255(MAX_CPUS + 1); /* 2306 */
	const struct acpi_madt_info *m = &info.madt;
	struct fw_madt mb;

	fw_reset(t);
	acpi_set_boot_apic_id(boot);
	mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(MAX_CPUS + extra + 1));
	for (u32 i = 0; i < MAX_CPUS + extra; i++)
		fw_madt_x2apic(&mb, id_above_255(i), EN, i);
	fw_madt_x2apic(&mb, boot, EN, 1); /* listed again: a duplicate */
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	KASSERT_EQ(t, m->ncpus, MAX_CPUS);
	KEXPECT(t, acpi_madt_has_apic_id(m, boot));
	KEXPECT_EQ(t, m->cpu[MAX_CPUS - 1].apic_id, boot);
	KEXPECT_EQ(t, m->cpu[MAX_CPUS - 1].uid, MAX_CPUS + 1);
	KEXPECT_EQ(t, cpus_mismatched(t, 0, MAX_CPUS - 1, id_above_255, true), 0);
	KEXPECT(t, !acpi_madt_has_apic_id(m, id_above_255(MAX_CPUS - 1)));
	KEXPECT(t, m->truncated);
	KEXPECT_EQ(t, m->nignored, extra);
	KEXPECT_EQ(t, m->nduplicates, 1);
	KEXPECT(t, has_msg("3 usable CPUs beyond MAX_CPUS"));
	KEXPECT(t, has_msg("(APIC ID 2306) listed beyond MAX_CPUS, kept in place of 2302"));
	log_msgs(t);
}

/*
 * Bring-up's numbering (acpi_madt_cpu_order()): CPU 0 is the boot CPU
 * wherever it is listed, CPUs 1.. are the other enabled ones in MADT
 * order, densely; only online-capable CPUs get no number.
 */
static void test_acpi_x2apic_cpu_numbering(struct ktest *t)
{
	static u32 ids[MAX_CPUS];
	const u32 boot = id_above_255(600);
	struct fw_madt mb;
	u32 n, k = 1, wrong = 0;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(MAX_CPUS));
	for (u32 i = 0; i < MAX_CPUS; i++)
		fw_madt_x2apic(&mb, id_above_255(i), i % 4 == 1 ? OC : EN, i);
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	n = acpi_madt_cpu_order(&info.madt, boot, ids);
	KASSERT_EQ(t, n, MAX_CPUS - MAX_CPUS / 4);
	KEXPECT_EQ(t, ids[0], boot);
	for (u32 i = 0; i < MAX_CPUS; i++) {
		if (i % 4 == 1 || id_above_255(i) == boot)
			continue;
		if (ids[k] != id_above_255(i) && !wrong++)
			ktest_log(t, "CPU %u has APIC ID %#x, expected %#x", k, ids[k],
				  id_above_255(i));
		k++;
	}
	KEXPECT_EQ(t, k, n);
	KEXPECT_EQ(t, wrong, 0);
	/* A boot CPU the MADT does not list gets no number here; CPU 0 is it anyway. */
	KEXPECT_EQ(t, acpi_madt_cpu_order(&info.madt, id_above_255(1), ids), n);
	KEXPECT_EQ(t, ids[0], id_above_255(0));
	KEXPECT_EQ(t, ids[1], id_above_255(2));
	log_msgs(t);
}

/* The boot CPU listed beyond MAX_CPUS is still CPU 0, and every number is used once. */
static void test_acpi_x2apic_cpu_numbering_full(struct ktest *t)
{
	static u32 ids[MAX_CPUS];
	const u32 boot = 0;
	struct fw_madt mb;
	u32 n, dup = 0;

	fw_reset(t);
	acpi_set_boot_apic_id(boot);
	mb = fw_madt_begin(0xfee00000, 0, MADT_ROOM(MAX_CPUS + 5));
	for (u32 i = 0; i < MAX_CPUS + 4; i++)
		fw_madt_x2apic(&mb, id_above_255(i), EN, i);
	fw_madt_x2apic(&mb, boot, EN, 7);
	KEXPECT_EQ(t, madt_parse(&mb), 0);
	n = acpi_madt_cpu_order(&info.madt, boot, ids);
	KASSERT_EQ(t, n, MAX_CPUS);
	KEXPECT_EQ(t, ids[0], boot);
	KEXPECT_EQ(t, ids[1], id_above_255(0));
	KEXPECT_EQ(t, ids[MAX_CPUS - 1], id_above_255(MAX_CPUS - 2));
	for (u32 i = 0; i < n; i++) {
		for (u32 j = i + 1; j < n; j++)
			dup += ids[i] == ids[j];
	}
	KEXPECT_EQ(t, dup, 0);
	log_msgs(t);
}

/* The boot CPU's ID is named only by the cases about it. */
static int acpi_x2apic_init(struct ktest *t)
{
	(void)t;
	acpi_set_boot_apic_id(ACPI_APIC_ID_NONE);
	return 0;
}

#ifndef HOST_BUILD
/* Leaves acpi_find_table() answering from the firmware's tables again. */
static void acpi_x2apic_exit(struct ktest *t)
{
	static struct acpi_info real;

	(void)t;
	acpi_init(&real);
}
#else
static void acpi_x2apic_exit(struct ktest *t)
{
	(void)t;
	acpi_set_map(NULL);
	acpi_set_boot_apic_id(ACPI_APIC_ID_NONE);
}
#endif

static const struct ktest_case acpi_x2apic_cases[] = {
	KTEST_CASE(test_acpi_x2apic_sizes),
	KTEST_CASE(test_acpi_x2apic_mixed_types),
	KTEST_CASE(test_acpi_x2apic_flags),
	KTEST_CASE(test_acpi_x2apic_sparse_ids),
	KTEST_CASE(test_acpi_x2apic_over_max),
	KTEST_CASE(test_acpi_x2apic_broadcast_id),
	KTEST_CASE(test_acpi_x2apic_boot_cpu_position),
	KTEST_CASE(test_acpi_x2apic_boot_cpu_late),
	KTEST_CASE(test_acpi_x2apic_cpu_numbering),
	KTEST_CASE(test_acpi_x2apic_cpu_numbering_full),
};
KTEST_SUITE_EXT(acpi_x2apic, acpi_x2apic_cases, acpi_x2apic_init, acpi_x2apic_exit, NULL);
