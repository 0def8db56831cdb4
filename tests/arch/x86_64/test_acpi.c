/*
 * Tests for arch/x86_64/acpi.c. Synthetic firmware tables (RSDP, XSDT, RSDT,
 * MADT, SPCR, HPET, FADT) come from tests/acpi_fw.c with valid checksums,
 * and each case breaks one thing on purpose; these run on the host and in
 * the kernel. In the kernel one more case checks QEMU's real tables, and
 * the suite's exit hook re-parses them so acpi_find_table() answers from
 * the real tables again afterwards.
 */
#include "arch/x86_64/acpi.h"
#include "errno.h"
#include "lib/string.h"
#include "tests/acpi_fw.h"
#include "tests/ktest.h"

#define EN ACPI_MADT_CPU_ENABLED
#define OC ACPI_MADT_CPU_ONLINE_CAPABLE

static struct acpi_info info; /* large: never on the stack */

static bool has_msg(const struct acpi_info *i, const char *fragment)
{
	for (u32 k = 0; k < i->nmsgs; k++) {
		if (strstr(i->msgs[k], fragment))
			return true;
	}
	return false;
}

/* On failure, shows what the parser said. */
static void log_msgs(struct ktest *t, const struct acpi_info *i)
{
	if (!t->failed)
		return;
	for (u32 k = 0; k < i->nmsgs; k++)
		ktest_log(t, "acpi message: %s", i->msgs[k]);
}

/* ---- root tables ---- */

static void test_acpi_rsdt_v1(struct ktest *t)
{
	paddr_t tables[3];
	const struct acpi_madt_info *m = &info.madt;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_fadt(1, 116, 0, 0);
	tables[2] = fw_hpet(0xfed00000);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 3), &info), 0);
	KEXPECT(t, !info.xsdt);
	KEXPECT_EQ(t, info.revision, 0);
	KEXPECT_STREQ(t, info.oem_id, "MMLAB");
	KEXPECT_EQ(t, info.ntables, 3);
	KEXPECT_EQ(t, info.nbad_tables, 0);
	KEXPECT_EQ(t, info.nmsgs, 0);
	KASSERT(t, m->present);
	KEXPECT_EQ(t, m->lapic_base, 0xfee00000);
	KEXPECT(t, !m->lapic_override && m->pcat_compat);
	KASSERT_EQ(t, m->ncpus, 4);
	for (u32 i = 0; i < 4; i++) {
		KEXPECT_EQ(t, m->cpu[i].apic_id, i);
		KEXPECT_EQ(t, m->cpu[i].uid, i);
		KEXPECT(t,
			m->cpu[i].enabled && !m->cpu[i].online_capable && !m->cpu[i].x2apic_entry);
	}
	KEXPECT_EQ(t, m->ndisabled + m->nduplicates + m->nignored + m->nbad_entries, 0);
	log_msgs(t, &info);
}

static void test_acpi_madt_devices(struct ktest *t)
{
	paddr_t tables[1];
	const struct acpi_madt_info *m = &info.madt;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	KASSERT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), 0);
	KASSERT_EQ(t, m->nioapic, 1);
	KEXPECT_EQ(t, m->ioapic[0].id, 0);
	KEXPECT_EQ(t, m->ioapic[0].addr, 0xfec00000);
	KEXPECT_EQ(t, m->ioapic[0].gsi_base, 0);
	KASSERT_EQ(t, m->noverrides, 2);
	KEXPECT(t, m->override[0].bus == 0 && m->override[0].source == 0);
	KEXPECT_EQ(t, m->override[0].gsi, 2);
	KEXPECT(t, m->override[1].source == 9 && m->override[1].gsi == 9);
	KEXPECT_EQ(t, m->override[1].flags, 0xd);
	KEXPECT_EQ(t, m->nnmi, 1);
	KEXPECT(t, !info.hpet.present && !info.spcr.present && !info.fadt.present);
}

