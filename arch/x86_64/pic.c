/*
 * The 8259A pair, programmed once on the boot CPU with interrupts off: a
 * full initialisation (ICW1-ICW4) of each PIC moves its vectors, then OCW1
 * masks every line. Register semantics follow the Intel 8259A datasheet.
 * The spurious handlers run in interrupt context on whichever CPU the PIC
 * reached (the boot CPU); their counters are only ever read by tests.
 */
#include "arch/x86_64/pic.h"
#include "arch/x86_64/traps.h"
#include "compiler.h"
#include <arch/cpu.h>
#include <arch/vectors.h>

#define PIC_MASTER_CMD 0x20
#define PIC_MASTER_DATA 0x21
#define PIC_SLAVE_CMD 0xa0
#define PIC_SLAVE_DATA 0xa1

#define ICW1_INIT 0x10	       /* starts the initialisation sequence */
#define ICW1_ICW4 0x01	       /* an ICW4 follows; edge-triggered, cascaded */
#define ICW3_SLAVE_ON_IR2 0x04 /* master: a slave hangs on IR2 */
#define ICW3_SLAVE_ID 0x02     /* slave: its cascade identity is 2 */
#define ICW4_8086 0x01	       /* 8086 mode, normal (not automatic) EOI, not buffered */
#define OCW2_EOI 0x20	       /* non-specific end of interrupt */
#define OCW3_READ_ISR 0x0b
#define IRQ7_BIT 0x80 /* IR7 in a PIC's ISR: IRQ7 on the master, IRQ15 on the slave */
#define PIC_MASK_ALL 0xff
/* Probe: every line masked but the cascade input (the slave is masked already). */
#define PIC_PROBE_MASK 0xfb

static bool present;
static u64 spurious[2]; /* [0] master IRQ7, [1] slave IRQ15 */
static u64 unexpected;

/* An ISA bus cycle to an unused port: the delay old 8259s need between accesses. */
static void io_wait(void)
{
	outb(0x80, 0);
}

static void pic_out(u16 port, u8 v)
{
	outb(port, v);
	io_wait();
}

static u16 cmd_port(bool slave)
{
	return slave ? PIC_SLAVE_CMD : PIC_MASTER_CMD;
}

u8 pic_imr(bool slave)
{
	return inb(slave ? PIC_SLAVE_DATA : PIC_MASTER_DATA);
}

u8 pic_isr(bool slave)
{
	outb(cmd_port(slave), OCW3_READ_ISR);
	return inb(cmd_port(slave));
}

static void pic_eoi(bool slave)
{
	outb(cmd_port(slave), OCW2_EOI);
}

/*
 * A request that ends before the CPU's acknowledge makes the 8259A answer
 * with its IR7 vector but leaves the ISR bit clear: that one must not be
 * acknowledged. A real IR7 sets the bit and needs its EOI.
 */
static void pic_irq7(struct trap_frame *f)
{
	(void)f;
	if (pic_isr(false) & IRQ7_BIT) {
		unexpected++;
		pic_eoi(false);
		return;
	}
	spurious[0]++;
}

/*
 * The slave's spurious IR7 came to the CPU through the master's IR2, which
 * was a real request there (its ISR bit 2 is set): the master gets its EOI,
 * the slave none.
 */
static void pic_irq15(struct trap_frame *f)
{
	(void)f;
	if (pic_isr(true) & IRQ7_BIT) {
		unexpected++;
		pic_eoi(true);
	} else {
		spurious[1]++;
	}
	pic_eoi(false);
}

static void pic_program(bool slave, u8 vector, u8 icw3)
{
	u16 cmd = cmd_port(slave), data = cmd + 1;

	pic_out(cmd, ICW1_INIT | ICW1_ICW4);
	pic_out(data, vector);
	pic_out(data, icw3);
	pic_out(data, ICW4_8086);
}

bool pic_init(void)
{
	/* ICW1 clears the mask register: all lines open until OCW1 (interrupts are off). */
	pic_program(false, PIC_VEC_MASTER, ICW3_SLAVE_ON_IR2);
	pic_program(true, PIC_VEC_SLAVE, ICW3_SLAVE_ID);
	pic_out(PIC_SLAVE_DATA, PIC_MASK_ALL);
	/* A missing PIC reads 0xff (floating bus): a mask that reads back is a PIC. */
	pic_out(PIC_MASTER_DATA, PIC_PROBE_MASK);
	present = pic_imr(false) == PIC_PROBE_MASK;
	pic_out(PIC_MASTER_DATA, PIC_MASK_ALL);
	irq_register(PIC_VEC_SPURIOUS_MASTER, pic_irq7);
	irq_register(PIC_VEC_SPURIOUS_SLAVE, pic_irq15);
	return present;
}

bool pic_present(void)
{
	return present;
}

u64 pic_spurious_count(bool slave)
{
	return READ_ONCE(spurious[slave ? 1 : 0]);
}

u64 pic_unexpected_count(void)
{
	return READ_ONCE(unexpected);
}
