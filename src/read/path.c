/* read/path.c - a path context: files named printf-style under a directory,
 * and each value read with its evidence or its gap in one call */
#include "config.h"
#include "read/path.h"
#include "lib/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pc_init(struct path_cxt *pc, struct sysroot *sr, struct facts *f)
{
	memset(pc, 0, sizeof(*pc));
	pc->sr = sr;
	pc->facts = f;
}

void pc_setdir(struct path_cxt *pc, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(pc->dir, sizeof(pc->dir), fmt, ap);
	va_end(ap);
	/* Too long: no name under it is read (vname() refuses them all). */
	pc->dir_too_long = n < 0 || (size_t)n >= sizeof(pc->dir);
}

static void vsetobj(struct path_cxt *pc, cJSON *obj, int whole, int quote, const char *fmt, va_list ap)
{
	int n;
	pc->obj = obj;
	pc->whole = whole;
	pc->quote = quote;
	n = vsnprintf(pc->at, sizeof(pc->at), fmt, ap);
	/* Every object path is our own ("numa.nodes[%zu]"): one cut would
	 * name another fact, so it stops the run instead. */
	if (n < 0 || (size_t)n >= sizeof(pc->at))
		die("internal error: the fact path '%.64s...' is longer than %zu bytes", pc->at,
		    sizeof(pc->at) - 1);
}

void pc_setobj(struct path_cxt *pc, cJSON *obj, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsetobj(pc, obj, 0, 0, fmt, ap);
	va_end(ap);
}

void pc_setobj_in(struct path_cxt *pc, cJSON *obj, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsetobj(pc, obj, 1, 0, fmt, ap);
	va_end(ap);
}

void pc_setobj_quoted(struct path_cxt *pc, cJSON *obj, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsetobj(pc, obj, 0, 1, fmt, ap);
	va_end(ap);
}

/* pc->path: the name, under pc->dir unless it is absolute.  0, or
 * -ENAMETOOLONG when it does not fit (never a truncated path: a read of
 * one would be of another file). */
static int vname(struct path_cxt *pc, const char *fmt, va_list ap)
{
	char name[sizeof(pc->path)];
	int n = vsnprintf(name, sizeof(name), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(name))
		n = -1;
	else if (name[0] == '/' || (!pc->dir[0] && !pc->dir_too_long))
		memcpy(pc->path, name, (size_t)n + 1);
	else if (pc->dir_too_long)
		n = -1;
	else if (strlen(pc->dir) + 1 + (size_t)n < sizeof(pc->path)) {
		size_t d = strlen(pc->dir);
		memcpy(pc->path, pc->dir, d);
		pc->path[d] = '/';
		memcpy(pc->path + d + 1, name, (size_t)n + 1);
	} else
		n = -1;
	if (n < 0) {
		snprintf(pc->path, sizeof(pc->path), "%s", "(a path too long)");
		return -ENAMETOOLONG;
	}
	return 0;
}

const char *pc_name(struct path_cxt *pc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	(void)vname(pc, fmt, ap);
	va_end(ap);
	return pc->path;
}

const char *pc_fact(struct path_cxt *pc, const char *key)
{
	const char *dot = pc->at[0] && !pc->whole ? "." : "";
	int quoted = !pc->whole && (pc->quote || strchr(key, '.')), n;   /* kernel.sysctl."vm.swappiness" */
	if (pc->whole)
		key = "";
	n = snprintf(pc->fact, sizeof(pc->fact), "%s%s%s%s%s", pc->at, dot, quoted ? "\"" : "", key,
		     quoted ? "\"" : "");
	if (n >= 0 && (size_t)n < sizeof(pc->fact))
		return pc->fact;
	/* Never cut: a cut path names no fact (or another one). */
	free(pc->fact_long);
	pc->fact_long = xasprintf("%s%s%s%s%s", pc->at, dot, quoted ? "\"" : "", key, quoted ? "\"" : "");
	return pc->fact_long;
}

void pc_release(struct path_cxt *pc)
{
	free(pc->fact_long);
	pc->fact_long = NULL;
}

