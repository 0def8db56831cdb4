/*
 * cpumask_t: a bitmap with one bit per possible CPU (MAX_CPUS, at least
 * 1024). Plain set/clear are not atomic and suit masks owned by one CPU
 * (a mask being built before a cross-call); the _atomic forms suit shared
 * masks that CPUs update concurrently (mm_cpumask). Readers load each word
 * once with a relaxed atomic load, so walking a shared mask while others
 * update it is safe and sees every bit either before or after its change.
 */
#ifndef KERNEL_CPUMASK_H
#define KERNEL_CPUMASK_H

#include "compiler.h"
#include "lib/atomic.h"
#include "types.h"

#ifndef MAX_CPUS
#define MAX_CPUS 1024
#endif

BUILD_ASSERT(MAX_CPUS >= 1024);

#define CPUMASK_WORD_BITS 64
#define CPUMASK_WORDS ((MAX_CPUS + CPUMASK_WORD_BITS - 1) / CPUMASK_WORD_BITS)

typedef struct {
	u64 bits[CPUMASK_WORDS];
} cpumask_t;

#define CPUMASK_BIT(cpu) (1ull << ((cpu) % CPUMASK_WORD_BITS))
#define CPUMASK_WORD(mask, cpu) ((mask)->bits[(cpu) / CPUMASK_WORD_BITS])

/* Visits every CPU set in @mask in increasing order; @cpu is an unsigned. */
#define for_each_cpu(cpu, mask)                                                                    \
	for ((cpu) = cpumask_first(mask); (cpu) < MAX_CPUS; (cpu) = cpumask_next((cpu), (mask)))

static inline u64 cpumask_load_word(const cpumask_t *m, unsigned i)
{
	return atomic_load_relaxed(&m->bits[i]);
}

/*
 * A word of a live mask, read with acquire: when it shows a CPU's bit
 * cleared (cpumask_clear_cpu_atomic(), fully ordered), whatever that CPU
 * did before the clear happens before what the reader does next. A CPU
 * leaving an address space clears its bit in mm_cpumask: a flush that no
 * longer sends it an IPI, or a destroy that frees the mm, must still come
 * after that CPU's last accesses through it.
 */
static inline u64 cpumask_load_word_acquire(const cpumask_t *m, unsigned i)
{
	return atomic_load_acquire(&m->bits[i]);
}

/* Plain forms: for a mask no other CPU writes meanwhile. */
static inline void cpumask_set_cpu(unsigned cpu, cpumask_t *m)
{
	CPUMASK_WORD(m, cpu) |= CPUMASK_BIT(cpu);
}

static inline void cpumask_clear_cpu(unsigned cpu, cpumask_t *m)
{
	CPUMASK_WORD(m, cpu) &= ~CPUMASK_BIT(cpu);
}

static inline bool cpumask_test_cpu(unsigned cpu, const cpumask_t *m)
{
	return cpumask_load_word(m, cpu / CPUMASK_WORD_BITS) & CPUMASK_BIT(cpu);
}

/* Atomic forms, fully ordered (lib/atomic.h). The test_and_ ones return the old bit. */
static inline void cpumask_set_cpu_atomic(unsigned cpu, cpumask_t *m)
{
	atomic_fetch_or(&CPUMASK_WORD(m, cpu), CPUMASK_BIT(cpu));
}

static inline void cpumask_clear_cpu_atomic(unsigned cpu, cpumask_t *m)
{
	atomic_fetch_and(&CPUMASK_WORD(m, cpu), ~CPUMASK_BIT(cpu));
}

static inline bool cpumask_test_and_set_cpu_atomic(unsigned cpu, cpumask_t *m)
{
	return atomic_fetch_or(&CPUMASK_WORD(m, cpu), CPUMASK_BIT(cpu)) & CPUMASK_BIT(cpu);
}

static inline bool cpumask_test_and_clear_cpu_atomic(unsigned cpu, cpumask_t *m)
{
	return atomic_fetch_and(&CPUMASK_WORD(m, cpu), ~CPUMASK_BIT(cpu)) & CPUMASK_BIT(cpu);
}

