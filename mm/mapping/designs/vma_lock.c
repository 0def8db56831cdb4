/*
 * fault lock vma_lock, after Mike Kravetz's "hugetlb: add vma based lock for
 * synchronization": faults on shareable regions take their region's own lock
 * (one vma_lock[] line each) instead of the mapping lock, so CPUs faulting
 * on different regions share no lock line; the writer takes the region's
 * lock for writing before the mapping's.
 */
#include "mm/mapping/mapping.h"
#include "mm/mm_types.h"

static rwlock_t *fault_lock_of_vma(const struct mm_region *r)
{
	return (r->flags & MM_PT_SHAREABLE) ? &r->mapping->vma_lock[r->attach_slot].lock : NULL;
}

/*
 * Never the mapping lock, the promise that tells it from fixed; its vma
 * locks, like fixed's mapping locks, are one per fault on shareable
 * regions and none elsewhere, which the fault count alone cannot state.
 */
const struct fault_lock_ops fault_lock_ops_vma_lock = {
	.d = { .name = "vma_lock", .desc = "faults take their region's own lock, not the mapping's",
	       .source = "Mike Kravetz, \"hugetlb: add vma based lock for synchronization\" "
			 "(2022)",
	       .unit = "fault",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_MAPPING_LOCKS, 0, 1)) },
	.lock_of = fault_lock_of_vma,
};
DESIGN_REGISTER(fault_lock_designs, fault_lock_ops_vma_lock, 20);
