/* render/render.h - the renderers: one function per command and format, one signature */
#ifndef NODEAUDIT_RENDER_H
#define NODEAUDIT_RENDER_H

#include <stdio.h>
#include <cjson/cJSON.h>

/*
 * What a command hands its renderer: the document that `--format json`
 * prints, and for commands whose other formats need more than the document
 * (report: every node's row), a pointer to their own state.  Renderers only
 * format: no I/O besides fp, no decisions (hwloc lstopo's output methods).
 */
struct doc {
	cJSON *json;        /* owned by the invocation; may be NULL (data only) */
	const void *data;   /* command-specific, or NULL */
	void (*free_data)(void *data);   /* releases data, or NULL */
};

typedef void render_fn(FILE *fp, const struct doc *d);

/* Any JSON document, indented, valid UTF-8 whatever its strings held. */
render_fn render_json;

/* probe (render/probe-text.c) */
render_fn probe_render_text;
/* Its process section (render/probe-process.c). */
void probe_render_process_text(FILE *out, const cJSON *root);
/* pci.matrix as a table folded to width columns (80 when 0) and the
 * devices' facts (render/probe-matrix.c) */
void text_pci_matrix(FILE *fp, const cJSON *matrix, int width);
/* The node as a drawing (render/svg.c): probe's facts alone, check's
 * report coloured by its findings; node_svg_facts for a page (standalone
 * 0: no XML declaration). */
render_fn probe_render_svg;
render_fn report_render_svg;
void node_svg_facts(FILE *fp, const cJSON *facts, const cJSON *host, const cJSON *findings, int standalone);
/* check: the report (render-check-*.c) */
render_fn report_render_text;
render_fn report_render_junit;
render_fn report_render_prometheus;
render_fn report_render_tap;
render_fn report_render_nfd;   /* render/check-nfd.c; d->data: struct nfd_opts (render/nfd.h) or NULL */
/* plan (render/plan.c) */
render_fn plan_render_text;
render_fn plan_render_sh;
render_fn plan_render_sysctl;
render_fn plan_render_systemd;
/* plan --format systemd's files one by one (cmd/plan.c writes them under
 * -o DIR): the template unit NAME@.service, and each worker's drop-in
 * NAME@INSTANCE.service.d/90-nodeaudit.conf (a worker whose CPU list is not
 * one has none).  alone: the template with the plan's header comment. */
const char *plan_systemd_unit(const cJSON *plan);
void plan_systemd_instance(const cJSON *worker, char *buf, size_t n);
int plan_systemd_worker_ok(const cJSON *worker);
void plan_render_systemd_template(FILE *out, const cJSON *plan, int alone);
void plan_render_systemd_dropin(FILE *out, const cJSON *plan, const cJSON *worker);
/* The runtime's launch lines and the fit, for the text plan (render/plan-runtime.c). */
void plan_render_runtime_text(FILE *out, const cJSON *plan);
render_fn plan_render_kubelet;   /* render/plan-kubelet.c */
render_fn plan_render_tuned;     /* render/plan-tuned.c: tuned.conf */
/* bench (render/bench.c) */
render_fn bench_render_text;
/* explain (cmd/explain.c data: a check, or NULL for the list) */
render_fn explain_render_text;
/* profiles (cmd/profiles.c) */
render_fn profiles_render_text;

/*** Shared by the renderers, and by the commands that print a part ***/

/* render/check-common.c: an integer of a report object, a finding's
 * observed and expected values for people, a value with its unit, a
 * profile's spec, a finding's status. */
int report_jint(const cJSON *o, const char *k);
char *report_observed_text(const cJSON *f);
char *report_expected_text(const cJSON *f);
const char *report_value_text(double v, const char *unit, char *buf, size_t n);
char *report_spec_text(const char *spec, const char *unit);
int report_status_of(const cJSON *f);
/* render/check-junit.c: XML text with &, <, >, " and ' escaped and control
 * characters dropped. */
void xml_escape(FILE *fp, const char *s);

/* render/diff.c: the whole document for `diff`, and the short section
 * `check --baseline` adds to the text report (nothing when baseline is
 * NULL). */
void diff_text(FILE *fp, const cJSON *diff);
void diff_text_baseline(FILE *fp, const cJSON *baseline);

/* The fleet as text (render/fleet-text.c) and CSV (render/fleet-csv.c);
 * one RFC 4180 CSV field (quoted when it holds , " CR or LF; a field that
 * a spreadsheet would take for a formula, starting with =, +, -, @, a tab
 * or a CR, gets a leading ' so that it stays text). */
struct fleet;
void fleet_text(FILE *fp, const struct fleet *f, size_t top);
void fleet_csv(FILE *fp, const struct fleet *f);
void csv_field(FILE *fp, const char *s);

#endif
