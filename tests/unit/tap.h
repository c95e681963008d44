/* tap.h - a tiny TAP producer for the C unit tests */
#ifndef NODEAUDIT_TAP_H
#define NODEAUDIT_TAP_H
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do { \
	tap_n++; \
	if (cond) printf("ok %d - ", tap_n); \
	else { printf("not ok %d - ", tap_n); tap_failed++; \
	       fprintf(stderr, "# failed at %s:%d\n", __FILE__, __LINE__); } \
	printf(__VA_ARGS__); printf("\n"); } while (0)
#define is_int(a, b, ...) do { long long _a = (long long)(a), _b = (long long)(b); \
	ok(_a == _b, __VA_ARGS__); if (_a != _b) fprintf(stderr, "#   got %lld, expected %lld\n", _a, _b); } while (0)
#define is_str(a, b, ...) do { const char *_a = (a), *_b = (b); int _m = _a && _b && !strcmp(_a, _b); \
	ok(_m, __VA_ARGS__); if (!_m) fprintf(stderr, "#   got '%s', expected '%s'\n", _a ? _a : "(null)", _b ? _b : "(null)"); } while (0)
#define done_testing() (printf("1..%d\n", tap_n), tap_failed ? 1 : 0)

#endif
