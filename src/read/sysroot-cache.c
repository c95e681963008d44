/* read/sysroot-cache.c - opening inside the root, and the run's cache of what was read */
#include "config.h"
#include "read/sysroot-internal.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_SYS_SYSCALL_H
#include <sys/syscall.h>
#endif
#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif
#ifdef HAVE_LINUX_MOUNT_H
#include <linux/mount.h>
#endif

/*** Low-level opening ***/

/*
 * A sysroot is someone else's files.  Where the kernel allows it, the run
 * reads it through a private view: a clone of the mount below its
 * directory (open_tree(2) OPEN_TREE_CLONE, submounts included), attached
 * nowhere, made read-only, nodev, nosuid and noexec (mount_setattr(2)),
 * whose descriptor becomes the root every file is opened from.  On that
 * view the kernel refuses to open a device node at all (EACCES), where
 * opening one and then refusing it by fstat() -- the only check without
 * the view -- has already armed a watchdog or rewound a tape by the time
 * the check runs.  It takes the right to mount (CAP_SYS_ADMIN: root,
 * which is who could open such a device in the first place); an
 * unprivileged run, a container without that right, a seccomp filter or
 * a kernel before 5.12 reads the directory itself, as before.
 * NODEAUDIT_NO_VIEW (test suite only) reads the directory itself.
 */
void sr_make_view(struct sysroot *sr)
{
#if defined(SYS_open_tree) && defined(SYS_mount_setattr) && defined(MOUNT_ATTR_NODEV) && \
	defined(OPEN_TREE_CLONE) && defined(AT_RECURSIVE)
	struct mount_attr a;
	int fd;
	if (sr->live || geteuid() != 0 || getenv("NODEAUDIT_NO_VIEW"))
		return;
	fd = (int)syscall(SYS_open_tree, sr->rootfd, "",
			  AT_EMPTY_PATH | AT_RECURSIVE | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0) {
		debug("read: no private view of '%s' (open_tree: %s)", sr->root, strerror(errno));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC;
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0) {
		debug("read: no private view of '%s' (mount_setattr: %s)", sr->root, strerror(errno));
		close(fd);
		return;
	}
	close(sr->rootfd);
	sr->rootfd = fd;
	sr->view = 1;
#else
	(void)sr;
#endif
}

const char *sr_rel(const char *path)
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
int sr_open_in_root(struct sysroot *sr, const char *path, int flags)
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
			fd = (int)syscall(SYS_openat2, sr->rootfd, sr_rel(path), &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EAGAIN))
			return fd;
		if (errno != EAGAIN)
			no_openat2 = 1;   /* old kernel or seccomp filter: fall back */
	}
#endif
	return open_in_root(sr->rootfd, sr_rel(path), flags);
}

void sr_record(struct sysroot *sr, const char *path)
{
	if (sr->nread == sr->aread) {
		sr->aread = sr->aread ? sr->aread * 2 : 256;
		sr->read = xrealloc(sr->read, sr->aread * sizeof(*sr->read));
	}
	sr->read[sr->nread++] = xstrdup(path);
}

/*** The run's cache: each path read (or listed) once ***/

/*
 * The entries, their paths and the files' contents live until
 * sysroot_close() and are never freed one by one: they are carved from
 * chunks of SR_CHUNK bytes, a value larger than a quarter of one gets a
 * block of its own.  Thousands of small malloc()s a run, each with its
 * header, were most of the pages the run touched (a first touch of a
 * page costs some 10 microseconds on a paravirtualised guest).
 */
#define SR_CHUNK (64u << 10)

struct sr_chunk {
	struct sr_chunk *next;
	size_t used, size;
	int mapped;               /* mmap()ed (a chunk), else malloc()ed (a large value) */
	max_align_t data[];
};

/* A chunk, its pages populated at once (MAP_POPULATE): one system call
 * maps the 16 pages that a run's cache fills anyway, where touching them
 * one by one took a page fault each (about 10 us each on a
 * paravirtualised guest, twice what populating costs there). */
