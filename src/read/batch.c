/* read/batch.c - a sysroot's files like a model directory's, read in io_uring batches */
#include "config.h"
#include "read/sysroot.h"
#include "read/sysroot-internal.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#include <linux/openat2.h>
#include "read/lazylib.h"
#endif

/*
 * A big machine's sysfs is the same few files under every cpuN (and every
 * cpufreq policy, every NUMA node): a probe reads the first CPU's, and the
 * same names below every other CPU's directory.  Read one at a time, each
 * costs an open, a read and a close (three system calls; a missing name
 * one), which on a 256-CPU capture is thousands of calls, and on a
 * paravirtualised guest each call's way in and out of the kernel costs
 * more than the reading itself.  So a probe marks where its first
 * directory starts (sr_batch_model()) and, once it has read it, asks for
 * the same names below the other directories (sr_batch_like()): they are
 * read here through io_uring, SR_BATCH_SLOTS chains of openat2 -> read ->
 * close a submission, and land in the run's cache as if read one by one.
 *
 * The answers do not change, only their cost:
 *   - a file is opened as read_now() opens it (openat2 RESOLVE_IN_ROOT,
 *     O_RDONLY | O_NONBLOCK | O_NOCTTY, no magic links) and kept only when
 *     the read ends short of the buffer (a regular file's whole content,
 *     as read_now()'s first short read) and it is no FIFO (below), or
 *     when the open says the name is missing (ENOENT, ENOTDIR); anything
 *     else -- a full buffer, EISDIR, EAGAIN, an open the kernel refused --
 *     is left to read_now(), which then reads it as before, fstat()
 *     included;
 *   - nothing read here is recorded for `snapshot` until a probe asks for
 *     it, so a name read but never asked changes no output;
 *   - it runs only where read_now()'s fstat() is not what keeps a device
 *     from being read: a sysroot read through its private nodev view
 *     (sysroot-cache.c: sr_make_view()), where the kernel refuses to open
 *     a device at all.  A FIFO opens without blocking (O_NONBLOCK) and is
 *     told by posix_fadvise(), which answers ESPIPE for a FIFO: it is left
 *     to read_now(), which refuses it.
 * Without liburing, without io_uring (a kernel before 5.19, a seccomp
 * filter, kernel.io_uring_disabled) or without the view, nothing is read
 * here and every file is read one by one, as before.
 */

#define SR_BATCH_SLOTS 16         /* chains a submission (fixed-file slots), 4 entries each */
#define SR_BATCH_BUF 2048         /* bytes a file: sysfs values are a few */

/* What was asked of a path: its content (a read), whether it is a
 * directory (sr_is_dir()), its listing (sr_list()), whether it is there
 * (sr_exists()). */
enum { ASK_FILE, ASK_DIR, ASK_LIST, ASK_EXISTS };

struct sr_ask {
	struct sr_entry *e;
	int kind;
};

struct sr_batch {
	int state;                /* 0 not tried, 1 ready, -1 unavailable */
	int logging;              /* sr_batch_model() called, sr_batch_like() not yet */
	struct sr_ask *log;       /* what was asked since sr_batch_model() */
	size_t nlog, alog;
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
};

/* 1 when this run may read in batches (NODEAUDIT_NO_BATCH, test suite
 * only, reads one by one). */
static int batch_wanted(const struct sysroot *sr)
{
#ifdef HAVE_LIBURING
	static int off = -1;
	if (off < 0)
		off = getenv("NODEAUDIT_NO_BATCH") != NULL;
	return !off && !sr->live && sr->view;
#else
	(void)sr;
	return 0;
#endif
}

void sr_batch_model(struct sysroot *sr)
{
	if (!batch_wanted(sr))
		return;
	if (!sr->batch)
		sr->batch = xcalloc(1, sizeof(*sr->batch));
	if (sr->batch->state < 0)
		return;
	while (sr->batch->nlog)
		sr->batch->log[--sr->batch->nlog].e->logged = 0;
	sr->batch->logging = 1;
}

static void note(struct sysroot *sr, struct sr_entry *e, int kind)
{
	struct sr_batch *b = sr->batch;
	if (!b || !b->logging || e->logged)
		return;
	e->logged = 1;
	if (b->nlog == b->alog) {
		b->alog = b->alog ? 2 * b->alog : 64;
		b->log = xrealloc(b->log, b->alog * sizeof(*b->log));
	}
	b->log[b->nlog].e = e;
	b->log[b->nlog++].kind = kind;
}

void sr_batch_note(struct sysroot *sr, struct sr_entry *e)
{
	note(sr, e, ASK_FILE);
}

