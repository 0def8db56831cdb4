/*
 * Exception reports, the fault catcher self-tests use, and dispatch of
 * vectors to registered handlers. Interrupt context, interrupts off (all
 * gates are interrupt gates), except a page fault the fault hook
 * (arch_set_fault_hook()) resolves, which runs as the faulting code had them.
 * The handler table is written only during bring-up, before a vector fires.
 */
#include "arch/x86_64/traps.h"
#include "arch/x86_64/trap_frame_offsets.h"
#include "compiler.h"
#include "errno.h"
#include "kernel/ksyms.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "lib/format.h"
#include <arch/arch.h>
#include <arch/cpu.h>
#include <arch/layout.h>

BUILD_ASSERT(offsetof(struct trap_frame, vector) == TF_VECTOR);
BUILD_ASSERT(offsetof(struct trap_frame, error) == TF_ERROR);
BUILD_ASSERT(offsetof(struct trap_frame, rip) == TF_RIP);
BUILD_ASSERT(offsetof(struct trap_frame, rsp) == TF_RSP);
BUILD_ASSERT(sizeof(struct trap_frame) == TF_SIZE);

#define BACKTRACE_MAX 32

/* #PF error code bits (SDM Vol. 3A 4.7). */
#define PF_ERR_PRESENT (1u << 0)
#define PF_ERR_WRITE (1u << 1)
#define PF_ERR_RSVD (1u << 3)
#define PF_ERR_FETCH (1u << 4)

/* Layout shared with fault_catch_call in cpu_asm.S: rsp at 0, rip at 8. */
struct fault_catch {
	u64 rsp, rip;
	bool armed;
	struct fault_info info;
};

BUILD_ASSERT(offsetof(struct fault_catch, rsp) == 0);
BUILD_ASSERT(offsetof(struct fault_catch, rip) == 8);

int fault_catch_call(void (*fn)(void *), void *arg, struct fault_catch *c);

static struct fault_catch fault_catchers[MAX_CPUS];
/* Written once at boot, before the first fault the hook should see. */
static const struct arch_fault_hook *fault_hook;

void arch_set_fault_hook(const struct arch_fault_hook *hook)
{
	fault_hook = hook;
}
static irq_handler_t irq_handlers[256];

static const char *const exception_names[32] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack fault",
	[13] = "#GP general protection",
	[14] = "#PF page fault",
	[16] = "#MF x87 floating point",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD floating point",
	[20] = "#VE virtualization",
	[21] = "#CP control protection",
	[28] = "#HV hypervisor injection",
	[29] = "#VC VMM communication",
	[30] = "#SX security",
};

const char *trap_name(unsigned vec)
{
	if (vec >= 32)
		return NULL;
	return exception_names[vec] ? exception_names[vec] : "reserved exception";
}

bool trap_catch(void (*fn)(void *), void *arg, struct fault_info *fi)
{
	struct fault_catch *c = &fault_catchers[arch_cpu_id()];
	int faulted;

	c->armed = true;
	barrier();
	faulted = fault_catch_call(fn, arg, c);
	barrier();
	c->armed = false;
	if (faulted && fi)
		*fi = c->info;
	return faulted;
}

static bool try_catch(struct trap_frame *f, u64 cr2)
{
	struct fault_catch *c = &fault_catchers[arch_cpu_id()];

	if (!c->armed || f->vector == VEC_DF || f->vector == VEC_MC)
		return false;
	c->armed = false;
	c->info = (struct fault_info){ f->vector, f->error, f->rip, cr2 };
	f->rip = c->rip;
	f->rsp = c->rsp;
	return true;
}

static void print_symbol_line(const char *prefix, u64 addr)
{
	u64 off;
	const char *name = ksym_lookup(addr, &off);

	if (name)
		printk("%s0x%016lx <%s+0x%lx>\n", prefix, addr, name, off);
	else
		printk("%s0x%016lx <?>\n", prefix, addr);
}

static bool frame_plausible(u64 rbp)
{
	return rbp >= KERNEL_VIRT_BASE && IS_ALIGNED(rbp, 8) && rbp < ~0ul - 16;
}

