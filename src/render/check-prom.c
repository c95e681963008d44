/* render/check-prom.c - the check report as a node_exporter textfile */
#include "config.h"
#include "audit/report.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"
#include "read/sysroot.h"

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

/* The device a finding's detail names first ("0000:41:00.0: x8 of x16"), in
 * bdf (13 bytes), or 0 when it names none. */
static int detail_bdf(const char *d, char *bdf)
{
	static const char pat[] = "xxxx:xx:xx.x";
	size_t i;
	if (!d)
		return 0;
	for (i = 0; pat[i]; i++) {
		unsigned char c = (unsigned char)d[i];
		if (pat[i] == 'x' ? !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) : c != (unsigned char)pat[i])
			return 0;
	}
	if (d[i] != ':')
		return 0;
	memcpy(bdf, d, i);
	bdf[i] = '\0';
	return 1;
}

/* Whether the blank-separated list holds word. */
static int word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;
	for (p = list; p && (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* The HELP line: help, then the checks whose catalogue row lists the
 * series among its inputs (.metrics), "" */
static void prom_head_type(FILE *fp, const char *name, const char *help, const char *type)
{
	size_t i;
	int n = 0;
	for (i = 0; i < ncheck_catalog; i++)
		n += word_in(check_catalog[i].metrics, name);
	fprintf(fp, "# HELP %s %s", name, help);
	if (n) {
		int k = 0;
		fprintf(fp, " (check%s ", n > 1 ? "s" : "");
		for (i = 0; i < ncheck_catalog; i++)
			if (word_in(check_catalog[i].metrics, name))
				fprintf(fp, "%s%s", k++ ? ", " : "", check_catalog[i].id);
		fputc(')', fp);
	}
	fprintf(fp, ".\n# TYPE %s %s\n", name, type);
}

static void prom_head(FILE *fp, const char *name, const char *help)
{
	prom_head_type(fp, name, help, "gauge");
}

static void prom_fact_type(FILE *fp, const cJSON *r, const char *path, const char *name, const char *help,
			   double scale, const char *type)
{
	const cJSON *v = facts_get(cJSON_GetObjectItemCaseSensitive(r, "facts"), path);
	if (!cJSON_IsNumber(v))
		return;
	prom_head_type(fp, name, help, type);
	fprintf(fp, "%s %.15g\n", name, v->valuedouble * scale);
}

static void prom_fact(FILE *fp, const cJSON *r, const char *path, const char *name, const char *help,
		      double scale)
{
	prom_fact_type(fp, r, path, name, help, scale, "gauge");
}

/*** Per device and per node: labels an alert can name ***/

static const struct link_metric {
	const char *name, *fact, *help;
	double scale;
} link_metrics[] = {
	{ "nodeaudit_pci_link_width", "link.width.current",
	  "Negotiated PCIe link width in lanes, per device", 1 },
	{ "nodeaudit_pci_link_width_max", "link.width.max",
	  "Widest PCIe link the device supports, in lanes", 1 },
	{ "nodeaudit_pci_link_speed_transfers_per_second", "link.speed_gts.current",
	  "Negotiated PCIe link speed in transfers per second, per device",
	  1e9 },
	{ "nodeaudit_pci_link_speed_max_transfers_per_second", "link.speed_gts.max",
	  "Fastest PCIe link speed the device supports, in transfers per second", 1e9 },
};

/* {bdf="...",class="accelerator",node="0"} of one device (node only when known). */
static void device_labels(FILE *fp, const cJSON *d, const char *class)
{
	const cJSON *node = cJSON_GetObjectItemCaseSensitive(d, "numa_node");
	long long nd;
	fprintf(fp, "{bdf=\"");
	prom_label(fp, fj_get_str(d, "bdf"));
	fprintf(fp, "\",class=\"%s\"", class);
	if (fj_get_str(d, "device")) {
		fprintf(fp, ",device=\"");
		prom_label(fp, fj_get_str(d, "device"));
		fputc('"', fp);
	}
	if (fj_int(node, 0, SR_MAX_NODES - 1, &nd) > 0)   /* else no label, never a wrapped id */
		fprintf(fp, ",node=\"%lld\"", nd);
	fputc('}', fp);
}

static void prom_per_device(FILE *fp, const cJSON *r)
{
	const cJSON *facts = cJSON_GetObjectItemCaseSensitive(r, "facts");
	static const char *const lists[][2] = { { "pci.accelerators", "accelerator" }, { "pci.nics", "nic" } };
	size_t m, k;
	for (m = 0; m < ARRAY_SIZE(link_metrics); m++) {
		int head = 0;
		for (k = 0; k < ARRAY_SIZE(lists); k++) {
			const cJSON *d;
			cJSON_ArrayForEach(d, facts_get(facts, lists[k][0])) {
				const cJSON *v = facts_get(d, link_metrics[m].fact);
				if (!cJSON_IsNumber(v) || !fj_get_str(d, "bdf"))
					continue;
				if (!head++)
					prom_head(fp, link_metrics[m].name, link_metrics[m].help);
				fputs(link_metrics[m].name, fp);
				device_labels(fp, d, lists[k][1]);
				fprintf(fp, " %.15g\n", v->valuedouble * link_metrics[m].scale);
			}
		}
	}
}

/* One gauge per NUMA node: {node="N"} from the member key of list's items. */
static void node_gauge(FILE *fp, const cJSON *list, const char *idkey, const char *valkey, const char *name,
		       const char *help)
{
	const cJSON *it;
	int head = 0;
	cJSON_ArrayForEach(it, list) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, idkey);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, valkey);
		long long nid;
		if (fj_int(id, 0, SR_MAX_NODES - 1, &nid) <= 0 || !cJSON_IsNumber(v))
			continue;
		if (!head++)
			prom_head(fp, name, help);
		fprintf(fp, "%s{node=\"%lld\"} %.15g\n", name, nid, v->valuedouble);
	}
}

