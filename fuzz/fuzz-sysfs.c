/* fuzz-sysfs.c - the text parsers for what the kernel prints (CPU lists
 * and masks are in fuzz-cpulist.c): the kernel command line and memparse,
 * node meminfo and distance lines, /proc/cpuinfo blocks, PCIe link speeds,
 * DIMM locators. */
#include "config.h"
#include "probe/probe.h"
#include "probe/cmdline.h"
#include "probe/memory.h"
#include "read/libpci.h"
#include "probe/pci.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *copy;
	struct cmdline cl;
	struct mem_loc loc;
	unsigned long long mem;
	uint64_t bytes;
	long *dist = NULL;
	size_t n = 0;
	double gts;
	cJSON *j;
	int present;
	memcpy(s, data, size);
	s[size] = '\0';

	memset(&cl, 0, sizeof(cl));
	cmdline_parse(s, &cl);
	j = cmdline_params_json(&cl);
	cJSON_Delete(j);
	(void)cmdline_get(&cl, "isolcpus", &present);
	cmdline_free(&cl);
	(void)cmdline_memparse(s, &mem);

	(void)numa_parse_memtotal(s, &bytes);
	if (numa_parse_distances(s, &dist, &n) == 0 && n && !dist)
		abort();
	free(dist);

	(void)cpuinfo_parse_count(s);

	copy = xstrdup(s);
	if (pci_parse_speed(copy, &gts) == 0 && (gts < 0 || gts > 1024))
		abort();
	free(copy);

	{
		/* Locator and bank: the input split at its first newline. */
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		(void)mem_parse_locator(s, nl ? nl + 1 : NULL, &loc);
	}
	free(s);
	return 0;
}
