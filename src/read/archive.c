/* read/archive.c - a .tar[.gz|.xz|.bz2] sysroot unpacked, bounded, into a directory */
#include "config.h"
#include "read/archive.h"
#include "read/sysroot.h"
#include "lib/tempdir.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int sr_is_archive(const char *p)
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
 *
 * The walk also refuses what a capture never holds (sysfs, procfs, the
 * dumps of hwloc and util-linux and our own snapshot are regular files,
 * directories and links): a device node that tar made as root would be
 * opened by the read layer, before its fstat() could refuse it, wherever
 * it cannot read through its nodev view (no CAP_SYS_ADMIN, a kernel before
 * 5.12), and opening a watchdog arms it, opening a tape rewinds it; a FIFO
 * is refused with them.  A header is judged when its last byte is read,
 * and a buffer is written to tar only once every header in it has been
 * judged, so tar never receives the header of a member we refuse.  That
 * holds only while we and tar split the stream into the same headers and
 * data, so the walk reads the headers as GNU tar's -x does (list.c
 * read_header, xheader.c, extract.c) and refuses whatever it could read
 * otherwise: numbers in forms GNU tar does not write, malformed pax
 * records, data after a header whose data tar never reads.
 */
#define TAR_NAME_SHOWN 1024   /* bytes of a member's name kept for a message */

/* A member's name as tar will use it: the first bytes kept for a message,
 * its last byte kept for the trailing '/' that makes tar a directory of it. */
struct tarname {
	char s[TAR_NAME_SHOWN + 4];   /* room for "..." when cut */
	size_t len;
	int set, done, cut;
	char last;
};

struct tarscan {
	unsigned char hdr[512];
	size_t hlen;            /* bytes of the header gathered so far */
	uint64_t skip;          /* data bytes (padded) still to pass */
	uint64_t bytes, files;  /* member sizes and entries so far */
	uint64_t stream;        /* tar bytes up to the end-of-archive blocks */
	char pax[4096];         /* a pax header's records ('x' or 'g') */
	size_t paxlen, paxwant;
	char collect;           /* what the data passed now is: 'x', 'g', 'L' or 0 */
	int64_t pax_size;       /* size= from a pax header, for the next member */
	const char *pax_kind;   /* what GNU.sparse.* or GNU.dumpdir there make it */
	struct tarname pax_path, long_name, name;
	int end, bad;
	int refused;            /* TAR_REFUSED_*: what sr_unpack says of it */
	const char *what;       /* the refused member's kind, for the message */
	char whatbuf[40];
};

enum { TAR_REFUSED_TYPE = 1, TAR_REFUSED_DATA, TAR_REFUSED_GLOBAL };

static void name_reset(struct tarname *n)
{
	n->len = 0;
	n->s[0] = '\0';
	n->set = n->done = n->cut = 0;
	n->last = '\0';
}

/* k bytes more of a name; a NUL ends it, as it ends tar's copy. */
static void name_add(struct tarname *n, const char *p, size_t k)
{
	size_t i;
	n->set = 1;
	for (i = 0; i < k && !n->done; i++) {
		if (!p[i]) {
			n->done = 1;
			break;
		}
		n->last = p[i];
		if (n->len < TAR_NAME_SHOWN)
			n->s[n->len++] = p[i];
		else if (!n->cut) {
			memcpy(n->s + n->len, "...", 3);
			n->len += 3;
			n->cut = 1;
		}
	}
	n->s[n->len] = '\0';
}

/* A numeric field as GNU tar reads it, or -1 where it might read it
 * otherwise: octal digits after optional spaces and before only spaces
 * and NULs (how every tar writes them), or with b256 GNU's base-256 (0x80
 * then the value, for sizes of 8 GiB and more).  Bigger than 64 bits:
 * UINT64_MAX, over every cap. */
static int tar_num(const unsigned char *f, size_t n, int b256, uint64_t *v)
{
	size_t i = 0;
	*v = 0;
	if (b256 && f[0] == 0x80) {
		for (i = 1; i < n; i++)
			*v = *v > (UINT64_MAX >> 8) ? UINT64_MAX : (*v << 8) | f[i];
		return 0;
	}
	while (i < n && f[i] == ' ')
		i++;
	if (i == n || f[i] < '0' || f[i] > '7')
		return -1;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++)
		*v = *v > (UINT64_MAX >> 3) ? UINT64_MAX : (*v << 3) | (uint64_t)(f[i] - '0');
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return 0;
}