void trap_backtrace(u64 rip, u64 rbp)
{
	printk("  backtrace:\n");
	print_symbol_line("    #0  ", rip);
	for (unsigned depth = 1; depth < BACKTRACE_MAX && frame_plausible(rbp); depth++) {
		const u64 *frame = (const u64 *)(uintptr_t)rbp;
		char prefix[16];

		if (frame[1] == 0)
			break;
		fmt_snprintf(prefix, sizeof(prefix), "    #%-2u ", depth);
		print_symbol_line(prefix, frame[1]);
		if (frame[0] <= rbp) /* frames grow upwards; anything else is garbage */
			break;
		rbp = frame[0];
	}
}

void arch_backtrace(void)
{
	u64 rbp = read_rbp();
	const u64 *frame = (const u64 *)(uintptr_t)rbp;

	trap_backtrace(frame[1], frame[0]);
}

static void print_pf_error(u64 err)
{
	printk("  page fault: %s, %s, %s%s%s\n", err & 1 ? "protection violation" : "not present",
	       err & 2 ? "write" : "read", err & 4 ? "user" : "kernel",
	       err & 16 ? ", instruction fetch" : "", err & 8 ? ", reserved bit set" : "");
}

/* @pf_err: what the fault hook said about a page fault it could not resolve (0: not asked). */
static void report_exception(const struct trap_frame *f, u64 cr2, int pf_err)
{
	printk("mmlab: EXCEPTION %s (vector %lu) on CPU %u\n", trap_name(f->vector), f->vector,
	       arch_cpu_id());
	printk("  error 0x%lx  CR2 0x%016lx\n", f->error, cr2);
	if (f->vector == VEC_PF)
		print_pf_error(f->error);
	if (pf_err)
		printk("  page fault not resolved: %s (%s)\n", fault_hook->strerror(pf_err),
		       errno_name(pf_err));
	print_symbol_line("  RIP ", f->rip);
	printk("  RSP 0x%016lx  RFLAGS 0x%016lx  CS 0x%lx  SS 0x%lx\n", f->rsp, f->rflags, f->cs,
	       f->ss);
	printk("  RAX 0x%016lx  RBX 0x%016lx  RCX 0x%016lx\n", f->rax, f->rbx, f->rcx);
	printk("  RDX 0x%016lx  RSI 0x%016lx  RDI 0x%016lx\n", f->rdx, f->rsi, f->rdi);
	printk("  RBP 0x%016lx  R8  0x%016lx  R9  0x%016lx\n", f->rbp, f->r8, f->r9);
	printk("  R10 0x%016lx  R11 0x%016lx  R12 0x%016lx\n", f->r10, f->r11, f->r12);
	printk("  R13 0x%016lx  R14 0x%016lx  R15 0x%016lx\n", f->r13, f->r14, f->r15);
	printk("  CR0 0x%016lx  CR3 0x%016lx  CR4 0x%016lx\n", read_cr0(), read_cr3(), read_cr4());
	trap_backtrace(f->rip, f->rbp);
}

/* ARCH_FAULT_* flags from a #PF error code (SDM Vol. 3A 4.7). */
static unsigned pf_flags(u64 error)
{
	return (error & PF_ERR_WRITE ? ARCH_FAULT_WRITE : 0) |
	       (error & PF_ERR_PRESENT ? ARCH_FAULT_PRESENT : 0) |
	       (error & PF_ERR_FETCH ? ARCH_FAULT_EXEC : 0);
}

/*
 * A page fault in the lower half that the fault hook wants (mm/fault.c's:
 * an address space is loaded) goes to the hook, with interrupts back on
 * when the faulting code had them (a copy-on-write fault waits for TLB
 * flush IPIs, and this CPU must keep answering other CPUs' while it waits
 * for the address space's lock).
 * Returns 0 when resolved, 1 when not the hook's, else the hook's error.
 */
static int handle_page_fault(struct trap_frame *f, u64 cr2)
{
	int err;

	if (cr2 >= USER_SPACE_TOP || (f->error & PF_ERR_RSVD) || !fault_hook ||
	    !fault_hook->wants(cr2))
		return 1;
	if (f->rflags & X86_RFLAGS_IF)
		sti();
	err = fault_hook->handle(cr2, pf_flags(f->error));
	cli();
	return err;
}