/* Acquire load of one bit: pairs with the fully ordered atomic set/clear. */
static inline bool cpumask_test_cpu_acquire(unsigned cpu, const cpumask_t *m)
{
	return atomic_load_acquire(&CPUMASK_WORD(m, cpu)) & CPUMASK_BIT(cpu);
}

/* Lowest CPU in @m at or after @start, or MAX_CPUS when there is none. */
static inline unsigned cpumask_find_from(const cpumask_t *m, unsigned start)
{
	unsigned i = start / CPUMASK_WORD_BITS;
	u64 w;

	if (start >= MAX_CPUS)
		return MAX_CPUS;
	w = cpumask_load_word(m, i) & (~0ull << (start % CPUMASK_WORD_BITS));
	while (!w) {
		if (++i >= CPUMASK_WORDS)
			return MAX_CPUS;
		w = cpumask_load_word(m, i);
	}
	start = i * CPUMASK_WORD_BITS + (unsigned)__builtin_ctzll(w);
	return start < MAX_CPUS ? start : MAX_CPUS;
}

/* Lowest CPU in @m, or MAX_CPUS when @m is empty. */
static inline unsigned cpumask_first(const cpumask_t *m)
{
	return cpumask_find_from(m, 0);
}

/* Lowest CPU in @m above @cpu, or MAX_CPUS when there is none. */
static inline unsigned cpumask_next(unsigned cpu, const cpumask_t *m)
{
	return cpumask_find_from(m, cpu + 1);
}

/* Bits set in @w; open-coded so the kernel needs no libgcc popcount helper. */
static inline unsigned cpumask_word_weight(u64 w)
{
	w = w - ((w >> 1) & 0x5555555555555555ull);
	w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((w * 0x0101010101010101ull) >> 56);
}

/* Number of CPUs in @m. */
static inline unsigned cpumask_weight(const cpumask_t *m)
{
	unsigned i, n = 0;

	for (i = 0; i < CPUMASK_WORDS; i++)
		n += cpumask_word_weight(cpumask_load_word(m, i));
	return n;
}

/* Whole-mask operations are plain too: the destination must be private. */
static inline void cpumask_clear(cpumask_t *m)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = 0;
}

/* Sets CPUs 0..@n-1 (@n <= MAX_CPUS) and clears the rest. */
static inline void cpumask_set_first_n(cpumask_t *m, unsigned n)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++) {
		unsigned lo = i * CPUMASK_WORD_BITS;

		if (n >= lo + CPUMASK_WORD_BITS)
			m->bits[i] = ~0ull;
		else
			m->bits[i] = n > lo ? (1ull << (n - lo)) - 1 : 0;
	}
}

static inline void cpumask_copy(cpumask_t *dst, const cpumask_t *src)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = cpumask_load_word(src, i);
}

/* dst = a & b, dst = a | b, dst = a & ~b; @dst may alias either source. */
static inline void cpumask_and(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = cpumask_load_word(a, i) & cpumask_load_word(b, i);
}

static inline void cpumask_or(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = cpumask_load_word(a, i) | cpumask_load_word(b, i);
}

static inline void cpumask_andnot(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = cpumask_load_word(a, i) & ~cpumask_load_word(b, i);
}

static inline bool cpumask_equal(const cpumask_t *a, const cpumask_t *b)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		if (cpumask_load_word(a, i) != cpumask_load_word(b, i))
			return false;
	return true;
}

/* With acquire (cpumask_load_word_acquire()): a mask found empty may be freed next. */
static inline bool cpumask_empty(const cpumask_t *m)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		if (cpumask_load_word_acquire(m, i))
			return false;
	return true;
}

/* cpumask_copy() of a live @src with cpumask_load_word_acquire(); @dst private. */
static inline void cpumask_copy_acquire(cpumask_t *dst, const cpumask_t *src)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = cpumask_load_word_acquire(src, i);
}

/* True when @a and @b have a CPU in common. */
static inline bool cpumask_intersects(const cpumask_t *a, const cpumask_t *b)
{
	unsigned i;

	for (i = 0; i < CPUMASK_WORDS; i++)
		if (cpumask_load_word(a, i) & cpumask_load_word(b, i))
			return true;
	return false;
}

#endif