/* One pax record's keyword and value (not NUL-terminated), for an 'x'
 * header (the next member) or a 'g' one (every member after it).  Only the
 * keywords that change how tar splits the stream or names a member matter:
 * size=, path= and GNU's sparse and incremental ones.  -1: malformed. */
static int pax_keyword(struct tarscan *ts, const char *key, size_t klen, const char *val, size_t vlen)
{
	int size = klen == 4 && !memcmp(key, "size", 4), path = klen == 4 && !memcmp(key, "path", 4);
	int gnu = (klen > 11 && !memcmp(key, "GNU.sparse.", 11)) || (klen == 11 && !memcmp(key, "GNU.dumpdir", 11));
	if (ts->collect == 'g') {
		/* tar applies these to every later member; no capture needs
		 * them, and refusing them keeps the walk to one member at a
		 * time. */
		if (size || path || gnu)
			ts->refused = TAR_REFUSED_GLOBAL;
		return 0;
	}
	if (size) {   /* decimal digits only (tar ignores a value it cannot read) */
		uint64_t v = 0;
		size_t i;
		if (!vlen)
			return -1;
		for (i = 0; i < vlen; i++) {
			if (val[i] < '0' || val[i] > '9')
				return -1;
			v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(val[i] - '0');
		}
		ts->pax_size = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	} else if (path) {
		name_reset(&ts->pax_path);
		name_add(&ts->pax_path, val, vlen);
	} else if (gnu)
		ts->pax_kind = key[4] == 's' ? "a sparse file" : "a directory of an incremental dump";
	return 0;
}

/* The records of a pax header, "LEN KEYWORD=VALUE\n" each, as GNU tar's
 * decode_record() reads them; a NUL where a record would start ends them
 * (tar stops there).  -1 when one is malformed: tar would stop reading at
 * it, and the records after it would count for us and not for tar. */
static int pax_records(struct tarscan *ts)
{
	const char *p = ts->pax, *e = ts->pax + ts->paxlen;
	while (p < e && *p) {
		const char *q = p, *key, *eq, *end;
		size_t len = 0;
		while (q < e && *q >= '0' && *q <= '9' && len <= (size_t)(e - p))
			len = len * 10 + (size_t)(*q++ - '0');
		if (q == p || len > (size_t)(e - p) || q >= e || *q != ' ')
			return -1;
		key = q + 1;
		end = p + len;   /* one past the record's newline */
		/* tar takes more blanks before the keyword: not us */
		if (end <= key || end[-1] != '\n' || *key == ' ' || *key == '\t')
			return -1;
		eq = memchr(key, '=', (size_t)(end - key));
		if (!eq || memchr(key, '\0', (size_t)(eq - key)))
			return -1;
		if (pax_keyword(ts, key, (size_t)(eq - key), eq + 1, (size_t)(end - 1 - (eq + 1))) < 0)
			return -1;
		p = end;
	}
	return 0;
}

/* The name tar gives a member: a pax path=, else a GNU long name ('L'),
 * else the header's own (with the ustar prefix, which tar reads only
 * under the magic "ustar\0"). */
static void member_name(struct tarscan *ts)
{
	const char *h = (const char *)ts->hdr;
	name_reset(&ts->name);
	if (ts->pax_path.set)
		ts->name = ts->pax_path;
	else if (ts->long_name.set)
		ts->name = ts->long_name;
	else {
		if (h[345] && !memcmp(h + 257, "ustar", 6)) {
			name_add(&ts->name, h + 345, strnlen(h + 345, 155));
			name_add(&ts->name, "/", 1);
		}
		name_add(&ts->name, h, strnlen(h, 100));
	}
	name_reset(&ts->pax_path);
	name_reset(&ts->long_name);
}

