/* report.h - the check report: built from findings, rendered as text, JSON, JUnit, Prometheus */
#ifndef NODEAUDIT_REPORT_H
#define NODEAUDIT_REPORT_H

#include <stdio.h>
#include <cjson/cJSON.h>
#include "profile.h"

#define REPORT_SCHEMA "nodeaudit.report/1"

/* The report document (DESIGN.md "JSON report shape").  root: the fact tree
 * (root.host, root.cpu...); gaps, evidence, conflicts may be NULL.  *exit_code
 * gets the exit status for fail_on ("warn", "fail", "never"). */
cJSON *report_build(const struct profile *p, const cJSON *root, const cJSON *gaps,
		    const cJSON *evidence, const cJSON *conflicts, const char *fail_on,
		    int *exit_code);

void report_text(FILE *fp, const cJSON *report);

/* Read every sysctl profile p names into ctx's facts (cmd-check.c). */
struct probe_ctx;
void check_read_profile_sysctls(struct probe_ctx *ctx, const struct profile *p);
void report_junit(FILE *fp, const cJSON *report, const char *fail_on);
void report_prometheus(FILE *fp, const cJSON *report);

/* XML text with &, <, >, " and ' escaped and control characters dropped. */
void xml_escape(FILE *fp, const char *s);

#endif
