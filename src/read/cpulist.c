/* read/cpulist.c - the kernel's CPU lists and masks, parsed and printed */
#include "config.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

/*
 * Why not hwloc_bitmap_list_sscanf() and hwloc_bitmap_sscanf(), which the
 * build links: they are made for hwloc's own strings, not for a file of a
 * sysroot that may be hostile.  hwloc 2.9's list parser reads numbers with
 * strtoul(s, &end, 0) ("010" is CPU 8, "0x10" CPU 16), takes "0-" as an
 * infinite set, "3-1" as an empty one without a word, "0-4294967295" as
 * "0-", and sets any other range it is given ("0-2000000000": 240 MiB).  The kernel's syntax
 * (bitmap_parselist(): decimal, ranges in order, commas) is what these
 * files hold; anything else is refused here with -EINVAL, and a CPU
 * number of SR_MAX_CPUS or more with -ERANGE.  The sets themselves are
 * hwloc's bitmaps, printed by hwloc_bitmap_list_snprintf().
 */
int parse_cpulist(const char *s, hwloc_bitmap_t set)
{
	hwloc_bitmap_zero(set);
	if (!s)   /* a document's list that is missing or not a string */
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	while (*s && *s != '\n') {
		unsigned long a, b;
		char *end;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		errno = 0;
		a = strtoul(s, &end, 10);
		if (errno || a >= SR_MAX_CPUS)
			return -ERANGE;
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			b = strtoul(s, &end, 10);
			if (errno || b >= SR_MAX_CPUS)
				return -ERANGE;
			if (b < a)
				return -EINVAL;
			s = end;
		}
		hwloc_bitmap_set_range(set, (unsigned)a, (int)b);
		if (*s == ',')
			s++;
		else if (*s && !isspace((unsigned char)*s))
			return -EINVAL;
		while (*s == ' ' || *s == '\t')
			s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	return *s ? -EINVAL : 0;
}

int parse_cpumask(const char *s, hwloc_bitmap_t set)
{
	/* Comma-separated 32-bit hex words, most significant first. */
	const char *p;
	size_t words = 0, w;
	hwloc_bitmap_zero(set);
	while (isspace((unsigned char)*s))
		s++;
	for (p = s; *p && !isspace((unsigned char)*p); p++)
		if (*p == ',')
			words++;
		else if (!isxdigit((unsigned char)*p))
			return -EINVAL;
	if (p == s)
		return -EINVAL;
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -EINVAL;
	words++;
	if (words * 32 > SR_MAX_CPUS)
		return -ERANGE;
	/* A word at a time, most significant first; a zero word (most of a
	 * 4096-bit mask) costs its digits only, a set bit one call. */
	for (w = 0; w < words; w++) {
		unsigned long v = 0;
		size_t n = 0;
		while (*s && *s != ',' && !isspace((unsigned char)*s)) {
			int c = (unsigned char)*s++;
			if (++n > 8)
				return -EINVAL;
			v = v << 4 | (unsigned long)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
		}
		if (*s == ',')
			s++;
		if (!n)
			return -EINVAL;
		while (v) {
			int bit = __builtin_ctzl(v);
			hwloc_bitmap_set(set, (unsigned)((words - 1 - w) * 32 + (size_t)bit));
			v &= v - 1;
		}
	}
	return 0;
}

char *cpulist_dup(hwloc_const_bitmap_t set)
{
	char *s = NULL;
	if (!set || hwloc_bitmap_iszero(set))
		return xstrdup("");
	if (hwloc_bitmap_list_asprintf(&s, set) < 0 || !s)
		die("out of memory");
	return s;
}
