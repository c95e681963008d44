/* read/lazylib.c - a shared library loaded by name (read/lazylib.h) */
#include "config.h"
#include "read/lazylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int lazylib_load(struct lazylib *l, const struct lazy_sym *syms, size_t n)
{
	void *h;
	const char *e;
	size_t i;
	if (l->state)
		return l->state > 0 ? 0 : -1;
	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		/* glibc's words for a name that no directory of the search
		 * holds; anything else is a library that is there and fails. */
		if (!e || strstr(e, "No such file or directory")) {
			l->state = LAZYLIB_MISSING;
			snprintf(l->err, sizeof(l->err), "%s is not installed", l->soname);
		} else {
			l->state = LAZYLIB_BROKEN;
			snprintf(l->err, sizeof(l->err), "%s is installed but does not load: %s", l->soname, e);
		}
		return -1;
	}
	for (i = 0; i < n; i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			l->state = LAZYLIB_BROKEN;
			snprintf(l->err, sizeof(l->err), "%s has no %s, which nodeaudit calls", l->soname,
				 syms[i].name);
			/* The handle stays open: a library is never unloaded. */
			return -1;
		}
	}
	l->state = LAZYLIB_LOADED;
	return 0;
}
