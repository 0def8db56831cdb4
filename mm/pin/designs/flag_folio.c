/*
 * folio: Joao Martins, "mm/gup: grab head page refcount once for group of
 * subpages" (2021): pinning a run of pages that lie in one
 * compound page adds the whole run to its head in one atomic, instead of
 * one per subpage. Promises one PCPU_PIN_REF_ATOMICS per run of pages of
 * one folio in a call (an order-0 page being a run of its own), and the
 * has_pinned writes of fixed, whose test-before-set it keeps.
 */
#include "mm/pin/pin.h"

static int pin_large_per_folio(struct page *head, unsigned nr)
{
	return pin_ref(head, nr);
}

/* fixed's flag (at most once per CPU per mm); ref atomics one per folio run. */
const struct pin_flag_ops pin_flag_ops_folio = {
	.d = { .name = "folio", .desc = "fixed, plus one refcount atomic per folio run, not per page",
	       .source = "Joao Martins, \"mm/gup: grab head page refcount once for group of "
			 "subpages\" (2021): 16 GB hugetlb pin 87.6k -> 12.8k us",
	       .unit = "folio", .counts_folios = true,
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PIN_FLAG_WRITES, 1, 1, .per_target = true,
						   .at_most = true),
					   PROMISE(PCPU_PIN_REF_ATOMICS, 1, 1)) },
	.note_pinned = note_pinned_fixed,
	.pin_large = pin_large_per_folio,
};
DESIGN_REGISTER(pin_flag_designs, pin_flag_ops_folio, 20);