static void test_acpi_xsdt_v2(struct ktest *t)
{
	paddr_t tables[3], rsdt, xsdt;

	fw_reset(t);
	tables[0] = fw_fadt(3, 244, ACPI_BOOT_LEGACY_DEVICES | ACPI_BOOT_8042, 0);
	tables[1] = fw_qemu_madt();
	tables[2] = fw_hpet(0xfed00000);
	rsdt = fw_root(false, tables, 1, 0); /* the RSDT lists only the FADT */
	xsdt = fw_root(true, tables, 3, 0);
	KEXPECT_EQ(t, acpi_parse(fw_rsdp(2, rsdt, xsdt), &info), 0);
	KEXPECT(t, info.xsdt);
	KEXPECT_EQ(t, info.root, xsdt);
	KEXPECT_EQ(t, info.revision, 2);
	KEXPECT_EQ(t, info.ntables, 3);
	KEXPECT_EQ(t, info.nmsgs, 0);
	KEXPECT_EQ(t, info.madt.ncpus, 4);
	KEXPECT(t, info.hpet.present);
	KEXPECT_EQ(t, info.hpet.base, 0xfed00000);
	KEXPECT(t, acpi_find_table("APIC", 0) != NULL);
	KEXPECT_EQ(t, acpi_find_table("APIC", 1), NULL);
	KEXPECT_EQ(t, acpi_find_table("SSDT", 0), NULL);
	KEXPECT_EQ(t, fw_pa(acpi_find_table("HPET", 0)), tables[2]);
	log_msgs(t, &info);
}

static void test_acpi_rsdp_bad(struct ktest *t)
{
	paddr_t tables[1], rsdp;
	struct acpi_rsdp *r;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	rsdp = fw_boot(2, tables, 1);
	r = fw_ptr(rsdp);
	r->oem_id[0] ^= 1;
	KEXPECT_EQ(t, acpi_parse(rsdp, &info), -EINVAL);
	KEXPECT_EQ(t, info.nmsgs, 1);
	KEXPECT(t, has_msg(&info, "RSDP") && has_msg(&info, "bad checksum"));
	KEXPECT(t, !info.madt.present && info.root == 0);
	r->oem_id[0] ^= 1;
	r->sig[0] = 'X';
	KEXPECT_EQ(t, acpi_parse(rsdp, &info), -EINVAL);
	KEXPECT(t, has_msg(&info, "bad signature"));
	KEXPECT_EQ(t, acpi_parse(0, &info), -ENOENT);
	KEXPECT(t, has_msg(&info, "no RSDP"));
	KEXPECT_EQ(t, acpi_parse(0x1000, &info), -EINVAL);
	KEXPECT(t, has_msg(&info, "not reachable"));
	KEXPECT_EQ(t, acpi_find_table("APIC", 0), NULL);
}

static void test_acpi_rsdp_bad_ext_checksum(struct ktest *t)
{
	paddr_t tables[1], rsdp;
	struct acpi_rsdp *r;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	rsdp = fw_boot(2, tables, 1);
	r = fw_ptr(rsdp);
	r->reserved[0] = 1; /* covered by the extended checksum only */
	KEXPECT_EQ(t, acpi_parse(rsdp, &info), 0);
	KEXPECT(t, !info.xsdt);
	KEXPECT_EQ(t, info.nmsgs, 1);
	KEXPECT(t, has_msg(&info, "extended checksum"));
	KEXPECT_EQ(t, info.madt.ncpus, 4);
	r->reserved[0] = 0;
	r->length = 8;
	r->ext_checksum = 0;
	r->ext_checksum = (u8)-acpi_checksum(r, sizeof(*r));
	KEXPECT_EQ(t, acpi_parse(rsdp, &info), 0);
	KEXPECT(t, !info.xsdt && has_msg(&info, "bad length 8"));
	log_msgs(t, &info);
}

