/*
 * make TEST_DESIGN=broken only: fixed's promises (one write per CPU per mm
 * at most) with naive's write on every call, counted (broken_always) or
 * not (broken_uncounted). Wrong on purpose: the pin bench's verify must
 * fail on each, by the write watches on the flag line (tests/steps/design.sh
 * checks it does).
 */
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/pin/pin.h"

#ifdef MMLAB_TEST_DESIGN_BROKEN
static const struct pin_flag_ops pin_flag_ops_broken_always = {
	.d = { .name = "broken_always", .desc = "fixed's promises, writes the flag on every call",
	       .source = "tests/steps/design.sh, verify that can fail", .unit = "mm",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PIN_FLAG_WRITES, 1, 1, .per_target = true,
						   .at_most = true),
					   PROMISE(PCPU_PIN_REF_ATOMICS, 1, 1)) },
	.note_pinned = note_pinned_naive,
	.pin_large = pin_large_per_page,
};
DESIGN_REGISTER(pin_flag_designs, pin_flag_ops_broken_always, 30);

/* naive's write on every call, never counted: only a watch on the line sees it. */
static void note_pinned_uncounted(struct mm *mm)
{
	atomic_store_relaxed(&mm->has_pinned, 1);
}

static const struct pin_flag_ops pin_flag_ops_broken_uncounted = {
	.d = { .name = "broken_uncounted",
	       .desc = "fixed's promises, writes the flag on every call without counting",
	       .source = "tests/steps/design.sh, verify that can fail", .unit = "mm",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PIN_FLAG_WRITES, 1, 1, .per_target = true,
						   .at_most = true),
					   PROMISE(PCPU_PIN_REF_ATOMICS, 1, 1)) },
	.note_pinned = note_pinned_uncounted,
	.pin_large = pin_large_per_page,
};
DESIGN_REGISTER(pin_flag_designs, pin_flag_ops_broken_uncounted, 40);
#endif
