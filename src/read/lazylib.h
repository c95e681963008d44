/* read/lazylib.h - a shared library loaded the first time a command needs it */
#ifndef NODEAUDIT_LAZYLIB_H
#define NODEAUDIT_LAZYLIB_H

#include <stddef.h>

/*
 * Every shared library a process links is opened, mapped and relocated
 * before main(), whether the command uses it or not: about 0.2 ms and six
 * page faults a library on the reference VM, where a fault costs 14 us.
 * Libraries that most runs never call are loaded here instead, by name,
 * the first time a caller needs them (libnuma: bench; libpci: a PCI dump,
 * or names from a compressed pci.ids; liburing: a sysroot's batches).
 *
 * A lazylib is loaded once: later calls give the first answer.  Each
 * symbol's slot is a function pointer of the type its header declares,
 * passed as (void **)&fn (the cast POSIX prescribes for dlsym()).
 */
struct lazylib {
	const char *soname;   /* e.g. "libpci.so.3" */
	int state;            /* 0 not tried, 1 loaded, -1 not loadable */
	char err[256];        /* why not, when state is -1 */
};

struct lazy_sym {
	const char *name;
	void **slot;
};

/* 0 when soname is loaded and every symbol bound; else -1, with a
 * one-line reason in l->err (the loader's message, or the first missing
 * symbol), and no slot is to be used. */
int lazylib_load(struct lazylib *l, const struct lazy_sym *syms, size_t n);

#endif
