/* audit/audit.h - the audit pipeline every command shares: probe -> profile -> report */
#ifndef NODEAUDIT_AUDIT_H
#define NODEAUDIT_AUDIT_H

#include <cjson/cJSON.h>
#include "bench/bench.h"
#include "probe/probe.h"
#include "audit/profile.h"

struct audit_opts {
	const char *profile;       /* name or path; NULL: DEFAULT_PROFILE, or GUEST_PROFILE on a
	                              virtual guest, said in the report's profile.chosen */
	const char *fail_on;       /* "warn" (NULL), "fail", "never" */
	const char *unknown;       /* what an unknown check does to the exit: "ignore" (NULL), "warn", "fail" */
	const char *facts;         /* a saved 'probe --format json' instead of probing, or NULL */
	const struct bench_opts *bench;   /* measure bandwidth into facts.bench, or NULL */
};

/*
 * Load the profile; probe (with every sysctl the profile names) or read the
 * saved facts; run the bench when asked; build the report document
 * (nodeaudit(1) CHECK REPORT).  *report and *exit_code are set on
 * success.  Returns 0, or -1 after printing one line.
 */
int audit_run(const struct audit_opts *o, const struct probe_opts *po, cJSON **report,
	      int *exit_code);

/* Read into ctx's facts every sysctl p names (kernel.sysctl keys and the
 * checks' fallbacks), unless read already. */
void audit_read_profile_inputs(struct probe_ctx *ctx, const struct profile *p);
/* The same for every profile in the search path (snapshot: a sysctl a
 * custom profile names is captured too).  Unloadable profiles are skipped. */
void audit_read_all_profile_inputs(struct probe_ctx *ctx);

/* Read a saved document (a probe, a report) of at most max bytes: parsed,
 * an object, with "schema" equal to want.  what names it in messages
 * ("the JSON of 'nodeaudit probe --format json'").  NULL after one line. */
cJSON *audit_load_doc(const char *path, const char *want, const char *what, size_t max);
/* The same with "schema" one of wants (NULL-terminated). */
cJSON *audit_load_doc_of(const char *path, const char *const *wants, const char *what, size_t max);

#endif
