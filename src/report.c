/* report.c - the check report and its renderers: text, JUnit XML, Prometheus textfile */
#include "config.h"
#include "report.h"
#include "diff.h"
#include "facts.h"
#include "output.h"
#include "util.h"

#include <math.h>
#include <string.h>

/*** Building ***/

cJSON *report_build(const struct profile *p, const cJSON *root, const cJSON *gaps,
		    const cJSON *evidence, const cJSON *conflicts, const char *fail_on,
		    int *exit_code)
{
	cJSON *r = cJSON_CreateObject(), *o, *facts, *chain, *sum;
	const cJSON *it;
	int counts[ST__N];
	size_t i;

	cJSON_AddStringToObject(r, "schema", REPORT_SCHEMA);
	o = cJSON_AddObjectToObject(r, "tool");
	cJSON_AddStringToObject(o, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(o, "version", PACKAGE_VERSION);
	it = cJSON_GetObjectItemCaseSensitive(root, "host");
	cJSON_AddItemToObject(r, "host", it ? cJSON_Duplicate(it, 1) : cJSON_CreateObject());
	o = cJSON_AddObjectToObject(r, "profile");
	cJSON_AddStringToObject(o, "name", p->name);
	chain = cJSON_AddArrayToObject(o, "chain");
	for (i = 0; i < p->nchain; i++)
		cJSON_AddItemToArray(chain, cJSON_CreateString(p->chain[i]));
	cJSON_AddStringToObject(o, "source", p->source);
	facts = cJSON_AddObjectToObject(r, "facts");
	cJSON_ArrayForEach(it, root)
		if (strcmp(it->string, "host"))
			cJSON_AddItemToObject(facts, it->string, cJSON_Duplicate(it, 1));
	cJSON_AddItemToObject(r, "gaps", gaps ? cJSON_Duplicate(gaps, 1) : cJSON_CreateArray());
	if (conflicts && cJSON_GetArraySize(conflicts))
		cJSON_AddItemToObject(r, "conflicts", cJSON_Duplicate(conflicts, 1));
	cJSON_AddItemToObject(r, "findings", checks_run(p, root, gaps, evidence, counts));
	*exit_code = checks_exit(counts, fail_on);
	sum = cJSON_AddObjectToObject(r, "summary");
	for (i = 0; i < ST__N; i++)
		cJSON_AddNumberToObject(sum, status_name(i), counts[i]);
	cJSON_AddStringToObject(sum, "fail_on", fail_on ? fail_on : "warn");
	cJSON_AddNumberToObject(sum, "exit", *exit_code);
	return r;
}

/*** Shared helpers ***/

static int jint(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* The observed value for people: bytes as sizes, ratios with two decimals. */
static const char *observed_text(const cJSON *f, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "observed");
	const struct check *c = check_find(fj_get_str(f, "id") ? fj_get_str(f, "id") : "");
	if (cJSON_IsString(v))
		snprintf(buf, n, "%s", *v->valuestring ? v->valuestring : "''");
	else if (cJSON_IsBool(v))
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNumber(v)) {
		if (c && c->unit && !strcmp(c->unit, "bytes") && v->valuedouble >= 1024) {
			char h[32];
			snprintf(buf, n, "%.15g (%s)", v->valuedouble, human_bytes(v->valuedouble, h, sizeof(h)));
		} else if (c && c->unit && !strcmp(c->unit, "ratio"))
			snprintf(buf, n, "%.2f", v->valuedouble);
		else
			snprintf(buf, n, "%.15g", v->valuedouble);
	} else if (cJSON_IsArray(v)) {
		struct strbuf sb = STRBUF_INIT;
		const cJSON *x;
		cJSON_ArrayForEach(x, v)
			if (cJSON_IsString(x))
				strbuf_addf(&sb, "%s%s", sb.len ? " " : "", x->valuestring);
		snprintf(buf, n, "%s", sb.len ? sb.buf : "(none)");
		if (strlen(buf) > 60)
			strcpy(buf + 56, " ...");
		strbuf_release(&sb);
	} else
		snprintf(buf, n, "unknown");
	return buf;
}

static int status_of(const cJSON *f)
{
	const char *s = fj_get_str(f, "status");
	int i;
	for (i = 0; i < ST__N; i++)
		if (s && !strcmp(s, status_name(i)))
			return i;
	return ST_UNKNOWN;
}

/*** Text ***/

#define TEXT_WIDTH 100

/* Print text from column col, breaking at spaces before TEXT_WIDTH, with
 * continuation lines indented by indent; ends the line. */
