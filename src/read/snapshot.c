/* read/snapshot.c - writing a snapshot's staging directory: files, links, and copies from the probed root */
#include "config.h"
#include "read/snapshot.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_LINKS 40   /* symbolic links followed for one path, as the kernel */

/*** Writing the staging directory ***/

static int mkdirs(char *path)
{
	char *p;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			*p = '/';
			return -e;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static char *stage_path(const char *stage, const char *path)
{
	while (*path == '/')
		path++;
	return xasprintf("%s/%s", stage, path);
}

int snapshot_write_file(const char *stage, const char *path, const void *buf, size_t len)
{
	char *dst = stage_path(stage, path), *slash = strrchr(dst, '/');
	const char *p = buf;
	int fd, r = 0;
	*slash = '\0';
	r = mkdirs(dst);
	*slash = '/';
	if (r < 0) {
		free(dst);
		return r;
	}
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		r = -errno;
		free(dst);
		return r;
	}
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	free(dst);
	return r;
}

static int stage_link(const char *stage, const char *path, const char *target)
{
	char *dst = stage_path(stage, path), *slash = strrchr(dst, '/');
	int r;
	*slash = '\0';
	r = mkdirs(dst);
	*slash = '/';
	if (r == 0 && symlink(target, dst) < 0 && errno != EEXIST)
		r = -errno;
	free(dst);
	return r;
}

static int stage_dir(const char *stage, const char *path)
{
	char *dst = stage_path(stage, path);
	int r = mkdirs(dst);
	free(dst);
	return r;
}

/*** Reading the probed root ***/