static struct sr_chunk *chunk_new(void)
{
	struct sr_chunk *k = mmap(NULL, sizeof(*k) + SR_CHUNK, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (k == MAP_FAILED) {
		k = xmalloc(sizeof(*k) + SR_CHUNK);
		k->mapped = 0;
	} else
		k->mapped = 1;
	k->used = 0;
	k->size = SR_CHUNK;
	return k;
}

struct sr_cache {
	struct sr_entry **b;
	size_t nb, count;
	struct sr_chunk *chunks;            /* the newest first */
};

static struct sr_cache *cache_of(struct sysroot *sr)
{
	struct sr_cache *c = sr->cache;
	if (!c) {
		c = sr->cache = xcalloc(1, sizeof(*c));
		c->nb = 256;
		c->b = xcalloc(c->nb, sizeof(*c->b));
	}
	return c;
}

void *sr_cache_alloc(struct sysroot *sr, size_t n)
{
	struct sr_cache *c = cache_of(sr);
	struct sr_chunk *k = c->chunks;
	size_t a = (n + 15) & ~(size_t)15;
	void *p;
	if (a > SR_CHUNK / 4) {   /* a block of its own, behind the current chunk */
		k = xmalloc(sizeof(*k) + a);
		k->used = k->size = a;
		k->mapped = 0;
		if (c->chunks) {
			k->next = c->chunks->next;
			c->chunks->next = k;
		} else {
			k->next = NULL;
			c->chunks = k;
		}
		return k->data;
	}
	if (!k || k->size - k->used < a) {
		k = chunk_new();
		k->next = c->chunks;
		c->chunks = k;
	}
	p = (char *)k->data + k->used;
	k->used += a;
	return p;
}

/*
 * Paths are hashed eight bytes at a time: FxHash's step (rotate, xor,
 * multiply) over the words, the last one padded with zeros (a path holds
 * no NUL, so no two paths pad alike), and a final mix for the low bits the
 * buckets use.  The byte-wise FNV-1a it replaced cost four cycles a byte
 * in a chain of multiplies, and each file a probe reads is hashed three or
 * three times (its parent's entry, its own) -- about 5% of a
 * 64-CPU check.  hash_path_n() of a prefix equals hash_path() of the
 * prefix alone, and sr_above() hashes every prefix in one pass by the
 * same steps.
 */
#define HK 0x9e3779b97f4a7c15ull

static inline uint64_t hstep(uint64_t h, const char *s, size_t n)   /* n <= 8 */
{
	uint64_t w = 0;
	memcpy(&w, s, n);
	return ((h << 5 | h >> 59) ^ w) * HK;
}

static inline size_t hfinal(uint64_t h)
{
	h ^= h >> 32;
	h *= HK;
	return (size_t)(h ^ h >> 29);
}

/* The hash of s's first n bytes, from *h, the state over its first *full
 * (a multiple of 8, at most n), which it carries on to n's last whole
 * word: a caller hashing longer and longer prefixes of one string passes
 * the same state each time. */
static size_t hash_prefix(const char *s, size_t n, uint64_t *h, size_t *full)
{
	for (; *full + 8 <= n; *full += 8)
		*h = hstep(*h, s + *full, 8);
	return hfinal(n > *full ? hstep(*h, s + *full, n - *full) : *h);
}

static size_t hash_path_n(const char *s, size_t n)
{
	uint64_t h = 0;
	size_t full = 0;
	return hash_prefix(s, n, &h, &full);
}

static size_t hash_path(const char *s)
{
	return hash_path_n(s, strlen(s));
}

/* A listing's names carry their d_type in the byte before them. */
char *sr_typed_name(const char *name, unsigned char type)
{
	size_t n = strlen(name);
	char *b = xmalloc(n + 2);
	b[0] = (char)type;
	memcpy(b + 1, name, n + 1);
	return b + 1;
}

void sr_free_typed(char **names, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(names[i] - 1);
	free(names);
}

struct sr_entry *sr_cache_get(struct sysroot *sr, const char *path)
{
	struct sr_cache *c = cache_of(sr);
	struct sr_entry *e;
	size_t h = hash_path(path), plen;
	for (e = c->b[h & (c->nb - 1)]; e; e = e->next)
		if (e->hash == (uint32_t)h && !strcmp(e->path, path))
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
	plen = strlen(path);
	e = sr_cache_alloc(sr, sizeof(*e) + plen + 1);
	memset(e, 0, sizeof(*e));
	memcpy(e->path, path, plen + 1);
	e->hash = (uint32_t)h;
	e->next = c->b[h & (c->nb - 1)];
	c->b[h & (c->nb - 1)] = e;
	c->count++;
	return e;
}

/* The cached entry of path, or NULL: never creates one. */
struct sr_entry *sr_cache_find(struct sysroot *sr, const char *path)
{
	struct sr_entry *e;
	size_t h;
	if (!sr->cache)
		return NULL;
	h = hash_path(path);
	for (e = sr->cache->b[h & (sr->cache->nb - 1)]; e; e = e->next)
		if (e->hash == (uint32_t)h && !strcmp(e->path, path))
			return e;
	return NULL;
}

/* The entry of path's first n bytes, whose hash is h, or NULL. */
static struct sr_entry *cache_find_n(struct sysroot *sr, const char *path, size_t n, size_t h)
{
	struct sr_entry *e;
	for (e = sr->cache->b[h & (sr->cache->nb - 1)]; e; e = e->next)
		if (e->hash == (uint32_t)h && !strncmp(e->path, path, n) && e->path[n] == '\0')
			return e;
	return NULL;
}

/* The directories deeper than this are not looked up above a path. */
#define SR_DEPTH 64

/*
 * Whether a directory above path is known to be missing (then so is path,
 * and no system call needs to say it): the nearest one the cache knows of
 * decides.  One pass hashes every prefix (hash_prefix() carries the state
 * on).
 */
int sr_above_missing(struct sysroot *sr, const char *path)
{
	size_t hs[SR_DEPTH], ns[SR_DEPTH], k = 0, i, full = 0;
	uint64_t h = 0;
	const char *p;
	if (!sr->cache)
		return 0;
	for (p = path; *p && k < SR_DEPTH; p++)
		if (*p == '/' && p > path) {
			ns[k] = (size_t)(p - path);
			hs[k] = hash_prefix(path, ns[k], &h, &full);
			k++;
		}
	for (i = k; i-- > 0;) {
		struct sr_entry *e = cache_find_n(sr, path, ns[i], hs[i]);
		if (!e)
			continue;
		if (e->dir < 0 || (e->has_list && e->list_err == -ENOENT))
			return 1;
		if (e->dir > 0 || (e->has_list && e->list_err == 0))
			return 0;   /* there: so are those above it */
	}
	return 0;
}

int sr_listed(struct sysroot *sr, const char *path)
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
	if (!d || !d->has_list || d->list_err || !d->ls || d->ls->n >= (1u << 20))
		return LISTED_UNKNOWN;
	/* Natural order holds names it calls equal ("cpu01", "cpu1") side by
	 * side: find one, then look at its equals. */
	for (lo = 0, hi = d->ls->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int c = sr_natcmp(&name, &d->ls->names[mid]);
		if (c == 0) {
			lo = mid;
			while (lo > 0 && sr_natcmp(&name, &d->ls->names[lo - 1]) == 0)
				lo--;
			for (; lo < d->ls->n && sr_natcmp(&name, &d->ls->names[lo]) == 0; lo++)
				if (!strcmp(name, d->ls->names[lo])) {
					unsigned char t = (unsigned char)d->ls->names[lo][-1];
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

void sr_cache_free(struct sysroot *sr)
{
	struct sr_cache *c = sr->cache;
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->nb; i++) {
		struct sr_entry *e = c->b[i], *next;
		for (; e; e = next) {
			next = e->next;
			if (e->ls)
				sr_free_typed(e->ls->names, e->ls->n);
		}
	}
	while (c->chunks) {
		struct sr_chunk *k = c->chunks;
		c->chunks = k->next;
		if (k->mapped)
			munmap(k, sizeof(*k) + SR_CHUNK);
		else
			free(k);
	}
	free(c->b);
	free(c);
	sr->cache = NULL;
}

/* Natural order: digit runs compare as numbers, so cpu2 < cpu10. */
int sr_natcmp(const void *pa, const void *pb)
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
