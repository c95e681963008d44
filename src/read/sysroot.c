/* read/sysroot.c - re-rooted, bounded, recorded reads of sysfs and procfs */
#include "config.h"
#include "read/sysroot.h"
#include "read/archive.h"
#include "read/sysroot-internal.h"
#include "lib/tempdir.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*** Opening and closing ***/

/* Whether root has a proc/, sys/ or nodeaudit/ directory: what every
 * capture holds. */
static int holds_capture(const char *root)
{
	static const char *const parts[] = { "nodeaudit", "proc", "sys" };
	size_t i;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *p = xasprintf("%s/%s", root, parts[i]);
		struct stat sb;
		int ok = lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
		free(p);
		if (ok)
			return 1;
	}
	return 0;
}

/* An archive holding one top-level directory (as hwloc's and util-linux's
 * test dumps do) has its sysroot inside that directory. */
static void descend_single_dir(struct sysroot *sr)
{
	DIR *d = opendir(sr->root);
	struct dirent *de;
	char *only = NULL;
	int count = 0;
	struct stat st;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++count == 1)
			only = xstrdup(de->d_name);
	}
	closedir(d);
	if (count == 1 && strcmp(only, "sys") && strcmp(only, "proc")) {
		char *sub = xasprintf("%s/%s", sr->root, only);
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(sr->root);
			sr->root = sub;
		} else
			free(sub);
	}
	free(only);
	/* hwloc's test tarballs keep the tree in <dir>/fsroot beside a cpuid/ dump. */
	{
		char *sys = xasprintf("%s/sys", sr->root), *fs = xasprintf("%s/fsroot", sr->root);
		if (lstat(sys, &st) < 0 && lstat(fs, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(sr->root);
			sr->root = fs;
			fs = NULL;
		}
		free(sys);
		free(fs);
	}
}

int sysroot_open(struct sysroot *sr, const char *dir)
{
	struct stat st;
	memset(sr, 0, sizeof(*sr));
	sr->rootfd = -1;
	if (!dir || !*dir || strcmp(dir, "/") == 0) {
		sr->root = xstrdup("/");
		sr->live = 1;
		sr->rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		return 0;
	}
	if (stat(dir, &st) < 0)
		return error("cannot use sysroot '%s': %s", dir, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		char *t;
		if (!sr_is_archive(dir))
			return error("cannot use sysroot '%s': not a directory or a .tar[.gz|.xz|.bz2] archive", dir);
		t = tmpdir_make_scratch("nodeaudit-sysroot", 2ull * SR_MAX_UNPACK_BYTES, SR_MAX_UNPACK_FILES);
		if (!t)
			return error("cannot unpack '%s': %s", dir, tmpdir_strerror());
		sr->tmpdir = t;
		if (sr_unpack(dir, t) < 0) {
			sysroot_close(sr);
			return -1;
		}
		sr->root = xstrdup(t);
		/* An archive holding one top-level directory (as hwloc's and
		 * util-linux's test dumps do) has its sysroot inside it. */
		descend_single_dir(sr);
		/* An archive of anything else (the folder above a capture, a
		 * backup) would pass a node with no facts: refused, as a
		 * directory holding none of these is (cmd/cli.c). */
		if (!holds_capture(sr->root)) {
			error("cannot use sysroot '%s': the archive holds nothing a capture holds (no proc/, sys/ "
			      "or nodeaudit/)", dir);
			sysroot_close(sr);
			return -1;
		}
	} else if (S_ISDIR(st.st_mode)) {
		size_t n = strlen(dir);
		sr->root = xstrdup(dir);
		while (n > 1 && sr->root[n - 1] == '/')
			sr->root[--n] = '\0';
	} else
		return error("cannot use sysroot '%s': not a directory or archive", dir);
	sr->rootfd = open(sr->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sr->rootfd < 0) {
		error("cannot open sysroot '%s': %s", dir, strerror(errno));
		sysroot_close(sr);
		return -1;
	}
	sr_make_view(sr);
	return 0;
}