/* The reads: name the file (or return -ENAMETOOLONG), then ask read/sysroot.c. */
#define PC_NAMED(pc, fmt) do { \
		va_list ap_; int e_; \
		va_start(ap_, fmt); e_ = vname(pc, fmt, ap_); va_end(ap_); \
		if (e_ < 0) \
			return e_; \
	} while (0)

int pc_read(struct path_cxt *pc, char **buf, size_t *len, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_read(pc->sr, pc->path, buf, len);
}

int pc_read_str(struct path_cxt *pc, char **out, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_read_str(pc->sr, pc->path, out);
}

int pc_read_u64(struct path_cxt *pc, uint64_t *v, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_read_u64(pc->sr, pc->path, v);
}

int pc_read_s64(struct path_cxt *pc, int64_t *v, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_read_s64(pc->sr, pc->path, v);
}

int pc_read_cpulist(struct path_cxt *pc, hwloc_bitmap_t set, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_read_cpulist(pc->sr, pc->path, set);
}

int pc_read_cpumask(struct path_cxt *pc, hwloc_bitmap_t set, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_read_cpumask(pc->sr, pc->path, set);
}

int pc_exists(struct path_cxt *pc, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_exists(pc->sr, pc->path);
}

int pc_is_dir(struct path_cxt *pc, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_is_dir(pc->sr, pc->path);
}

int pc_list(struct path_cxt *pc, char ***names, size_t *n, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_list(pc->sr, pc->path, names, n);
}

int pc_readlink(struct path_cxt *pc, char **target, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_readlink(pc->sr, pc->path, target);
}

int pc_open_file(struct path_cxt *pc, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_open_file(pc->sr, pc->path);
}

int pc_read_view(struct path_cxt *pc, const char **buf, size_t *len, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return sr_read_view(pc->sr, pc->path, buf, len);
}

void pc_evidence(struct path_cxt *pc, const char *key)
{
	if (pc->facts)
		facts_evidence(pc->facts, pc_fact(pc, key), pc->path);
}

void pc_evidence_of(struct path_cxt *pc, const char *key, const char *source)
{
	if (pc->facts)
		facts_evidence(pc->facts, pc_fact(pc, key), source);
}

void pc_gap(struct path_cxt *pc, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *why;
	if (!pc->facts)
		return;
	va_start(ap, fmt);
	why = xvasprintf(fmt, ap);   /* whole: a reason is never cut */
	va_end(ap);
	facts_gap(pc->facts, pc_fact(pc, key), "%s", why);
	free(why);
}

void pc_conflict(struct path_cxt *pc, const char *key, const char *chosen_source,
		 const char *other_source, const char *fmt, ...)
{
	va_list ap;
	char *note;
	if (!pc->facts)
		return;
	va_start(ap, fmt);
	note = xvasprintf(fmt, ap);
	va_end(ap);
	facts_conflict(pc->facts, pc_fact(pc, key), chosen_source, other_source, "%s", note);
	free(note);
}

void pc_gap_read(struct path_cxt *pc, const char *key, int err)
{
	if (pc->facts)
		facts_gap_read(pc->facts, pc_fact(pc, key), pc->path, err);
}

int pc_record(struct path_cxt *pc, const char *key, int err)
{
	if (err == 0)
		pc_evidence(pc, key);
	else
		pc_gap_read(pc, key, err);
	return err;
}

/* The facts' reads: a name too long is a gap like any other error. */
#define PC_NAME_OR(pc, fmt, r) do { \
		va_list ap_; \
		va_start(ap_, fmt); r = vname(pc, fmt, ap_); va_end(ap_); \
	} while (0)

/* The member key of a number read (r: how the read ended), its evidence
 * or gap; *keep gets the number when it was read. */
static int u64_member(struct path_cxt *pc, const char *key, double scale, uint64_t *keep, uint64_t v, int r)
{
	if (pc->obj)
		fj_num_or_null(pc->obj, key, r == 0, (double)v * scale);
	if (keep && r == 0)
		*keep = v;
	return pc_record(pc, key, r);
}

/* The same for a string (an empty one is unparsable); s is kept in *keep
 * or freed. */
