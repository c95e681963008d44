/* test-lazylib.c - read/lazylib.c: a library that is not there is "not
 * installed", one that is there but lacks a symbol is "broken", and a slot
 * is bound with the type of the function its header declares. */
#include "config.h"
#include "read/lazylib.h"
#include "tap.h"

#include <math.h>

LAZYLIB_SYM(cos);

int main(void)
{
	struct lazylib none = { "libnodeaudit-no-such-library.so.0", 0, "" };
	struct lazylib m = { "libm.so.6", 0, "" }, m2 = { "libm.so.6", 0, "" };
	const struct lazy_sym bad[] = { { "nodeaudit_no_such_symbol", (void **)&sym_cos } };
	const struct lazy_sym good[] = { LAZYLIB_ARG(cos) };

	is_int(lazylib_load(&none, NULL, 0), -1, "a soname no directory holds: not loaded");
	is_int(none.state, LAZYLIB_MISSING, "... and it is not installed");
	is_str(none.err, "libnodeaudit-no-such-library.so.0 is not installed", "... and says so");
	is_int(lazylib_load(&none, NULL, 0), -1, "a second call gives the first answer");

	is_int(lazylib_load(&m, bad, 1), -1, "a symbol the library lacks: not loaded");
	is_int(m.state, LAZYLIB_BROKEN, "... and it is broken");
	is_str(m.err, "libm.so.6 has no nodeaudit_no_such_symbol, which nodeaudit calls", "... naming the symbol");

	is_int(lazylib_load(&m2, good, 1), 0, "every symbol there: loaded");
	is_int(m2.state, LAZYLIB_LOADED, "... and its state says so");
	ok(sym_cos && sym_cos(0.0) == 1.0, "the slot calls the library's function, of its header's type");
	return done_testing();
}
