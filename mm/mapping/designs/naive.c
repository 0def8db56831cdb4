/*
 * fault lock naive: every fault on a mapped region takes the mapping's
 * shared lock for reading, as hugetlbfs faults took i_mmap_rwsem in 2020,
 * so every fault of every CPU writes that lock's line. The baseline of
 * fault_lock_designs[] (order 0). Context: the fault path's.
 */
#include "mm/mapping/mapping.h"
#include "mm/mm_types.h"

static rwlock_t *fault_lock_of_naive(const struct mm_region *r)
{
	return &r->mapping->lock;
}

/* One mapping lock per fault, never a vma lock. */
const struct fault_lock_ops fault_lock_ops_naive = {
	.d = { .name = "naive", .desc = "every fault on a mapped region takes the mapping lock",
	       .source = "the 2020 hugetlbfs i_mmap_rwsem regression (after c0d0381ade)",
	       .unit = "fault",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_MAPPING_LOCKS, 1, 1),
					   PROMISE(PCPU_VMA_LOCKS, 0, 1)) },
	.lock_of = fault_lock_of_naive,
};
DESIGN_REGISTER(fault_lock_designs, fault_lock_ops_naive, 0);
