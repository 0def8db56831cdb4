/*
 * Read-throughput loss of busy readers (see bench/read_loss.h). The
 * baseline rate is kept as cycles per read in thousandths; ratios of two
 * large sums are taken after shifting both down until mul_div_u64() cannot
 * overflow, so sums over hours of runs and hundreds of readers still work.
 */
#include "bench/read_loss.h"
#include "lib/math.h"

/* a * b / c for any a <= c-ish magnitudes: a and c lose low bits together if needed. */
static u64 ratio_mul(u64 a, u64 b, u64 c)
{
	while (c > 1 && c - 1 > ~0ull / b) {
		a >>= 1;
		c >>= 1;
	}
	return mul_div_u64(a, b, c);
}

void read_window_add(struct read_window *w, u64 reads, u64 cycles)
{
	w->reads += reads;
	w->cycles += cycles;
}

u64 read_cycles_per_kread(const struct read_window *w)
{
	return w->reads ? w->cycles * 1000 / w->reads : 0;
}

u64 read_rate_per_ms(const struct read_window *w, u64 tsc_hz)
{
	if (!w->reads || !w->cycles)
		return 0;
	return ratio_mul(w->reads, tsc_hz / 1000, w->cycles);
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
	pct = (s64)ratio_mul(mag, 100000, timed->cycles);
	return lost < 0 ? -pct : pct;
}

u64 read_stolen_pct_milli(const struct read_window *w)
{
	u64 all = w->cycles + w->stolen;

	return all ? ratio_mul(w->stolen, 100000, all) : 0;
}

struct read_window read_window_whole(const struct read_window *w)
{
	return (struct read_window){ w->reads, w->cycles + w->stolen, 0 };
}
