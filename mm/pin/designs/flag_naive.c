/*
 * has_pinned naive: every pin call writes the mm's shared has_pinned flag,
 * so its cache line bounces between the pinning CPUs; a large folio's
 * refcount takes one atomic per 4 KiB page. The baseline of
 * pin_flag_designs[] (order 0). Context: the pin walk's (mm/pin/pin.h).
 */
#include "mm/pin/pin.h"

/* Ref atomics per page: every 4 KiB page pinned adds to a refcount once. */
const struct pin_flag_ops pin_flag_ops_naive = {
	.d = { .name = "naive", .desc = "writes the mm's shared has_pinned flag on every call",
	       .source = "Linux's mm->has_pinned, written per call (the 2021 line bounce)",
	       .unit = "call",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PIN_FLAG_WRITES, 1, 1),
					   PROMISE(PCPU_PIN_REF_ATOMICS, 1, 1)) },
	.note_pinned = note_pinned_naive,
	.pin_large = pin_large_per_page,
};
DESIGN_REGISTER(pin_flag_designs, pin_flag_ops_naive, 0);
