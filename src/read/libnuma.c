/* read/libnuma.c - libnuma, loaded by the first bench that needs it (see read/libnuma.h) */
#include "config.h"
#include "read/libnuma.h"
#include "read/lazylib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct {
	int (*available)(void);
	void *(*alloc_onnode)(size_t, int);
	void (*free)(void *, size_t);
	long (*move_pages)(int, unsigned long, void **, const int *, int *, int);
} lib;
static struct lazylib numa = { NUMA_SONAME, 0, "" };

static int load(void)
{
	const struct lazy_sym syms[] = {
		{ "numa_available", (void **)&lib.available },
		{ "numa_alloc_onnode", (void **)&lib.alloc_onnode },
		{ "numa_free", (void **)&lib.free },
		{ "numa_move_pages", (void **)&lib.move_pages },
	};
	return lazylib_load(&numa, syms, sizeof(syms) / sizeof(syms[0]));
}

int numa_lazy_available(void)
{
	return load() < 0 ? -1 : lib.available();
}

void *numa_lazy_alloc_onnode(size_t size, int node)
{
	if (load() < 0) {
		errno = ENOSYS;
		return NULL;
	}
	return lib.alloc_onnode(size, node);
}

void numa_lazy_free(void *mem, size_t size)
{
	if (load() == 0)
		lib.free(mem, size);
}

long numa_lazy_move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status,
			  int flags)
{
	if (load() < 0) {
		errno = ENOSYS;
		return -1;
	}
	return lib.move_pages(pid, count, pages, nodes, status, flags);
}

const char *numa_lazy_error(void)
{
	load();
	return numa.state < 0 ? numa.err : "";
}
