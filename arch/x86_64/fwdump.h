/*
 * fwdump=1 (arch/x86_64/fwdump.c): the raw firmware input the parsers read,
 * hex-dumped to the console so that tools/fwdump.py can turn a real boot
 * into fuzzing seeds (tests/fuzz/corpus/). Kernel only.
 */
#ifndef ARCH_X86_64_FWDUMP_H
#define ARCH_X86_64_FWDUMP_H

/*
 * Writes every region the boot information and ACPI parsers read (the
 * multiboot1 or multiboot2 block and what it points to, the BIOS words the
 * RSDP scan reads, the RSDP, the root table and each table it lists) as
 * "FWDUMP" lines straight to the console, bypassing printk's hold buffer:
 * the dump comes before the MMLAB header. Boot CPU, after the console is
 * set up and before anything reuses the loader's memory (no allocation yet).
 */
void fwdump_write(void);

#endif
