/*
 * Binary search over the generated symbol table (sorted by address). The
 * table is read-only data; lookups are safe from any context.
 */
#include "kernel/ksyms.h"
#include "lib/string.h"

/* Emitted by tools/gen-ksyms.sh: count, sorted addresses, name offsets, names. */
extern const u64 ksyms_count;
extern const u64 ksyms_addrs[];
extern const u32 ksyms_name_offsets[];
extern const char ksyms_names[];
extern const char __text_start[], __text_end[];

const char *ksym_lookup(u64 addr, u64 *offset)
{
	u64 lo = 0, hi = ksyms_count;

	if (addr < (u64)(uintptr_t)__text_start || addr >= (u64)(uintptr_t)__text_end)
		return NULL;
	/* Find the last symbol whose address is <= addr. */
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		if (ksyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (ksyms_count == 0 || ksyms_addrs[lo] > addr)
		return NULL;
	*offset = addr - ksyms_addrs[lo];
	return ksyms_names + ksyms_name_offsets[lo];
}

u64 ksym_address(const char *name)
{
	for (u64 i = 0; i < ksyms_count; i++)
		if (strcmp(ksyms_names + ksyms_name_offsets[i], name) == 0)
			return ksyms_addrs[i];
	return 0;
}
