/* read/cpulist.c - the kernel's CPU lists and masks, parsed and printed */
#include "config.h"
#include "read/sysroot.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

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
	for (w = 0; w < words; w++) {
		char word[16];
		size_t n = 0;
		unsigned long v;
		int bit;
		while (*s && *s != ',' && !isspace((unsigned char)*s)) {
			if (n >= 8)
				return -EINVAL;
			word[n++] = *s++;
		}
		if (*s == ',')
			s++;
		if (!n)
			return -EINVAL;
		word[n] = '\0';
		v = strtoul(word, NULL, 16);
		for (bit = 0; bit < 32; bit++)
			if (v & (1UL << bit))
				hwloc_bitmap_set(set, (unsigned)((words - 1 - w) * 32 + (size_t)bit));
	}
	return 0;
}

const char *cpulist_str(hwloc_const_bitmap_t set, char *buf, size_t n)
{
	if (!set || hwloc_bitmap_iszero(set)) {
		if (n)
			buf[0] = '\0';
		return buf;
	}
	hwloc_bitmap_list_snprintf(buf, n, set);
	return buf;
}
