/* read/sysroot.c - re-rooted, bounded, recorded reads of sysfs and procfs */
#include "config.h"
#include "read/sysroot.h"
#include "lib/tempdir.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_SYS_SYSCALL_H
#include <sys/syscall.h>
#endif
#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif

extern char **environ;

static void cache_free(struct sysroot *sr);
static int natcmp(const void *pa, const void *pb);

/*** Opening and closing ***/

static int is_archive(const char *p)
{
	return str_endswith(p, ".tar") || str_endswith(p, ".tar.gz") || str_endswith(p, ".tgz") ||
	       str_endswith(p, ".tar.xz") || str_endswith(p, ".txz") || str_endswith(p, ".tar.bz2");
}

/*
 * Unpacking an archive.  tar never sees the archive's name (so "host:x.tgz"
 * is a file, never a remote tape) and never decompresses by itself: the
 * stream is decompressed by gzip/xz/bzip2 into a pipe we read, and we pass
 * it on to `tar -x -f -` while walking its headers, so that an archive whose
 * members add up to more than SR_MAX_UNPACK_BYTES, or hold more than
 * SR_MAX_UNPACK_FILES entries, is refused before that much is written (an
 * 80 KB .tar.xz can hold 500 MB of zeros).  Their chatter goes to
 * /dev/null: the one line is ours.
 */
struct tarscan {
	unsigned char hdr[512];
	size_t hlen;            /* bytes of the header gathered so far */
	uint64_t skip;          /* data bytes (padded) still to pass */
	uint64_t bytes, files;  /* member sizes and entries so far */
	uint64_t stream;        /* tar bytes up to the end-of-archive blocks */
	char pax[4096];         /* a pax extended header's records */
	size_t paxlen, paxwant;
	int64_t pax_size;       /* size= from a pax header, for the next member */
	int end, bad;
};

static uint64_t tar_num(const unsigned char *f, size_t n)
{
	uint64_t v = 0;
	size_t i = 0;
	if (f[0] & 0x80) {   /* base-256 (GNU, for sizes of 8 GiB and more) */
		for (i = 1; i < n; i++)
			v = v > (UINT64_MAX >> 8) ? UINT64_MAX : (v << 8) | f[i];
		return v;
	}
	while (i < n && (f[i] == ' ' || f[i] == '\0'))
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++)
		v = v > (UINT64_MAX >> 3) ? UINT64_MAX : (v << 3) | (uint64_t)(f[i] - '0');
	return v;
}

static void pax_records(struct tarscan *ts)
{
	const char *p = ts->pax, *e = ts->pax + ts->paxlen;
	while (p < e) {
		char *end;
		unsigned long len = strtoul(p, &end, 10);
		if (!len || end >= e || *end != ' ' || len > (size_t)(e - p))
			return;
		if (!strncmp(end + 1, "size=", 5))
			ts->pax_size = (int64_t)strtoull(end + 6, NULL, 10);
		p += len;
	}
}

static void tar_header(struct tarscan *ts)
{
	const unsigned char *h = ts->hdr;
	unsigned sum = 0, i;
	uint64_t size;
	char type = (char)h[156];
	for (i = 0; i < 512 && !h[i]; i++)
		;
	if (i == 512) {   /* a zero block ends the archive */
		ts->end = 1;
		return;
	}
	for (i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	if (sum != tar_num(h + 148, 8)) {
		ts->bad = 1;
		return;
	}
	size = tar_num(h + 124, 12);
	if (ts->pax_size >= 0 && type != 'x' && type != 'g') {
		size = (uint64_t)ts->pax_size;
		ts->pax_size = -1;
	}
	/* Links, devices and FIFOs carry no data. */
	if (type == '1' || type == '2' || type == '3' || type == '4' || type == '6')
		size = 0;
	ts->files++;
	ts->bytes += size;
	ts->skip = (size + 511) / 512 * 512;
	ts->paxlen = 0;
	ts->paxwant = 0;
	if (type == 'x') {
		if (size > sizeof(ts->pax))
			ts->bad = 1;
		ts->paxwant = (size_t)size;
	}
}

/* Walk n bytes of the stream; the number of them that belong to the
 * archive (all of them, unless its end-of-archive block came first). */
static size_t tar_scan(struct tarscan *ts, const unsigned char *p, size_t n)
{
	size_t n0 = n;
	while (n > 0 && !ts->end && !ts->bad) {
		if (ts->skip) {
			size_t k = n < ts->skip ? n : (size_t)ts->skip;
			if (ts->paxlen < ts->paxwant) {
				size_t c = ts->paxwant - ts->paxlen < k ? ts->paxwant - ts->paxlen : k;
				memcpy(ts->pax + ts->paxlen, p, c);
				ts->paxlen += c;
				if (ts->paxlen == ts->paxwant)
					pax_records(ts);
			}
			ts->skip -= k;
			p += k;
			n -= k;
			continue;
		}
		{
			size_t k = 512 - ts->hlen < n ? 512 - ts->hlen : n;
			memcpy(ts->hdr + ts->hlen, p, k);
			ts->hlen += k;
			p += k;
			n -= k;
			if (ts->hlen == 512) {
				ts->hlen = 0;
				tar_header(ts);
			}
		}
	}
	ts->stream += n0 - n;
	return n0 - n;
}

static int spawn_quiet(pid_t *pid, char *const argv[], int in, int out)
{
	posix_spawn_file_actions_t fa;
	int r;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r == 0)
		tmpdir_child(*pid, 1);
	return r;
}