void sr_batch_note_dir(struct sysroot *sr, struct sr_entry *e, int listing)
{
	note(sr, e, listing ? ASK_LIST : ASK_DIR);
}

void sr_batch_note_exists(struct sysroot *sr, struct sr_entry *e)
{
	note(sr, e, ASK_EXISTS);
}

#ifdef HAVE_LIBURING
/* liburing, loaded by the first batch (read/lazylib.h): live runs never
 * read in batches.  Its other calls are inline in its header. */
static struct {
	__typeof__(&io_uring_queue_init_params) queue_init_params;
	__typeof__(&io_uring_register_files_sparse) register_files_sparse;
	__typeof__(&io_uring_submit_and_wait) submit_and_wait;
	__typeof__(&io_uring_queue_exit) queue_exit;
} U;
static struct lazylib liburing = { URING_SONAME, 0, "" };

static int uring_load(void)
{
	const struct lazy_sym syms[] = {
		{ "io_uring_queue_init_params", (void **)&U.queue_init_params },
		{ "io_uring_register_files_sparse", (void **)&U.register_files_sparse },
		{ "io_uring_submit_and_wait", (void **)&U.submit_and_wait },
		{ "io_uring_queue_exit", (void **)&U.queue_exit },
	};
	return lazylib_load(&liburing, syms, ARRAY_SIZE(syms));
}

/* The ring: small (a few pages; every page a first touch), its fixed-file
 * table sparse.  0, or -1 where io_uring is not to be had. */
static int ring_up(struct sr_batch *b)
{
	struct io_uring_params p;
	int r;
	if (b->state)
		return b->state > 0 ? 0 : -1;
	b->state = -1;
	if (uring_load() < 0) {
		debug("read: no io_uring batches (%s): files are read one by one", liburing.err);
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER;
	r = U.queue_init_params(4 * SR_BATCH_SLOTS, &b->ring, &p);
	if (r == -EINVAL) {   /* before 6.0: no single issuer; before 5.19: no cooperative task run */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SUBMIT_ALL;
		r = U.queue_init_params(4 * SR_BATCH_SLOTS, &b->ring, &p);
	}
	if (r < 0) {
		debug("read: no io_uring batches (%s): files are read one by one", strerror(-r));
		return -1;
	}
	r = U.register_files_sparse(&b->ring, SR_BATCH_SLOTS);
	if (r < 0) {
		debug("read: no io_uring fixed files (%s): files are read one by one", strerror(-r));
		U.queue_exit(&b->ring);
		return -1;
	}
	b->state = 1;
	return 0;
}

/* A queued ask: the entry and what to find out. */
struct qent {
	struct sr_entry *e;
	int kind;
};

/* The parent directory of e is there: a file below it was read. */
static void parent_is_dir(struct sysroot *sr, const struct sr_entry *e)
{
	char buf[4096];
	const char *slash = strrchr(e->path, '/');
	size_t n;
	struct sr_entry *d;
	if (!slash || slash == e->path || (n = (size_t)(slash - e->path)) >= sizeof(buf))
		return;
	memcpy(buf, e->path, n);
	buf[n] = '\0';
	d = sr_cache_find(sr, buf);
	if (d && !d->dir)
		d->dir = 1;
}

/* What the batch settled of q, as the one-by-one path would have: a
 * file's whole content or its absence; a directory's presence or absence;
 * a listing's absence.  Anything else is left as not asked. */
static void settle(struct sysroot *sr, const struct qent *q, int open_res, int read_res, int fifo_res,
		   const char *buf)
{
	struct sr_entry *e = q->e;
	int missing = open_res == -ENOENT || open_res == -ENOTDIR;
	switch (q->kind) {
	case ASK_FILE:
		if (e->has_file)
			return;
		if (missing) {
			e->file_err = open_res;
			e->has_file = 1;
		} else if (open_res == 0 && fifo_res == 0 && read_res >= 0 && read_res < SR_BATCH_BUF) {
			e->len = (uint32_t)read_res;
			e->buf = sr_cache_alloc(sr, e->len + 1);
			memcpy(e->buf, buf, e->len);
			e->buf[e->len] = '\0';
			e->file_err = 0;
			e->has_file = 1;
			parent_is_dir(sr, e);
		}
		return;
	case ASK_DIR:
		if (!e->dir && (missing || open_res == 0))
			e->dir = open_res == 0 ? 1 : -1;
		return;
	case ASK_EXISTS:
		if (!e->exists && (missing || open_res == 0))
			e->exists = open_res == 0 ? 1 : -1;
		return;
	default:
		if (!e->has_list && missing) {
			e->list_err = open_res;
			e->has_list = 1;
		}
		return;
	}
}

/* One submission: q[0..n) opened (and a file read), closed; what it
 * settled goes into their entries. */
static void run_batch(struct sysroot *sr, struct sr_batch *b, const struct qent *q, unsigned n)
{
	char bufs[SR_BATCH_SLOTS][SR_BATCH_BUF];
	int open_res[SR_BATCH_SLOTS], read_res[SR_BATCH_SLOTS], fifo_res[SR_BATCH_SLOTS];
	struct open_how how, dhow, xhow;
	struct io_uring_cqe *cqe;
	unsigned i, head, seen = 0, want = 0;
	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY;   /* no O_CLOEXEC: a fixed file has no descriptor */
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	dhow = how;
	dhow.flags = O_PATH | O_DIRECTORY;
	xhow = how;
	xhow.flags = O_PATH;
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(&b->ring);
		int file = q[i].kind == ASK_FILE;
		io_uring_prep_openat2_direct(s, sr->rootfd, sr_rel(q[i].e->path),
					     file ? &how : q[i].kind == ASK_EXISTS ? &xhow : &dhow, i);
		s->flags |= IOSQE_IO_LINK;
		io_uring_sqe_set_data64(s, (uint64_t)i << 2);
		if (file) {
			s = io_uring_get_sqe(&b->ring);
			io_uring_prep_read(s, (int)i, bufs[i], SR_BATCH_BUF, 0);
			s->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
			io_uring_sqe_set_data64(s, (uint64_t)i << 2 | 1);
			/* A FIFO answers posix_fadvise() with ESPIPE, a regular
			 * file with 0: what read_now()'s fstat() tells apart
			 * (a device, the other thing it refuses, does not open
			 * on the view at all). */
			s = io_uring_get_sqe(&b->ring);
			io_uring_prep_fadvise(s, (int)i, 0, 0, POSIX_FADV_NORMAL);
			s->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
			io_uring_sqe_set_data64(s, (uint64_t)i << 2 | 3);
			want += 2;
		}
		s = io_uring_get_sqe(&b->ring);
		io_uring_prep_close_direct(s, i);
		io_uring_sqe_set_data64(s, (uint64_t)i << 2 | 2);
		open_res[i] = read_res[i] = fifo_res[i] = -ECANCELED;
		want += 2;
	}
	if (U.submit_and_wait(&b->ring, want) < 0)
		n = 0;   /* nothing settled: every file is read one by one */
	io_uring_for_each_cqe(&b->ring, head, cqe) {
		uint64_t d = io_uring_cqe_get_data64(cqe);
		unsigned k = (unsigned)(d >> 2);
		seen++;
		if (k >= SR_BATCH_SLOTS)
			continue;
		if ((d & 3) == 0)
			open_res[k] = cqe->res;
		else if ((d & 3) == 1)
			read_res[k] = cqe->res;
		else if ((d & 3) == 3)
			fifo_res[k] = cqe->res;
	}
	io_uring_cq_advance(&b->ring, seen);
	for (i = 0; i < n; i++)
		settle(sr, &q[i], open_res[i], read_res[i], fifo_res[i], bufs[i]);
	sr->batched += n;
}