/*
 * Whether a member is one a capture holds, by its type flag (POSIX ustar's
 * and GNU tar's); NULL if so, else what it is, for the message.
 *   '0', '\0' (pre-POSIX), '7' (contiguous: tar writes a regular file):
 *        regular files, data as long as their size;
 *   '1', '2', '5': hard links, symbolic links, directories, no data;
 *   'x', 'g', 'L', 'K' are not members (pax records, GNU long names), read
 *        in tar_header();
 *   '3', '4', '6': devices and FIFOs, what this refusal is for;
 *   'S': GNU's old sparse file, whose map may run on into extension blocks
 *        after the header that its size does not count (and which tar
 *        reads as data), so the walk would lose its place; a pax member
 *        marked sparse (GNU.sparse.*) is refused likewise: tar may read
 *        more or less data than its size says, and no capture is sparse;
 *   'D': a GNU incremental dump's directory, 'M' a file continued from
 *        another volume, 'V' a volume label: tar's backups, not captures;
 *   anything else ('A', 'E', 'I', 'N', 'X', ...: Solaris, star, old GNU,
 *        vendors) is refused rather than modelled: GNU tar extracts an
 *        unknown type as a regular file, another tar may not.
 */
static const char *member_kind(struct tarscan *ts, char type)
{
	switch (type) {
	case '0': case '\0': case '7': case '1': case '2': case '5':
		return ts->pax_kind;
	case '3': return "a character device";
	case '4': return "a block device";
	case '6': return "a FIFO";
	case 'S': return "a sparse file";
	case 'D': return "a directory of an incremental dump";
	case 'M': return "a file continued from another volume";
	case 'V': return "a volume label";
	}
	if (type > ' ' && type < 0x7f)
		snprintf(ts->whatbuf, sizeof(ts->whatbuf), "of unknown type '%c'", type);
	else
		snprintf(ts->whatbuf, sizeof(ts->whatbuf), "of unknown type 0x%02x", (unsigned char)type);
	return ts->whatbuf;
}

/* A member tar reads no data of when it extracts it (a link, a directory,
 * a file whose name ends in '/', which tar makes a directory of): what it
 * is, for the message; NULL for a member whose data tar reads.  tar skips
 * the data of one it does not extract, so the data of these would be
 * headers to tar one time and data another: refused unless there is none. */
static const char *dataless(char type, const struct tarname *name)
{
	switch (type) {
	case '1': return "is a hard link";
	case '2': return "is a symbolic link";
	case '5': return "is a directory";
	}
	return name->last == '/' ? "names a directory" : NULL;
}

/* A member's header: its kind and its data judged, its data to skip. */
static void tar_member(struct tarscan *ts, char type, uint64_t size)
{
	member_name(ts);
	ts->what = member_kind(ts, type);
	ts->pax_kind = NULL;
	if (ts->what) {
		ts->refused = TAR_REFUSED_TYPE;
		return;
	}
	if (type == '1')   /* tar takes a hard link's header size for 0, not a pax size= */
		size = 0;
	if (ts->pax_size >= 0)
		size = (uint64_t)ts->pax_size;
	ts->pax_size = -1;
	if (size && (ts->what = dataless(type, &ts->name))) {
		ts->refused = TAR_REFUSED_DATA;
		return;
	}
	ts->bytes += size;
	ts->skip = (size + 511) / 512 * 512;
}

