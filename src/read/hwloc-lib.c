/* read/hwloc-lib.c - libhwloc, loaded the first time a command asks hwloc itself (read/hwloc-lib.h) */
#include "config.h"
#include "read/hwloc-lib.h"
#include "read/lazylib.h"
#include "lib/util.h"

#include <stdio.h>

struct hwloc_api HW;
static struct lazylib libhwloc = { HWLOC_SONAME, 0, "" };
static char api_why[128];

int hwloc_lib_load(const char **why)
{
	const struct lazy_sym syms[] = {
		{ "hwloc_get_api_version", (void **)&HW.get_api_version },
		{ "hwloc_topology_init", (void **)&HW.topology_init },
		{ "hwloc_topology_load", (void **)&HW.topology_load },
		{ "hwloc_topology_destroy", (void **)&HW.topology_destroy },
		{ "hwloc_topology_set_flags", (void **)&HW.topology_set_flags },
		{ "hwloc_topology_set_type_filter", (void **)&HW.topology_set_type_filter },
		{ "hwloc_topology_set_io_types_filter", (void **)&HW.topology_set_io_types_filter },
		{ "hwloc_topology_set_icache_types_filter", (void **)&HW.topology_set_icache_types_filter },
		{ "hwloc_topology_set_xmlbuffer", (void **)&HW.topology_set_xmlbuffer },
		{ "hwloc_topology_export_xmlbuffer", (void **)&HW.topology_export_xmlbuffer },
		{ "hwloc_topology_get_allowed_cpuset", (void **)&HW.topology_get_allowed_cpuset },
		{ "hwloc_get_cpubind", (void **)&HW.get_cpubind },
		{ "hwloc_get_type_depth", (void **)&HW.get_type_depth },
		{ "hwloc_get_obj_by_depth", (void **)&HW.get_obj_by_depth },
		{ "hwloc_get_nbobjs_by_depth", (void **)&HW.get_nbobjs_by_depth },
		{ "hwloc_cpukinds_get_nr", (void **)&HW.cpukinds_get_nr },
		{ "hwloc_cpukinds_get_info", (void **)&HW.cpukinds_get_info },
		{ "hwloc_bitmap_alloc", (void **)&HW.bitmap_alloc },
		{ "hwloc_bitmap_free", (void **)&HW.bitmap_free },
		{ "hwloc_bitmap_set", (void **)&HW.bitmap_set },
		{ "hwloc_bitmap_next", (void **)&HW.bitmap_next },
		{ "hwloc_bitmap_iszero", (void **)&HW.bitmap_iszero },
		{ "hwloc_bitmap_isincluded", (void **)&HW.bitmap_isincluded },
	};
	static int checked;
	if (lazylib_load(&libhwloc, syms, ARRAY_SIZE(syms)) < 0) {
		*why = libhwloc.err;
		return -1;
	}
	if (!checked) {
		/* hwloc's own rule: the same major API as the headers. */
		unsigned v = HW.get_api_version();
		checked = 1;
		if (v >> 16 != HWLOC_API_VERSION >> 16)
			snprintf(api_why, sizeof(api_why), "%s is hwloc API %u.%u, nodeaudit was built for %u.%u",
				 HWLOC_SONAME, v >> 16, v >> 8 & 0xff, HWLOC_API_VERSION >> 16,
				 HWLOC_API_VERSION >> 8 & 0xff);
	}
	if (api_why[0]) {
		*why = api_why;
		return -1;
	}
	return 0;
}

/* hwloc_get_next_obj_by_depth() */
static hwloc_obj_t next_by_depth(hwloc_topology_t t, int depth, hwloc_obj_t prev)
{
	if (!prev)
		return HW.get_obj_by_depth(t, depth, 0);
	return prev->depth == depth ? prev->next_cousin : NULL;
}

hwloc_obj_t hwl_next_obj_by_type(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_obj_t prev)
{
	int depth = HW.get_type_depth(t, type);
	if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE)
		return NULL;
	return next_by_depth(t, depth, prev);
}

int hwl_nbobjs_by_type(hwloc_topology_t t, hwloc_obj_type_t type)
{
	int depth = HW.get_type_depth(t, type);
	if (depth == HWLOC_TYPE_DEPTH_UNKNOWN)
		return 0;
	if (depth == HWLOC_TYPE_DEPTH_MULTIPLE)
		return -1;
	return (int)HW.get_nbobjs_by_depth(t, depth);
}

hwloc_obj_t hwl_next_obj_inside_cpuset_by_type(hwloc_topology_t t, hwloc_const_cpuset_t set,
					       hwloc_obj_type_t type, hwloc_obj_t prev)
{
	int depth = HW.get_type_depth(t, type);
	hwloc_obj_t next;
	if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE)
		return NULL;
	next = next_by_depth(t, depth, prev);
	while (next && (HW.bitmap_iszero(next->cpuset) || !HW.bitmap_isincluded(next->cpuset, set)))
		next = next->next_cousin;
	return next;
}

void hwl_allowed_cpus(hwloc_topology_t t, bitmap_t out)
{
	hwloc_bitmap_t h = HW.bitmap_alloc();
	if (h && HW.get_cpubind(t, h, HWLOC_CPUBIND_PROCESS) == 0)
		bitmap_from_hwloc(out, h);
	else
		bitmap_from_hwloc(out, HW.topology_get_allowed_cpuset(t));
	HW.bitmap_free(h);
}

void bitmap_from_hwloc(bitmap_t dst, hwloc_const_bitmap_t src)
{
	int i;
	bitmap_zero(dst);
	for (i = HW.bitmap_next(src, -1); i >= 0; i = HW.bitmap_next(src, i))
		bitmap_set(dst, (unsigned)i);
}

hwloc_bitmap_t bitmap_to_hwloc(const_bitmap_t src)
{
	hwloc_bitmap_t h = HW.bitmap_alloc();
	int i;
	if (!h)
		die("out of memory");
	bitmap_foreach_begin(i, src)
		HW.bitmap_set(h, (unsigned)i);
	bitmap_foreach_end();
	return h;
}
