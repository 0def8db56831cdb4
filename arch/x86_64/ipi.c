/*
 * The x86 side of cross-CPU calls and of stopping CPUs: ICR writes through
 * the local APIC, and the handler of the call vector. kernel/smp.c decides
 * what to send; this file only delivers it.
 */
#include "arch/x86_64/apic.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include <arch/arch.h>
#include <arch/vectors.h>

static bool aps_started;

void arch_send_call_ipi(unsigned cpu)
{
	apic_send_ipi(percpu_of(cpu)->apic_id, IPI_VEC_CALL);
}

void ipi_call_interrupt(void);

/*
 * The call vector's handler, called straight from ipi_call_stub (isr.S)
 * with interrupts off. Both counts are this CPU's own (one GS-relative add
 * each, no lock); the acknowledgement goes out inside smp_handle_mailbox(),
 * before the EOI, so the caller's wait ends while we still finish here.
 */
void ipi_call_interrupt(void)
{
	trace_event(TRACE_IRQ_ENTRY, 0, 0);
	this_cpu_inc(PCPU_INTERRUPTS);
	this_cpu_inc(PCPU_IPI_RECEIVED);
	smp_handle_mailbox();
	apic_eoi();
	trace_event(TRACE_EOI, 0, 0);
}

void ipi_mark_aps_started(void)
{
	aps_started = true;
}

/* An NMI reaches every CPU even with interrupts off; the NMI handler halts it. */
void arch_stop_other_cpus(void)
{
	if (aps_started)
		apic_send_nmi_allbutself();
}