static int str_member(struct path_cxt *pc, const char *key, char **keep, char *s, int r)
{
	if (r == 0 && !*s)
		r = -EINVAL;
	if (pc->obj)
		fj_str_or_null(pc->obj, key, r == 0 ? s : NULL);
	if (keep && r == 0)
		*keep = s;
	else
		free(s);
	return pc_record(pc, key, r);
}

int pc_u64_fact(struct path_cxt *pc, const char *key, double scale, uint64_t *keep,
		const char *fmt, ...)
{
	uint64_t v = 0;
	int r;
	PC_NAME_OR(pc, fmt, r);
	if (r == 0)
		r = sr_read_u64(pc->sr, pc->path, &v);
	return u64_member(pc, key, scale, keep, v, r);
}

int pc_s64_fact(struct path_cxt *pc, const char *key, int64_t *keep, const char *fmt, ...)
{
	int64_t v = 0;
	int r;
	PC_NAME_OR(pc, fmt, r);
	if (r == 0)
		r = sr_read_s64(pc->sr, pc->path, &v);
	if (pc->obj)
		fj_num_or_null(pc->obj, key, r == 0, (double)v);
	if (keep && r == 0)
		*keep = v;
	return pc_record(pc, key, r);
}

int pc_str_fact(struct path_cxt *pc, const char *key, char **keep, const char *fmt, ...)
{
	char *s = NULL;
	int r;
	PC_NAME_OR(pc, fmt, r);
	if (r == 0)
		r = sr_read_str(pc->sr, pc->path, &s);
	return str_member(pc, key, keep, s, r);
}

void fj_list(cJSON *obj, const char *key, hwloc_const_bitmap_t set)
{
	char *s = NULL;
	if (!set || hwloc_bitmap_weight(set) < 0) {
		fj_set(obj, key, cJSON_CreateNull());
		return;
	}
	s = cpulist_dup(set);
	fj_str_or_null(obj, key, s);
	free(s);
}

int pc_list_fact(struct path_cxt *pc, const char *key, hwloc_bitmap_t keep, const char *fmt, ...)
{
	hwloc_bitmap_t set;
	int r;
	PC_NAME_OR(pc, fmt, r);
	set = keep ? keep : hwloc_bitmap_alloc();
	if (!set)
		die("out of memory");
	if (r == 0)
		r = sr_read_cpulist(pc->sr, pc->path, set);
	if (pc->obj)
		fj_list(pc->obj, key, r == 0 ? set : NULL);
	if (!keep)
		hwloc_bitmap_free(set);
	return pc_record(pc, key, r);
}

/*** Text as the kernel prints it (the kernel probe's files) ***/

int text_is_kernel(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f)
			return 0;
	}
	return 1;
}

/* pc_read_text() of pc->path, named already. */
static int read_text(struct path_cxt *pc, char **out)
{
	char *b;
	size_t len;
	int r = sr_read(pc->sr, pc->path, &b, &len);
	if (r < 0)
		return r;
	if (!text_is_kernel(b, len)) {
		free(b);
		return -EINVAL;
	}
	b[strcspn(b, "\n")] = '\0';
	strsquash(b);
	*out = b;
	return 0;
}

static int read_text_u64(struct path_cxt *pc, uint64_t *v)
{
	char *s;
	int r = read_text(pc, &s);
	if (r < 0)
		return r;
	r = parse_u64(s, v);
	free(s);
	return r;
}

int pc_read_text(struct path_cxt *pc, char **out, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return read_text(pc, out);
}

int pc_read_text_u64(struct path_cxt *pc, uint64_t *v, const char *fmt, ...)
{
	PC_NAMED(pc, fmt);
	return read_text_u64(pc, v);
}

int pc_text_fact(struct path_cxt *pc, const char *key, char **keep, const char *fmt, ...)
{
	char *s = NULL;
	int r;
	PC_NAME_OR(pc, fmt, r);
	if (r == 0)
		r = read_text(pc, &s);
	return str_member(pc, key, keep, s, r);
}

int pc_text_u64_fact(struct path_cxt *pc, const char *key, double scale, uint64_t *keep,
		     const char *fmt, ...)
{
	uint64_t v = 0;
	int r;
	PC_NAME_OR(pc, fmt, r);
	if (r == 0)
		r = read_text_u64(pc, &v);
	return u64_member(pc, key, scale, keep, v, r);
}
