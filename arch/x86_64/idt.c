/*
 * The interrupt descriptor table: 256 interrupt gates pointing at the stubs
 * in isr.S (the call vector at its own lean one). Built once by the boot
 * CPU; every CPU loads the same table.
 * Double fault, NMI and machine check run on their own IST stacks.
 */
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/traps.h"
#include "compiler.h"
#include <arch/cpu.h>
#include <arch/vectors.h>

struct idt_gate {
	u16 offset_lo;
	u16 selector;
	u8 ist;
	u8 type_attr;
	u16 offset_mid;
	u32 offset_hi;
	u32 reserved;
} __packed;

BUILD_ASSERT(sizeof(struct idt_gate) == 16);

#define IDT_INTERRUPT_GATE 0x8e /* present, DPL 0, 64-bit interrupt gate: IF cleared on entry */
#define ISR_STUB_SIZE 16

extern const u8 isr_stubs[];
extern const u8 ipi_call_stub[];

static struct idt_gate idt[256] __aligned(16);

static void set_gate_to(unsigned vec, const u8 *entry, unsigned ist)
{
	u64 addr = (u64)(uintptr_t)entry;

	idt[vec] = (struct idt_gate){
		.offset_lo = addr & 0xffff,
		.selector = GDT_KERNEL_CS,
		.ist = ist,
		.type_attr = IDT_INTERRUPT_GATE,
		.offset_mid = (addr >> 16) & 0xffff,
		.offset_hi = addr >> 32,
	};
}

static void set_gate(unsigned vec, unsigned ist)
{
	set_gate_to(vec, isr_stubs + vec * ISR_STUB_SIZE, ist);
}

void idt_init(void)
{
	for (unsigned vec = 0; vec < 256; vec++)
		set_gate(vec, 0);
	/* The cross-CPU call's hot path: its own stub, no trap frame, no dispatch (isr.S). */
	set_gate_to(IPI_VEC_CALL, ipi_call_stub, 0);
	set_gate(VEC_DF, IST_DOUBLE_FAULT);
	set_gate(VEC_NMI, IST_NMI);
	set_gate(VEC_MC, IST_MACHINE_CHECK);
	idt_load();
}

void idt_load(void)
{
	struct desc_ptr ptr = { sizeof(idt) - 1, (u64)(uintptr_t)idt };

	lidt(&ptr);
}
