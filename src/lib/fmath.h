/* lib/fmath.h - the few rounding functions nodeaudit needs, without libm */
#ifndef NODEAUDIT_LIB_FMATH_H
#define NODEAUDIT_LIB_FMATH_H

#include <math.h>
#include <stdint.h>

/*
 * floor(), ceil(), round(), llround(), fmin(), fmax() and ldexp(1, k)
 * were all nodeaudit called of libm, and linking libm costs every run
 * about 0.2 ms on the reference VM (its mapping, relocation and IFUNC
 * resolvers, before main()).  These are exact: a double of magnitude 2^52 or more (and an
 * infinity, a NaN) is already an integer and comes back as it is; below
 * that, its truncation to int64_t is exact.  The sign of a zero result
 * follows the argument, as C's functions give it.  tests/unit/test-fmath.c
 * compares each with libm's over edge cases and a million random values.
 * fabs(), copysign(), isnan(), isinf() and isfinite() are the compiler's
 * own (no call).
 */
#define NA_INTEGRAL 4503599627370496.0   /* 2^52 */

static inline double na_floor(double x)
{
	double t;
	if (!(fabs(x) < NA_INTEGRAL))
		return x;
	t = (double)(int64_t)x;
	if (t > x)
		t -= 1.0;
	return t == 0 ? copysign(0.0, x) : t;
}

static inline double na_ceil(double x)
{
	return -na_floor(-x);
}

/* Half-way cases away from zero, as round(). */
static inline double na_round(double x)
{
	double t, d;
	if (!(fabs(x) < NA_INTEGRAL))
		return x;
	t = (double)(int64_t)x;
	d = x - t;   /* exact */
	if (d >= 0.5)
		t += 1.0;
	else if (d <= -0.5)
		t -= 1.0;
	return t == 0 ? copysign(0.0, x) : t;
}

/* As llround() for a result that fits long long (what it is used for). */
static inline long long na_llround(double x)
{
	return (long long)na_round(x);
}

/* fmin() and fmax(): a NaN argument gives the other one. */
static inline double na_fmin(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
}

static inline double na_fmax(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

/* 2^k for -1022 <= k <= 1023, exactly (ldexp(1, k)); 0 below, +inf above. */
static inline double na_pow2(int k)
{
	union { uint64_t u; double d; } v;
	if (k < -1022)
		return 0.0;
	if (k > 1023)
		return HUGE_VAL;
	v.u = (uint64_t)(k + 1023) << 52;
	return v.d;
}

#endif