void sysroot_close(struct sysroot *sr)
{
	size_t i;
	if (sr->rootfd >= 0)
		close(sr->rootfd);
	if (sr->tmpdir) {
		tmpdir_remove(sr->tmpdir);
		free(sr->tmpdir);
	}
	for (i = 0; i < sr->nread; i++)
		free(sr->read[i]);
	free(sr->read);
	sr_cache_free(sr);
	free(sr->root);
	memset(sr, 0, sizeof(*sr));
	sr->rootfd = -1;
}

char *sr_hostpath(const struct sysroot *sr, const char *path)
{
	if (sr->live)
		return xstrdup(path);
	while (*path == '/')
		path++;
	return xasprintf("%s/%s", sr->root, path);
}

/*** Reading ***/

/* Live files whose first short read is their end: a sysfs attribute
 * (one value, shown whole at offset 0; a binary attribute smaller than the
 * first request answers all of it) and a sysctl under /proc/sys.  Other
 * procfs files (seq_file: /proc/cpuinfo, meminfo, mounts) can return a
 * part and more after it, and cgroupfs lists are seq_files too: those are
 * read to the end.  None of these trees holds a FIFO or a device, so a
 * live read of them needs no fstat() either. */
static int live_short_is_eof(const char *path)
{
	static const char *const pre[] = {
		"/sys/devices/", "/sys/bus/", "/sys/class/", "/sys/firmware/", "/sys/kernel/mm/",
		"/sys/module/", "/sys/hypervisor/", "/proc/sys/",
	};
	size_t i;
	for (i = 0; i < ARRAY_SIZE(pre); i++)
		if (!strncmp(path, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* An open refused with EACCES on the private nodev view: a device node
 * (the kernel refuses to open one there) is not a regular file, and says
 * so as without the view; anything else keeps its EACCES.  The error
 * path only: an O_PATH open and an fstat(), never an open of the device. */
static int view_refusal(struct sysroot *sr, const char *path, int err)
{
	struct stat st;
	int fd;
	if (err != EACCES || !sr->view)
		return -err;
	fd = sr_open_in_root(sr, path, O_PATH);
	if (fd < 0)
		return -err;
	if (fstat(fd, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		close(fd);
		sr->refused++;
		return -ENODEV;
	}
	close(fd);
	return -err;
}

/* The file now, in the fewest system calls: open, read, close for a sysfs
 * attribute or a sysctl; open, read until 0, close for the rest of procfs;
 * open, fstat (regular files only), read, close in a sysroot, where a short
 * read of a regular file is its end.  keep: the run's cache keeps it. */
static int read_now(struct sysroot *sr, const char *path, char **bufp, size_t *lenp, int keep)
{
	struct stat st;
	/* The first read goes to the stack, and a value of a few bytes gets
	 * a copy of its size: a 4 KiB malloc() a file costs more than the
	 * read (glibc consolidates its free lists for each). */
	char first_buf[4096];
	size_t len = 0, alloc = sizeof(first_buf);
	char *b = first_buf;
	int short_eof, first = 1, arena = 0;
	int kfs = sr->live && (!strncmp(path, "/sys/", 5) || !strncmp(path, "/proc/", 6));
	int fd = sr_open_in_root(sr, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return view_refusal(sr, path, errno);
	if (kfs)
		short_eof = live_short_is_eof(path);
	else {
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			int e = (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) ? -EISDIR : -ENODEV;
			close(fd);
			if (e == -ENODEV)
				sr->refused++;
			return e;
		}
		short_eof = 1;
		/* A file larger than the stack buffer (a /proc/cpuinfo of many
		 * CPUs) is read at once into a buffer of its size, the cache's
		 * when it is kept: growing one by doubling touched two or three
		 * times its size in pages. */
		if (st.st_size >= (off_t)sizeof(first_buf) && st.st_size < (off_t)SR_MAX_FILE) {
			alloc = (size_t)st.st_size + 2;
			arena = keep;
			b = keep ? sr_cache_alloc(sr, alloc) : xmalloc(alloc);
		}
	}
	for (;;) {
		ssize_t r;
		size_t want;
		if (len + 1 >= alloc) {
			if (alloc > SR_MAX_FILE) {
				if (!arena)
					free(b);
				close(fd);
				sr->refused++;
				return -EFBIG;
			}
			alloc *= 2;
			b = b == first_buf || arena ? memcpy(xmalloc(alloc), b, len) : xrealloc(b, alloc);
			arena = 0;
		}
		want = alloc - len - 1;
		r = read(fd, b + len, want);
		if (r < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			if (b != first_buf && !arena)
				free(b);
			close(fd);
			/* sysfs answers EIO/ENODATA/EOPNOTSUPP for attributes a
			 * driver does not implement: treat as unreadable value;
			 * a directory opened without fstat answers EISDIR. */
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		/* Only the first read: a later one may be capped at a page. */
		if (first && short_eof && (size_t)r < want)
			break;
		first = 0;
	}
	close(fd);
	if (len > SR_MAX_FILE) {
		if (b != first_buf && !arena)
			free(b);
		sr->refused++;
		return -EFBIG;
	}
	b[len] = '\0';
	/* Kept for the run (keep): in the cache's chunks, its own size, so
	 * that a page holds many values; else malloc'd for the caller. */
	if (arena)
		;   /* read into the cache's block already */
	else if (keep) {
		char *k = memcpy(sr_cache_alloc(sr, len + 1), b, len + 1);
		if (b != first_buf)
			free(b);
		b = k;
	} else if (b == first_buf)
		b = memcpy(xmalloc(len + 1), first_buf, len + 1);
	else if (alloc - len > 64)
		b = xrealloc(b, len + 1);
	*bufp = b;
	*lenp = len;
	return 0;
}

/* Whether a directory above path is known to be missing (then so is
 * path, and no system call needs to say it). */
static int ancestor_missing(struct sysroot *sr, const char *path)
{
	return sr_above_missing(sr, path);
}

/* path's entry, made when new; NULL when a directory above it is known
 * to be missing (then so is path). */
static struct sr_entry *entry_for(struct sysroot *sr, const char *path)
{
	struct sr_entry *e = sr_cache_find(sr, path);
	if (!e && ancestor_missing(sr, path))
		return NULL;
	return e ? e : sr_cache_get(sr, path);
}

/* The run's copy of path (read now if new): *buf points into the cache,
 * NUL-terminated, valid until sysroot_close(). */
static int read_ref(struct sysroot *sr, const char *path, const char **buf, size_t *lenp, int rec)
{
	struct sr_entry *e = entry_for(sr, path);
	if (!e)
		return -ENOENT;
	if (!e->has_file) {
		/* Not in its directory's listing: missing, and its directory
		 * is known. */
		int l = sr_listed(sr, path);
		size_t len = 0;
		e->file_err = l == LISTED_NO ? -ENOENT : read_now(sr, path, &e->buf, &len, 1);
		e->len = (uint32_t)len;   /* at most SR_MAX_FILE */
		e->has_file = 1;
	}
	if (e->file_err < 0)
		return e->file_err;
	if (rec && !e->recorded) {
		sr_record(sr, path);
		e->recorded = 1;
	}
	*buf = e->buf;
	*lenp = e->len;
	return 0;
}

static int read_file(struct sysroot *sr, const char *path, char **buf, size_t *lenp, int rec)
{
	const char *b;
	size_t len;
	int r = read_ref(sr, path, &b, &len, rec);
	if (r < 0)
		return r;
	*buf = xmalloc(len + 1);
	memcpy(*buf, b, len + 1);
	if (lenp)
		*lenp = len;
	return 0;
}

int sr_read(struct sysroot *sr, const char *path, char **buf, size_t *lenp)
{
	return read_file(sr, path, buf, lenp, 1);
}

int sr_read_view(struct sysroot *sr, const char *path, const char **buf, size_t *lenp)
{
	size_t len;
	int r = read_ref(sr, path, buf, &len, 1);
	if (r == 0 && lenp)
		*lenp = len;
	return r;
}

int sr_read_unrecorded(struct sysroot *sr, const char *path, char **buf, size_t *lenp)
{
	return read_file(sr, path, buf, lenp, 0);
}

int sr_read_fresh(struct sysroot *sr, const char *path, char **buf, size_t *lenp)
{
	size_t len;
	int r = read_now(sr, path, buf, &len, 0);
	if (r == 0 && lenp)
		*lenp = len;
	return r;
}

/* sr_read_str() of the cached bytes into out (n bytes); -E2BIG when the
 * first line does not fit (a number's does). */
static int first_line(struct sysroot *sr, const char *path, char *out, size_t n)
{
	const char *b, *nl;
	size_t len, l;
	char *p;
	int r = read_ref(sr, path, &b, &len, 1);
	if (r < 0)
		return r;
	if (memchr(b, '\0', len))   /* binary, not a sysfs value */
		return -EINVAL;
	nl = memchr(b, '\n', len);
	l = nl ? (size_t)(nl - b) : len;
	if (l >= n)
		return -E2BIG;
	memcpy(out, b, l);
	out[l] = '\0';
	/* A value with NUL bytes or other control characters is garbage. */
	for (p = out; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return -EINVAL;
	strsquash(out);
	return 0;
}

int sr_read_str(struct sysroot *sr, const char *path, char **out)
{
	char small[256], *b;
	const char *c;
	size_t len;
	int r = first_line(sr, path, small, sizeof(small));
	if (r == 0)
		*out = xstrdup(small);
	if (r != -E2BIG)
		return r;
	r = read_ref(sr, path, &c, &len, 1);
	if (r < 0)
		return r;
	b = xmalloc(len + 1);
	r = first_line(sr, path, b, len + 1);
	if (r < 0) {
		free(b);
		return r;
	}
	*out = b;
	return 0;
}

int sr_read_u64(struct sysroot *sr, const char *path, uint64_t *v)
{
	char *s, small[256];
	int r = first_line(sr, path, small, sizeof(small));
	if (r == 0)
		return parse_u64(small, v);
	if (r != -E2BIG)
		return r;
	r = sr_read_str(sr, path, &s);
	if (r < 0)
		return r;
	r = parse_u64(s, v);
	free(s);
	return r;
}

int sr_read_s64(struct sysroot *sr, const char *path, int64_t *v)
{
	char *s, small[256];
	int r = first_line(sr, path, small, sizeof(small));
	if (r == 0)
		return parse_s64(small, v);
	if (r != -E2BIG)
		return r;
	r = sr_read_str(sr, path, &s);
	if (r < 0)
		return r;
	r = parse_s64(s, v);
	free(s);
	return r;
}

/* A regular file inside the root, opened for reads the caller bounds
 * itself (PCI config space: a VM traps every dword read).  Not recorded. */
int sr_open_file(struct sysroot *sr, const char *path)
{
	struct stat st;
	int fd = sr_open_in_root(sr, path, O_RDONLY | O_NONBLOCK | O_NOCTTY), e;
	if (fd < 0)
		return view_refusal(sr, path, errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		e = (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) ? -EISDIR : -ENODEV;
		close(fd);
		return e;
	}
	return fd;
}

static int read_set(struct sysroot *sr, const char *path, hwloc_bitmap_t set,
		    int (*parse)(const char *, hwloc_bitmap_t))
{
	const char *s;
	size_t len;
	int r = read_ref(sr, path, &s, &len, 1);
	if (r < 0)
		return r;
	/* The parse stops at the first NUL, as the kernel's bitmap_parselist()
	 * and hwloc do: kernels 5.14-5.15 print "0-31\n\0" in these files
	 * (cpumap_print_to_pagebuf() counting the terminator) and
	 * hwloc-gather-topology captures keep the byte. */
	return parse(s, set);
}

int sr_read_cpulist(struct sysroot *sr, const char *path, hwloc_bitmap_t set)
{
	return read_set(sr, path, set, parse_cpulist);
}

int sr_read_cpumask(struct sysroot *sr, const char *path, hwloc_bitmap_t set)
{
	return read_set(sr, path, set, parse_cpumask);
}

int sr_exists(struct sysroot *sr, const char *path)
{
	struct sr_entry *e = sr_cache_find(sr, path);
	struct stat st;
	int fd;
	if (e && ((e->has_file && (e->file_err == 0 || e->file_err == -EISDIR)) ||
		  (e->has_list && e->list_err == 0) || e->dir > 0 || e->exists > 0))
		return 1;
	if (e && ((e->has_file && e->file_err == -ENOENT) || (e->has_list && e->list_err == -ENOENT) ||
		  e->dir < 0 || e->exists < 0))
		return 0;
	if (ancestor_missing(sr, path))
		return 0;
	switch (sr_listed(sr, path)) {
	case LISTED_NO: return 0;
	case LISTED_REG: case LISTED_DIR: return 1;
	default: break;
	}
	if (sr->live)   /* one stat(), no descriptor to open and close */
		return stat(path, &st) == 0;
	fd = sr_open_in_root(sr, path, O_PATH);
	if (fd >= 0)
		close(fd);
	if ((e = entry_for(sr, path)))
		e->exists = fd >= 0 ? 1 : -1;
	return fd >= 0;
}

int sr_is_dir(struct sysroot *sr, const char *path)
{
	struct sr_entry *e = sr_cache_find(sr, path);
	struct stat st;
	int fd = -1, r, l;
	if (e && ((e->has_list && e->list_err == 0) || (e->has_file && e->file_err == -EISDIR) || e->dir > 0))
		return 1;
	if (e && ((e->has_file && (e->file_err == 0 || e->file_err == -ENOENT)) || e->dir < 0))
		return 0;
	if (ancestor_missing(sr, path))
		return 0;
	l = sr_listed(sr, path);
	if (sr->live)
		r = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	else if (l == LISTED_NO || l == LISTED_REG || l == LISTED_DIR)
		r = l == LISTED_DIR;
	else {
		fd = sr_open_in_root(sr, path, O_PATH | O_DIRECTORY);
		r = fd >= 0;
	}
	if (fd >= 0)
		close(fd);
	e = sr_cache_get(sr, path);
	e->dir = r ? 1 : -1;
	return r;
}

/* The entries of dir: open, getdents64 until it returns 0 (a DIR stream
 * would add an fstat and two fcntl calls a directory), close. */
static int list_now(struct sysroot *sr, const char *dir, char ***names, size_t *n)
{
	char buf[32768] __attribute__((aligned(8)));
	size_t cnt = 0, alloc = 0;
	char **v = NULL;
	int fd = sr_open_in_root(sr, dir, O_RDONLY | O_DIRECTORY);
	*names = NULL;
	*n = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got = getdents64(fd, buf, sizeof(buf)), off;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			sr_free_typed(v, cnt);
			close(fd);
			return -e;
		}
		if (got == 0)
			break;
		for (off = 0; off < got;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);
			off += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (cnt >= (1u << 20))
				break;
			if (cnt == alloc) {
				alloc = alloc ? alloc * 2 : 32;
				v = xrealloc(v, alloc * sizeof(*v));
			}
			v[cnt++] = sr_typed_name(de->d_name, de->d_type);
		}
		if (cnt >= (1u << 20))
			break;
	}
	close(fd);
	if (cnt)
		qsort(v, cnt, sizeof(*v), sr_natcmp);
	*names = v;
	*n = cnt;
	return 0;
}

int sr_list(struct sysroot *sr, const char *dir, char ***names, size_t *n)
{
	struct sr_entry *e = entry_for(sr, dir);
	size_t i;
	*names = NULL;
	*n = 0;
	if (!e)
		return -ENOENT;
	if (!e->has_list) {
		struct sr_listing ls = { NULL, 0 };
		e->list_err = list_now(sr, dir, &ls.names, &ls.n);
		e->has_list = 1;
		if (e->list_err == 0)
			e->ls = memcpy(sr_cache_alloc(sr, sizeof(ls)), &ls, sizeof(ls));
	}
	if (e->list_err < 0)
		return e->list_err;
	if (e->ls && e->ls->n) {
		*names = xmalloc(e->ls->n * sizeof(**names));
		for (i = 0; i < e->ls->n; i++)
			(*names)[i] = xstrdup(e->ls->names[i]);
	}
	*n = e->ls ? e->ls->n : 0;
	return 0;
}

void sr_free_list(char **names, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int sr_readlink(struct sysroot *sr, const char *path, char **out)
{
	char buf[4096];
	ssize_t r;
	if (sr->live)
		r = readlink(path, buf, sizeof(buf) - 1);
	else
		r = readlinkat(sr->rootfd, sr_rel(path), buf, sizeof(buf) - 1);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	*out = xstrdup(buf);
	return 0;
}

int sr_readlink_recorded(struct sysroot *sr, const char *path, char **out)
{
	int r = sr_readlink(sr, path, out);
	if (r == 0)
		sr_record(sr, path);
	return r;
}
