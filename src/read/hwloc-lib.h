/* read/hwloc-lib.h - libhwloc, loaded the first time a command asks hwloc itself */
#ifndef NODEAUDIT_READ_HWLOC_LIB_H
#define NODEAUDIT_READ_HWLOC_LIB_H

#include <hwloc.h>
#include "lib/bitmap.h"

/*
 * Most runs never ask hwloc: the probes read sysfs themselves and ask
 * hwloc only for a second opinion where theirs could differ (a hybrid
 * CPU's kinds, a topology the kernel's files leave open: probe/hwloc-ask.c);
 * bench asks it to place its threads.  So libhwloc (and the libudev and
 * libm it links) is loaded by name when a command first needs it
 * (read/lazylib.h), and every call into it goes through HW.  The CPU sets
 * of the rest of nodeaudit are lib/bitmap.h's; hwloc's own sets (an
 * object's cpuset, a kind's) are converted where they meet ours.
 *
 * hwloc/helper.h's inline helpers call the library by name, so they are
 * not used: hwl_*() below are the ones nodeaudit needs, the same walks.
 */
struct hwloc_api {
	__typeof__(&hwloc_get_api_version) get_api_version;
	__typeof__(&hwloc_topology_init) topology_init;
	__typeof__(&hwloc_topology_load) topology_load;
	__typeof__(&hwloc_topology_destroy) topology_destroy;
	__typeof__(&hwloc_topology_set_flags) topology_set_flags;
	__typeof__(&hwloc_topology_set_type_filter) topology_set_type_filter;
	__typeof__(&hwloc_topology_set_io_types_filter) topology_set_io_types_filter;
	__typeof__(&hwloc_topology_set_icache_types_filter) topology_set_icache_types_filter;
	__typeof__(&hwloc_topology_set_xmlbuffer) topology_set_xmlbuffer;
	__typeof__(&hwloc_topology_export_xmlbuffer) topology_export_xmlbuffer;
	__typeof__(&hwloc_topology_get_allowed_cpuset) topology_get_allowed_cpuset;
	__typeof__(&hwloc_get_cpubind) get_cpubind;
	__typeof__(&hwloc_get_type_depth) get_type_depth;
	__typeof__(&hwloc_get_obj_by_depth) get_obj_by_depth;
	__typeof__(&hwloc_get_nbobjs_by_depth) get_nbobjs_by_depth;
	__typeof__(&hwloc_cpukinds_get_nr) cpukinds_get_nr;
	__typeof__(&hwloc_cpukinds_get_info) cpukinds_get_info;
	__typeof__(&hwloc_bitmap_alloc) bitmap_alloc;
	__typeof__(&hwloc_bitmap_free) bitmap_free;
	__typeof__(&hwloc_bitmap_set) bitmap_set;
	__typeof__(&hwloc_bitmap_next) bitmap_next;
	__typeof__(&hwloc_bitmap_iszero) bitmap_iszero;
	__typeof__(&hwloc_bitmap_isincluded) bitmap_isincluded;
};
extern struct hwloc_api HW;

/* 0 when libhwloc is loaded (the first call loads it) and is of the API
 * nodeaudit was built for; else -1, with why the library cannot be had
 * (one line, kept for later calls) in *why. */
int hwloc_lib_load(const char **why);

/* The objects of type after prev (NULL: the first), as hwloc's
 * hwloc_get_next_obj_by_type(): NULL where the type has no single depth. */
hwloc_obj_t hwl_next_obj_by_type(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_obj_t prev);
/* How many objects of type: 0 where there are none, -1 where several depths. */
int hwl_nbobjs_by_type(hwloc_topology_t t, hwloc_obj_type_t type);
/* The next object of type whose non-empty cpuset lies inside set, as
 * hwloc_get_next_obj_inside_cpuset_by_type(). */
hwloc_obj_t hwl_next_obj_inside_cpuset_by_type(hwloc_topology_t t, hwloc_const_cpuset_t set,
					       hwloc_obj_type_t type, hwloc_obj_t prev);

/* The CPUs this process may run on, as hwloc tells them: its binding,
 * else the topology's allowed CPUs. */
void hwl_allowed_cpus(hwloc_topology_t t, bitmap_t out);

/* hwloc's set as ours, and ours as hwloc's (allocated by HW). */
void bitmap_from_hwloc(bitmap_t dst, hwloc_const_bitmap_t src);
hwloc_bitmap_t bitmap_to_hwloc(const_bitmap_t src);

#endif
