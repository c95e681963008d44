/* fleet.h - fleet aggregation of many `check --format json` reports */
#ifndef NODEAUDIT_FLEET_H
#define NODEAUDIT_FLEET_H

#include <stdio.h>
#include <cjson/cJSON.h>

#define REPORT_SCHEMA "nodeaudit.report/1"
#define FLEET_SCHEMA "nodeaudit.fleet/1"

/* Finding statuses, in the order of every count array below. */
enum { ST_PASS, ST_WARN, ST_FAIL, ST_UNKNOWN, ST_SKIP, ST_N };
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
};

/* Per check ID. */
struct check_agg {
	char *id;
	int count[ST_N];
	int nfail_shown;
	size_t fail_nodes[5];   /* row indexes of the first failing nodes */
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

struct fleet {
	struct node_row *rows;
	size_t nrows, arows;
	struct check_agg *checks;   /* open-addressing hash, then sorted array */
	size_t nchecks, achecks;
	struct spread sp[SP_N];
	size_t files;               /* inputs seen */
	size_t skipped;
	struct skipped_file {
		char *file, *why;
	} *bad;                     /* the skipped files, in input order */
	size_t abad;
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

void fleet_text(FILE *fp, const struct fleet *f, size_t top);
cJSON *fleet_json(const struct fleet *f, size_t top);
void fleet_csv(FILE *fp, const struct fleet *f);

/* Median of sorted values (mean of the two middle ones for an even count). */
double spread_median(const double *v, size_t n);
/* Write one RFC 4180 CSV field (quoted when it holds , " CR or LF). */
void csv_field(FILE *fp, const char *s);

#endif
