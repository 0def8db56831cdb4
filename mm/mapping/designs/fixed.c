/*
 * fault lock fixed: the fix of that regression: only a fault on a region
 * whose page tables may be shared (MM_PT_SHAREABLE) takes the mapping
 * lock, since only there can a table be lost under the fault.
 */
#include "mm/mapping/mapping.h"
#include "mm/mm_types.h"

/* Only a region whose tables may be shared can lose a table under the fault. */
static rwlock_t *fault_lock_of_fixed(const struct mm_region *r)
{
	return (r->flags & MM_PT_SHAREABLE) ? &r->mapping->lock : NULL;
}

/*
 * Locks only on shareable regions: no mapping-lock count the fault count
 * alone can state (one per fault there, none elsewhere); never a vma lock.
 */
const struct fault_lock_ops fault_lock_ops_fixed = {
	.d = { .name = "fixed", .desc = "only faults on shareable regions take the mapping lock",
	       .source = "the fix of that regression (34ae204f1851): lock only where tables "
			 "may be shared",
	       .unit = "fault",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_VMA_LOCKS, 0, 1)) },
	.lock_of = fault_lock_of_fixed,
};
DESIGN_REGISTER(fault_lock_designs, fault_lock_ops_fixed, 10);
