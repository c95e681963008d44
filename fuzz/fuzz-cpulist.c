/* fuzz-cpulist.c - the sysfs value parsers: CPU lists, masks, numbers */
#include "config.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	uint64_t u;
	int64_t i;
	double d;
	memcpy(s, data, size);
	s[size] = '\0';
	if (parse_cpulist(s, set) == 0) {
		/* Whatever parses must stay inside the stated bound. */
		if (hwloc_bitmap_last(set) >= SR_MAX_CPUS)
			abort();
		free(cpulist_dup(set));
	}
	if (parse_cpumask(s, set) == 0 && hwloc_bitmap_last(set) >= SR_MAX_CPUS)
		abort();
	(void)parse_u64(s, &u);
	(void)parse_s64(s, &i);
	(void)parse_double(s, &d);
	strsquash(s);
	hwloc_bitmap_free(set);
	free(s);
	return 0;
}
