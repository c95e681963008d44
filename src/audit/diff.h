/* audit/diff.h - what changed between two fact trees (and two sets of findings) */
#ifndef NODEAUDIT_DIFF_H
#define NODEAUDIT_DIFF_H

#include <stdio.h>
#include <cjson/cJSON.h>

#define DIFF_SCHEMA "nodeaudit.diff/1"

/*
 * One side of a comparison.  Nothing here is owned by the diff: the caller
 * keeps every pointer alive until diff_build() returns.
 */
struct diff_side {
	const char *source;      /* the file or directory the user named */
	const char *kind;        /* "probe", "report", "snapshot" or "live" */
	const cJSON *facts;      /* fact tree: host, cpu, numa, memory, pci, kernel... */
	const cJSON *findings;   /* a report's findings array, or NULL */
	const char *profile;     /* the profile the findings were decided on, or NULL */
};

/* Which document this is: "probe" (nodeaudit.probe/1), "report"
 * (nodeaudit.report/1), or NULL for anything else. */
const char *diff_doc_kind(const cJSON *doc);

/* The fact tree of a probe or report document: a new tree with host, cpu,
 * numa... (a probe's schema, tool, gaps, conflicts and evidence left out; a
 * report's "facts" with its "host" beside them).  NULL for other documents. */
cJSON *diff_facts_of(const cJSON *doc);

/*
 * The diff document (schema nodeaudit.diff/1): old and new source info, the
 * changed facts by path with arrays keyed by their natural identity
 * (numa.nodes by id, pci devices by bdf, memory.dimms by locator, cpu.kinds
 * by name...), the findings that appeared, cleared, got worse or better
 * (when both sides have findings), and a summary with the exit status:
 * 0 nothing that matters changed, 1 facts changed, 2 a check got worse.
 * Volatile facts (timestamps, free memory, host name, evidence lists) are
 * counted but listed only when show_volatile is set; an EDAC error counter
 * that grew is never volatile.
 */
cJSON *diff_build(const struct diff_side *old, const struct diff_side *new, int show_volatile);

/* summary.exit of a diff document (3 when it has none). */
int diff_exit(const cJSON *diff);

/*
 * `check --baseline`: compare the report being built (new) with a baseline
 * (old), add the diff as report.baseline, and raise the exit status to at
 * least 1 (a warning) when facts changed or a check is worse than on the
 * baseline and fail_on is "warn" (the findings keep their own level; with
 * "fail" or "never" drift alone changes nothing).  summary.exit follows.  Returns
 * the new exit status.
 */
int diff_report_baseline(cJSON *report, const struct diff_side *baseline, const char *fail_on,
			 int exit_code);

/*** Loading the inputs (audit/diff-input.c: the only part that reads files) ***/

struct profile;
struct probe_opts;

/* One loaded side; everything in it is owned and freed by diff_input_release(). */
struct diff_input {
	struct diff_side side;
	cJSON *doc;        /* the JSON read, or the probe document of a snapshot */
	cJSON *facts;
	cJSON *report;     /* the report built with a profile, or NULL */
	char *source;
};

/*
 * Load path: a probe JSON, a check report, or a snapshot (a directory with
 * proc/, sys/ or nodeaudit/, or an archive), which is probed.  path NULL
 * probes this node, or opts->sysroot.  With prof, the facts are also checked
 * against it, and those findings are the side's (a report's saved ones are
 * used otherwise).  Returns 0, or -1 after one line naming the file.
 */
int diff_input_load(struct diff_input *in, const char *path, const struct probe_opts *opts,
		    const struct profile *prof);
void diff_input_release(struct diff_input *in);

/* Whether directory dir holds what a capture holds (proc/, sys/ or nodeaudit/). */
int diff_looks_like_snapshot(const char *dir);

/* `check --baseline FILE`: load FILE (checked against prof, as the node was)
 * and apply diff_report_baseline().  Returns the new exit status, or -1
 * after one line. */
int diff_check_baseline(cJSON *report, const char *path, const struct profile *prof,
			const char *fail_on, int exit_code);

#endif