static void prom_per_node(FILE *fp, const cJSON *r)
{
	const cJSON *facts = cJSON_GetObjectItemCaseSensitive(r, "facts");
	node_gauge(fp, facts_get(facts, "numa.nodes"), "id", "memory_bytes", "nodeaudit_numa_node_memory_bytes",
		   "Memory of each NUMA node in bytes");
	/* check --bench */
	prom_fact(fp, r, "bench.bandwidth.bytes_per_s", "nodeaudit_bench_bandwidth_bytes_per_second",
		  "Memory read bandwidth measured by check --bench, all nodes at once", 1);
	prom_fact(fp, r, "bench.peak_bytes_per_s", "nodeaudit_bench_peak_bytes_per_second",
		  "Theoretical memory bandwidth the bench compares with", 1);
	prom_fact(fp, r, "bench.efficiency", "nodeaudit_bench_efficiency_ratio",
		  "Measured over theoretical memory bandwidth", 1);
	node_gauge(fp, facts_get(facts, "bench.nodes"), "node", "bytes_per_s",
		   "nodeaudit_bench_node_bandwidth_bytes_per_second",
		   "Memory read bandwidth measured on each NUMA node by check --bench");
}

void report_render_prometheus(FILE *fp, const struct doc *d)
{
	const cJSON *r = d->json;
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(r, "findings"), *f;
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r, "summary");
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(r, "profile");
	int i;

	prom_head(fp, "nodeaudit_info", "nodeaudit version and the profile checked (always 1)");
	fprintf(fp, "nodeaudit_info{version=\"%s\",profile=\"", PACKAGE_VERSION);
	prom_label(fp, fj_get_str(prof, "name"));
	fprintf(fp, "\",schema=\"%s\"} 1\n", REPORT_SCHEMA);
	prom_head(fp, "nodeaudit_check_status",
		  "Check status by check id ('nodeaudit explain ID' says what it measures), one series per "
		  "status (pass, info, warn, fail, unknown): 1 for the check's, 0 for the others; skipped checks "
		  "are omitted; check_severity: what a failure of the check means; bdf: the device a check over "
		  "devices found worst");
	cJSON_ArrayForEach(f, findings) {
		int st = report_status_of(f), k;
		const char *key = fj_get_str(f, "key");
		char bdf[16];
		int has_bdf;
		if (st == ST_SKIP)
			continue;
		/* A check over devices: the device its value comes from (the worst). */
		has_bdf = detail_bdf(fj_get_str(f, "detail"), bdf);
		for (k = 0; k < ST__N; k++) {
			if (k == ST_SKIP)
				continue;
			fprintf(fp, "nodeaudit_check_status{id=\"");
			prom_label(fp, fj_get_str(f, "id"));
			if (key) {
				fprintf(fp, "\",key=\"");
				prom_label(fp, key);
			}
			if (has_bdf)
				fprintf(fp, "\",bdf=\"%s", bdf);
			fprintf(fp, "\",check_severity=\"");
			prom_label(fp, fj_get_str(f, "severity"));
			fprintf(fp, "\",status=\"%s\"} %d\n", status_name(k), k == st);
		}
	}
	prom_head(fp, "nodeaudit_findings", "Number of findings by status");
	for (i = 0; i < ST__N; i++)
		fprintf(fp, "nodeaudit_findings{status=\"%s\"} %d\n", status_name(i),
			report_jint(sum, status_name(i)));
	prom_head(fp, "nodeaudit_exit_status", "Exit status of the check: 0 ok, 1 warning, 2 critical");
	fprintf(fp, "nodeaudit_exit_status %d\n", report_jint(sum, "exit"));
	prom_fact(fp, r, "cpu.packages", "nodeaudit_cpu_packages", "CPU packages (sockets) online", 1);
	prom_fact(fp, r, "cpu.cores", "nodeaudit_cpu_cores", "Online physical cores", 1);
	prom_fact(fp, r, "cpu.threads", "nodeaudit_cpu_threads", "Online hardware threads", 1);
	prom_fact(fp, r, "cpu.max_mhz", "nodeaudit_cpu_max_frequency_hertz",
		  "Highest maximum core frequency in hertz", 1e6);
	prom_fact(fp, r, "numa.node_count", "nodeaudit_numa_nodes", "NUMA nodes", 1);
	prom_fact(fp, r, "memory.total_bytes", "nodeaudit_memory_total_bytes", "Memory (MemTotal) in bytes", 1);
	prom_fact(fp, r, "memory.channels.total", "nodeaudit_memory_channels", "Memory channels of the platform", 1);
	prom_fact(fp, r, "memory.channels.populated", "nodeaudit_memory_channels_populated",
		  "Memory channels with at least one DIMM", 1);
	/* EDAC's counts only grow until the next boot (or an EDAC reset), which
	 * Prometheus takes as a counter reset. */
	prom_fact_type(fp, r, "memory.ecc.uncorrected_errors", "nodeaudit_memory_ecc_uncorrected_errors_total",
		       "Uncorrected ECC errors since boot, EDAC ue_count summed", 1,
		       "counter");
	prom_fact_type(fp, r, "memory.ecc.corrected_errors", "nodeaudit_memory_ecc_corrected_errors_total",
		       "Corrected ECC errors since boot, EDAC ce_count summed", 1,
		       "counter");
	{
		const cJSON *acc = facts_get(cJSON_GetObjectItemCaseSensitive(r, "facts"), "pci.accelerators");
		if (cJSON_IsArray(acc)) {
			prom_head(fp, "nodeaudit_pci_accelerators", "PCIe accelerators found");
			fprintf(fp, "nodeaudit_pci_accelerators %d\n", cJSON_GetArraySize(acc));
		}
	}
	prom_per_device(fp, r);
	prom_per_node(fp, r);
}
