/* read/libnuma.h - libnuma, loaded by the first bench that needs it */
#ifndef NODEAUDIT_NUMA_LAZY_H
#define NODEAUDIT_NUMA_LAZY_H

#include <stddef.h>

/*
 * libnuma runs a constructor in every process that links it: it reads
 * /proc/self/status twice, lists /sys/devices/system/node and reads every
 * node's meminfo, files the probes read too.  Only bench uses libnuma, so
 * it is loaded (dlopen) the first time bench asks, never by probe, check,
 * plan or report.  Each function returns what libnuma's does; without the
 * library numa_lazy_available() is -1 (as numa_available() is without
 * NUMA support) and the others fail (NULL, -1) with errno ENOSYS.
 */
int numa_lazy_available(void);
void *numa_lazy_alloc_onnode(size_t size, int node);
void numa_lazy_free(void *mem, size_t size);
long numa_lazy_move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status,
			  int flags);
/* Why the library could not be loaded ("" when it was). */
const char *numa_lazy_error(void);

#endif
