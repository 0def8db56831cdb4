/* What machine bring-up found, for self-tests and reports (arch/x86_64/init.c). */
#ifndef ARCH_INIT_H
#define ARCH_INIT_H

struct acpi_info;
struct smpboot_result;
struct tsc_sync_result;

const struct acpi_info *arch_acpi_info(void);
const struct smpboot_result *arch_smpboot_result(void);
const struct tsc_sync_result *arch_tsc_sync_result(void);

/* CPUs bring-up tried to have online: the MADT's enabled CPUs, capped by cpus=. */
unsigned arch_cpus_wanted(void);

#endif