static void wrap(FILE *fp, size_t col, size_t indent, const char *text)
{
	const char *s = text;
	while (*s) {
		size_t w = strcspn(s, " ");
		if (col > indent && col + w > TEXT_WIDTH) {
			fprintf(fp, "\n%*s", (int)indent, "");
			col = indent;
		}
		fwrite(s, 1, w, fp);
		col += w;
		s += w;
		if (*s == ' ') {
			if (s[1] && col + 1 + strcspn(s + 1, " ") <= TEXT_WIDTH) {
				fputc(' ', fp);
				col++;
			} else if (s[1]) {
				fprintf(fp, "\n%*s", (int)indent, "");
				col = indent;
			}
			while (*s == ' ')
				s++;
		}
	}
	fputc('\n', fp);
}

static const char *status_color(int st)
{
	switch (st) {
	case ST_FAIL: return c_red();
	case ST_WARN: return c_yellow();
	case ST_PASS: return c_green();
	default: return c_dim();
	}
}

void report_text(FILE *fp, const cJSON *r)
{
	static const int order[] = { ST_FAIL, ST_WARN, ST_INFO, ST_UNKNOWN, ST_SKIP, ST_PASS };
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(r, "findings"), *f, *x;
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(r, "profile");
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r, "summary");
	const char *host = fj_get_str(cJSON_GetObjectItemCaseSensitive(r, "host"), "hostname");
	size_t k, col;
	char buf[600], line[1400];

	fprintf(fp, "%snodeaudit check%s: profile %s", c_bold(), c_reset(), fj_get_str(prof, "name"));
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(prof, "chain"))
		if (x == cJSON_GetObjectItemCaseSensitive(prof, "chain")->child)
			fprintf(fp, " (%s", x->valuestring);
		else
			fprintf(fp, " > %s", x->valuestring);
	fprintf(fp, ")%s%s\n\n", host ? " on " : "", host ? host : "");
	for (k = 0; k < ARRAY_SIZE(order); k++) {
		cJSON_ArrayForEach(f, findings) {
			int st = status_of(f);
			const char *id = fj_get_str(f, "id"), *key = fj_get_str(f, "key");
			char idbuf[200];
			if (st != order[k])
				continue;
			if (key)
				snprintf(idbuf, sizeof(idbuf), "%s %s", id, key);
			else
				snprintf(idbuf, sizeof(idbuf), "%s", id);
			fprintf(fp, "%s%-7s%s %-34s ", status_color(st), status_name(st), c_reset(), idbuf);
			col = 8 + (strlen(idbuf) > 34 ? strlen(idbuf) : 34) + 1;
			if (st == ST_UNKNOWN || st == ST_SKIP) {
				wrap(fp, col, 10, fj_get_str(f, "title"));
				snprintf(line, sizeof(line), "%s", fj_get_str(f, "reason") ? fj_get_str(f, "reason") : "");
				fprintf(fp, "        %s", c_dim());
				wrap(fp, 8, 10, line);
				fputs(c_reset(), fp);
				continue;
			}
			snprintf(line, sizeof(line), "%s: %s%s%s", key ? "value" : fj_get_str(f, "title"),
				 observed_text(f, buf, sizeof(buf)), st != ST_PASS ? ", expected " : "",
				 st != ST_PASS ? fj_get_str(f, "expected") : "");
			wrap(fp, col, 10, line);
			if (st == ST_PASS)
				continue;
			if (fj_get_str(f, "detail")) {
				fputs("        ", fp);
				wrap(fp, 8, 10, fj_get_str(f, "detail"));
			}
			if (fj_get_str(f, "when"))
				fprintf(fp, "        applies when workers are %s per NUMA node\n", fj_get_str(f, "when"));
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "fix")) {
				const char *cmd = fj_get_str(x, "command"), *txt = fj_get_str(x, "text"), *kind = fj_get_str(x, "kind");
				const char *what = cmd ? cmd : txt;
				snprintf(line, sizeof(line), "fix (%s): %s", kind ? kind : "?", what ? what : "");
				fputs("        ", fp);
				wrap(fp, 8, 10, line);
				if (cmd && txt) {
					fputs("          ", fp);
					wrap(fp, 10, 10, txt);
				}
			}
		}
	}
	diff_text_baseline(fp, cJSON_GetObjectItemCaseSensitive(r, "baseline"));
	snprintf(line, sizeof(line), "%d fail, %d warn, %d info, %d pass, %d unknown, %d skip; exit %d",
		 jint(sum, "fail"), jint(sum, "warn"), jint(sum, "info"), jint(sum, "pass"),
		 jint(sum, "unknown"), jint(sum, "skip"), jint(sum, "exit"));
	fputc('\n', fp);
	wrap(fp, 0, 0, line);
	if (jint(sum, "unknown")) {
		snprintf(line, sizeof(line), "%d check(s) could not be decided: see the reasons above",
			 jint(sum, "unknown"));
		wrap(fp, 0, 0, line);
	}
}

/*** JUnit XML ***/

