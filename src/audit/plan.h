/* audit/plan.h - turn facts and findings into reviewable fixes; no I/O here */
#ifndef NODEAUDIT_PLAN_H
#define NODEAUDIT_PLAN_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

struct plan_opts {
	const char *command;   /* the worker command; NULL: a marked placeholder */
	int reserve;           /* cores per node kept for the OS; -1: default */
	const char *unit;      /* systemd unit template name for drop-ins */
	/* Launch lines in a runtime's own terms (audit/plan-runtime.c); NULL: none. */
	const struct plan_runtime *runtime;
	const struct plan_model *model;   /* from --model, or NULL */
	int64_t ctx;           /* --ctx; -1: the model's, capped at 4096 */
	const cJSON *bench;    /* a bench document (bench --sweep), or NULL */
	/* llama.cpp's syntax: how cmd/plan.c found it out (runtime_syntax()). */
	const struct plan_syntax *syntax;
};

/* The llama-server the lines are for: its --help decides the syntax. */
struct plan_syntax {
	int load_mode;         /* 1: -lm/--load-mode; 0: --no-mmap/--mlock (before PR 20834) */
	const char *bin;       /* the program asked; NULL: none, today's syntax assumed */
	const char *version;   /* its --version line, or NULL */
	const char *why;       /* when assumed: why no program was asked (one line) */
};

/* What the planner knows of the model (cmd/plan.c reads the GGUF, or the
 * Hugging Face checkpoint directory: config.json and safetensors headers). */
struct plan_model {
	const char *path;
	int checkpoint;               /* 1: a checkpoint directory (vLLM); 0: a GGUF file */
	/* A checkpoint's config.json (0 for a GGUF file): */
	uint64_t heads, kv_heads, layers, hidden, head_dim;
	const char *dtype;
	uint64_t weight_bytes;        /* the tensor table's sum: what each copy holds */
	uint64_t kv_bytes_per_pos;    /* KV cache per context position (f16); 0 unknown */
	uint64_t n_ctx_train;         /* 0 unknown */
};

/* A runtime: one row of plan_runtimes[] (audit/plan-runtime.c) and its renderer. */
struct plan_runtime {
	const char *name;             /* "llama.cpp" */
	const char *program;          /* what it runs: "llama-server" */
	/* Fill the workers' command/env (and the plan's top level). */
	void (*build)(cJSON *plan, const cJSON *facts, const struct plan_opts *o);
};
extern const struct plan_runtime plan_runtimes[];
const struct plan_runtime *plan_runtime_find(const char *name);
/* A model path as a runtime's argument (malloc'd): "./" before a relative
 * path that starts with '-', so that no parser reads it as an option. */
char *plan_path_arg(const char *path);
/* Whether vLLM accepts tensor parallel size tp for a model of heads
 * attention heads and kv KV heads (audit/plan-runtime.c cites its checks). */
int plan_vllm_tp_ok(uint64_t heads, uint64_t kv, int tp);
/* After the workers are placed: the bench knee, the runtime, the fit. */
void plan_runtime_apply(cJSON *plan, const cJSON *facts, const struct plan_opts *o);

#define PLAN_PLACEHOLDER "<your-inference-command>"

/*
 * Build the plan document from a fact tree (probe's, keyed as in nodeaudit(1) JSON OUTPUT) and the
 * findings of a check (may be NULL: then only placement is planned):
 *   {schema, host, profile, workers[], housekeeping, feeders[], steps[], notes[]}
 * Never guesses: a fact it needs that is unknown becomes a note.
 */
cJSON *plan_build(const cJSON *facts, const cJSON *findings, const char *profile,
		  const struct plan_opts *o);

/*
 * A saved report's strings that a plan acts on -- profile.name, each
 * finding's id, key, status and expected value, each fix's step, kind, key
 * and value -- hold no control character (C0, DEL, C1) and are valid UTF-8:
 * NULL, or "KEY: why" (malloc'd) for the first that does not.  plan
 * --report refuses such a report (exit 3); the other strings (the
 * hostname, texts, observed values) reach generated files only as
 * comments, cleaned onto one line (lib/quote.h).
 */
char *plan_report_refusal(const cJSON *report);
/* A thread sweep's nodes (bench.sweep.nodes, at where in its document)
 * whose node ids or thread counts are no integers in range: NULL, or
 * "KEY is V, not an integer from LO to HI" (malloc'd). */
char *plan_sweep_refusal(const cJSON *nodes, const char *where);

/* plan.kubelet: the kubelet's CPU, Topology and Memory Manager settings from
 * the facts and plan.housekeeping (audit/plan-kubelet.c; called by plan_build). */
void plan_kubelet(cJSON *plan, const cJSON *facts);
/* audit/plan-tuned.c: plan.tuned, the profile a tuned profile of the plan
 * includes: the node's running one (kernel.tuned_profile), else
 * throughput-performance. */
void plan_tuned(cJSON *plan, const cJSON *facts);
/* The profile's name: the directory plan --format tuned -o /etc/tuned/NAME
 * writes is the name tuned-adm knows it by. */
#define PLAN_TUNED_NAME "nodeaudit"

/* Its renderers are in render/plan.c (render/render.h); lib/quote.h has the rule
 * every generated format follows. */

/* Add a line to plan.notes (made when absent), printf-style. */
void plan_note(cJSON *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
