/* plan.h - turn facts and findings into reviewable fixes; no I/O here */
#ifndef NODEAUDIT_PLAN_H
#define NODEAUDIT_PLAN_H

#include <stdio.h>
#include <cjson/cJSON.h>

struct plan_opts {
	const char *command;   /* the worker command; NULL: a marked placeholder */
	int reserve;           /* cores per node kept for the OS; -1: default */
	const char *unit;      /* systemd unit template name for drop-ins */
};

#define PLAN_PLACEHOLDER "<your-inference-command>"

/*
 * Build the plan document from a fact tree (probe's, keyed as in nodeaudit(1) JSON OUTPUT) and the
 * findings of a check (may be NULL: then only placement is planned):
 *   {schema, host, profile, workers[], housekeeping, feeders[], steps[], notes[]}
 * Never guesses: a fact it needs that is unknown becomes a note.
 */
cJSON *plan_build(const cJSON *facts, const cJSON *findings, const char *profile,
		  const struct plan_opts *o);

/* plan.kubelet: the kubelet's CPU, Topology and Memory Manager settings from
 * the facts and plan.housekeeping (plan-kubelet.c; called by plan_build). */
void plan_kubelet(cJSON *plan, const cJSON *facts);

/* Its renderers are in render-plan.c (render.h). */

#endif