static void test_acpi_xsdt_bad_falls_back(struct ktest *t)
{
	paddr_t tables[1], rsdt, xsdt;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	rsdt = fw_root(false, tables, 1, 0);
	xsdt = fw_root(true, tables, 1, 0);
	((struct acpi_sdt_header *)fw_ptr(xsdt))->oem_revision = 7;
	KEXPECT_EQ(t, acpi_parse(fw_rsdp(2, rsdt, xsdt), &info), 0);
	KEXPECT(t, !info.xsdt);
	KEXPECT_EQ(t, info.root, rsdt);
	KEXPECT(t, has_msg(&info, "XSDT at") && has_msg(&info, "bad checksum"));
	KEXPECT_EQ(t, acpi_parse(fw_rsdp(2, rsdt, 0xdead00000000ul), &info), 0);
	KEXPECT(t, !info.xsdt && has_msg(&info, "not reachable"));
	KEXPECT_EQ(t, acpi_parse(fw_rsdp(2, 0, xsdt), &info), -EINVAL);
	log_msgs(t, &info);
}

/* Each kind of bad table is skipped with its own message; the good one is used. */
static void test_acpi_bad_tables(struct ktest *t)
{
	paddr_t tables[6];
	struct acpi_sdt_header *h;

	fw_reset(t);
	tables[0] = fw_table("SHRT", 20, 1);
	fw_fix(tables[0]);
	tables[1] = fw_table("????", 64, 1);
	h = fw_ptr(tables[1]);
	h->sig[1] = '\n';
	fw_fix(tables[1]);
	tables[2] = 0;
	tables[3] = 0x10000;
	tables[4] = fw_qemu_madt();
	tables[5] = tables[4]; /* listed twice: read once */
	KEXPECT_EQ(t, acpi_parse(fw_rsdp(2, 0, fw_root(true, tables, 6, 4)), &info), 0);
	KEXPECT_EQ(t, info.ntables, 1);
	KEXPECT_EQ(t, info.nbad_tables, 4);
	KEXPECT(t, has_msg(&info, "truncated entry"));
	KEXPECT(t, has_msg(&info, "SHRT at") && has_msg(&info, "bad length 20"));
	KEXPECT(t, has_msg(&info, "bad signature"));
	KEXPECT(t, has_msg(&info, "null table address"));
	KEXPECT(t, has_msg(&info, "table at 0x10000: not reachable"));
	KEXPECT_EQ(t, info.nmsgs, 5);
	KEXPECT_EQ(t, info.madt.ncpus, 4);
	log_msgs(t, &info);
}

static void test_acpi_messages_bounded(struct ktest *t)
{
	paddr_t tables[13];

	fw_reset(t);
	for (int i = 0; i < 12; i++) {
		tables[i] = fw_hpet(0xfed00000);
		((struct acpi_hpet *)fw_ptr(tables[i]))->number = 1; /* breaks its checksum */
	}
	tables[12] = fw_qemu_madt();
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 13), &info), 0);
	KEXPECT_EQ(t, info.nbad_tables, 12);
	KEXPECT_EQ(t, info.nmsgs, ACPI_MSG_MAX);
	KEXPECT_EQ(t, info.nmsgs_dropped, 12 - ACPI_MSG_MAX);
	for (u32 i = 0; i < info.nmsgs; i++)
		KEXPECT_LT(t, strlen(info.msgs[i]), ACPI_MSG_LEN);
	KEXPECT(t, !info.hpet.present);
}

/* ---- MADT ---- */

static void test_acpi_madt_bad_checksum(struct ktest *t)
{
	paddr_t tables[2];

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	((struct acpi_madt *)fw_ptr(tables[0]))->flags ^= 2;
	tables[1] = fw_hpet(0xfed00000);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), -ENOENT);
	KEXPECT(t, !info.madt.present);
	KEXPECT_EQ(t, info.madt.ncpus, 0);
	KEXPECT_EQ(t, info.nbad_tables, 1);
	KEXPECT(t, has_msg(&info, "APIC at") && has_msg(&info, "bad checksum"));
	KEXPECT(t, has_msg(&info, "one CPU"));
	KEXPECT(t, info.hpet.present); /* the rest is still used */
	KEXPECT_EQ(t, acpi_find_table("APIC", 0), NULL);
	log_msgs(t, &info);
}