void xml_escape(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default:
			if (c >= 0x20 || c == '\n' || c == '\t')
				fputc(c, fp);
			else
				fputc('?', fp);
		}
	}
}

void report_junit(FILE *fp, const cJSON *r, const char *fail_on)
{
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(r, "findings"), *f, *x;
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(r, "profile");
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(r, "host");
	int tests = 0, failures = 0, skipped = 0;
	int warn_fails = !(fail_on && (!strcmp(fail_on, "fail") || !strcmp(fail_on, "never")));
	char buf[600];

	cJSON_ArrayForEach(f, findings) {
		int st = status_of(f);
		tests++;
		if (st == ST_FAIL || (st == ST_WARN && warn_fails))
			failures++;
		else if (st == ST_UNKNOWN || st == ST_SKIP)
			skipped++;
	}
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<testsuites name=\"nodeaudit\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
		tests, failures, skipped);
	fprintf(fp, "  <testsuite name=\"nodeaudit.");
	xml_escape(fp, fj_get_str(prof, "name"));
	fprintf(fp, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\"", tests, failures, skipped);
	if (fj_get_str(host, "hostname")) {
		fprintf(fp, " hostname=\"");
		xml_escape(fp, fj_get_str(host, "hostname"));
		fputc('"', fp);
	}
	if (fj_get_str(host, "collected_at")) {
		/* JUnit wants ISO 8601 without the zone letter. */
		snprintf(buf, sizeof(buf), "%s", fj_get_str(host, "collected_at"));
		if (*buf && buf[strlen(buf) - 1] == 'Z')
			buf[strlen(buf) - 1] = '\0';
		fprintf(fp, " timestamp=\"");
		xml_escape(fp, buf);
		fputc('"', fp);
	}
	fprintf(fp, ">\n    <properties>\n      <property name=\"profile\" value=\"");
	xml_escape(fp, fj_get_str(prof, "name"));
	fprintf(fp, "\"/>\n      <property name=\"nodeaudit.version\" value=\"%s\"/>\n    </properties>\n",
		PACKAGE_VERSION);
	cJSON_ArrayForEach(f, findings) {
		int st = status_of(f);
		const char *id = fj_get_str(f, "id"), *key = fj_get_str(f, "key");
		char area[32];
		snprintf(area, sizeof(area), "%.*s", (int)strcspn(id, "."), id);
		fprintf(fp, "    <testcase classname=\"nodeaudit.%s\" name=\"", area);
		xml_escape(fp, id);
		if (key) {
			fputc('[', fp);
			xml_escape(fp, key);
			fputc(']', fp);
		}
		fprintf(fp, "\" time=\"0\">\n");
		if (st == ST_FAIL || (st == ST_WARN && warn_fails)) {
			fprintf(fp, "      <failure type=\"%s\" message=\"", status_name(st));
			snprintf(buf, sizeof(buf), "%s: observed ", fj_get_str(f, "title"));
			xml_escape(fp, buf);
			xml_escape(fp, observed_text(f, buf, sizeof(buf)));
			fprintf(fp, ", expected ");
			xml_escape(fp, fj_get_str(f, "expected"));
			fprintf(fp, "\">");
			if (fj_get_str(f, "detail")) {
				xml_escape(fp, fj_get_str(f, "detail"));
				fputc('\n', fp);
			}
			xml_escape(fp, fj_get_str(f, "rationale"));
			fputc('\n', fp);
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "fix")) {
				fprintf(fp, "fix (%s): ", fj_get_str(x, "kind"));
				xml_escape(fp, fj_get_str(x, "command") ? fj_get_str(x, "command") : fj_get_str(x, "text"));
				fputc('\n', fp);
			}
			fprintf(fp, "</failure>\n");
		} else if (st == ST_UNKNOWN || st == ST_SKIP) {
			fprintf(fp, "      <skipped message=\"%s: ", status_name(st));
			xml_escape(fp, fj_get_str(f, "reason"));
			fprintf(fp, "\"/>\n");
		} else if (st != ST_PASS) {
			fprintf(fp, "      <system-out>%s: observed ", status_name(st));
			xml_escape(fp, observed_text(f, buf, sizeof(buf)));
			fprintf(fp, ", expected ");
			xml_escape(fp, fj_get_str(f, "expected"));
			fprintf(fp, "</system-out>\n");
		}
		fprintf(fp, "    </testcase>\n");
	}
	fprintf(fp, "  </testsuite>\n</testsuites>\n");
}

/*** Prometheus textfile ***/

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

void report_prometheus(FILE *fp, const cJSON *r)
{
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
		int st = status_of(f), v;
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
			jint(sum, status_name(i)));
	prom_head(fp, "nodeaudit_exit_status", "Exit status of the check: 0 ok, 1 warning, 2 critical.");
	fprintf(fp, "nodeaudit_exit_status %d\n", jint(sum, "exit"));
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
