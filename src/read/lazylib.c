/* read/lazylib.c - a shared library loaded the first time a command needs it (read/lazylib.h) */
#include "config.h"
#include "read/lazylib.h"

#include <dlfcn.h>
#include <stdio.h>

int lazylib_load(struct lazylib *l, const struct lazy_sym *syms, size_t n)
{
	void *h;
	const char *e;
	size_t i;
	if (l->state)
		return l->state > 0 ? 0 : -1;
	l->state = -1;
	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		snprintf(l->err, sizeof(l->err), "%s", e ? e : "cannot load the library");
		return -1;
	}
	for (i = 0; i < n; i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			snprintf(l->err, sizeof(l->err), "%s has no %s, which nodeaudit calls", l->soname,
				 syms[i].name);
			/* The handle stays open: a library is never unloaded. */
			return -1;
		}
	}
	l->state = 1;
	return 0;
}
