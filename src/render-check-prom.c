/* render-check-prom.c - the check report as a node_exporter textfile */
#include "config.h"
#include "report.h"
#include "render.h"
#include "facts.h"
#include "output.h"
#include "util.h"

#include <math.h>
#include <string.h>

static void prom_label(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", fp);
		else if (*s == '"')
			fputs("\\\"", fp);
		else if (*s == '\n')
			fputs("\\n", fp);
		else
			fputc(*s, fp);
	}
}

static void prom_head(FILE *fp, const char *name, const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void prom_fact(FILE *fp, const cJSON *r, const char *path, const char *name, const char *help,
		      double scale)
{
	const cJSON *v = facts_get(cJSON_GetObjectItemCaseSensitive(r, "facts"), path);
	if (!cJSON_IsNumber(v))
		return;
	prom_head(fp, name, help);
	fprintf(fp, "%s %.15g\n", name, v->valuedouble * scale);
}

void report_render_prometheus(FILE *fp, const struct doc *d)
{
	const cJSON *r = d->json;
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(r, "findings"), *f;
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r, "summary");
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(r, "profile");
	int i;

	prom_head(fp, "nodeaudit_info", "nodeaudit version and the profile checked (always 1).");
	fprintf(fp, "nodeaudit_info{version=\"%s\",profile=\"", PACKAGE_VERSION);
	prom_label(fp, fj_get_str(prof, "name"));
	fprintf(fp, "\",schema=\"%s\"} 1\n", REPORT_SCHEMA);
	prom_head(fp, "nodeaudit_check_status",
		  "Check status: 0 pass, 1 warn or info, 2 fail, 3 unknown (skipped checks are omitted).");
	cJSON_ArrayForEach(f, findings) {
		int st = report_status_of(f), v;
		const char *key = fj_get_str(f, "key");
		if (st == ST_SKIP)
			continue;
		v = st == ST_PASS ? 0 : st == ST_FAIL ? 2 : st == ST_UNKNOWN ? 3 : 1;
		fprintf(fp, "nodeaudit_check_status{id=\"");
		prom_label(fp, fj_get_str(f, "id"));
		if (key) {
			fprintf(fp, "\",key=\"");
			prom_label(fp, key);
		}
		fprintf(fp, "\",severity=\"%s\"} %d\n", fj_get_str(f, "severity"), v);
	}
	prom_head(fp, "nodeaudit_findings", "Number of findings by status.");
	for (i = 0; i < ST__N; i++)
		fprintf(fp, "nodeaudit_findings{status=\"%s\"} %d\n", status_name(i),
			report_jint(sum, status_name(i)));
	prom_head(fp, "nodeaudit_exit_status", "Exit status of the check: 0 ok, 1 warning, 2 critical.");
	fprintf(fp, "nodeaudit_exit_status %d\n", report_jint(sum, "exit"));
	prom_fact(fp, r, "cpu.packages", "nodeaudit_cpu_packages", "CPU packages (sockets) online.", 1);
	prom_fact(fp, r, "cpu.cores", "nodeaudit_cpu_cores", "Online physical cores.", 1);
	prom_fact(fp, r, "cpu.threads", "nodeaudit_cpu_threads", "Online hardware threads.", 1);
	prom_fact(fp, r, "cpu.max_mhz", "nodeaudit_cpu_max_frequency_hertz",
		  "Highest maximum core frequency in hertz.", 1e6);
	prom_fact(fp, r, "numa.node_count", "nodeaudit_numa_nodes", "NUMA nodes.", 1);
	prom_fact(fp, r, "memory.total_bytes", "nodeaudit_memory_total_bytes", "Memory (MemTotal) in bytes.", 1);
	prom_fact(fp, r, "memory.channels.total", "nodeaudit_memory_channels", "Memory channels of the platform.", 1);
	prom_fact(fp, r, "memory.channels.populated", "nodeaudit_memory_channels_populated",
		  "Memory channels with at least one DIMM.", 1);
	prom_fact(fp, r, "memory.ecc.uncorrected_errors", "nodeaudit_memory_ecc_uncorrected_errors",
		  "Uncorrected ECC errors since boot.", 1);
	prom_fact(fp, r, "memory.ecc.corrected_errors", "nodeaudit_memory_ecc_corrected_errors",
		  "Corrected ECC errors since boot.", 1);
	{
		const cJSON *acc = facts_get(cJSON_GetObjectItemCaseSensitive(r, "facts"), "pci.accelerators");
		if (cJSON_IsArray(acc)) {
			prom_head(fp, "nodeaudit_pci_accelerators", "PCIe accelerators found.");
			fprintf(fp, "nodeaudit_pci_accelerators %d\n", cJSON_GetArraySize(acc));
		}
	}
}
