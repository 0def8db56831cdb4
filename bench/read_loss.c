/*
 * Read-throughput loss of busy readers (see bench/read_loss.h). Rates are
 * kept as cycles per read in thousandths, so no product overflows for any
 * window a benchmark can produce (up to ~1e12 reads or cycles).
 */
#include "bench/read_loss.h"
#include "lib/math.h"

void read_window_add(struct read_window *w, u64 reads, u64 cycles)
{
	w->reads += reads;
	w->cycles += cycles;
}

u64 read_rate_per_ms(const struct read_window *w, u64 tsc_hz)
{
	if (!w->reads || !w->cycles)
		return 0;
	return mul_div_u64(w->reads, tsc_hz / 1000, w->cycles);
}

s64 read_lost_cycles(const struct read_window *base, const struct read_window *timed)
{
	u64 milli_cycles_per_read, expected;

	if (!base->reads || !base->cycles || !timed->cycles)
		return 0;
	milli_cycles_per_read = mul_div_u64(base->cycles, 1000, base->reads);
	expected = mul_div_u64(timed->reads, milli_cycles_per_read, 1000);
	return (s64)timed->cycles - (s64)expected;
}

s64 read_loss_pct_milli(const struct read_window *base, const struct read_window *timed)
{
	s64 lost = read_lost_cycles(base, timed);
	u64 mag = (u64)(lost < 0 ? -lost : lost);
	s64 pct;

	if (!timed->cycles)
		return 0;
	pct = (s64)mul_div_u64(mag, 100000, timed->cycles);
	return lost < 0 ? -pct : pct;
}