static bool watch_hit(void);

static void handle_exception(struct trap_frame *f)
{
	u64 cr2 = f->vector == VEC_PF ? read_cr2() : 0;
	int pf_err = f->vector == VEC_PF ? handle_page_fault(f, cr2) : 1;

	if (f->vector == VEC_DB && watch_hit())
		return;

	if (!pf_err)
		return;
	if (f->vector == VEC_NMI && panic_in_progress())
		arch_halt(); /* another CPU is panicking and stopped us */
	if (try_catch(f, cr2))
		return;
	panic_begin();
	report_exception(f, cr2, pf_err == 1 ? 0 : pf_err);
	panic_end("unhandled exception");
}

/* ---- write watches (debug registers) ---- */

/* DR7 for slot @slot: local enable, RW=01 (data writes), LEN @lenbits (SDM Vol. 3B 18.2.4). */
#define DR7_SLOT_BITS(slot, lenbits)                                                               \
	((1ull << (2 * (slot))) | (((u64)(lenbits) << 2 | 1ull) << (16 + 4 * (slot))))

static u64 read_dr6(void)
{
	u64 v;

	__asm__ volatile("mov %%dr6, %0" : "=r"(v));
	return v;
}

/* A write watch fired: counted, DR6 cleared; the write is done and the code goes on. */
static bool watch_hit(void)
{
	u64 dr6 = read_dr6();

	if (!(dr6 & 0xf))
		return false;
	for (unsigned slot = 0; slot < 4; slot++)
		if (dr6 & (1ull << slot))
			this_cpu_inc(PCPU_WATCHED_WRITES);
	__asm__ volatile("mov %0, %%dr6" : : "r"(0xffff0ff0ull));
	return true;
}

/* Slot @slot's enable bits (local, global) and its type and length field. */
static u64 dr7_slot_mask(unsigned slot)
{
	return (3ull << (2 * slot)) | (0xfull << (16 + 4 * slot));
}

static u64 read_dr7(void)
{
	u64 v;

	__asm__ volatile("mov %%dr7, %0" : "=r"(v));
	return v;
}

int arch_watch_writes(unsigned slot, const void *addr, unsigned len)
{
	static const u8 lenbits[9] = { [1] = 0, [2] = 1, [4] = 3, [8] = 2 };
	u64 a = (u64)addr;

	if (slot > 3 || len > 8 || (len & (len - 1)) || !len || (a & (len - 1)))
		return -EINVAL;
	if (slot == 0)
		__asm__ volatile("mov %0, %%dr0" : : "r"(a));
	else if (slot == 1)
		__asm__ volatile("mov %0, %%dr1" : : "r"(a));
	else if (slot == 2)
		__asm__ volatile("mov %0, %%dr2" : : "r"(a));
	else
		__asm__ volatile("mov %0, %%dr3" : : "r"(a));
	a = (read_dr7() & ~dr7_slot_mask(slot)) | DR7_SLOT_BITS(slot, lenbits[len]);
	__asm__ volatile("mov %0, %%dr7" : : "r"(a));
	return 0;
}

void arch_watch_clear(unsigned slot)
{
	if (slot <= 3)
		__asm__ volatile("mov %0, %%dr7" : : "r"(read_dr7() & ~dr7_slot_mask(slot)));
}

void trap_dispatch(struct trap_frame *f);

void trap_dispatch(struct trap_frame *f)
{
	irq_handler_t fn;

	if (f->vector < 32) {
		handle_exception(f);
		return;
	}
	this_cpu_inc(PCPU_INTERRUPTS);
	fn = irq_handlers[f->vector];
	if (fn) {
		fn(f);
		return;
	}
	panic("unexpected interrupt vector %lu on CPU %u", f->vector, arch_cpu_id());
}

int irq_register(unsigned vec, irq_handler_t fn)
{
	if (vec < 32 || vec > 255 || !fn)
		return -EINVAL;
	if (irq_handlers[vec])
		return -EBUSY;
	irq_handlers[vec] = fn;
	return 0;
}