/* Whether the run knows path's parent directory to be missing (then so is
 * path).  Only the parent: a directory further up known missing costs the
 * kernel a failed walk here, as many lookups of this cache as the path
 * has names elsewhere (sr_above()), and a batch asks thousands. */
static int parent_missing(struct sysroot *sr, const char *path)
{
	const char *slash = strrchr(path, '/');
	char buf[4096];
	struct sr_entry *d;
	size_t n;
	if (!slash || slash == path || (n = (size_t)(slash - path)) >= sizeof(buf))
		return 0;
	memcpy(buf, path, n);
	buf[n] = '\0';
	d = sr_cache_find(sr, buf);
	return d && (d->dir < 0 || d->exists < 0 || (d->has_list && d->list_err == -ENOENT) ||
		     (d->has_file && d->file_err == -ENOENT));
}

/* Queue path's ask unless the run knows the answer already (or knows its
 * directory missing, which answers it). */
static int queue(struct sysroot *sr, const char *path, int kind, struct qent *q, unsigned *n)
{
	struct sr_entry *e;
	if (parent_missing(sr, path))
		return 0;
	e = sr_cache_get(sr, path);   /* found, or made: one walk of its chain */
	if (kind == ASK_FILE ? e->has_file : kind == ASK_DIR ? e->dir != 0 || e->has_list :
	    kind == ASK_LIST ? e->has_list : e->exists || e->has_file || e->dir || e->has_list)
		return 0;
	q[*n].e = e;
	q[(*n)++].kind = kind;
	return 1;
}
#endif

