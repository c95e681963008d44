/* audit/fleet.h - fleet aggregation of many `check --format json` reports */
#ifndef NODEAUDIT_FLEET_H
#define NODEAUDIT_FLEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#define REPORT_SCHEMA "nodeaudit.report/1"
#define FLEET_SCHEMA "nodeaudit.fleet/1"

/* Finding statuses, in the order of every count array below. */
enum { ST_PASS, ST_WARN, ST_FAIL, ST_UNKNOWN, ST_SKIP, ST_INFO, ST_N };
extern const char *const report_status_names[ST_N];

/* The key figures of one node; NaN where the report has null or nothing. */
enum {
	FIG_CPU_CORES,
	FIG_CHANNELS_POPULATED,
	FIG_CHANNELS_TOTAL,
	FIG_MEM_THEORETICAL,     /* memory.bandwidth.theoretical_bytes_per_s */
	FIG_BENCH_BW,            /* bench.bandwidth.bytes_per_s */
	FIG_ACCELERATORS,        /* length of pci.accelerators (NaN if absent) */
	FIG_ACCEL_WIDTH_MIN,     /* narrowest current link width over accelerators */
	FIG_ACCEL_NARROW,        /* accelerators whose current width < max width */
	FIG_N
};
extern const char *const report_figure_csv_names[FIG_N];

/* One usable report: the only thing kept per input. */
struct node_row {
	char *hostname;
	char *file;
	int count[ST_N];   /* from summary */
	int exit;          /* summary.exit, 0..3 */
	double fig[FIG_N];
	/* the warn, fail and unknown findings: check serial << 3 | status */
	uint32_t *bad;
	uint32_t nbad;
};

/* Per check ID, and per key for checks with one finding per key
 * (kernel.sysctl: one row per sysctl, counting nodes). */
struct check_agg {
	char *id;
	char *key;              /* NULL: the check has no per-key findings */
	char *hkey;             /* hash key: id, or "id\nkey" */
	uint32_t serial;        /* creation order, as kept in node_row.bad */
	int count[ST_N];
	int nfail_shown;
	size_t fail_nodes[5];   /* row indexes of the first failing nodes */
	int nwarn_shown;
	size_t warn_nodes[5];   /* and of the first warning nodes */
};

/* The spread of one figure over the fleet. */
enum {
	SP_BENCH_BW, SP_CHANNELS_POPULATED, SP_CHANNELS_TOTAL, SP_MEM_THEORETICAL,
	SP_ACCEL_WIDTH_CURRENT, SP_ACCEL_WIDTH_MAX, SP_CPU_CORES, SP_N
};
struct spread {
	const char *key;     /* fact path as in the report */
	int histogram;       /* 1: print per-value counts */
	double *v;           /* observed values (sorted by report_finish) */
	size_t n, alloc;
	size_t missing;      /* nodes (or devices) where the fact is null/absent */
};

/*
 * A fact that should be the same on every node of a fleet (issue: outliers).
 * Per node only a value index is kept (4 bytes), so that 50,000 reports stay
 * small and linear; each distinct value is stored once.  A measured figure
 * (bandwidth) keeps its number instead and is compared with a tolerance
 * around the fleet median.
 */
#define UNIFORM_NONE UINT32_MAX   /* unknown on that node (null or absent) */
#define UNIFORM_TOLERANCE 0.10    /* measured: more than 10% from the median */
struct uniform_fact {
	char *name;             /* fact path as in the report */
	int measured;
	uint32_t *val;          /* per row: value index or UNIFORM_NONE */
	double *num;            /* measured: per row value, NaN when unknown */
	size_t arow;
	char **values;          /* distinct values, in first-seen order */
	size_t *counts;
	size_t nvalues, avalues;
	uint32_t *hash;         /* open addressing over values: index + 1 */
	size_t ahash;
	/* after fleet_finish */
	size_t nknown;          /* nodes where the fact is known */
	size_t ndiffer;         /* nodes that differ from the fleet */
	uint32_t majority;      /* the most common value (not measured) */
	double median;          /* measured: median of the known values */
	uint32_t *order;        /* the minority values, most common first */
	size_t norder;
};

