/*
 * Integer arithmetic helpers for a kernel without floating point or
 * libgcc's 128-bit division.
 */
#ifndef MMLAB_LIB_MATH_H
#define MMLAB_LIB_MATH_H

#include "types.h"

/*
 * a * b / c without overflowing the intermediate product, provided
 * (c - 1) * b fits in 64 bits (true for time conversions: b <= 1e9, c < 18e9).
 */
static inline u64 mul_div_u64(u64 a, u64 b, u64 c)
{
	return (a / c) * b + (a % c) * b / c;
}

/* Integer square root: the largest r with r * r <= x. */
static inline u64 isqrt_u64(u64 x)
{
	u64 r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

#endif