void sr_batch_like(struct sysroot *sr, const char *model, const char *const *dirs, size_t ndirs)
{
	struct sr_batch *b = sr->batch;
#ifdef HAVE_LIBURING
	struct qent q[SR_BATCH_SLOTS];
	size_t mlen = strlen(model), i, d, files = 0;
	unsigned n = 0;
	char path[4096];
	if (!b || !b->logging)
		return;
	b->logging = 0;
	for (i = 0; i < b->nlog; i++)
		if (!strncmp(b->log[i].e->path, model, mlen) && b->log[i].e->path[mlen] == '/')
			break;
	if (i == b->nlog || ndirs == 0 || ring_up(b) < 0)
		return;
	for (d = 0; d < ndirs; d++) {
		size_t dlen = strlen(dirs[d]);
		if (!strcmp(dirs[d], model))
			continue;
		for (i = 0; i < b->nlog; i++) {
			const char *p = b->log[i].e->path;
			if (strncmp(p, model, mlen) || p[mlen] != '/' || dlen + strlen(p + mlen) >= sizeof(path))
				continue;
			memcpy(path, dirs[d], dlen);
			strcpy(path + dlen, p + mlen);
			files += (size_t)queue(sr, path, b->log[i].kind, q, &n);
			if (n == SR_BATCH_SLOTS) {
				run_batch(sr, b, q, n);
				n = 0;
			}
		}
	}
	if (n)
		run_batch(sr, b, q, n);
	debug("read: %zu paths like %s's read in batches", files, model);
#else
	(void)model;
	(void)dirs;
	(void)ndirs;
	if (b)
		b->logging = 0;
#endif
}

void sr_batch_files(struct sysroot *sr, const char *parent, char *const *subs, size_t nsubs,
		    const char *const *names, size_t nnames)
{
#ifdef HAVE_LIBURING
	struct qent q[SR_BATCH_SLOTS];
	char path[4096];
	size_t i, k, files = 0;
	unsigned n = 0;
	if (!batch_wanted(sr) || !nsubs || !nnames)
		return;
	if (!sr->batch)
		sr->batch = xcalloc(1, sizeof(*sr->batch));
	if (ring_up(sr->batch) < 0)
		return;
	for (i = 0; i < nsubs; i++)
		for (k = 0; k < nnames; k++) {
			if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", parent, subs[i], names[k]) >= sizeof(path))
				continue;
			files += (size_t)queue(sr, path, ASK_FILE, q, &n);
			if (n == SR_BATCH_SLOTS) {
				run_batch(sr, sr->batch, q, n);
				n = 0;
			}
		}
	if (n)
		run_batch(sr, sr->batch, q, n);
	debug("read: %zu files below %s read in batches", files, parent);
#else
	(void)sr;
	(void)parent;
	(void)subs;
	(void)nsubs;
	(void)names;
	(void)nnames;
#endif
}

void sr_batch_like_set(struct sysroot *sr, const char *fmt, int model, const_bitmap_t ids)
{
	char m[256], **dirs;
	size_t n = 0, i;
	int id, w;
	if (!sr->batch || !sr->batch->logging)
		return;
	w = bitmap_weight(ids);
	dirs = xcalloc(w > 0 ? (size_t)w : 1, sizeof(*dirs));
	snprintf(m, sizeof(m), fmt, model);
	bitmap_foreach_begin(id, ids) {
		if (id != model && n < (size_t)w)
			dirs[n++] = xasprintf(fmt, id);
	} bitmap_foreach_end();
	sr_batch_like(sr, m, (const char *const *)dirs, n);
	for (i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

void sr_batch_like_listed(struct sysroot *sr, const char *parent, char *const *names, size_t n,
			  const char *prefix, const char *sub)
{
	char **dirs;
	size_t i, k = 0, plen = strlen(prefix);
	if (!sr->batch || !sr->batch->logging)
		return;
	dirs = xcalloc(n + 1, sizeof(*dirs));
	for (i = 0; i < n; i++) {
		const char *p = names[i] + plen;
		if (strncmp(names[i], prefix, plen) || *p < '0' || *p > '9' || p[strspn(p, "0123456789")])
			continue;
		dirs[k++] = xasprintf("%s/%s%s", parent, names[i], sub);
	}
	if (k)
		sr_batch_like(sr, dirs[0], (const char *const *)dirs, k);
	for (i = 0; i < k; i++)
		free(dirs[i]);
	free(dirs);
}

void sr_batch_free(struct sysroot *sr)
{
	struct sr_batch *b = sr->batch;
	if (!b)
		return;
#ifdef HAVE_LIBURING
	if (b->state > 0)
		U.queue_exit(&b->ring);
#endif
	free(b->log);
	free(b);
	sr->batch = NULL;
}