static void test_acpi_madt_missing(struct ktest *t)
{
	paddr_t tables[1];

	fw_reset(t);
	tables[0] = fw_hpet(0xfed00000);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), -ENOENT);
	KEXPECT(t, has_msg(&info, "no valid MADT"));
	KEXPECT(t, !info.madt.present && info.hpet.present);
}

/* Type 0 and 9, disabled, online-capable, IDs above 255, one CPU listed twice. */
static void test_acpi_madt_cpu_kinds(struct ktest *t)
{
	struct fw_madt mb;
	paddr_t tables[1];
	const struct acpi_madt_info *m = &info.madt;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, 512);
	fw_madt_lapic(&mb, 0, 0, EN);
	fw_madt_lapic(&mb, 1, 1, 0);	    /* disabled: counted, not listed */
	fw_madt_lapic(&mb, 2, 2, OC);	    /* may be hot-added */
	fw_madt_x2apic(&mb, 300, EN, 300);  /* beyond 8 bits */
	fw_madt_x2apic(&mb, 0, EN, 0);	    /* the same CPU as the first type 0 */
	fw_madt_x2apic(&mb, 1000, 0, 1000); /* disabled */
	fw_madt_x2apic(&mb, 0x10000, OC, 7);
	fw_madt_lapic(&mb, 9, 0xff, EN); /* the broadcast ID: bad */
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 1), &info), 0);
	KASSERT_EQ(t, m->ncpus, 4);
	KEXPECT_EQ(t, m->ndisabled, 2);
	KEXPECT_EQ(t, m->nduplicates, 1);
	KEXPECT_EQ(t, m->nbad_entries, 1);
	KEXPECT(t, has_msg(&info, "0xff"));
	KEXPECT(t, m->cpu[0].apic_id == 0 && m->cpu[0].enabled && !m->cpu[0].x2apic_entry);
	KEXPECT(t, m->cpu[1].apic_id == 2 && !m->cpu[1].enabled && m->cpu[1].online_capable);
	KEXPECT(t, m->cpu[2].apic_id == 300 && m->cpu[2].enabled && m->cpu[2].x2apic_entry);
	KEXPECT_EQ(t, m->cpu[2].uid, 300);
	KEXPECT(t, m->cpu[3].apic_id == 0x10000 && m->cpu[3].online_capable);
	KEXPECT(t, acpi_madt_has_apic_id(m, 300));
	KEXPECT(t, !acpi_madt_has_apic_id(m, 1) && !acpi_madt_has_apic_id(m, 1000));
	KEXPECT(t, !m->truncated && !m->pcat_compat);
	log_msgs(t, &info);
}

/* An entry of length 0 must end the walk (not loop), keeping what came before. */
static void test_acpi_madt_zero_length(struct ktest *t)
{
	struct fw_madt mb;
	paddr_t tables[1];

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, 256);
	fw_madt_lapic(&mb, 0, 0, EN);
	fw_madt_lapic(&mb, 1, 1, EN);
	fw_madt_raw(&mb, ACPI_MADT_LAPIC, 0, 8);
	fw_madt_lapic(&mb, 2, 2, EN);
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), 0);
	KEXPECT_EQ(t, info.madt.ncpus, 2);
	KEXPECT_EQ(t, info.madt.nbad_entries, 1);
	KEXPECT(t, has_msg(&info, "length 0 does not fit"));
	log_msgs(t, &info);
}

static void test_acpi_madt_entry_past_end(struct ktest *t)
{
	struct fw_madt mb;
	paddr_t tables[1];

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, 256);
	fw_madt_lapic(&mb, 0, 0, EN);
	fw_madt_x2apic(&mb, 1, EN, 1);
	mb.len -= 8; /* the table ends in the middle of the x2APIC entry */
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), 0);
	KEXPECT_EQ(t, info.madt.ncpus, 1);
	KEXPECT(t, has_msg(&info, "length 16 does not fit"));

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, 256);
	fw_madt_lapic(&mb, 0, 0, EN);
	fw_madt_raw(&mb, ACPI_MADT_X2APIC, 16, 1); /* one byte left: only the type */
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), 0);
	KEXPECT_EQ(t, info.madt.ncpus, 1);
	KEXPECT_EQ(t, info.madt.nbad_entries, 1);
	log_msgs(t, &info);
}

