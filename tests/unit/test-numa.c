/* test-numa.c - the NUMA probe's parsers: meminfo and distance rows */
#include "config.h"
#include "probe/probe.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>

static void row(const char *text, int want_r, size_t want_n, long first, long last, const char *name)
{
	long *v = NULL;
	size_t n = 0;
	int r = numa_parse_distances(text, &v, &n);
	is_int(r, want_r, "distances %s: result", name);
	if (want_r == 0) {
		is_int(n, want_n, "distances %s: count", name);
		is_int(n ? v[0] : -1, first, "distances %s: first", name);
		is_int(n ? v[n - 1] : -1, last, "distances %s: last", name);
	} else
		ok(v == NULL && n == 0, "distances %s: nothing returned", name);
	free(v);
}

int main(void)
{
	uint64_t b = 0;

	is_int(numa_parse_memtotal("Node 0 MemTotal:       16316152 kB\nNode 0 MemFree: 1 kB\n", &b), 0, "node meminfo");
	is_int(b, 16316152ull * 1024, "node meminfo: bytes");
	is_int(numa_parse_memtotal("Node 33 MemFree: 5 kB\nNode 33 MemTotal: 0 kB\n", &b), 0, "node meminfo, MemTotal not first");
	is_int(b, 0, "memory-less node: 0 bytes");
	is_int(numa_parse_memtotal("MemTotal:        8052268 kB\nMemFree: 1 kB\n", &b), 0, "/proc/meminfo");
	is_int(b, 8052268ull * 1024, "/proc/meminfo: bytes");
	is_int(numa_parse_memtotal("Node 0 MemTotal: lots kB\n", &b), -EINVAL, "not a number");
	is_int(numa_parse_memtotal("Node 0 MemTotal: 12 MB\n", &b), -EINVAL, "wrong unit");
	is_int(numa_parse_memtotal("Node 0 MemFree: 12 kB\n", &b), -EINVAL, "no MemTotal");
	is_int(numa_parse_memtotal("", &b), -EINVAL, "empty");
	is_int(numa_parse_memtotal("Node 0 MemTotal: 99999999999999999999999 kB\n", &b), -ERANGE, "overflow");
	is_int(numa_parse_memtotal("xMemTotal: 5 kB\n", &b), -EINVAL, "MemTotal inside a word");

	row("10 21\n", 0, 2, 10, 21, "two nodes");
	row("10\n", 0, 1, 10, 10, "one node");
	row("10 12 32 32 20 40 50 60", 0, 8, 10, 60, "no newline");
	row("", -EINVAL, 0, 0, 0, "empty");
	row("\n", -EINVAL, 0, 0, 0, "blank line");
	row("10 x1\n", -EINVAL, 0, 0, 0, "letters");
	row("10 0\n", -EINVAL, 0, 0, 0, "zero distance");
	row("10 -21\n", -EINVAL, 0, 0, 0, "negative");
	row("10 999999\n", -EINVAL, 0, 0, 0, "huge");
	row("10 21\n21 10\n", -EINVAL, 0, 0, 0, "a matrix, not a row");
	row("\n\x15\x00\xff", -EINVAL, 0, 0, 0, "binary");
	return done_testing();
}
