/* read/libnuma.c - libnuma, loaded by the first bench that needs it (see read/libnuma.h) */
#include "config.h"
#include "read/libnuma.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static struct {
	int tried;
	int (*available)(void);
	void *(*alloc_onnode)(size_t, int);
	void (*free)(void *, size_t);
	long (*move_pages)(int, unsigned long, void **, const int *, int *, int);
	char err[256];
} lib;

static int load(void)
{
	void *h;
	const char *e;
	if (lib.tried)
		return lib.available ? 0 : -1;
	lib.tried = 1;
	h = dlopen(NUMA_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		snprintf(lib.err, sizeof(lib.err), "%s", e ? e : "cannot load " NUMA_SONAME);
		return -1;
	}
	/* POSIX: a function pointer from dlsym() goes through a cast. */
	*(void **)&lib.alloc_onnode = dlsym(h, "numa_alloc_onnode");
	*(void **)&lib.free = dlsym(h, "numa_free");
	*(void **)&lib.move_pages = dlsym(h, "numa_move_pages");
	*(void **)&lib.available = dlsym(h, "numa_available");
	if (!lib.available || !lib.alloc_onnode || !lib.free || !lib.move_pages) {
		snprintf(lib.err, sizeof(lib.err), "%s lacks a function nodeaudit uses", NUMA_SONAME);
		lib.available = NULL;
		return -1;
	}
	return 0;
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
	return lib.err;
}