/* An entry shorter than its type needs is skipped; the walk goes on after it. */
static void test_acpi_madt_short_entry(struct ktest *t)
{
	struct fw_madt mb;
	paddr_t tables[1];

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, 256);
	fw_madt_raw(&mb, ACPI_MADT_LAPIC, 6, 6)[3] = 5;
	fw_madt_raw(&mb, ACPI_MADT_X2APIC, 12, 12);
	fw_madt_raw(&mb, 0x42, 3, 3); /* an unknown type: passed over quietly */
	fw_madt_lapic(&mb, 1, 1, EN);
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), 0);
	KASSERT_EQ(t, info.madt.ncpus, 1);
	KEXPECT_EQ(t, info.madt.cpu[0].apic_id, 1);
	KEXPECT_EQ(t, info.madt.nbad_entries, 2);
	KEXPECT(t, has_msg(&info, "type 0 at offset 44: length 6 is too short"));
	KEXPECT(t, has_msg(&info, "type 9 at offset 50"));
	KEXPECT_EQ(t, info.nmsgs, 2);
	log_msgs(t, &info);
}

static void test_acpi_madt_lapic_override(struct ktest *t)
{
	struct fw_madt mb;
	struct acpi_madt_lapic_override *o;
	paddr_t tables[1];

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, 256);
	fw_madt_lapic(&mb, 0, 0, EN);
	o = fw_madt_add(&mb, ACPI_MADT_LAPIC_OVERRIDE, sizeof(*o));
	o->address = 0x1fee00000ull;
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), 0);
	KEXPECT(t, info.madt.lapic_override);
	KEXPECT_EQ(t, info.madt.lapic_base, 0x1fee00000ull);
	KEXPECT_EQ(t, info.nmsgs, 0);
}

static void test_acpi_madt_too_many_cpus(struct ktest *t)
{
	const u32 extra = 5;
	struct fw_madt mb;
	paddr_t tables[1];
	const struct acpi_madt_info *m = &info.madt;

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, sizeof(struct acpi_madt) + (MAX_CPUS + extra + 2) * 16);
	for (u32 i = 0; i < MAX_CPUS + extra; i++)
		fw_madt_x2apic(&mb, i, EN, i);
	fw_madt_x2apic(&mb, 3, EN, 3);	      /* a duplicate is not an overflow */
	fw_madt_x2apic(&mb, 1u << 20, 0, 99); /* nor is a disabled CPU */
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 1), &info), 0);
	KEXPECT_EQ(t, m->ncpus, MAX_CPUS);
	KEXPECT(t, m->truncated);
	KEXPECT_EQ(t, m->nignored, extra);
	KEXPECT_EQ(t, m->nduplicates, 1);
	KEXPECT_EQ(t, m->ndisabled, 1);
	KEXPECT_EQ(t, m->cpu[MAX_CPUS - 1].apic_id, MAX_CPUS - 1);
	KEXPECT(t, has_msg(&info, "beyond MAX_CPUS"));
	log_msgs(t, &info);
}

static void test_acpi_madt_no_usable_cpu(struct ktest *t)
{
	struct fw_madt mb;
	paddr_t tables[1];

	fw_reset(t);
	mb = fw_madt_begin(0xfee00000, 0, 256);
	fw_madt_lapic(&mb, 0, 0, 0);
	fw_madt_x2apic(&mb, 400, 0, 1);
	tables[0] = fw_madt_end(&mb);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, tables, 1), &info), -ENOENT);
	KEXPECT(t, info.madt.present);
	KEXPECT_EQ(t, info.madt.ncpus, 0);
	KEXPECT_EQ(t, info.madt.ndisabled, 2);
	KEXPECT(t, has_msg(&info, "no usable CPU"));
}

/* ---- SPCR, HPET, FADT ---- */

