/*
 * Read-throughput loss of busy readers (see bench/read_loss.h). The
 * baseline rate is kept as cycles per read in thousandths; ratios of two
 * large sums are taken after shifting both down until mul_div_u64() cannot
 * overflow, so sums over hours of runs and hundreds of readers still work.
 */
#include "bench/read_loss.h"
#include "compiler.h"
#include "errno.h"
#include "lib/math.h"
#include "lib/stats.h"
#include <arch/layout.h>

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

s64 read_episode_loss_milli(u64 timed, u64 null)
{
	u64 mag = timed > null ? timed - null : null - timed;
	s64 pct;

	if (!timed || !null)
		return 0;
	pct = (s64)ratio_mul(mag, 100000, timed);
	return timed >= null ? pct : -pct;
}

/* Signed values as unsigned ones in the same order, for lib/stats. */
#define SERIES_BIAS (1ull << 62)

int read_series_summary(const s64 *v, unsigned n, u64 *scratch, struct read_series *out)
{
	u64 lo, hi, med;

	if (!n)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		scratch[i] = (u64)v[i] + SERIES_BIAS;
	stats_sort(scratch, n); /* not stats_compute(): its mean would overflow at this bias */
	med = scratch[n / 2];
	if (n % 2 == 0)
		med = scratch[n / 2 - 1] + (scratch[n / 2] - scratch[n / 2 - 1]) / 2;
	stats_median_ci(scratch, n, &lo, &hi);
	*out = (struct read_series){ n, (s64)(med - SERIES_BIAS), (s64)(lo - SERIES_BIAS),
				     (s64)(hi - SERIES_BIAS) };
	return 0;
}

bool read_series_agree(const struct read_series *a, const struct read_series *b)
{
	return a->n && b->n && a->lo <= b->hi && b->lo <= a->hi;
}

bool read_rate_within(u64 a, u64 b, u64 ppm)
{
	u64 hi = MAX(a, b), lo = MIN(a, b);

	return ratio_mul(hi - lo, 1000000, MAX(hi, 1ull)) <= ppm;
}

/* Counts the @n pages from @va into their entries of @count (saturating). */
static void layout_count(u8 *count, vaddr_t va, unsigned n, unsigned entries)
{
	for (unsigned i = 0; i < n; i++) {
		u8 *c = &count[((va >> PAGE_SHIFT) + i) & (entries - 1)];

		*c = (u8)MIN(*c + 1u, 255u);
	}
}

unsigned read_layout_aliases(vaddr_t shared, unsigned ns, vaddr_t priv, unsigned np,
			     unsigned entries)
{
	u8 count[READ_LAYOUT_MAX_ENTRIES] = { 0 };
	unsigned n = 0;

	if (!entries || entries > READ_LAYOUT_MAX_ENTRIES || (entries & (entries - 1)))
		return 0;
	layout_count(count, shared, ns, entries);
	layout_count(count, priv, np, entries);
	for (unsigned e = 0; e < entries; e++)
		n += count[e] > 1 ? count[e] : 0;
	return n;
}

vaddr_t read_layout_colour(vaddr_t shared, unsigned ns, vaddr_t priv, unsigned entries)
{
	u64 want = ((shared >> PAGE_SHIFT) + ns) & (entries - 1);
	u64 have = (priv >> PAGE_SHIFT) & (entries - 1);

	return priv + (((want - have) & (entries - 1)) << PAGE_SHIFT);
}