struct fleet_profile {
	char *name;
	size_t count;
};

struct fleet {
	struct node_row *rows;
	size_t nrows, arows;
	struct check_agg *checks;   /* first-seen order, then sorted (fleet_finish()) */
	size_t nchecks, achecks;
	uint32_t *check_hash;       /* id/key -> index + 1 in checks (open addressing); NULL after finish */
	size_t check_ahash;
	struct spread sp[SP_N];
	size_t files;               /* inputs seen */
	size_t skipped;
	struct skipped_file {
		char *file, *why;
	} *bad;                     /* the skipped files, in input order */
	size_t abad;
	struct uniform_fact *uf;    /* in first-seen order; sorted by name at finish */
	size_t nuf, auf, uf_hint;
	uint32_t *uf_hash;          /* name -> index + 1 in uf (open addressing); NULL after finish */
	size_t uf_ahash;
	size_t *check_by_serial;    /* after fleet_finish: serial -> index in checks */
	struct fleet_profile *profiles;   /* distinct profile names, first-seen order */
	size_t nprofiles;
	int sorted;
};

void fleet_init(struct fleet *f);
/* Record an input that is not a usable report (named in the JSON output). */
void fleet_skip(struct fleet *f, const char *file, const char *why);
void fleet_release(struct fleet *f);
/*
 * Schema-check one parsed report and add it (only its row, check counts and
 * figures are kept; root may be freed afterwards).  Returns 0, or -1 with
 * *why set to an allocated one-line reason that the caller prints after the
 * file name and frees.
 */
int fleet_add(struct fleet *f, const char *file, const cJSON *root, char **why);
/* Sort the checks, the spreads; call once after the last fleet_add. */
void fleet_finish(struct fleet *f);
/* Worst node exit mapped to a fleet exit (0, 1 or 2); a node exit 3 counts as 2. */
int fleet_exit(const struct fleet *f);

/* The number of facts with outliers (after fleet_finish). */
size_t fleet_outlier_facts(const struct fleet *f);
/* Does row r differ from the fleet on fact u? */
int fleet_row_differs(const struct uniform_fact *u, size_t r);
/* The value of fact u on row r for people ("unknown" when not known). */
const char *fleet_row_value(const struct uniform_fact *u, size_t r, char *buf, size_t n);
/* The fleet value of fact u for people. */
const char *fleet_majority_value(const struct uniform_fact *u, char *buf, size_t n);
/* The rows that differ on fact u, grouped by minority value in u->order
 * (measured: row order); returns the count, free(*rows). */
size_t fleet_outlier_rows(const struct fleet *f, const struct uniform_fact *u, size_t **rows);
/* Bandwidth and measured figures for people ("250.0 GB/s"); plain numbers as is. */
const char *fleet_fmt_measured(char *buf, size_t n, const char *name, double x);

/* The nodes with at least one fail, warn or unknown finding (or a non-zero
 * exit), worst first, at most top of them; free(*out).  Returns the count. */
size_t fleet_worst_nodes(const struct fleet *f, size_t top, const struct node_row ***out);
/* The exit statuses by name, and how many nodes had each. */
extern const char *const fleet_exit_names[4];
void fleet_nodes_by_exit(const struct fleet *f, size_t by[4]);
/* Integers as integers; anything else with 15 significant digits. */
const char *fleet_fmt_num(char *buf, size_t n, double x);
/* The fleet as JSON (audit/fleet-json.c; as text and CSV: render/render.h). */
cJSON *fleet_json(const struct fleet *f, size_t top);

/* Median of sorted values (mean of the two middle ones for an even count). */
double spread_median(const double *v, size_t n);

#endif
