/* lib/facts.h - the fact tree every probe fills: values, gaps, evidence */
#ifndef NODEAUDIT_FACTS_H
#define NODEAUDIT_FACTS_H

#include <stdint.h>
#include <cjson/cJSON.h>

/*
 * Facts are a cJSON tree keyed as in nodeaudit(1) JSON OUTPUT ("cpu.smt.active" is
 * root.cpu.smt.active).  A fact that cannot be read is null and has a gap
 * {"fact": "cpu.smt.active", "reason": "..."}; it is never guessed or 0.
 * Evidence maps a fact path to the files it was read from; a conflict
 * records two sources that disagree ("libcpuid says 8 cores, sysfs 12").
 */
struct facts_slot;

struct facts {
	cJSON *root;        /* {"cpu": {...}, "numa": {...}, ...} */
	cJSON *gaps;        /* [{"fact", "reason"}] */
	cJSON *evidence;    /* {"cpu.smt.active": ["/sys/..."]} */
	cJSON *conflicts;   /* [{"fact", "sources": {...}, "chosen", "note"}] */
	/* The gaps by "fact\nreason", hashed: a gap is recorded once, in
	 * constant time (65536 nodes each missing a file must not be
	 * quadratic).  A slot names the gap object, whose strings are the
	 * key: no copy of them is kept. */
	struct facts_slot *gapset;
	size_t ngapset, agapset;
	/* The evidence lists by fact name, hashed the same way: a 4096-CPU
	 * tree has tens of thousands of facts with evidence. */
	cJSON **evlists;
	size_t nevlists, aevlists;
	/* Each piece of evidence by "fact\npath": its list and its item. */
	struct facts_slot *evset;
	size_t nevset, aevset;
};

void facts_init(struct facts *f);
void facts_release(struct facts *f);

/* The object at a dotted path, created (with its parents) if absent. */
cJSON *facts_obj(struct facts *f, const char *path);
/* The item at a dotted path ("numa.nodes" or "cpu.kinds"), or NULL.
 * Array elements can be addressed as "numa.nodes[1].id". */
const cJSON *facts_get(const cJSON *root, const char *path);
/* facts_get() as a string (NULL when it is none) and as a finite number
 * (NAN when it is none): what the pages and drawings show. */
const char *facts_str(const cJSON *root, const char *path);
double facts_num(const cJSON *root, const char *path);

/* Record a gap; the fact's value is the caller's to set to null. */
void facts_gap(struct facts *f, const char *fact, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Gap for a failed read: "<path>: <reason>". */
void facts_gap_read(struct facts *f, const char *fact, const char *path, int err);
/* Gap for a directory that is something else ("<path>: not a directory",
 * "<path>: symbolic link loop"): err as the open or the listing gave it. */
void facts_gap_notdir(struct facts *f, const char *fact, const char *path, int err);
/* Add path to the evidence list of fact (no duplicates). */
void facts_evidence(struct facts *f, const char *fact, const char *path);
/* Two sources disagree: keep the chosen value, report the other. */
void facts_conflict(struct facts *f, const char *fact, const char *chosen_source,
		    const char *other_source, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Setters that write null for "unknown" (has == 0). */
void fj_num(cJSON *obj, const char *key, double v);
void fj_num_or_null(cJSON *obj, const char *key, int has, double v);
void fj_str_or_null(cJSON *obj, const char *key, const char *s);
void fj_bool_or_null(cJSON *obj, const char *key, int v);   /* v < 0: null */
/* Getters: the string at key (NULL unless a string); a number into *out
 * (1 if it is one, else 0 and *out untouched). */
const char *fj_get_str(const cJSON *obj, const char *key);
int fj_get_num(const cJSON *obj, const char *key, double *out);
/* The one conversion of a JSON number to an integer: 1 with *out when v is
 * a finite, integral number within [lo, hi] (bounds within +-2^53); 0 when
 * v is no number (absent, null, a string); -1 when it is a number that is
 * none of those (infinite, a fraction, out of range), which is never
 * wrapped, clamped or truncated into one: the caller refuses it or makes
 * it a gap. */
int fj_int(const cJSON *v, long long lo, long long hi, long long *out);
/* For a refusal: "KEY is V, not an integer from LO to HI" (malloc'd) when
 * v is a number fj_int() refuses, else NULL. */
char *fj_int_refusal(const cJSON *v, const char *key, long long lo, long long hi);
/* Replace (or add) a key. */
void fj_set(cJSON *obj, const char *key, cJSON *item);

#endif
