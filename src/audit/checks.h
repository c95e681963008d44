/* audit/checks.h - the engine: a profile's checks against the facts -> findings */
#ifndef NODEAUDIT_CHECKS_H
#define NODEAUDIT_CHECKS_H

#include <cjson/cJSON.h>
#include "audit/check-catalog.h"

struct profile;

/* Evaluate every check the profile enables against the facts.  root: the
 * fact tree (root.cpu...); gaps: [{fact, reason}] (may be NULL); evidence:
 * {fact: [paths]} (may be NULL).  Returns the findings array; counts[ST__N]
 * receives the number of findings per status.  No I/O. */
cJSON *checks_run(const struct profile *p, const cJSON *root, const cJSON *gaps,
		  const cJSON *evidence, int counts[ST__N]);

/* Exit status for counts and --fail-on ("warn", "fail", "never"). */
int checks_exit(const int counts[ST__N], const char *fail_on);

#endif
