/*
 * One-instruction wrappers for the x86-64 instructions mmlab needs. This is
 * the only file in the tree that holds inline assembly; everything above
 * arch/ reaches the hardware through arch/arch.h instead.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include "types.h"

#define X86_CR0_WP (1ul << 16)
#define X86_CR0_PG (1ul << 31)
#define X86_CR4_PAE (1ul << 5)
#define X86_CR4_PGE (1ul << 7)
#define X86_CR4_PCIDE (1ul << 17)
/*
 * With CR4.PCIDE: CR3[11:0] is the PCID; bit 63 set keeps its TLB entries
 * (SDM Vol. 3A 4.10.4.1).
 */
#define X86_CR3_PCID_MASK 0xffful
#define X86_CR3_NOFLUSH (1ul << 63)
#define X86_RFLAGS_IF (1ul << 9)

#define MSR_EFER 0xc0000080u
#define MSR_FS_BASE 0xc0000100u
#define MSR_GS_BASE 0xc0000101u
#define MSR_KERNEL_GS_BASE 0xc0000102u
#define MSR_APIC_BASE 0x1bu
#define MSR_TSC_DEADLINE 0x6e0u

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid_count(u32 leaf, u32 subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

static inline struct cpuid_regs cpuid(u32 leaf)
{
	return cpuid_count(leaf, 0);
}

static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline u64 read_cr0(void)
{
	u64 v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr2(void)
{
	u64 v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr3(void)
{
	u64 v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(u64 v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline u64 read_cr4(void)
{
	u64 v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(u64 v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline u64 read_rflags(void)
{
	u64 v;
	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline u64 read_rbp(void)
{
	u64 v;
	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

static inline void cli(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void sti(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline void hlt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

/* Enables interrupts and halts; STI's one-instruction shadow means no wake-up is lost. */
static inline void safe_halt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

/*
 * A software interrupt through IDT vector @vec (a constant); tests use it to
 * stand in for a device.
 */
#define soft_int(vec) __asm__ volatile("int %0" : : "i"(vec) : "memory")

static inline void pause(void)
{
	__asm__ volatile("pause" ::: "memory");
}

/*
 * MFENCE; LFENCE: every earlier store globally visible, and no later
 * instruction started, before what follows (SDM Vol. 3A 11.12.3, the
 * fence a WRMSR to an x2APIC register needs). Two instructions, one use.
 */
static inline void wrmsr_fence(void)
{
	__asm__ volatile("mfence; lfence" ::: "memory");
}

static inline void invlpg(vaddr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

struct invpcid_desc {
	u64 pcid;
	u64 addr;
};

static inline void invpcid(unsigned long type, const struct invpcid_desc *d)
{
	__asm__ volatile("invpcid %0, %1" : : "m"(*d), "r"(type) : "memory");
}

/* RDTSC is not ordered against earlier loads; LFENCE first (SDM Vol. 2B, RDTSC). */
static inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

/* Per-CPU access through the GS base (kernel/percpu.h): one instruction each. */
static inline void *gs_read_self(void)
{
	void *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

static inline void gs_add_u64(unsigned long offset, u64 v)
{
	__asm__ volatile("addq %1, %%gs:(%0)" : : "r"(offset), "r"(v) : "memory");
}

struct desc_ptr {
	u16 limit;
	u64 base;
} __attribute__((packed));

static inline void lgdt(const struct desc_ptr *p)
{
	__asm__ volatile("lgdt %0" : : "m"(*p));
}

static inline void lidt(const struct desc_ptr *p)
{
	__asm__ volatile("lidt %0" : : "m"(*p));
}

static inline void ltr(u16 sel)
{
	__asm__ volatile("ltr %0" : : "r"(sel));
}

#endif
