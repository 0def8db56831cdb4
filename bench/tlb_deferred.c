/*
 * A completes_later design's settle, timed in two parts (see
 * bench/tlb_deferred.h). The wait comes first, so the settle after it
 * finds every target drained and does only the release.
 */
#include "bench/tlb_deferred.h"
#include "bench/bench_ctx.h"
#include "kernel/json.h"
#include "lib/math.h"
#include "lib/string.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

void tlb_deferred_reset(struct tlb_deferred *d)
{
	memset(d, 0, sizeof(*d));
}

int tlb_deferred_settle(struct tlb_deferred *d, const struct bench_ctx *c, struct mm *mm)
{
	const struct tlb_ops *ops = tlb_ops_of(c->design);
	u64 t0 = arch_tsc_read(), t1;
	int err = tlb_settle_wait(ops), e;

	t1 = arch_tsc_read();
	e = tlb_settle(ops, mm);
	if (c->design->completes_later && c->runs_done > c->warmup) {
		d->release[c->variant] += arch_tsc_read() - t1;
		d->wait[c->variant] += t1 - t0;
		d->runs[c->variant]++;
	}
	return err ? err : e;
}

void tlb_deferred_report(const struct tlb_deferred *d, const struct bench_ctx *c,
			 struct json *j, u64 units)
{
	u64 per = MAX(d->runs[c->variant] * units, 1ull);

	if (!c->design->completes_later)
		return;
	json_bool(j, "deferred", true);
	json_fixed(j, "deferred_cost", (s64)mul_div_u64(d->release[c->variant], 1000, per), 3);
	json_str(j, "deferred_what", "the release after each timed run, per page: the frames and "
				     "tables the call kept, given back once every CPU drained");
	json_fixed(j, "deferred_wait", (s64)mul_div_u64(d->wait[c->variant], 1000, per), 3);
	json_str(j, "deferred_wait_what",
		 "the wait before that release, per page: until every CPU drained at its tick "
		 "(no work, only when it happens)");
}