static const char *relpath(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

/* lstat inside the root: the prefix has no symbolic links (resolve_copy
 * replaced them), so this cannot leave the root. */
static int root_lstat(struct sysroot *sr, const char *path, struct stat *st)
{
	if (fstatat(sr->rootfd, relpath(path), st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/* Append a component to a resolved absolute path; ".." stops at "/". */
static void push(struct strbuf *sb, const char *comp, size_t n)
{
	if (n == 1 && comp[0] == '.')
		return;
	if (n == 2 && comp[0] == '.' && comp[1] == '.') {
		strbuf_drop_component(sb);
		return;
	}
	strbuf_addstr(sb, "/");
	strbuf_add(sb, comp, n);
}

/*
 * Copy path from the probed root into the stage.  Each symbolic link on the
 * way (cpu0/cpufreq -> ../cpufreq/policy0, class/dmi/id -> ...) is recreated
 * as stored, and its target is followed, inside the root, so that both the
 * link and what it leads to replay.  dir_ok: a directory at the end is
 * created (empty) instead of refused.
 */
static int resolve_copy(struct sysroot *sr, const char *stage, const char *path, int dir_ok)
{
	struct strbuf cur = STRBUF_INIT;
	char *todo = xstrdup(path), *p;
	int links = 0, r = 0;
	struct stat st;

	p = todo;
	for (;;) {
		size_t n;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		push(&cur, p, n);
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			p += n;
			continue;
		}
		r = root_lstat(sr, cur.buf, &st);
		if (r < 0)
			break;
		if (S_ISLNK(st.st_mode)) {
			char *target, *rest;
			if (++links > MAX_LINKS) {
				r = -ELOOP;
				break;
			}
			r = sr_readlink(sr, cur.buf, &target);
			if (r < 0)
				break;
			r = stage_link(stage, cur.buf, target);
			if (r < 0) {
				free(target);
				break;
			}
			/* Continue from the link's directory (or the root) with
			 * target + the rest of the path. */
			rest = xasprintf("%s%s", target, p + n);
			if (target[0] == '/')
				strbuf_release(&cur);
			else {
				strbuf_drop_component(&cur);
			}
			free(target);
			free(todo);
			todo = p = rest;
			continue;
		}
		p += n;
		while (*p == '/')
			p++;
		if (*p) {
			if (!S_ISDIR(st.st_mode)) {
				r = -ENOTDIR;
				break;
			}
			continue;
		}
		/* The last component. */
		if (S_ISREG(st.st_mode)) {
			char *buf;
			size_t len;
			r = sr_read(sr, cur.buf, &buf, &len);
			if (r == 0) {
				r = snapshot_write_file(stage, cur.buf, buf, len);
				free(buf);
			}
		} else if (S_ISDIR(st.st_mode))
			r = dir_ok ? stage_dir(stage, cur.buf) : -EISDIR;
		else
			r = -ENODEV;
		break;
	}
	if (r < 0)
		debug("snapshot: not copied '%s': %s", path, sr_reason(r));
	strbuf_release(&cur);
	free(todo);
	return r;
}

int snapshot_copy(struct sysroot *sr, const char *stage, const char *path)
{
	return resolve_copy(sr, stage, path, 0);
}

/* Copy a directory's regular files and subdirectories (skipping the names
 * in skip), recreating symbolic links without following them. */
static void copy_tree(struct sysroot *sr, const char *stage, const char *dir,
		      const char *const *skip, int depth)
{
	char **names;
	size_t n, i;
	if (depth > 6 || sr_list(sr, dir, &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		const char *const *s;
		char *p;
		struct stat st;
		for (s = skip; s && *s; s++)
			if (!strcmp(*s, names[i]))
				break;
		if (s && *s)
			continue;
		p = xasprintf("%s/%s", dir, names[i]);
		if (root_lstat(sr, p, &st) == 0) {
			if (S_ISLNK(st.st_mode)) {
				char *target;
				if (sr_readlink(sr, p, &target) == 0) {
					stage_link(stage, p, target);
					free(target);
				}
			} else if (S_ISDIR(st.st_mode))
				copy_tree(sr, stage, p, skip, depth + 1);
			else if (S_ISREG(st.st_mode))
				resolve_copy(sr, stage, p, 0);
		}
		free(p);
	}
	sr_free_list(names, n);
}

static int is_cpu_dir(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;
	if (strncmp(name, prefix, n) || !name[n])
		return 0;
	for (p = name + n; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* Copy the regular files directly in dir (not the subdirectories). */
static void copy_files(struct sysroot *sr, const char *stage, const char *dir,
		       const char *const *subdirs, const char *const *skip)
{
	char **names;
	size_t n, i;
	if (sr_list(sr, dir, &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		const char *const *s;
		struct stat st;
		int skipped = 0;
		for (s = skip; s && *s; s++)
			if (!strcmp(*s, names[i]))
				skipped = 1;
		if (!skipped && root_lstat(sr, p, &st) == 0) {
			if (S_ISREG(st.st_mode))
				resolve_copy(sr, stage, p, 0);
			else
				for (s = subdirs; s && *s; s++)
					if (!strcmp(*s, names[i])) {
						if (S_ISLNK(st.st_mode))
							resolve_copy(sr, stage, p, 1);
						else
							copy_tree(sr, stage, p, skip, 1);
					}
		}
		free(p);
	}
	sr_free_list(names, n);
}

/*
 * What hwloc's Linux backend reads (topology-linux.c) for the objects we
 * use: the CPU and node directories and two procfs files.  cpufreq
 * "stats" are skipped (large, and not used); so are serial numbers in DMI.
 */
void snapshot_capture_hwloc_inputs(struct sysroot *sr, const char *stage)
{
	static const char *const cpu_sub[] = { "topology", "cache", "regs", "cpufreq", NULL };
	static const char *const cpu_top_sub[] = { "cpufreq", "smt", NULL };
	static const char *const node_sub[] = { "hugepages", "access0", "access1",
						"memory_side_cache", NULL };
	static const char *const skip[] = { "stats", "power", "uevent", "crash_notes",
					    "crash_notes_size", NULL };
	static const char *const dmi_skip[] = { "product_serial", "product_uuid", "board_serial",
						"chassis_serial", "modalias", "uevent", "power",
						"subsystem", NULL };
	static const char *const node_files[] = { "cpumap", "cpulist", "meminfo", "distance", NULL };
	char **names;
	size_t n, i, j;

	resolve_copy(sr, stage, "/proc/cpuinfo", 0);
	resolve_copy(sr, stage, "/proc/meminfo", 0);
	/* What hwloc takes from uname() live, it reads from this file under
	 * HWLOC_FSROOT (hwloc-gather-topology writes it too); without it the
	 * replayed topology lacks the architecture and parses cpuinfo less. */
	if (sr->live) {
		struct utsname u;
		if (uname(&u) == 0) {
			char *t = xasprintf("OSName: %s\nOSRelease: %s\nOSVersion: %s\nHostName: %s\n"
					    "Architecture: %s\nFallbackNbProcessors: %ld\nPageSize: %ld\n",
					    u.sysname, u.release, u.version, u.nodename, u.machine,
					    sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_PAGESIZE));
			snapshot_write_file(stage, "/proc/hwloc-nofile-info", t, strlen(t));
			free(t);
		}
	} else
		resolve_copy(sr, stage, "/proc/hwloc-nofile-info", 0);
	copy_files(sr, stage, "/sys/devices/system/cpu", cpu_top_sub, skip);
	if (sr_list(sr, "/sys/devices/system/cpu", &names, &n) == 0) {
		for (i = 0; i < n; i++)
			if (is_cpu_dir(names[i], "cpu")) {
				char *d = xasprintf("/sys/devices/system/cpu/%s", names[i]);
				copy_files(sr, stage, d, cpu_sub, skip);
				free(d);
			}
		sr_free_list(names, n);
	}
	if (sr_is_dir(sr, "/sys/devices/system/node")) {
		copy_files(sr, stage, "/sys/devices/system/node", NULL, skip);
		if (sr_list(sr, "/sys/devices/system/node", &names, &n) == 0) {
			for (i = 0; i < n; i++) {
				char *d;
				if (!is_cpu_dir(names[i], "node"))
					continue;
				d = xasprintf("/sys/devices/system/node/%s", names[i]);
				for (j = 0; node_files[j]; j++) {
					char *p = xasprintf("%s/%s", d, node_files[j]);
					resolve_copy(sr, stage, p, 0);
					free(p);
				}
				for (j = 0; node_sub[j]; j++) {
					char *p = xasprintf("%s/%s", d, node_sub[j]);
					if (sr_is_dir(sr, p))
						copy_tree(sr, stage, p, skip, 1);
					free(p);
				}
				free(d);
			}
			sr_free_list(names, n);
		}
	}
	/* Hybrid Intel parts: the PMU lists of P- and E-core CPUs. */
	resolve_copy(sr, stage, "/sys/devices/cpu_core/cpus", 0);
	resolve_copy(sr, stage, "/sys/devices/cpu_atom/cpus", 0);
	if (sr_is_dir(sr, "/sys/class/dmi/id")) {
		resolve_copy(sr, stage, "/sys/class/dmi/id", 1);
		if (sr_list(sr, "/sys/class/dmi/id", &names, &n) == 0) {
			for (i = 0; i < n; i++) {
				char *p = xasprintf("/sys/class/dmi/id/%s", names[i]);
				for (j = 0; dmi_skip[j] && strcmp(dmi_skip[j], names[i]); j++)
					;
				if (!dmi_skip[j])
					resolve_copy(sr, stage, p, 0);
				free(p);
			}
			sr_free_list(names, n);
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files the probes read, once each, minus what snapshot writes itself. */
void snapshot_capture_read_files(struct sysroot *sr, const char *stage)
{
	size_t n = sr->nread, i;
	char **v = xcalloc(n ? n : 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = xstrdup(sr->read[i]);
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++) {
		if (i > 0 && !strcmp(v[i], v[i - 1]))
			continue;
		if (!strcmp(v[i], "/nodeaudit/arch") || !strcmp(v[i], "/nodeaudit/collected_at") ||
		    !strcmp(v[i], "/nodeaudit/root") || !strcmp(v[i], "/nodeaudit/MANIFEST.json"))
			continue;
		resolve_copy(sr, stage, v[i], 0);
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
