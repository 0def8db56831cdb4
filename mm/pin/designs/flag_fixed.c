/*
 * has_pinned fixed: Linux's MMF_HAS_PINNED test-before-set (2021): a bit
 * in mm->flags tested first and set once, so after the first call the line
 * stays shared. Refcount atomics per page, as naive. Context: the walk's.
 */
#include "mm/pin/pin.h"

/*
 * At most one write per CPU racing past the test, then none: per target
 * (CPU) per mm. Ref atomics per page, as naive.
 */
const struct pin_flag_ops pin_flag_ops_fixed = {
	.d = { .name = "fixed", .desc = "tests a bit in mm->flags and sets it once",
	       .source = "Linux's MMF_HAS_PINNED test-before-set (2021)", .unit = "mm",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PIN_FLAG_WRITES, 1, 1, .per_target = true,
						   .at_most = true),
					   PROMISE(PCPU_PIN_REF_ATOMICS, 1, 1)) },
	.note_pinned = note_pinned_fixed,
	.pin_large = pin_large_per_page,
};
DESIGN_REGISTER(pin_flag_designs, pin_flag_ops_fixed, 10);
