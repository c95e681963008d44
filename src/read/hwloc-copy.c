/* read/hwloc-copy.c - the fallback fence: a checked private copy of hwloc's
 * inputs, and which trees need it (hwloc_not_plain(); read/hwloc.c has the whole story) */
#include "config.h"
#include "read/hwloc.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPUDIR "/sys/devices/system/cpu"
#define NODEDIR "/sys/devices/system/node"

struct copy {
	struct sysroot *sr;
	struct facts *f;
	int dfd;                /* the private copy's root */
	size_t files;
	uint64_t bytes;
	int over;
};

/*** Writing the copy: plain directories and files, created, never opened existing ***/

static int mkdirs_at(int dfd, const char *path)
{
	char buf[4096], *p;
	const char *r = path;
	while (*r == '/')
		r++;
	if (strlen(r) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, r);
	for (p = buf; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(dfd, buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (*buf && mkdirat(dfd, buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int put(struct copy *c, const char *path, const char *buf, size_t len)
{
	const char *r = path, *slash;
	int fd, e = 0;
	while (*r == '/')
		r++;
	if (++c->files > HW_MAX_FILES || (c->bytes += len) > HW_MAX_BYTES) {
		c->over = 1;
		return -E2BIG;
	}
	fd = openat(c->dfd, r, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	slash = strrchr(r, '/');
	if (fd < 0 && errno == ENOENT && slash) {   /* the directories first */
		char *dir = xstrndup(r, (size_t)(slash - r));
		e = mkdirs_at(c->dfd, dir);
		free(dir);
		if (e < 0)
			return e;
		fd = openat(c->dfd, r, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = -EIO;
			break;
		}
		buf += w;
		len -= (size_t)w;
	}
	close(fd);
	return e;
}

/*** Checks hwloc's parsers do not make ***/

typedef const char *(*check_fn)(const char *buf, size_t len);

static const char *check_cpulist(const char *b, size_t len)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int r = memchr(b, '\0', len) ? -EINVAL : parse_cpulist(b, s);
	hwloc_bitmap_free(s);
	return r == -ERANGE ? "CPU numbers stop at 65535" : r < 0 ? "not a CPU list" : NULL;
}

static const char *check_nodelist(const char *b, size_t len)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int r = memchr(b, '\0', len) ? -EINVAL : parse_cpulist(b, s);
	const char *why = NULL;
	if (r == -ERANGE || (r == 0 && hwloc_bitmap_last(s) >= HW_MAX_NODES))
		why = "node numbers stop at 1023";
	else if (r < 0)
		why = "not a node list";
	else if (hwloc_bitmap_iszero(s))
		why = "no node listed";
	hwloc_bitmap_free(s);
	return why;
}

static const char *check_cpumask(const char *b, size_t len)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int r = memchr(b, '\0', len) ? -EINVAL : parse_cpumask(b, s);
	hwloc_bitmap_free(s);
	return r == -ERANGE ? "CPU numbers stop at 65535" : r < 0 ? "not a CPU mask" : NULL;
}

/* hwloc sets a bit for each "processor : N" line when sysfs has no topology. */
static const char *check_cpuinfo(const char *b, size_t len)
{
	const char *p = b, *end = b + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!strncmp(p, "processor", 9) && (!nl || nl - p > 9)) {
			const char *q = p + 9;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == ':') {
				char *e;
				unsigned long v;
				q++;
				while (*q == ' ' || *q == '\t')
					q++;
				errno = 0;
				v = strtoul(q, &e, 0);
				if (e != q && (errno || v >= SR_MAX_CPUS || *q == '-'))
					return "a processor number above 65535";
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return NULL;
}

static void copy(struct copy *c, const char *path, check_fn check)
{
	char *buf;
	size_t len;
	int r;
	if (c->over)
		return;
	r = sr_read_unrecorded(c->sr, path, &buf, &len);
	if (r < 0) {
		/* Missing is ordinary; anything else hwloc would have tripped on
		 * (a FIFO, a link out of the root, a huge file) is said. */
		if (r != -ENOENT && r != -ENOTDIR)
			facts_gap(c->f, "cpu", "hwloc not given '%s': %s", path, sr_reason(r));
		return;
	}
	if (check) {
		const char *why = check(buf, len);
		if (why) {
			facts_gap(c->f, "cpu", "hwloc not given '%s': %s", path, why);
			free(buf);
			return;
		}
	}
	put(c, path, buf, len);
	free(buf);
}

static void copy_dir(struct copy *c, const char *path)
{
	const char *r = path;
	while (*r == '/')
		r++;
	if (c->over || !sr_is_dir(c->sr, path))
		return;
	if (mkdirat(c->dfd, r, 0700) < 0 && errno != EEXIST && mkdirs_at(c->dfd, path) < 0)
		c->over = 1;
}

/* "cpu12" -> 12 under limit; -1 if hwloc would not take the name as a
 * number at all; -2 if it would, but out of our bounds or not plainly
 * written (hwloc reads "cpu010" as octal 8, "cpu-1" as ULONG_MAX). */
static long name_number(const char *name, const char *prefix, unsigned long limit)
{
	size_t n = strlen(prefix);
	const char *p = name + n;
	char *end;
	unsigned long v;
	if (strncmp(name, prefix, n))
		return -1;
	errno = 0;
	v = strtoul(p, &end, 0);
	if (end == p)
		return -1;
	if (!isdigit((unsigned char)*p) || (*p == '0' && p[1]) || *end || errno || v >= limit)
		return -2;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -2;
	return (long)v;
}

static void copy_cpu(struct copy *c, const char *d)
{
	static const char *const topo[] = {
		"physical_package_id", "core_id", "die_id", "cluster_id", "book_id", "drawer_id",
		"thread_siblings", "core_cpus", "core_siblings", "package_cpus", "die_cpus",
		"cluster_cpus", "book_siblings", "drawer_siblings",
	};
	static const char *const cache[] = {
		"level", "type", "size", "coherency_line_size", "number_of_sets",
		"physical_line_partition", "shared_cpu_map", "id",
	};
	char p[192];
	size_t i, j;
	snprintf(p, sizeof(p), "%s/online", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/cpu_capacity", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/topology", d);
	copy_dir(c, p);
	for (i = 0; i < ARRAY_SIZE(topo); i++) {
		snprintf(p, sizeof(p), "%s/topology/%s", d, topo[i]);
		copy(c, p, strstr(topo[i], "_id") ? NULL : check_cpumask);
	}
	snprintf(p, sizeof(p), "%s/cpufreq/cpuinfo_max_freq", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/cpufreq/base_frequency", d);
	copy(c, p, NULL);
	for (i = 0; i < 10; i++) {   /* hwloc looks at index0 to index9 */
		snprintf(p, sizeof(p), "%s/cache/index%zu", d, i);
		if (!sr_is_dir(c->sr, p))
			continue;
		for (j = 0; j < ARRAY_SIZE(cache); j++) {
			snprintf(p, sizeof(p), "%s/cache/index%zu/%s", d, i, cache[j]);
			copy(c, p, !strcmp(cache[j], "shared_cpu_map") ? check_cpumask : NULL);
		}
	}
}

/* Subdirectories of dir whose names start with prefix: each one's files. */
static void copy_subdirs(struct copy *c, const char *dir, const char *prefix,
			 const char *const *files, size_t nfiles, size_t max)
{
	char **names, p[512];
	size_t n, i, j, k = 0;
	if (c->over || sr_list(c->sr, dir, &names, &n) < 0)
		return;
	copy_dir(c, dir);
	for (i = 0; i < n && k < max; i++) {
		if (strncmp(names[i], prefix, strlen(prefix)) || strlen(dir) + strlen(names[i]) > 200)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (!sr_is_dir(c->sr, p))
			continue;
		k++;
		copy_dir(c, p);
		for (j = 0; j < nfiles; j++) {
			snprintf(p, sizeof(p), "%s/%s/%s", dir, names[i], files[j]);
			copy(c, p, NULL);
		}
	}
	sr_free_list(names, n);
}

static void copy_node(struct copy *c, const char *d)
{
	static const char *const nr[] = { "nr_hugepages" };
	static const char *const msc[] = { "size", "line_size", "indexing" };
	static const char *const acc[] = { "read_bandwidth", "write_bandwidth", "read_latency",
					   "write_latency" };
	char p[192];
	size_t a, i;
	snprintf(p, sizeof(p), "%s/cpumap", d);
	copy(c, p, check_cpumask);
	snprintf(p, sizeof(p), "%s/meminfo", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/distance", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/hugepages", d);
	copy_subdirs(c, p, "hugepages-", nr, 1, 64);
	snprintf(p, sizeof(p), "%s/memory_side_cache", d);
	copy_subdirs(c, p, "index", msc, ARRAY_SIZE(msc), 16);
	for (a = 0; a < 2; a++) {
		char **names;
		size_t n;
		snprintf(p, sizeof(p), "%s/access%zu/initiators", d, a);
		if (c->over || sr_list(c->sr, p, &names, &n) < 0)
			continue;
		copy_dir(c, p);
		for (i = 0; i < ARRAY_SIZE(acc); i++) {
			snprintf(p, sizeof(p), "%s/access%zu/initiators/%s", d, a, acc[i]);
			copy(c, p, NULL);
		}
		/* The initiators are links to their nodes: hwloc wants the names. */
		for (i = 0; i < n; i++)
			if (name_number(names[i], "node", HW_MAX_NODES) >= 0) {
				snprintf(p, sizeof(p), "%s/access%zu/initiators/%s", d, a, names[i]);
				if (mkdirs_at(c->dfd, p) < 0)
					c->over = 1;
			}
		sr_free_list(names, n);
	}
}

static void copy_numbered(struct copy *c, const char *dir, const char *prefix, unsigned long limit,
			  void (*fn)(struct copy *, const char *))
{
	char **names;
	size_t n, i;
	if (sr_list(c->sr, dir, &names, &n) < 0)
		return;
	copy_dir(c, dir);
	for (i = 0; i < n && !c->over; i++) {
		char p[128];
		long v = name_number(names[i], prefix, limit);
		if (v == -1)
			continue;
		if (v == -2) {
			if (strlen(names[i]) > 40)
				facts_gap(c->f, "cpu", "hwloc not given '%s/%.40s...': not a %s number below %lu",
					  dir, names[i], prefix, limit);
			else
				facts_gap(c->f, "cpu", "hwloc not given '%s/%s': not a %s number below %lu",
					  dir, names[i], prefix, limit);
			continue;
		}
		snprintf(p, sizeof(p), "%s/%s%ld", dir, prefix, v);
		if (!sr_is_dir(c->sr, p))
			continue;
		copy_dir(c, p);
		fn(c, p);
	}
	sr_free_list(names, n);
}

int hwloc_copy_inputs(struct sysroot *sr, const char *dst, struct facts *f)
{
	struct copy c;
	memset(&c, 0, sizeof(c));
	c.sr = sr;
	c.f = f;
	c.dfd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c.dfd < 0)
		return -errno;
	copy(&c, "/proc/cpuinfo", check_cpuinfo);
	copy(&c, "/proc/meminfo", NULL);
	/* What hwloc takes from uname() live (see cmd/snapshot.c). */
	copy(&c, "/proc/hwloc-nofile-info", NULL);
	copy(&c, CPUDIR "/online", check_cpulist);
	copy_numbered(&c, CPUDIR, "cpu", SR_MAX_CPUS, copy_cpu);
	copy(&c, NODEDIR "/online", check_nodelist);
	copy(&c, NODEDIR "/possible", check_nodelist);
	copy_numbered(&c, NODEDIR, "node", HW_MAX_NODES, copy_node);
	{
		static const char *const nr[] = { "nr_hugepages" };
		copy_subdirs(&c, "/sys/kernel/mm/hugepages", "hugepages-", nr, 1, 64);
	}
	close(c.dfd);
	return c.over ? -E2BIG : 0;
}

/*
 * Why this sysroot cannot be handed to hwloc whole (NULL: it can): what
 * hwloc would trip on that the kernel's fence does not stop -- a FIFO or
 * an oversized file our own reads met, a CPU or node list or name out of
 * hwloc's bounds, a processor number above them in /proc/cpuinfo.  Only
 * what the probes have read or listed already: no extra system call on a
 * plain tree.  Such a tree takes the copy, which withholds those files and
 * says which.
 */
const char *hwloc_not_plain(struct sysroot *sr, char *buf, size_t n)
{
	static const struct {
		const char *path;
		check_fn check;
	} lists[] = {
		{ "/proc/cpuinfo", check_cpuinfo },
		{ CPUDIR "/online", check_cpulist },
		{ NODEDIR "/online", check_nodelist },
		{ NODEDIR "/possible", check_nodelist },
	};
	static const struct {
		const char *dir, *prefix;
		unsigned long limit;
	} dirs[] = { { CPUDIR, "cpu", SR_MAX_CPUS }, { NODEDIR, "node", HW_MAX_NODES } };
	size_t i, k, len;
	char **names, *b;
	const char *why = NULL;
	if (sr->refused) {
		snprintf(buf, n, "%zu of its files were refused by our reads (not regular files, or over %u MiB)",
			 sr->refused, SR_MAX_FILE >> 20);
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		int r = sr_read_unrecorded(sr, lists[i].path, &b, &len);
		if (r < 0)
			continue;
		why = lists[i].check(b, len);
		free(b);
		if (why) {
			snprintf(buf, n, "%s: %s", lists[i].path, why);
			return buf;
		}
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		size_t nn;
		if (sr_list(sr, dirs[i].dir, &names, &nn) < 0)
			continue;
		for (k = 0; k < nn && !why; k++)
			if (name_number(names[k], dirs[i].prefix, dirs[i].limit) == -2) {
				snprintf(buf, n, "%s/%.40s: not a %s number below %lu", dirs[i].dir, names[k],
					 dirs[i].prefix, dirs[i].limit);
				why = buf;
			}
		sr_free_list(names, nn);
		if (why)
			return why;
	}
	return NULL;
}
