/* audit/check-catalog.h - the check catalog: stable IDs, what each reads, why, how to fix */
#ifndef NODEAUDIT_CHECK_CATALOG_H
#define NODEAUDIT_CHECK_CATALOG_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* What a check's observed value is, and so which comparators make sense. */
enum vtype {
	V_ONOFF,   /* "on" / "off" (expect) */
	V_BOOL,    /* true / false (expect) */
	V_STR,     /* a string (expect: one of a list) */
	V_NUM,     /* a number (expect, min, max) */
	V_SET,     /* a set of strings: passes if it holds any expected value */
	V_SYSCTL,  /* per key: string as the kernel prints it; min/max when numeric */
};

enum severity { SEV_INFO, SEV_WARN, SEV_FAIL };
/* Finding statuses; "info" is an unmet check of severity info. */
enum status { ST_PASS, ST_INFO, ST_WARN, ST_FAIL, ST_UNKNOWN, ST_SKIP, ST__N };

#define CMP_EXPECT 1u
#define CMP_MIN 2u
#define CMP_MAX 4u

/* What a check saw: a value, unknown (with the reason), or does not apply. */
enum obs_state { OBS_VALUE, OBS_UNKNOWN, OBS_SKIP };
struct obs {
	enum obs_state state;
	cJSON *value;          /* OBS_VALUE: string, number or bool (or array for V_SET); owned */
	char *detail;          /* human text: "0000:41:00.0 x8 of x16", or NULL; whole (it may
	                          hold a profile's or a machine's strings), obs_release() frees it */
	char *reason;          /* OBS_UNKNOWN / OBS_SKIP: why, or NULL; likewise */
	const char *paths[12]; /* fact paths the decision rests on (evidence) */
	size_t npaths;
	char *keypath;         /* a keyed path, kernel.sysctl."vm.swappiness", whole (the key
	                          is a profile's, of any length); obs_release() frees it */
};

/*
 * A fix, as data.  Fixes that set one value also say which and how, so that
 * plan (and every format) renders them without knowing the check:
 *   step "sysctl":   key = sysctl name, value
 *   step "cmdline":  key = kernel parameter, value ("true": a bare flag)
 *   step "governor", "thp", "smt", "sysfs": key = sysfs path (a glob for
 *                    one file per CPU policy), value
 */
struct fixdef {
	const char *kind;      /* runtime, bios, sysctl, cmdline, systemd, hardware */
	const char *command;   /* shell command, or NULL; "{expected}" / "{key}" substituted */
	const char *text;      /* or a sentence */
	const char *step;      /* the plan step it becomes (above), or NULL: shown as it is */
	const char *key;       /* what it sets ("{key}" / "{expected}" substituted), or NULL */
	const char *value;     /* the value it sets, or NULL */
};

/* The part of the node drawing a finding of the check colours. */
enum part {
	PART_NONE,        /* not drawn */
	PART_PACKAGE,     /* every CPU package */
	PART_SMT,         /* the hardware threads */
	PART_NUMA,        /* the NUMA nodes */
	PART_MEMORY,      /* the memory bar */
	PART_SLOTS,       /* the empty slots (or DIMM-less channels); else the memory bar */
	PART_DIMMS,       /* the DIMMs running below their rated speed; else the memory bar */
	PART_LINK,        /* the link of the device the detail names; else every device's */
	PART_UPLINK,      /* the port above the device the detail names second */
	PART_DEVICE,      /* the device the detail names; else every device of the list */
	PART_SETTING,     /* its own box in the host, kernel and process settings */
};

struct check {
	const char *id;
	enum vtype type;
	int keyed;                      /* 1: one finding per key ("kernel.sysctl") */
	unsigned cmps;                  /* comparators allowed (CMP_*) */
	const char *const *values;      /* allowed expect values (V_ONOFF/V_STR), NULL: any */
	const char *facts;              /* fact paths read, for docs: "cpu.smt.active" */
	const char *sysctl;             /* a sysctl the check may read as a fallback, or NULL */
	const char *unit;               /* "bytes", "MHz", "ratio", NULL */
	const char *title;
	/* Fill o from the facts (root as in the probe JSON: root.cpu...). key is the
	 * sysctl name for keyed checks, else NULL. */
	void (*observe)(const cJSON *root, const char *key, struct obs *o);
	const char *what;               /* explain: what it measures */
	const char *why;                /* explain: why, with the field figures of nodeaudit-checks(7) */
	const char *disagree;           /* explain: where sources disagree, or NULL */
	struct fixdef fixes[4];
	/* What the renderers show of it: */
	enum part part;                 /* the drawing's part a finding colours */
	const char *devices;            /* PART_LINK/_DEVICE: the device list, "pci.nics" */
	const char *metrics;            /* Prometheus series of its inputs, blank-separated */
	const char *labels;             /* NFD labels of its inputs (after the prefix) */
};

extern const struct check check_catalog[];
extern const size_t ncheck_catalog;

const struct check *check_find(const char *id);
/* The known ID closest to id (edit distance), or NULL if none is close. */
const char *check_suggest(const char *id);
/* Same for any word list (NULL-terminated). */
const char *closest_word(const char *w, const char *const *words);

const char *severity_name(enum severity s);
const char *status_name(enum status s);

/* Observe one check alone (tests). */
void check_observe(const struct check *c, const cJSON *root, const char *key, struct obs *o);
void obs_release(struct obs *o);

#endif
