/*
 * Test hook points inside mm code: a deterministic test stops an operation
 * at a named step and runs the other side of a race there, on the same
 * CPU (tests/mm/test_race_*.c), or changes what that step saw (a flush that
 * did not complete). mm_hook is NULL outside such a test. A test sets it
 * while no other CPU runs mm code and clears it before it returns; the hook
 * runs in its point's context, with that point's locks held.
 */
#ifndef MM_MM_HOOK_H
#define MM_MM_HOOK_H

#include "lib/atomic.h"
#include "types.h"

enum mm_hook_point {
	/*
	 * mm_install_page_slot(): the fault's walk ended above level 1 and
	 * is about to resume from the table it stopped in (s->table), under
	 * mm->pt_lock taken next; mm->lock's read side held. @arg: the slot.
	 */
	MM_HOOK_FAULT_POPULATE,
	/*
	 * swap_out_locked(): the pages passed swap_out_check_locked() and
	 * their slots are taken, no entry changed yet; mm->lock's write side
	 * held. @arg: the mm.
	 */
	MM_HOOK_SWAP_OUT_CHECKED,
	/*
	 * swap_out_locked(): the leaves are swap entries now, their flush not
	 * yet sent; write side held. @arg: the mm.
	 */
	MM_HOOK_SWAP_OUT_CLEARED,
	/*
	 * page_pin_nr(): the page was checked (an allocated block's head),
	 * its refcount not yet touched; no lock. @arg: the struct page.
	 */
	MM_HOOK_PIN_CHECKED,
	/*
	 * page_pin_nr(): the refcount step is done (or refused), its outcome
	 * not yet acted on; no lock. @arg: the struct page.
	 */
	MM_HOOK_PIN_REF,
	/*
	 * mm_flush_range() or an mm gather's flush returned; @arg: the int
	 * holding its result, which the hook may set to an error (a CPU that
	 * did not acknowledge). Locks as the flush's caller holds them.
	 */
	MM_HOOK_FLUSHED,
	/*
	 * quarantine_frame(): the frame keeps, for good, the reference its
	 * failed unmap would have dropped (the torture counts them); any
	 * context. @arg: the struct page.
	 */
	MM_HOOK_QUARANTINED,
};

typedef void mm_hook_fn(enum mm_hook_point at, void *arg);

/* The test's hook, or NULL (mm/mm.c). */
extern mm_hook_fn *mm_hook;

static inline void mm_hook_at(enum mm_hook_point at, void *arg)
{
	mm_hook_fn *fn = atomic_load_relaxed(&mm_hook);

	if (fn)
		fn(at, arg);
}

#endif