static void test_acpi_spcr_io(struct ktest *t)
{
	paddr_t tables[2];
	const struct acpi_spcr_info *s = &info.spcr;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_spcr(2, ACPI_SPCR_16550, ACPI_GAS_IO, 0x2f8, 7, 0);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	KASSERT(t, s->present);
	KEXPECT(t, !s->mmio);
	KEXPECT_EQ(t, s->space_id, ACPI_GAS_IO);
	KEXPECT_EQ(t, s->interface_type, ACPI_SPCR_16550);
	KEXPECT_EQ(t, s->address, 0x2f8);
	KEXPECT_EQ(t, s->baud, 115200);
	KEXPECT_EQ(t, s->irq, 3);
	KEXPECT_EQ(t, info.nmsgs, 0);
}

static void test_acpi_spcr_mmio(struct ktest *t)
{
	paddr_t tables[2];
	const struct acpi_spcr_info *s = &info.spcr;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_spcr(4, ACPI_SPCR_16550_GAS, ACPI_GAS_MEMORY, 0xfe030000, 0, 1500000);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	KASSERT(t, s->present);
	KEXPECT(t, s->mmio);
	KEXPECT_EQ(t, s->address, 0xfe030000);
	KEXPECT_EQ(t, s->bit_width, 32);
	KEXPECT_EQ(t, s->baud, 1500000);
	KEXPECT_EQ(t, info.nmsgs, 0);

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_spcr(2, ACPI_SPCR_16550, ACPI_GAS_MEMORY, 0xfe030000, 5, 0);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	KEXPECT(t, s->present && s->baud == 0);
	KEXPECT(t, has_msg(&info, "baud rate code 5"));
}

static void test_acpi_spcr_bad(struct ktest *t)
{
	paddr_t tables[2];
	struct acpi_sdt_header *h;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_spcr(2, ACPI_SPCR_16550, ACPI_GAS_IO, 0x3f8, 7, 0);
	h = fw_ptr(tables[1]);
	h->length = 60;
	fw_fix(tables[1]);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	KEXPECT(t, !info.spcr.present);
	KEXPECT(t, has_msg(&info, "SPCR: length 60"));

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_spcr(2, ACPI_SPCR_16550, 3, 0x3f8, 7, 0);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	KEXPECT(t, !info.spcr.present && has_msg(&info, "address space 3"));
}

static void test_acpi_fadt_boot_arch(struct ktest *t)
{
	paddr_t tables[2];
	const struct acpi_fadt_info *f = &info.fadt;

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_fadt(6, 276, ACPI_BOOT_NO_VGA, ACPI_FADT_HW_REDUCED);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	KEXPECT(t, f->present && f->boot_arch_valid && f->flags_valid);
	KEXPECT_EQ(t, f->revision, 6);
	KEXPECT_EQ(t, f->boot_arch, ACPI_BOOT_NO_VGA);
	KEXPECT_EQ(t, f->flags, ACPI_FADT_HW_REDUCED);

	/* ACPI 1.0: offset 109 is reserved, so the boot-arch flags are unknown. */
	fw_reset(t);
	tables[1] = fw_fadt(1, 116, 0xffff, 0x4a5);
	KEXPECT_EQ(t, acpi_parse(fw_boot(0, &tables[1], 1), &info), -ENOENT);
	KEXPECT(t, f->present && !f->boot_arch_valid && f->flags_valid);
	KEXPECT_EQ(t, f->boot_arch, 0);
	KEXPECT_EQ(t, f->flags, 0x4a5);
}

static void test_acpi_hpet_bad(struct ktest *t)
{
	paddr_t tables[2];

	fw_reset(t);
	tables[0] = fw_qemu_madt();
	tables[1] = fw_hpet(0);
	KEXPECT_EQ(t, acpi_parse(fw_boot(2, tables, 2), &info), 0);
	KEXPECT(t, !info.hpet.present && has_msg(&info, "HPET: base 0"));
}

/* The boot CPU's ID (acpi_init() names the real one) plays no part in these cases. */
static int acpi_test_init(struct ktest *t)
{
	(void)t;
	acpi_set_boot_apic_id(ACPI_APIC_ID_NONE);
	return 0;
}

/* ---- the real tables (kernel) ---- */

