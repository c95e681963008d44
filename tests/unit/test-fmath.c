/* test-fmath.c - lib/fmath.h against libm (this program links it): the
 * same value, bit for bit (the sign of a zero too), on edge cases and on a
 * million random doubles of every magnitude */
#include "config.h"
#include "lib/fmath.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A signalling NaN (its quiet bit clear): glibc's fmin() and fmax() give a
 * NaN for one, as IEEE 754-2008's minNum does; nodeaudit's operands are
 * timings and never one. */
static int snan(double a)
{
	uint64_t u;
	memcpy(&u, &a, sizeof(u));
	return isnan(a) && !(u >> 51 & 1);
}

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

/* A random double: random bits (every exponent, NaNs and infinities among
 * them), or a small value near a half-way point. */
static double rnd(unsigned k)
{
	uint64_t u = (uint64_t)rand() << 40 ^ (uint64_t)rand() << 20 ^ (uint64_t)rand();
	double d;
	if (k % 3 == 0) {
		memcpy(&d, &u, sizeof(d));
		return d;
	}
	d = (double)(int64_t)(u % 2000001) / 2 - 500000;   /* n/2: half-way cases */
	return k % 3 == 1 ? d : d + ((double)(u >> 32 & 0xff) - 128) * 1e-17 * (fabs(d) + 1);
}

int main(void)
{
	static const double edge[] = { 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
				       -0.49999999999999994, 1e-300, -1e-300, 4503599627370495.5,
				       -4503599627370495.5, 4503599627370496.0, 9007199254740993.0,
				       1e300, -1e300, HUGE_VAL, -HUGE_VAL, NAN, 0.9999999999999999,
				       -0.9999999999999999, 3.0, -3.0 };
	unsigned i, bad_floor = 0, bad_ceil = 0, bad_round = 0, bad_ll = 0, bad_min = 0, bad_max = 0;
	int k, bad_pow2 = 0;
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		double x = edge[i];
		ok(same(na_floor(x), floor(x)) && same(na_ceil(x), ceil(x)) && same(na_round(x), round(x)),
		   "floor, ceil, round of %.17g as libm's", x);
	}
	srand(24);
	for (i = 0; i < 1000000; i++) {
		double x = rnd(i), y = rnd(i + 1);
		bad_floor += !same(na_floor(x), floor(x));
		bad_ceil += !same(na_ceil(x), ceil(x));
		bad_round += !same(na_round(x), round(x));
		if (fabs(x) < 9e18)
			bad_ll += na_llround(x) != llround(x);
		if (snan(x) || snan(y) || (x == 0 && y == 0))   /* +0 and -0: either */
			continue;
		bad_min += !same(na_fmin(x, y), fmin(x, y));
		bad_max += !same(na_fmax(x, y), fmax(x, y));
	}
	is_int(bad_floor, 0, "floor of a million doubles as libm's");
	is_int(bad_ceil, 0, "ceil as libm's");
	is_int(bad_round, 0, "round as libm's (half-way cases away from zero)");
	is_int(bad_ll, 0, "llround as libm's where it fits");
	is_int(bad_min, 0, "fmin as libm's (a quiet NaN gives the other)");
	is_int(bad_max, 0, "fmax as libm's");
	ok(same(na_fmin(NAN, 1), 1) && same(na_fmax(2, NAN), 2), "a NaN argument gives the other");
	for (k = -1022; k <= 1023; k++)
		bad_pow2 += !same(na_pow2(k), ldexp(1, k));
	is_int(bad_pow2, 0, "2^k for every normal k as ldexp(1, k)");
	ok(na_pow2(-1100) == 0 && isinf(na_pow2(1024)), "2^k beyond the normal range: 0 and inf");
	return done_testing();
}
