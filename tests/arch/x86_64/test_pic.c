/*
 * Kernel self-tests of what bring-up did to the interrupt controllers the
 * firmware left behind: both 8259s masked, their spurious IRQ7/IRQ15
 * handled without a wrong EOI, and every I/O APIC redirection entry
 * masked. A software INT to the remapped IRQ7/IRQ15 vector is exactly what
 * the CPU sees of a spurious 8259 interrupt (the vector, no ISR bit set).
 * Kernel only; runs on the boot CPU.
 */
/* build: kernel only */
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/pic.h"
#include "tests/ktest.h"
#include <arch/arch.h>
#include <arch/cpu.h>
#include <arch/vectors.h>

static void test_pic_all_masked(struct ktest *t)
{
	if (!pic_present()) {
		ktest_skip(t, "no 8259 on this machine");
		return;
	}
	KEXPECT_EQ(t, pic_imr(false), 0xff);
	KEXPECT_EQ(t, pic_imr(true), 0xff);
	KEXPECT_EQ(t, pic_isr(false), 0);
	KEXPECT_EQ(t, pic_isr(true), 0);
	KEXPECT_EQ(t, pic_unexpected_count(), 0);
}

static void test_pic_spurious_irq7_counted(struct ktest *t)
{
	u64 master = pic_spurious_count(false), slave = pic_spurious_count(true);
	unsigned long flags = arch_irq_save();

	soft_int(PIC_VEC_SPURIOUS_MASTER);
	soft_int(PIC_VEC_SPURIOUS_MASTER);
	arch_irq_restore(flags);
	KEXPECT_EQ(t, pic_spurious_count(false), master + 2);
	KEXPECT_EQ(t, pic_spurious_count(true), slave);
	KEXPECT_EQ(t, pic_unexpected_count(), 0);
	if (pic_present())
		KEXPECT_EQ(t, pic_isr(false), 0);
}

static void test_pic_spurious_irq15_counted(struct ktest *t)
{
	u64 master = pic_spurious_count(false), slave = pic_spurious_count(true);
	unsigned long flags = arch_irq_save();

	soft_int(PIC_VEC_SPURIOUS_SLAVE);
	arch_irq_restore(flags);
	KEXPECT_EQ(t, pic_spurious_count(true), slave + 1);
	KEXPECT_EQ(t, pic_spurious_count(false), master);
	KEXPECT_EQ(t, pic_unexpected_count(), 0);
	if (pic_present()) {
		KEXPECT_EQ(t, pic_isr(true), 0);
		KEXPECT_EQ(t, pic_isr(false), 0);
	}
}

static void test_ioapic_every_entry_masked(struct ktest *t)
{
	unsigned checked = 0;

	if (!ioapic_count()) {
		ktest_skip(t, "no I/O APIC in the MADT");
		return;
	}
	for (unsigned i = 0; i < ioapic_count(); i++) {
		const struct ioapic_dev *io = ioapic_get(i);

		if (io->dead)
			continue;
		KEXPECT_GE(t, io->entries, 1u);
		for (u32 e = 0; e < io->entries; e++) {
			if (!KEXPECT(t, ioapic_redir_low(io, e) & IOAPIC_REDIR_MASKED))
				ktest_log(t, "ioapic %u entry %u: 0x%x", io->id, e,
					  ioapic_redir_low(io, e));
			checked++;
		}
	}
	KEXPECT_GT(t, checked, 0u);
}

static const struct ktest_case pic_cases[] = {
	KTEST_CASE(test_pic_all_masked),
	KTEST_CASE(test_pic_spurious_irq7_counted),
	KTEST_CASE(test_pic_spurious_irq15_counted),
	KTEST_CASE(test_ioapic_every_entry_masked),
};

KTEST_SUITE(pic, pic_cases);