#ifndef HOST_BUILD
#include "boot/bootinfo.h"

static struct acpi_info real;

static void test_acpi_qemu_tables(struct ktest *t)
{
	const struct acpi_madt_info *m = &real.madt;
	u32 self = acpi_this_cpu_apic_id();

	if (!boot_info.rsdp) {
		KEXPECT_EQ(t, acpi_init(&real), -ENOENT);
		ktest_skip(t, "the firmware offers no ACPI RSDP: no tables to check");
		return;
	}
	KEXPECT_EQ(t, acpi_init(&real), 0);
	/* A build with MAX_CPUS below QEMU's -smp says so once; nothing else may complain. */
	KEXPECT_EQ(t, real.nmsgs, m->truncated ? 1 : 0);
	KEXPECT_EQ(t, real.nbad_tables, 0);
	KEXPECT_GE(t, real.ntables, 2);
	for (u32 i = 0; i < real.ntables; i++) {
		const void *h = acpi_map(real.tables[i].pa, real.tables[i].length);

		KEXPECT(t, h && acpi_checksum(h, real.tables[i].length) == 0);
	}
	KASSERT(t, m->present);
	KEXPECT_GE(t, m->ncpus, 1);
	KEXPECT_EQ(t, m->lapic_base, 0xfee00000);
	KEXPECT_GE(t, m->nioapic, 1);
	KEXPECT(t, acpi_madt_has_apic_id(m, self));
	for (u32 i = 0; i < m->ncpus; i++) {
		for (u32 k = i + 1; k < m->ncpus; k++)
			KEXPECT_NE(t, m->cpu[i].apic_id, m->cpu[k].apic_id);
	}
	KEXPECT(t, real.fadt.present);
	KEXPECT(t, acpi_find_table("APIC", 0) != NULL && acpi_find_table("FACP", 0) != NULL);
	log_msgs(t, &real);
}

/* Leaves acpi_find_table() answering from the firmware's tables again. */
static void acpi_test_exit(struct ktest *t)
{
	(void)t;
	acpi_init(&real);
}
#else
static void test_acpi_qemu_tables(struct ktest *t)
{
	ktest_skip(t, "needs the firmware's ACPI tables");
}

static void acpi_test_exit(struct ktest *t)
{
	(void)t;
	acpi_set_map(NULL);
	acpi_set_boot_apic_id(ACPI_APIC_ID_NONE);
}
#endif

static const struct ktest_case acpi_cases[] = {
	KTEST_CASE(test_acpi_rsdt_v1),
	KTEST_CASE(test_acpi_madt_devices),
	KTEST_CASE(test_acpi_xsdt_v2),
	KTEST_CASE(test_acpi_rsdp_bad),
	KTEST_CASE(test_acpi_rsdp_bad_ext_checksum),
	KTEST_CASE(test_acpi_xsdt_bad_falls_back),
	KTEST_CASE(test_acpi_bad_tables),
	KTEST_CASE(test_acpi_messages_bounded),
	KTEST_CASE(test_acpi_madt_bad_checksum),
	KTEST_CASE(test_acpi_madt_missing),
	KTEST_CASE(test_acpi_madt_cpu_kinds),
	KTEST_CASE(test_acpi_madt_zero_length),
	KTEST_CASE(test_acpi_madt_entry_past_end),
	KTEST_CASE(test_acpi_madt_short_entry),
	KTEST_CASE(test_acpi_madt_lapic_override),
	KTEST_CASE(test_acpi_madt_too_many_cpus),
	KTEST_CASE(test_acpi_madt_no_usable_cpu),
	KTEST_CASE(test_acpi_spcr_io),
	KTEST_CASE(test_acpi_spcr_mmio),
	KTEST_CASE(test_acpi_spcr_bad),
	KTEST_CASE(test_acpi_fadt_boot_arch),
	KTEST_CASE(test_acpi_hpet_bad),
	KTEST_CASE(test_acpi_qemu_tables),
};
KTEST_SUITE_EXT(acpi, acpi_cases, acpi_test_init, acpi_test_exit, NULL);