static int reap(pid_t pid)
{
	int st;
	if (pid <= 0)
		return 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			tmpdir_child(pid, 0);
			return -1;
		}
	tmpdir_child(pid, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* One pass over the archive's tar stream, decompressed by dec (NULL: none)
 * and scanned; written to `tar -x` into dir when dir is not NULL.  The
 * pass ends at the end-of-archive block, as tar's own reading does: what
 * follows (padding, or gigabytes of zeros) is neither decompressed further
 * nor passed on; tar is given the two zero blocks that end an archive.
 * 0, -1 (unreadable: *why says what), -2 (over the caps) or -3 (the
 * stream over SR_MAX_UNPACK_STREAM). */
static int unpack_pass(int afd, const char *dec, const char *dir, struct tarscan *ts, const char **why)
{
	char *tar_argv[] = { "tar", "-x", "-f", "-", "-C", (char *)dir, "--no-same-owner",
			     "--no-same-permissions", "--delay-directory-restore", NULL };
	char *dec_argv[] = { (char *)dec, "-dc", NULL };
	static unsigned char buf[65536 + 512];   /* room for the second end block */
	struct sigaction ign, oldpipe;
	pid_t dpid = 0, tpid = 0;
	int src = afd, topipe[2] = { -1, -1 }, from[2] = { -1, -1 }, fail = 0;

	memset(ts, 0, sizeof(*ts));
	ts->pax_size = -1;
	if (lseek(afd, 0, SEEK_SET) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (dec) {
		if (pipe2(from, O_CLOEXEC) < 0) {
			*why = strerror(errno);
			return -1;
		}
		if (spawn_quiet(&dpid, dec_argv, afd, from[1]) != 0) {
			*why = !strcmp(dec, "gzip") ? "gzip not found" : !strcmp(dec, "xz") ? "xz not found"
											 : "bzip2 not found";
			dpid = 0;
			fail = -1;
		}
		close(from[1]);
		src = from[0];
	}
	if (!fail && dir) {
		if (pipe2(topipe, O_CLOEXEC) < 0) {
			*why = strerror(errno);
			fail = -1;
		} else {
			if (spawn_quiet(&tpid, tar_argv, topipe[0], -1) != 0) {
				*why = "tar not found";
				tpid = 0;
				fail = -1;
			}
			close(topipe[0]);
		}
	}
	/* A tar that gives up closes its end: EPIPE, not a signal.  Its exit
	 * status says why; the rest of the stream is drained so that the
	 * decompressor ends normally. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &oldpipe);
	while (!fail && !ts->end) {
		ssize_t r = read(src, buf, sizeof(buf) - 512), w = 0;
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		r = (ssize_t)tar_scan(ts, buf, (size_t)r);
		if (ts->bad) {
			*why = "not a readable tar archive";
			fail = -1;
		} else if (ts->bytes > SR_MAX_UNPACK_BYTES || ts->files > SR_MAX_UNPACK_FILES)
			fail = -2;
		else if (ts->stream > SR_MAX_UNPACK_STREAM)
			fail = -3;
		if (fail)
			break;
		if (ts->end) {   /* the end block, then a second one for tar */
			memset(buf + r, 0, 512);
			r += 512;
		}
		while (topipe[1] >= 0 && w < r) {
			ssize_t k = write(topipe[1], buf + w, (size_t)(r - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(topipe[1]);
				topipe[1] = -1;
			} else
				w += k;
		}
	}
	if (topipe[1] >= 0)
		close(topipe[1]);
	sigaction(SIGPIPE, &oldpipe, NULL);
	if (fail) {
		if (dpid > 0)
			kill(dpid, SIGKILL);
		if (tpid > 0)
			kill(tpid, SIGKILL);
	} else if (ts->end && dpid > 0)
		/* Whatever the decompressor still holds is past the end. */
		kill(dpid, SIGKILL);
	if (src != afd)
		close(src);
	{
		int dbad = reap(dpid) < 0 && !ts->end, tbad = reap(tpid) < 0;
		if ((dbad || tbad) && !fail) {
			*why = "not a readable tar archive";
			fail = -1;
		}
	}
	return fail;
}

static int unpack(const char *archive, const char *dir)
{
	unsigned char magic[6] = { 0 };
	const char *dec = NULL, *why = "not a readable tar archive";
	struct tarscan *ts = xmalloc(sizeof(*ts));
	struct stat st;
	int afd, r;

	afd = open(archive, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (afd < 0) {
		free(ts);
		return error("cannot unpack '%s': %s", archive, strerror(errno));
	}
	if (fstat(afd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(afd);
		free(ts);
		return error("cannot unpack '%s': not a regular file", archive);
	}
	if ((uint64_t)st.st_size > SR_MAX_UNPACK_STREAM) {
		close(afd);
		free(ts);
		return error("cannot unpack '%s': the archive is larger than %u MiB; refusing", archive,
			     SR_MAX_UNPACK_STREAM >> 20);
	}
	if (pread(afd, magic, sizeof(magic), 0) < 0)
		memset(magic, 0, sizeof(magic));
	if (magic[0] == 0x1f && magic[1] == 0x8b)
		dec = "gzip";
	else if (!memcmp(magic, "\xfd" "7zXZ", 6))
		dec = "xz";
	else if (!memcmp(magic, "BZh", 3))
		dec = "bzip2";
	/* First read it through without writing anything: a bomb is refused
	 * before a byte of it reaches TMPDIR.  Then unpack it, bounded again
	 * (the file may have changed in between). */
	r = unpack_pass(afd, dec, NULL, ts, &why);
	if (r == 0)
		r = unpack_pass(afd, dec, dir, ts, &why);
	close(afd);
	free(ts);
	if (r == -2)
		return error("cannot unpack '%s': it holds more than %u MiB or %u files; refusing",
			     archive, SR_MAX_UNPACK_BYTES >> 20, SR_MAX_UNPACK_FILES);
	if (r == -3)
		return error("cannot unpack '%s': its tar stream runs past %u MiB before the end of the "
			     "archive; refusing", archive, SR_MAX_UNPACK_STREAM >> 20);
	if (r < 0)
		return error("cannot unpack '%s': %s", archive, why);
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
		if (!is_archive(dir))
			return error("cannot use sysroot '%s': not a directory or a .tar[.gz|.xz|.bz2] archive", dir);
		t = tmpdir_make(NULL, "nodeaudit-sysroot");
		if (!t)
			return error("cannot create a temporary directory: %s", strerror(errno));
		sr->tmpdir = t;
		if (unpack(dir, t) < 0) {
			sysroot_close(sr);
			return -1;
		}
		sr->root = xstrdup(t);
		/* An archive holding one top-level directory (as hwloc's and
		 * util-linux's test dumps do) has its sysroot inside it. */
		descend_single_dir(sr);
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
	cache_free(sr);
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

/*** Low-level opening ***/

static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

/*
 * What openat2(RESOLVE_IN_ROOT) does, by hand, for kernels without it
 * (before 5.6) or a seccomp filter that refuses it: each component opened
 * with O_NOFOLLOW below the part already resolved (directories only, no
 * link among them), a link's text resolved against the root (absolute) or
 * its own directory, ".." stopping at the root.  Racing renames inside the
 * sysroot could still mislead it; nothing else can.
 */
static int open_in_root(int rootfd, const char *path, int flags)
{
	struct strbuf cur = STRBUF_INIT;
	char *todo = xstrdup(path), *p = todo;
	int links = 0, fd = -1, e = 0;
	for (;;) {
		size_t n;
		struct stat st;
		char *cand;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			strbuf_drop_component(&cur);
			p += n;
			continue;
		}
		cand = xasprintf("%s%s%.*s", cur.len ? cur.buf : "", cur.len ? "/" : "", (int)n, p);
		fd = openat(rootfd, cand, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			e = errno;
			free(cand);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[4096], *rest;
			ssize_t r = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			fd = -1;
			free(cand);
			if (r < 0 || ++links > 40) {
				e = r < 0 ? errno : ELOOP;
				break;
			}
			target[r] = '\0';
			rest = xasprintf("%s/%s", target, p + n);
			if (target[0] == '/')
				strbuf_release(&cur);
			free(todo);
			todo = p = rest;
			continue;
		}
		close(fd);
		fd = -1;
		p += n;
		while (*p == '/')
			p++;
		if (*p && !S_ISDIR(st.st_mode)) {
			e = ENOTDIR;
			free(cand);
			break;
		}
		strbuf_release(&cur);
		strbuf_addstr(&cur, cand);
		free(cand);
	}
	if (!e) {
		fd = openat(rootfd, cur.len ? cur.buf : ".", flags | O_NOFOLLOW | O_CLOEXEC);
		e = fd < 0 ? errno : 0;
	}
	strbuf_release(&cur);
	free(todo);
	errno = e;
	return e ? -1 : fd;
}

/* 1 when openat2 is not to be used: NODEAUDIT_NO_OPENAT2 (the test
 * suite: the walk by hand is what a kernel without openat2 gets), or the
 * kernel or a seccomp filter refused it once. */
static int no_openat2 = -1;

static int openat2_off(void)
{
	if (no_openat2 < 0)
		no_openat2 = getenv("NODEAUDIT_NO_OPENAT2") != NULL;
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
	return no_openat2;
#else
	return 1;
#endif
}

/* Open path inside the root; symlinks resolve inside it, never outside. */
static int sr_openat(struct sysroot *sr, const char *path, int flags)
{
	if (sr->live)
		return open(path, flags | O_CLOEXEC);
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
	if (!openat2_off()) {
		struct open_how how;
		int fd;
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(flags | O_CLOEXEC);
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		/* EAGAIN: a rename or a mount anywhere on the system raced with
		 * a ".." of the path (a sysfs link's "../../devices/...") and
		 * the kernel could not vouch for it; openat2(2) says to retry.
		 * Other processes' renames (-o) and mounts (hwloc's fence) make
		 * it happen; after the retries, the walk by hand answers. */
		for (int tries = 0; tries < 32; tries++) {
			fd = (int)syscall(SYS_openat2, sr->rootfd, rel(path), &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EAGAIN))
			return fd;
		if (errno != EAGAIN)
			no_openat2 = 1;   /* old kernel or seccomp filter: fall back */
	}
#endif
	return open_in_root(sr->rootfd, rel(path), flags);
}

static void record(struct sysroot *sr, const char *path)
{
	if (sr->nread == sr->aread) {
		sr->aread = sr->aread ? sr->aread * 2 : 256;
		sr->read = xrealloc(sr->read, sr->aread * sizeof(*sr->read));
	}
	sr->read[sr->nread++] = xstrdup(path);
}

/*** The run's cache: each path read (or listed) once ***/

struct sr_entry {
	struct sr_entry *next;
	char *path;
	size_t hash;              /* hash_path(path): compared before the paths */
	unsigned has_file : 1, has_list : 1, recorded : 1;
	unsigned used : 1;        /* its dirfd opened a file since the clock passed */
	signed dir : 2;           /* 1 a directory, -1 missing, 0 not asked */
	int dirfd;                /* the directory's kept descriptor, or -1 */
	int file_err, list_err;   /* 0 or the negative errno the read ended with */
	char *buf;                /* the file, NUL-terminated */
	size_t len;
	char **names;             /* the directory, sorted; names[i][-1] is its d_type */
	size_t n;
};

/*
 * Directories whose descriptor the run keeps, so that a file below one is
 * opened relative to it (a walk of a name or two instead of eight from the
 * root): the last SR_DIRFDS directories opened by sr_is_dir() or sr_list()
 * (a missing file's parent is asked with sr_is_dir()), the oldest closed
 * first.  A probe reads a CPU's files together, so a few are enough.
 */
#define SR_DIRFDS 64

struct sr_cache {
	struct sr_entry **b;
	size_t nb, count;
	struct sr_entry *ring[SR_DIRFDS];   /* the entries holding a dirfd */
	size_t ringpos;
};

#define FNV_OFFSET (14695981039346656037ull & SIZE_MAX)
#define FNV_PRIME ((size_t)1099511628211ull)

static size_t hash_path(const char *s)
{
	size_t h = FNV_OFFSET;   /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * FNV_PRIME;
	return h;
}

static size_t hash_path_n(const char *s, size_t n)
{
	size_t h = FNV_OFFSET;
	while (n--)
		h = (h ^ (unsigned char)*s++) * FNV_PRIME;
	return h;
}

/* A listing's names carry their d_type in the byte before them. */
static char *typed_name(const char *name, unsigned char type)
{
	size_t n = strlen(name);
	char *b = xmalloc(n + 2);
	b[0] = (char)type;
	memcpy(b + 1, name, n + 1);
	return b + 1;
}

static void free_typed(char **names, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(names[i] - 1);
	free(names);
}

static struct sr_entry *cache_get(struct sysroot *sr, const char *path)
{
	struct sr_cache *c = sr->cache;
	struct sr_entry *e;
	size_t h;
	if (!c) {
		c = sr->cache = xcalloc(1, sizeof(*c));
		c->nb = 256;
		c->b = xcalloc(c->nb, sizeof(*c->b));
	}
	h = hash_path(path);
	for (e = c->b[h & (c->nb - 1)]; e; e = e->next)
		if (e->hash == h && !strcmp(e->path, path))
			return e;
	if (c->count >= c->nb) {   /* grow: keep chains short on 4096-CPU trees */
		size_t nb = c->nb * 4, i;
		struct sr_entry **b = xcalloc(nb, sizeof(*b)), *next;
		for (i = 0; i < c->nb; i++)
			for (e = c->b[i]; e; e = next) {
				next = e->next;
				e->next = b[e->hash & (nb - 1)];
				b[e->hash & (nb - 1)] = e;
			}
		free(c->b);
		c->b = b;
		c->nb = nb;
	}
	e = xcalloc(1, sizeof(*e));
	e->path = xstrdup(path);
	e->hash = h;
	e->dirfd = -1;
	e->next = c->b[h & (c->nb - 1)];
	c->b[h & (c->nb - 1)] = e;
	c->count++;
	return e;
}

/* The cached entry of path, or NULL: never creates one. */
static struct sr_entry *cache_find(struct sysroot *sr, const char *path)
{
	struct sr_entry *e;
	size_t h;
	if (!sr->cache)
		return NULL;
	h = hash_path(path);
	for (e = sr->cache->b[h & (sr->cache->nb - 1)]; e; e = e->next)
		if (e->hash == h && !strcmp(e->path, path))
			return e;
	return NULL;
}

/* The entry of path's first n bytes, whose hash is h, or NULL. */
static struct sr_entry *cache_find_n(struct sysroot *sr, const char *path, size_t n, size_t h)
{
	struct sr_entry *e;
	for (e = sr->cache->b[h & (sr->cache->nb - 1)]; e; e = e->next)
		if (e->hash == h && !strncmp(e->path, path, n) && e->path[n] == '\0')
			return e;
	return NULL;
}

/* The directories deeper than this are not looked up above a path. */
#define SR_DEPTH 64

/*
 * What the cache knows of the directories above path, nearest first: 1
 * when one is known to be missing (then so is path, and no system call
 * needs to say it), else 0; with near, also the nearest one whose
 * descriptor is kept (*near, NULL when none) and path below it (*rest).
 * One pass hashes every prefix: FNV-1a runs left to right.
 */
static int above(struct sysroot *sr, const char *path, struct sr_entry **near, const char **rest)
{
	size_t hs[SR_DEPTH], ns[SR_DEPTH], k = 0, i, h = FNV_OFFSET;
	const char *p;
	int exists = 0;
	if (near)
		*near = NULL;
	if (!sr->cache)
		return 0;
	for (p = path; *p && k < SR_DEPTH; p++) {
		if (*p == '/' && p > path) {
			hs[k] = h;
			ns[k++] = (size_t)(p - path);
		}
		h = (h ^ (unsigned char)*p) * FNV_PRIME;
	}
	for (i = k; i-- > 0;) {
		struct sr_entry *e = cache_find_n(sr, path, ns[i], hs[i]);
		if (!e)
			continue;
		if (!exists && (e->dir < 0 || (e->has_list && e->list_err == -ENOENT)))
			return 1;
		if (e->dir > 0 || (e->has_list && e->list_err == 0) || e->dirfd >= 0)
			exists = 1;   /* so do those above it */
		if (near && e->dirfd >= 0 && path[ns[i] + 1]) {
			*near = e;
			*rest = path + ns[i] + 1;
			return 0;
		}
		if (exists && !near)
			return 0;
	}
	return 0;
}

/*
 * What the run's listing of path's directory says of path: LISTED_NO when
 * the name is not in it (then path is missing: no system call needs to
 * say it), LISTED_REG, LISTED_DIR or LISTED_OTHER (a link, a FIFO, a type
 * the file system does not give) by its d_type, LISTED_UNKNOWN where the
 * directory was not listed whole.  Sysroots only: a tree of files lists
 * every name it holds, where /proc does not list its threads.
 */
enum { LISTED_UNKNOWN = -1, LISTED_NO, LISTED_REG, LISTED_DIR, LISTED_OTHER };

static int listed(struct sysroot *sr, const char *path)
{
	const char *slash = strrchr(path, '/'), *name;
	struct sr_entry *d;
	size_t lo, hi, n;
	if (sr->live || !sr->cache || !slash || slash == path || !slash[1])
		return LISTED_UNKNOWN;
	name = slash + 1;
	n = (size_t)(slash - path);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return LISTED_UNKNOWN;
	d = cache_find_n(sr, path, n, hash_path_n(path, n));
	if (!d || !d->has_list || d->list_err || d->n >= (1u << 20))
		return LISTED_UNKNOWN;
	/* Natural order holds names it calls equal ("cpu01", "cpu1") side by
	 * side: find one, then look at its equals. */
	for (lo = 0, hi = d->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int c = natcmp(&name, &d->names[mid]);
		if (c == 0) {
			lo = mid;
			while (lo > 0 && natcmp(&name, &d->names[lo - 1]) == 0)
				lo--;
			for (; lo < d->n && natcmp(&name, &d->names[lo]) == 0; lo++)
				if (!strcmp(name, d->names[lo])) {
					unsigned char t = (unsigned char)d->names[lo][-1];
					return t == DT_REG ? LISTED_REG : t == DT_DIR ? LISTED_DIR : LISTED_OTHER;
				}
			break;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return LISTED_NO;
}

/* Keep fd, a descriptor of e's directory, for the files below it (only
 * where openat2 resolves them: the walk by hand starts from the root). */
static void keep_dirfd(struct sysroot *sr, struct sr_entry *e, int fd)
{
	struct sr_cache *c = sr->cache;
	struct sr_entry **slot;
	if (sr->live || openat2_off() || e->dirfd >= 0) {
		close(fd);
		return;
	}
	/* A clock: a directory used since the hand last passed it (the CPU
	 * directory above every cpuN) gets another round. */
	for (;;) {
		slot = &c->ring[c->ringpos];
		c->ringpos = (c->ringpos + 1) % SR_DIRFDS;
		if (!*slot || !(*slot)->used)
			break;
		(*slot)->used = 0;
	}
	if (*slot) {
		close((*slot)->dirfd);
		(*slot)->dirfd = -1;
	}
	*slot = e;
	e->dirfd = fd;
}

/*
 * Open path inside the root, below the nearest directory whose descriptor
 * is kept where there is one: openat2 RESOLVE_BENEATH from it walks the
 * same names RESOLVE_IN_ROOT would walk from the root after reaching it,
 * and refuses (EXDEV) where that walk would leave the directory (a "..",
 * an absolute link); such a path, and any failure but a missing name, is
 * opened again from the root, so the answer is the root's.
 */
static int open_near(struct sysroot *sr, const char *path, int flags)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
	struct sr_entry *d;
	const char *rest;
	if (!sr->live && !openat2_off() && above(sr, path, &d, &rest) == 0 && d) {
		struct open_how how;
		int fd = -1, tries;
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(flags | O_CLOEXEC);
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		for (tries = 0; tries < 32; tries++) {
			fd = (int)syscall(SYS_openat2, d->dirfd, rest, &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd >= 0 || errno == ENOENT || errno == ENOTDIR) {
			d->used = 1;
			sr->near++;
			return fd;
		}
	}
#endif
	return sr_openat(sr, path, flags);
}

static void cache_free(struct sysroot *sr)
{
	struct sr_cache *c = sr->cache;
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->nb; i++) {
		struct sr_entry *e = c->b[i], *next;
		for (; e; e = next) {
			next = e->next;
			if (e->dirfd >= 0)
				close(e->dirfd);
			free(e->path);
			free(e->buf);
			free_typed(e->names, e->n);
			free(e);
		}
	}
	free(c->b);
	free(c);
	sr->cache = NULL;
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

/* The file now, in the fewest system calls: open, read, close for a sysfs
 * attribute or a sysctl; open, read until 0, close for the rest of procfs;
 * open, fstat (regular files only), read, close in a sysroot, where a short
 * read of a regular file is its end. */
static int read_now(struct sysroot *sr, const char *path, char **bufp, size_t *lenp)
{
	struct stat st;
	/* The first read goes to the stack, and a value of a few bytes gets
	 * a copy of its size: a 4 KiB malloc() a file costs more than the
	 * read (glibc consolidates its free lists for each). */
	char first_buf[4096];
	size_t len = 0, alloc = sizeof(first_buf);
	char *b = first_buf;
	int short_eof, first = 1;
	int kfs = sr->live && (!strncmp(path, "/sys/", 5) || !strncmp(path, "/proc/", 6));
	int fd = open_near(sr, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
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
	}
	for (;;) {
		ssize_t r;
		size_t want;
		if (len + 1 >= alloc) {
			if (alloc > SR_MAX_FILE) {
				free(b);
				close(fd);
				sr->refused++;
				return -EFBIG;
			}
			alloc *= 2;
			b = b == first_buf ? memcpy(xmalloc(alloc), first_buf, len) : xrealloc(b, alloc);
		}
		want = alloc - len - 1;
		r = read(fd, b + len, want);
		if (r < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			if (b != first_buf)
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
		if (b != first_buf)
			free(b);
		sr->refused++;
		return -EFBIG;
	}
	b[len] = '\0';
	/* Kept for the run: most values are a few bytes, and a page each
	 * would be a page fault each (the freed tail serves the next ones). */
	if (b == first_buf)
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
	return above(sr, path, NULL, NULL);
}

/* After path was found missing: whether its directory is, asked once, so
 * that the other files of a missing directory (/sys/class/dmi/id on a
 * VM, cpuN/cpufreq without a cpufreq driver) cost nothing. */
static void note_parent(struct sysroot *sr, const char *path)
{
	char buf[4096];
	const char *slash = strrchr(path, '/');
	struct sr_entry *e;
	size_t n;
	if (!slash || slash == path || (n = (size_t)(slash - path)) >= sizeof(buf))
		return;
	memcpy(buf, path, n);
	buf[n] = '\0';
	e = cache_get(sr, buf);
	if (!e->dir && !e->has_list)
		e->dir = sr_is_dir(sr, buf) ? 1 : -1;
}

/* path's entry, made when new; NULL when a directory above it is known
 * to be missing (then so is path). */
static struct sr_entry *entry_for(struct sysroot *sr, const char *path)
{
	struct sr_entry *e = cache_find(sr, path);
	if (!e && ancestor_missing(sr, path))
		return NULL;
	return e ? e : cache_get(sr, path);
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
		int l = listed(sr, path);
		e->file_err = l == LISTED_NO ? -ENOENT : read_now(sr, path, &e->buf, &e->len);
		e->has_file = 1;
		if (e->file_err == -ENOENT && l != LISTED_NO)
			note_parent(sr, path);
	}
	if (e->file_err < 0)
		return e->file_err;
	if (rec && !e->recorded) {
		record(sr, path);
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

int sr_read_unrecorded(struct sysroot *sr, const char *path, char **buf, size_t *lenp)
{
	return read_file(sr, path, buf, lenp, 0);
}

int sr_read_fresh(struct sysroot *sr, const char *path, char **buf, size_t *lenp)
{
	size_t len;
	int r = read_now(sr, path, buf, &len);
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
	int fd = open_near(sr, path, O_RDONLY | O_NONBLOCK | O_NOCTTY), e;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		e = (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) ? -EISDIR : -ENODEV;
		close(fd);
		return e;
	}
	return fd;
}

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

int sr_exists(struct sysroot *sr, const char *path)
{
	struct sr_entry *e = cache_find(sr, path);
	struct stat st;
	int fd;
	if (e && ((e->has_file && (e->file_err == 0 || e->file_err == -EISDIR)) ||
		  (e->has_list && e->list_err == 0) || e->dir > 0))
		return 1;
	if (e && ((e->has_file && e->file_err == -ENOENT) || (e->has_list && e->list_err == -ENOENT) ||
		  e->dir < 0))
		return 0;
	if (ancestor_missing(sr, path))
		return 0;
	switch (listed(sr, path)) {
	case LISTED_NO: return 0;
	case LISTED_REG: case LISTED_DIR: return 1;
	default: break;
	}
	if (sr->live)   /* one stat(), no descriptor to open and close */
		return stat(path, &st) == 0;
	fd = open_near(sr, path, O_PATH);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int sr_is_dir(struct sysroot *sr, const char *path)
{
	struct sr_entry *e = cache_find(sr, path);
	struct stat st;
	int fd = -1, r, l;
	if (e && ((e->has_list && e->list_err == 0) || (e->has_file && e->file_err == -EISDIR) || e->dir > 0))
		return 1;
	if (e && ((e->has_file && (e->file_err == 0 || e->file_err == -ENOENT)) || e->dir < 0))
		return 0;
	if (ancestor_missing(sr, path))
		return 0;
	l = listed(sr, path);
	if (sr->live)
		r = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	else if (l == LISTED_NO || l == LISTED_REG || l == LISTED_DIR)
		r = l == LISTED_DIR;
	else {
		fd = open_near(sr, path, O_PATH | O_DIRECTORY);
		r = fd >= 0;
	}
	e = cache_get(sr, path);
	e->dir = r ? 1 : -1;
	if (fd >= 0)
		keep_dirfd(sr, e, fd);
	return r;
}

/* Natural order: digit runs compare as numbers, so cpu2 < cpu10. */
static int natcmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			{
				int c = strncmp(a, b, la);
				if (c)
					return c;
			}
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

/* The entries of dir: open, getdents64 until it returns 0 (a DIR stream
 * would add an fstat and two fcntl calls a directory); the descriptor is
 * left in *fdp for the caller to keep or close. */
static int list_now(struct sysroot *sr, const char *dir, char ***names, size_t *n, int *fdp)
{
	char buf[32768] __attribute__((aligned(8)));
	size_t cnt = 0, alloc = 0;
	char **v = NULL;
	int fd = open_near(sr, dir, O_RDONLY | O_DIRECTORY);
	*fdp = -1;
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
			free_typed(v, cnt);
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
			v[cnt++] = typed_name(de->d_name, de->d_type);
		}
		if (cnt >= (1u << 20))
			break;
	}
	*fdp = fd;
	if (cnt)
		qsort(v, cnt, sizeof(*v), natcmp);
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
		int fd;
		e->list_err = list_now(sr, dir, &e->names, &e->n, &fd);
		e->has_list = 1;
		if (fd >= 0)
			keep_dirfd(sr, e, fd);
	}
	if (e->list_err < 0)
		return e->list_err;
	if (e->n) {
		*names = xmalloc(e->n * sizeof(**names));
		for (i = 0; i < e->n; i++)
			(*names)[i] = xstrdup(e->names[i]);
	}
	*n = e->n;
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
		r = readlinkat(sr->rootfd, rel(path), buf, sizeof(buf) - 1);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	*out = xstrdup(buf);
	return 0;
}

