/*
 * Kernel symbol lookup for backtraces. The table of text symbols is
 * generated at build time from the linked image (tools/gen-ksyms.sh) and
 * linked into .ksyms on the second link.
 */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include "types.h"

/*
 * Returns the name of the function containing @addr and its offset in
 * *@offset, or NULL when @addr is outside the kernel's text.
 */
const char *ksym_lookup(u64 addr, u64 *offset);

/* Address of the function called @name, or 0. */
u64 ksym_address(const char *name);

#endif
