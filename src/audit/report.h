/* audit/report.h - the check report: built from findings; its renderers are render-check-*.c */
#ifndef NODEAUDIT_REPORT_H
#define NODEAUDIT_REPORT_H

#include <stdio.h>
#include <cjson/cJSON.h>
#include "audit/profile.h"

#define REPORT_SCHEMA "nodeaudit.report/1"

/* The report document (nodeaudit(1) CHECK REPORT: schema, tool, host, profile, facts, gaps, findings, summary).  root: the fact tree
 * (root.host, root.cpu...); gaps, evidence, conflicts may be NULL.  *exit_code
 * gets the exit status for fail_on ("warn", "fail", "never"). */
/* check --unknown: "ignore" (NULL, the default), "warn" or "fail" is what
 * the report's unknown findings do to code (as warnings or failures would,
 * under the same --fail-on); records it as summary.on_unknown and sets
 * summary.exit.  Returns the exit code. */
int report_apply_unknown(cJSON *report, const char *unknown, int code);
cJSON *report_build(const struct profile *p, const cJSON *root, const cJSON *gaps,
		    const cJSON *evidence, const cJSON *conflicts, const char *fail_on,
		    int *exit_code);
/* The same document from a caller that gives the fact tree up: *root,
 * *gaps and (when not empty) *conflicts move into the report, not copied,
 * and are set to NULL; an empty *conflicts stays the caller's.  root is an
 * object (the report's facts: its host member moves to the report's
 * host). */
cJSON *report_build_moving(const struct profile *p, cJSON **root, cJSON **gaps,
			   const cJSON *evidence, cJSON **conflicts, const char *fail_on,
			   int *exit_code);

#endif
