/* read/path.h - a path context: files named printf-style under a directory,
 * and each value read with its evidence or its gap in one call */
#ifndef NODEAUDIT_READ_PATH_H
#define NODEAUDIT_READ_PATH_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include <hwloc.h>
#include "lib/facts.h"
#include "read/sysroot.h"

/*
 * util-linux's path context (lib/path.c: ul_path_readf_u64(pc, &v,
 * "cpu%d/online", n)) with the fact tree beside it.  A context names
 *   - a directory: a file name that does not start with '/' is read under
 *     it ("meminfo" in "/sys/devices/system/node/node3");
 *   - a fact object and its path in the tree ("numa.nodes[3]"), so that a
 *     member's key is spelled once: pc_u64_fact(pc, "memory_bytes", ...)
 *     sets the member, and records "numa.nodes[3].memory_bytes" with the
 *     file as its evidence, or null with a gap naming the file and why.
 * Every read goes through read/sysroot.c (in the root, capped, recorded
 * for snapshot, read once a run); the functions return what it returns:
 * 0 or a negative errno (sysroot.h).  The last file named is kept in
 * pc->path for the evidence or gap the caller records itself.
 */
struct path_cxt {
	struct sysroot *sr;
	struct facts *facts;   /* NULL: reads only (pc_*_fact() then record nothing) */
	cJSON *obj;            /* the object pc_*_fact() set members of; NULL: none */
	char dir[256];         /* "" or a directory, no trailing slash */
	int dir_too_long;      /* 1: the directory did not fit: its names are refused */
	char at[192];          /* the fact path of obj: "numa.nodes[3]" (made of our own
	                          names and numbers: one that does not fit is a bug) */
	int whole;             /* 1: at is every member's fact path (pc_setobj_in()) */
	int quote;             /* 1: every key quoted in its fact path (pc_setobj_quoted()) */
	char path[512];        /* the last file named */
	char fact[512];        /* pc_fact()'s answer */
	char *fact_long;       /* pc_fact()'s answer when it does not fit fact */
};

/* A context with no directory and no fact object. */
void pc_init(struct path_cxt *pc, struct sysroot *sr, struct facts *f);
/* The directory, printf-style ("/sys/devices/system/node/node%u").  One
 * too long for dir is not cut: every name under it is then refused with
 * -ENAMETOOLONG, as a name too long is. */
void pc_setdir(struct path_cxt *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The fact object and its path, printf-style ("numa.nodes[%zu]"). */
void pc_setobj(struct path_cxt *pc, cJSON *obj, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for an entry of a list whose evidence and gaps are the list's
 * own ("kernel.cpufreq.policies"): every member's fact path is fmt's. */
void pc_setobj_in(struct path_cxt *pc, cJSON *obj, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for an object whose keys are names of another namespace
 * (kernel.sysctl's: "vm.swappiness"): every key is quoted in its fact
 * path, kernel.sysctl."vm.swappiness", whatever it holds. */
void pc_setobj_quoted(struct path_cxt *pc, cJSON *obj, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The path of a file named printf-style (into pc->path, returned). */
const char *pc_name(struct path_cxt *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The fact path of a member: "<at>.<key>" ("<at>.\"<key>\"" after
 * pc_setobj_quoted() and for a key with dots of its own), or "<at>" after
 * pc_setobj_in(); whole, whatever the key's length (a key from outside,
 * such as a profile's sysctl name, may be long): into pc->fact, or, when
 * it does not fit there, a string of its own that pc_release() frees. */
const char *pc_fact(struct path_cxt *pc, const char *key);
/* Frees what pc_fact() made for a key too long for pc->fact: a context
 * whose keys come from outside calls it when done (any may). */
void pc_release(struct path_cxt *pc);

/* Reads, as the sr_* functions of the same names (sysroot.h). */
int pc_read(struct path_cxt *pc, char **buf, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int pc_read_str(struct path_cxt *pc, char **out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pc_read_u64(struct path_cxt *pc, uint64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pc_read_s64(struct path_cxt *pc, int64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pc_read_cpulist(struct path_cxt *pc, hwloc_bitmap_t set, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pc_read_cpumask(struct path_cxt *pc, hwloc_bitmap_t set, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pc_exists(struct path_cxt *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pc_is_dir(struct path_cxt *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pc_list(struct path_cxt *pc, char ***names, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Evidence and gaps of "<at>.<key>": the last file named (pc->path) as
 * the evidence; a gap with a reason; a gap "PATH: REASON" for the last
 * file and err.  pc_record(): the evidence when err is 0, else that gap;
 * returns err. */
void pc_evidence(struct path_cxt *pc, const char *key);
/* The same with another source than a file ("(one node: local distance 10)"). */
void pc_evidence_of(struct path_cxt *pc, const char *key, const char *source);
void pc_gap(struct path_cxt *pc, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pc_gap_read(struct path_cxt *pc, const char *key, int err);
int pc_record(struct path_cxt *pc, const char *key, int err);

/* One member from one file in one call: read, set obj's key (null when it
 * cannot be read), and record its evidence or its gap.  Returns 0 or the
 * error.
 *   pc_u64_fact   the file's first line as a decimal number, times scale
 *                 (kHz files into Hz: 1000); *keep gets the number read
 *   pc_s64_fact   the same, signed
 *   pc_str_fact   the first line, white space squashed, not empty (an
 *                 empty value is -EINVAL); *keep gets a copy (malloc'd)
 *   pc_list_fact  a kernel CPU list ("0-3,8"), set by fj_list(); keep
 *                 (if not NULL) gets the set */
int pc_u64_fact(struct path_cxt *pc, const char *key, double scale, uint64_t *keep,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int pc_s64_fact(struct path_cxt *pc, const char *key, int64_t *keep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int pc_str_fact(struct path_cxt *pc, const char *key, char **keep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int pc_list_fact(struct path_cxt *pc, const char *key, hwloc_bitmap_t keep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A CPU or node set as a member, in the kernel's and hwloc's list syntax
 * ("0-3,8"; "" for none); null for NULL or an infinite set. */
void fj_list(cJSON *obj, const char *key, hwloc_const_bitmap_t set);

/* Text as the kernel prints it: printable ASCII and white space only. */
int text_is_kernel(const char *s, size_t len);
/* The first line of a file, white space squashed, refused (-EINVAL) when
 * any byte of the file is not such text (a NUL would hide the rest);
 * malloc'd.  pc_read_text_u64(): that line as a decimal number. */
int pc_read_text(struct path_cxt *pc, char **out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pc_read_text_u64(struct path_cxt *pc, uint64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* pc_str_fact() and pc_u64_fact() reading the file as pc_read_text() does. */
int pc_text_fact(struct path_cxt *pc, const char *key, char **keep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int pc_text_u64_fact(struct path_cxt *pc, const char *key, double scale, uint64_t *keep,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*** Links, descriptors, views and conflicts ***/

/* The target of a symbolic link, as sr_readlink() (sysroot.h): malloc'd. */
int pc_readlink(struct path_cxt *pc, char **target, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A descriptor on a regular file inside the root, for bounded pread()s
 * (not recorded; close it), or a negative errno: sr_open_file(). */
int pc_open_file(struct path_cxt *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Two sources disagree on "<at>.<key>": facts_conflict() (facts.h) with
 * the member key spelled once; the note printf-style, never cut. */
void pc_conflict(struct path_cxt *pc, const char *key, const char *chosen_source,
		 const char *other_source, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A view of a file's bytes, as sr_read_view() (sysroot.h): not to be freed. */
int pc_read_view(struct path_cxt *pc, const char **buf, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