static void tar_header(struct tarscan *ts)
{
	const unsigned char *h = ts->hdr;
	unsigned sum = 0, i;
	uint64_t size, want;
	char type = (char)h[156];
	for (i = 0; i < 512 && !h[i]; i++)
		;
	if (i == 512) {   /* a zero block ends the archive */
		ts->end = 1;
		return;
	}
	for (i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	if (tar_num(h + 148, 8, 0, &want) < 0 || sum != want || tar_num(h + 124, 12, 1, &size) < 0) {
		ts->bad = 1;
		return;
	}
	ts->files++;
	ts->paxlen = 0;
	ts->paxwant = 0;
	ts->collect = 0;
	if (type != 'x' && type != 'g' && type != 'L' && type != 'K') {
		tar_member(ts, type, size);
		return;
	}
	/* tar reads these by their header's size, never a pax size=. */
	ts->bytes += size;
	ts->skip = (size + 511) / 512 * 512;
	if (type == 'x') {   /* a second one replaces the first, as in tar */
		ts->pax_size = -1;
		ts->pax_kind = NULL;
		name_reset(&ts->pax_path);
	}
	if (type == 'x' || type == 'g') {
		if (size > sizeof(ts->pax))
			ts->bad = 1;
		ts->paxwant = (size_t)size;
		ts->collect = type;
	} else if (type == 'L') {   /* tar's name: up to the first NUL, padding included */
		name_reset(&ts->long_name);
		ts->long_name.set = 1;   /* an empty one is a name too */
		ts->collect = 'L';
	}
}

/* Data bytes passing by that the walk reads: a pax header's records, a
 * GNU long name. */
static void tar_collect(struct tarscan *ts, const unsigned char *p, size_t k)
{
	if (ts->collect == 'L') {
		name_add(&ts->long_name, (const char *)p, k);
	} else if (ts->collect && ts->paxlen < ts->paxwant) {
		size_t c = ts->paxwant - ts->paxlen < k ? ts->paxwant - ts->paxlen : k;
		memcpy(ts->pax + ts->paxlen, p, c);
		ts->paxlen += c;
		if (ts->paxlen == ts->paxwant && pax_records(ts) < 0)
			ts->bad = 1;
	}
}

/* Walk n bytes of the stream; the number of them that belong to the
 * archive (all of them, unless its end-of-archive block came first). */
static size_t tar_scan(struct tarscan *ts, const unsigned char *p, size_t n)
{
	size_t n0 = n;
	while (n > 0 && !ts->end && !ts->bad && !ts->refused) {
		if (ts->skip) {
			size_t k = n < ts->skip ? n : (size_t)ts->skip;
			tar_collect(ts, p, k);
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

/* A pass's state, shared by its steps. */
struct pass {
	int afd;
	const char *dec, *dir;
	struct tarscan *ts;
	const char **why;
	pid_t dpid, tpid;
	int src, topipe[2], from[2], fail;
};

/* The decompressor, reading the archive into a pipe p->src then reads;
 * -1 when no pipe could be made. */
static int pass_start_decompressor(struct pass *p)
{
	char *dec_argv[] = { (char *)p->dec, "-dc", NULL };
	if (pipe2(p->from, O_CLOEXEC) < 0) {
		*p->why = strerror(errno);
		return -1;
	}
	if (spawn_quiet(&p->dpid, dec_argv, p->afd, p->from[1]) != 0) {
		*p->why = !strcmp(p->dec, "gzip") ? "gzip not found" : !strcmp(p->dec, "xz") ? "xz not found"
											 : "bzip2 not found";
		p->dpid = 0;
		p->fail = -1;
	}
	close(p->from[1]);
	p->src = p->from[0];
	return 0;
}

/* `tar -x` into p->dir, reading the pipe p->topipe[1] writes. */
static void pass_start_tar(struct pass *p)
{
	char *tar_argv[] = { "tar", "-x", "-f", "-", "-C", (char *)p->dir, "--no-same-owner",
			     "--no-same-permissions", "--delay-directory-restore", NULL };
	if (pipe2(p->topipe, O_CLOEXEC) < 0) {
		*p->why = strerror(errno);
		p->fail = -1;
	} else {
		if (spawn_quiet(&p->tpid, tar_argv, p->topipe[0], -1) != 0) {
			*p->why = "tar not found";
			p->tpid = 0;
			p->fail = -1;
		}
		close(p->topipe[0]);
	}
}

/* The stream read, scanned against the caps and handed to tar, up to the
 * end-of-archive block.  A buffer is scanned whole before a byte of it is
 * written: the header of a refused member never reaches tar (a part of it
 * from an earlier buffer may, which tar cannot act on before the rest). */
static void pass_pump(struct pass *p)
{
	static unsigned char buf[65536 + 512];   /* room for the second end block */
	struct tarscan *ts = p->ts;
	while (!p->fail && !ts->end) {
		ssize_t r = read(p->src, buf, sizeof(buf) - 512), w = 0;
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		r = (ssize_t)tar_scan(ts, buf, (size_t)r);
		if (ts->bad) {
			*p->why = "not a readable tar archive";
			p->fail = -1;
		} else if (ts->refused)
			p->fail = -4;
		else if (ts->bytes > SR_MAX_UNPACK_BYTES || ts->files > SR_MAX_UNPACK_FILES)
			p->fail = -2;
		else if (ts->stream > SR_MAX_UNPACK_STREAM)
			p->fail = -3;
		if (p->fail)
			break;
		if (ts->end) {   /* the end block, then a second one for tar */
			memset(buf + r, 0, 512);
			r += 512;
		}
		while (p->topipe[1] >= 0 && w < r) {
			ssize_t k = write(p->topipe[1], buf + w, (size_t)(r - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(p->topipe[1]);
				p->topipe[1] = -1;
			} else
				w += k;
		}
	}
}

/* The children stopped where the pass failed or ended early, then reaped;
 * a child that failed fails the pass. */
static void pass_end(struct pass *p)
{
	if (p->fail) {
		if (p->dpid > 0)
			kill(p->dpid, SIGKILL);
		if (p->tpid > 0)
			kill(p->tpid, SIGKILL);
	} else if (p->ts->end && p->dpid > 0)
		/* Whatever the decompressor still holds is past the end. */
		kill(p->dpid, SIGKILL);
	if (p->src != p->afd)
		close(p->src);
	{
		int dbad = reap(p->dpid) < 0 && !p->ts->end, tbad = reap(p->tpid) < 0;
		if ((dbad || tbad) && !p->fail) {
			*p->why = "not a readable tar archive";
			p->fail = -1;
		}
	}
}

/* One pass over the archive's tar stream, decompressed by dec (NULL: none)
 * and scanned; written to `tar -x` into dir when dir is not NULL.  The
 * pass ends at the end-of-archive block, as tar's own reading does: what
 * follows (padding, or gigabytes of zeros) is neither decompressed further
 * nor passed on; tar is given the two zero blocks that end an archive.
 * 0, -1 (unreadable: *why says what), -2 (over the caps), -3 (the
 * stream over SR_MAX_UNPACK_STREAM) or -4 (a member refused: ts says
 * which). */
static int unpack_pass(int afd, const char *dec, const char *dir, struct tarscan *ts, const char **why)
{
	struct pass p = { .afd = afd, .dec = dec, .dir = dir, .ts = ts, .why = why,
			  .src = afd, .topipe = { -1, -1 }, .from = { -1, -1 } };
	struct sigaction ign, oldpipe;

	memset(ts, 0, sizeof(*ts));
	ts->pax_size = -1;
	if (lseek(afd, 0, SEEK_SET) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (dec && pass_start_decompressor(&p) < 0)
		return -1;
	if (!p.fail && dir)
		pass_start_tar(&p);
	/* A tar that gives up closes its end: EPIPE, not a signal.  Its exit
	 * status says why; the rest of the stream is drained so that the
	 * decompressor ends normally. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &oldpipe);
	pass_pump(&p);
	if (p.topipe[1] >= 0)
		close(p.topipe[1]);
	sigaction(SIGPIPE, &oldpipe, NULL);
	pass_end(&p);
	return p.fail;
}

/* The one line for a refused member; its name comes from the archive. */
static int refusal(const char *archive, const struct tarscan *ts)
{
	char *clean = str_clean(ts->name.s, CLEAN_LINE);
	const char *name = clean ? clean : ts->name.s;
	if (ts->refused == TAR_REFUSED_GLOBAL)
		error("cannot unpack '%s': a pax global header sets the size, name or sparse map of "
		      "every member after it; refusing", archive);
	else if (ts->refused == TAR_REFUSED_DATA)
		error("cannot unpack '%s': member '%s' %s but carries data, which tar would read as "
		      "headers; refusing", archive, name, ts->what);
	else
		error("cannot unpack '%s': member '%s' is %s: a capture holds regular files, "
		      "directories and links only", archive, name, ts->what);
	free(clean);
	return -1;
}

int sr_unpack(const char *archive, const char *dir)
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
	if (r == -4)
		refusal(archive, ts);
	free(ts);
	if (r == -4)
		return -1;
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
