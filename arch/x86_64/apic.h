/*
 * The local APIC in xAPIC (MMIO) or x2APIC (MSR) mode behind one interface.
 * The mode is chosen once on the boot CPU (x2APIC when CPUID offers it,
 * unless apic= forces one) and every AP uses the same mode. APIC IDs above
 * 255 exist only in x2APIC mode.
 */
#ifndef ARCH_APIC_H
#define ARCH_APIC_H

#include "types.h"

enum apic_mode { APIC_MODE_XAPIC, APIC_MODE_X2APIC };
/* apic=auto|xapic|x2apic, an option of arch/x86_64/init.c. */
enum opt_apic { OPT_APIC_AUTO, OPT_APIC_XAPIC, OPT_APIC_X2APIC, OPT_APIC_COUNT };

/*
 * Checks that the boot CPU has a usable local APIC; one the firmware
 * disabled globally is enabled again (see apic.c). Returns 0, or -EIO
 * with @err naming what is missing. Boot CPU, interrupts off, before
 * apic_init_bsp().
 */
int apic_probe(char *err, size_t errlen);

/*
 * Test hook (apic_fw_off=1): clears IA32_APIC_BASE[11] as a firmware that
 * disabled the local APIC would, so apic_probe() meets that state. Boot
 * CPU, interrupts off, before apic_probe(); only if CPUID showed an APIC.
 */
void apic_fw_disable(void);

/*
 * Enables the boot CPU's local APIC. @want: 0 auto, 1 xAPIC, 2 x2APIC
 * (enum opt_apic). @mmio_base is the MADT's local APIC address. Returns 0,
 * or -EINVAL with @err filled when the forced mode is not available.
 */
int apic_init_bsp(int want, paddr_t mmio_base, char *err, size_t errlen);

/* Enables this AP's local APIC in the boot CPU's mode. */
void apic_init_ap(void);

enum apic_mode apic_mode(void);
const char *apic_mode_name(void);

/* This CPU's APIC ID (8 bits in xAPIC mode, 32 in x2APIC mode). */
u32 apic_id(void);

/* Largest APIC ID the current mode can address. */
u32 apic_max_id(void);

void apic_eoi(void);

/* Sends a fixed-delivery IPI with @vector to @apic_id. IRQs may be on or off. */
void apic_send_ipi(u32 apic_id, u8 vector);

/* Sends an NMI to every CPU but this one. */
void apic_send_nmi_allbutself(void);

/* INIT and STARTUP IPIs for AP bring-up (SDM Vol. 3A 9.4.4). */
void apic_send_init(u32 apic_id);
void apic_send_sipi(u32 apic_id, u8 page);

#endif
