/* render-html-check.c - `check --format html`: one node's findings and a drawing of it */
#include "config.h"
#include "facts.h"
#include "html.h"
#include "sysroot.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Everything here is drawn from the report's facts and findings only: the
 * page shows what the report says, nothing is probed again.  Each part of
 * the drawing is coloured by the worst finding that concerns it: cores and
 * packages by cpu.*, NUMA nodes by numa.*, memory by memory.*, an accelerator
 * or a NIC by pci.accelerator.* / pci.nic.* findings that name its address
 * (or name no device at all).
 */

#define W 1100          /* drawing width */
#define CORE 22         /* core square */
#define CORE_GAP 4

/* Object paths ("cpu.smt.active") are the fact tree's: facts_get(). */
#define jget facts_get

static const char *jstr(const cJSON *j, const char *path)
{
	j = jget(j, path);
	return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* A number, or NAN. */
static double jnum(const cJSON *j, const char *path)
{
	j = jget(j, path);
	return cJSON_IsNumber(j) && isfinite(j->valuedouble) ? j->valuedouble : NAN;
}

/* A scalar for people: strings as is, numbers, booleans, null as "unknown". */
static void esc_value(FILE *fp, const cJSON *j)
{
	char *s;
	if (!j || cJSON_IsNull(j)) {
		fputs("<span class=\"note\">unknown</span>", fp);
		return;
	}
	if (cJSON_IsString(j)) {
		html_esc(fp, j->valuestring);
		return;
	}
	s = cJSON_PrintUnformatted(j);
	html_esc(fp, s ? s : "");
	free(s);
}

/* Worst rank (see html_status_rank) of the findings whose ID starts with prefix
 * and, when bdf is given, that name this device or no device; -1 when none. */
static int worst(const cJSON *findings, const char *prefix, const char *bdf, const cJSON *devices)
{
	const cJSON *it;
	int w = -1;
	cJSON_ArrayForEach(it, findings) {
		const char *id = jstr(it, "id"), *detail = jstr(it, "detail");
		int r;
		if (!id || strncmp(id, prefix, strlen(prefix)))
			continue;
		if (bdf && detail && !strstr(detail, bdf)) {
			/* names another device of the same kind: not this one's */
			const cJSON *d;
			int other = 0;
			cJSON_ArrayForEach(d, devices) {
				const char *b = jstr(d, "bdf");
				if (b && strstr(detail, b))
					other = 1;
			}
			if (other)
				continue;
		}
		r = html_status_rank(jstr(it, "status"));
		if (r > w)
			w = r;
	}
	return w;
}

static const char *rank_class(int r)
{
	return r < 0 ? "none" : html_rank_class[r];
}

static void header(FILE *fp, const cJSON *report)
{
	static const char *const st[] = { "pass", "warn", "fail", "unknown", "skip", "info" };
	const cJSON *sum = jget(report, "summary");
	size_t i;
	double e = jnum(sum, "exit");
	fputs("<h1>", fp);
	html_esc(fp, jstr(report, "host.hostname") ? jstr(report, "host.hostname") : "unknown host");
	fputs("</h1>\n<p>", fp);
	fputs("Kernel <code>", fp);
	html_esc(fp, jstr(report, "host.kernel") ? jstr(report, "host.kernel") : "unknown");
	fputs("</code>, ", fp);
	html_esc(fp, jstr(report, "host.arch") ? jstr(report, "host.arch") : "");
	fputs("; profile <code>", fp);
	html_esc(fp, jstr(report, "profile.name") ? jstr(report, "profile.name") : "unknown");
	fputs("</code>; collected ", fp);
	html_esc(fp, jstr(report, "host.collected_at") ? jstr(report, "host.collected_at") : "unknown");
	if (jstr(report, "host.sysroot")) {
		fputs(" from the capture <code>", fp);
		html_esc(fp, jstr(report, "host.sysroot"));
		fputs("</code>", fp);
	}
	fputs(".</p>\n<div class=\"cards\">", fp);
	for (i = 0; i < ARRAY_SIZE(st); i++) {
		double n = jnum(sum, st[i]);
		if (isnan(n))
			n = 0;
		fprintf(fp, "<div class=\"card %s\"><b id=\"count-%s\">%.0f</b>%s</div>", n > 0 ? st[i] : "", st[i], n,
			st[i]);
	}
	fputs("</div>\n", fp);
	if (!isnan(e))
		fprintf(fp, "<p>Exit status: <span class=\"st %s\" id=\"exit\">%.0f</span></p>\n",
			e >= 3 ? "unknown" : e >= 2 ? "fail" : e >= 1 ? "warn" : "pass", e);
}

/* The DIMM slots of one channel: filled rectangles for DIMMs, dashed for empty slots. */
static int draw_channel(FILE *fp, const cJSON *ch, int x, int y, const char *cls)
{
	double slots = jnum(ch, "slots"), dimms = jnum(ch, "dimms"), size = jnum(ch, "size_bytes");
	const char *name = jstr(ch, "name");
	/* Clamped before any cast: a report may say 1e300 slots. */
	int i, n = num_clamp(isnan(slots) ? (isnan(dimms) ? 1 : dimms) : slots, 1, 4), w = 60;
	int nd = num_clamp(dimms, 0, 4);
	if (n < 1)
		n = 1;
	if (n > 4)
		n = 4;
	fprintf(fp, "<g data-part=\"channel%s\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"%s\" "
		"stroke=\"#57606a\"%s/>", dimms > 0 ? "" : "-empty", x, y, w, 18 + 14 * n,
		dimms > 0 ? cls : "empty", dimms > 0 ? "" : " stroke-dasharray=\"4 2\"");
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x + w / 2, y + 12);
	html_escf(fp, "%.9s", name ? name : "?");
	fputs("</text>", fp);
	for (i = 0; i < n; i++) {
		int filled = !isnan(dimms) && i < nd;
		fprintf(fp, "<rect data-part=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"10\" %s/>",
			filled ? "dimm" : "slot-empty", x + 4, y + 16 + 14 * i, w - 8,
			filled ? "fill=\"#57606a\"" : "fill=\"none\" stroke=\"#cf222e\" stroke-dasharray=\"2 2\"");
	}
	fputs("<title>", fp);
	if (dimms > 0 && !isnan(size))
		html_escf(fp, "channel %s: %.0f DIMM%s, %.0f GiB", name ? name : "?", dimms, dimms == 1 ? "" : "s",
			  size / 1073741824.0);
	else
		html_escf(fp, "channel %s: empty", name ? name : "?");
	fputs("</title></g>", fp);
	return 18 + 14 * n;
}

/* Packages with their memory channels. Returns the height used. */
static int draw_packages(FILE *fp, const cJSON *report, int y0)
{
	const cJSON *facts = jget(report, "facts"), *findings = jget(report, "findings");
	const cJSON *list = jget(facts, "memory.channels.list"), *sockets = jget(facts, "platform.sockets"), *ch;
	double np = jnum(facts, "cpu.packages");
	int p, n = num_clamp(np, 1, 16);
	/* a channel on a package the CPU facts do not count still gets drawn */
	cJSON_ArrayForEach(ch, list) {
		double pk = jnum(ch, "package");
		if (!isnan(pk) && pk + 1 > n && pk < 16)
			n = (int)pk + 1;
	}
	if (n > 16)
		n = 16;
	int pw = (W - 10 * (n + 1)) / n, h = 60;
	const char *mcls = rank_class(worst(findings, "memory.", NULL, NULL));
	const char *ccls = rank_class(worst(findings, "cpu.", NULL, NULL));
	int chh = 32, per_row = (pw - 8) / 66, rows = 1;
	/* height: the tallest channel times the most rows of channels a package has */
	if (per_row < 1)
		per_row = 1;
	cJSON_ArrayForEach(ch, list) {
		double slots = jnum(ch, "slots");
		int hh = 18 + 14 * (isnan(slots) ? 1 : slots > 4 ? 4 : slots < 1 ? 1 : (int)slots);
		if (hh > chh)
			chh = hh;
	}
	for (p = 0; p < n; p++) {
		int k = 0;
		cJSON_ArrayForEach(ch, list) {
			double pk = jnum(ch, "package");
			k += pk == p || (isnan(pk) && p == 0);
		}
		if ((k + per_row - 1) / per_row > rows)
			rows = (k + per_row - 1) / per_row;
	}
	if (30 + rows * (chh + 8) + 4 > h)
		h = 30 + rows * (chh + 8) + 4;
	for (p = 0; p < n; p++) {
		int x = 10 + p * (pw + 10), cx = x + 8, cy = y0 + 30, k = 0;
		const cJSON *sock = cJSON_GetArrayItem(sockets, p);
		const char *ver = jstr(sock, "version");
		fprintf(fp, "<g data-part=\"package\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" class=\"%s\" "
			"stroke=\"#1b1f24\"/><text x=\"%d\" y=\"%d\" font-weight=\"bold\">", x, y0, pw, h, ccls, x + 8,
			y0 + 16);
		html_escf(fp, "Package %d", p);
		if (ver) {
			fputs(" \xc2\xb7 ", fp);
			html_esc(fp, ver);
		}
		fputs("</text>", fp);
		cJSON_ArrayForEach(ch, list) {
			double pk = jnum(ch, "package");
			if (!(pk == p || (isnan(pk) && p == 0)))
				continue;
			if (cx + 64 > x + pw) {
				cx = x + 8;
				cy += chh + 8;
			}
			draw_channel(fp, ch, cx, cy, mcls);
			cx += 66;
			k++;
		}
		if (!k) {
			fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"note\">", x + 8, y0 + 40);
			html_esc(fp, cJSON_IsArray(list) ? "no memory channels on this package" : "memory channels unknown (no SMBIOS)");
			fputs("</text>", fp);
		}
		fputs("</g>", fp);
	}
	return h;
}

static int in_set(hwloc_bitmap_t set, const char *cpus)
{
	hwloc_bitmap_t c = hwloc_bitmap_alloc();
	int r = 0;
	if (c && cpus && parse_cpulist(cpus, c) == 0 && !hwloc_bitmap_iszero(c))
		r = hwloc_bitmap_isincluded(c, set);
	hwloc_bitmap_free(c);
	return r;
}

/* "P", "E" or "C" for a core's first CPU by cpu.kinds. */
static const char *core_kind(const cJSON *kinds, const char *cpus)
{
	const cJSON *k;
	cJSON_ArrayForEach(k, kinds) {
		const char *name = jstr(k, "name"), *kc = jstr(k, "cpus");
		hwloc_bitmap_t s = hwloc_bitmap_alloc();
		int hit = s && kc && parse_cpulist(kc, s) == 0 && in_set(s, cpus);
		hwloc_bitmap_free(s);
		if (hit && name)
			return !strcmp(name, "performance") ? "P" : !strcmp(name, "efficiency") ? "E" : "C";
	}
	return "C";
}

static int cpu_count(const char *cpus)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int n = 0;
	if (s && cpus && parse_cpulist(cpus, s) == 0)
		n = hwloc_bitmap_weight(s);
	hwloc_bitmap_free(s);
	return n;
}

static void link_str(const cJSON *d, char *buf, size_t n)
{
	double wc = jnum(d, "link.width.current"), wm = jnum(d, "link.width.max");
	double sc = jnum(d, "link.speed_gts.current"), sm = jnum(d, "link.speed_gts.max");
	char a[32] = "x?", b[32] = "? GT/s";
	if (!isnan(wc))
		snprintf(a, sizeof(a), "x%.0f%s", wc, !isnan(wm) && wm != wc ? "" : "");
	if (!isnan(wm) && wm != wc)
		snprintf(a + strlen(a), sizeof(a) - strlen(a), " of x%.0f", wm);
	if (!isnan(sc))
		snprintf(b, sizeof(b), "%g%s GT/s", sc, "");
	if (!isnan(sm) && sm != sc)
		snprintf(b + strlen(b), sizeof(b) - strlen(b), " of %g", sm);
	snprintf(buf, n, "%s, %s", a, b);
}

/* Is id one of the NUMA nodes of the report? */
static int numa_exists(const cJSON *report, double id)
{
	const cJSON *nd;
	cJSON_ArrayForEach(nd, jget(report, "facts.numa.nodes"))
		if (jnum(nd, "id") == id)
			return 1;
	return 0;
}

/* Accelerators and NICs of one NUMA node (numa < 0: those whose node is
 * unknown or not among the report's NUMA nodes; any: all of them). */
static int draw_devices(FILE *fp, const cJSON *report, int numa, int any, int x, int y, int w)
{
	const cJSON *facts = jget(report, "facts"), *findings = jget(report, "findings");
	const char *kinds[2] = { "accelerators", "nics" }, *prefix[2] = { "pci.accelerator", "pci.nic" };
	const char *part[2] = { "accelerator", "nic" };
	int k, cx = x, cy = y, used = 0, dw = 200, dh = 46;
	for (k = 0; k < 2; k++) {
		const cJSON *list = jget(facts, k ? "pci.nics" : "pci.accelerators"), *d;
		char path[24];
		snprintf(path, sizeof(path), "pci.%s", kinds[k]);
		cJSON_ArrayForEach(d, list) {
			double nn = jnum(d, "numa_node");
			const char *bdf = jstr(d, "bdf"), *dev = jstr(d, "device"), *ifc = jstr(d, "interface");
			char lk[96];
			double mbps = jnum(d, "speed_mbps");
			if (!any && (numa >= 0 ? nn != numa : !isnan(nn) && nn >= 0 && numa_exists(report, nn)))
				continue;
			if (cx + dw > x + w) {
				cx = x;
				cy += dh + 6;
			}
			link_str(d, lk, sizeof(lk));
			fprintf(fp, "<g data-part=\"%s\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" class=\"%s\" "
				"stroke=\"#1b1f24\"/><text x=\"%d\" y=\"%d\" font-weight=\"bold\">", part[k], cx, cy, dw, dh,
				rank_class(worst(findings, prefix[k], bdf, list)), cx + 6, cy + 14);
			html_escf(fp, "%s %s", k ? "NIC" : "Accel", k && ifc ? ifc : bdf ? bdf : "?");
			fprintf(fp, "</text><text x=\"%d\" y=\"%d\">", cx + 6, cy + 27);
			html_escf(fp, "%.34s", dev ? dev : "unknown device");
			fprintf(fp, "</text><text x=\"%d\" y=\"%d\" data-link=\"1\">", cx + 6, cy + 40);
			html_esc(fp, lk);
			if (k && !isnan(mbps))
				html_escf(fp, ", %g Gb/s", mbps / 1000);
			fputs("</text><title>", fp);
			html_escf(fp, "%s %s: PCIe %s", bdf ? bdf : "?", dev ? dev : "", lk);
			fputs("</title></g>", fp);
			cx += dw + 6;
			used = 1;
		}
	}
	return used ? cy + dh - y : 0;
}

/* NUMA nodes with their cores (by kind, SMT siblings as slivers) and devices. */
static int draw_numa(FILE *fp, const cJSON *report, int y0)
{
	const cJSON *facts = jget(report, "facts"), *findings = jget(report, "findings");
	const cJSON *nodes = jget(facts, "numa.nodes"), *cores = jget(facts, "cpu.core_cpus");
	const cJSON *kinds = jget(facts, "cpu.kinds"), *nd;
	const char *ccls = rank_class(worst(findings, "cpu.", NULL, NULL));
	const char *ncls = rank_class(worst(findings, "numa.", NULL, NULL));
	int y = y0, nn = cJSON_GetArraySize(nodes), i;
	int per_row = (W - 40) / (CORE + CORE_GAP);
	hwloc_bitmap_t any = hwloc_bitmap_alloc();   /* the CPUs of every NUMA node */
	if (!any)
		die("out of memory");
	cJSON_ArrayForEach(nd, nodes) {
		hwloc_bitmap_t s = hwloc_bitmap_alloc();
		if (s && jstr(nd, "cpus") && parse_cpulist(jstr(nd, "cpus"), s) == 0)
			hwloc_bitmap_or(any, any, s);
		hwloc_bitmap_free(s);
	}
	for (i = 0; i <= nn; i++) {
		/* i == nn: devices whose NUMA node is unknown, or everything without NUMA facts */
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		const char *cpus = NULL;
		double id = -1, mem = NAN;
		int ncore = 0, h, dy, top = y, all = !nn;
		const cJSON *c;
		nd = i < nn ? cJSON_GetArrayItem(nodes, i) : NULL;
		if (nd) {
			cpus = jstr(nd, "cpus");
			id = jnum(nd, "id");
			mem = jnum(nd, "memory_bytes");
			if (cpus)
				parse_cpulist(cpus, set);
		}
		/* the box is drawn after its contents are measured: collect into a group */
		fprintf(fp, "<g data-part=\"numa-node\">");
		cJSON_ArrayForEach(c, cores) {
			const char *cc = cJSON_IsString(c) ? c->valuestring : NULL;
			int t, th, cx, cy;
			if (!cc || (!all && nd && !in_set(set, cc)) || (!all && !nd && in_set(any, cc)))
				continue;
			th = cpu_count(cc);
			if (th < 1)
				th = 1;
			cx = 20 + (ncore % per_row) * (CORE + CORE_GAP);
			cy = top + 26 + (ncore / per_row) * (CORE + CORE_GAP);
			fprintf(fp, "<g data-part=\"core\" data-kind=\"%s\" data-threads=\"%d\">", core_kind(kinds, cc), th);
			for (t = 0; t < th && t < 8; t++)
				fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"%s\" stroke=\"#57606a\"/>",
					cx + t * CORE / (th < 8 ? th : 8), cy, CORE / (th < 8 ? th : 8), CORE, ccls);
			fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text><title>",
				cx + CORE / 2, cy + 15, core_kind(kinds, cc));
			html_escf(fp, "core: CPUs %s", cc);
			fputs("</title></g>", fp);
			ncore++;
		}
		hwloc_bitmap_free(set);
		if (i == nn && nn) {
			/* cores and devices in no NUMA node: a box only when there are some */
			h = 26 + (ncore ? ((ncore - 1) / per_row + 1) * (CORE + CORE_GAP) : 0);
			dy = draw_devices(fp, report, -1, 0, 20, top + h + 4, W - 40);
			fputs("</g>", fp);
			if (!dy && !ncore)
				break;
			h += (dy ? dy + 10 : 0) + 8;
			fprintf(fp, "<rect x=\"10\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"none\" stroke=\"#1b1f24\" "
				"stroke-dasharray=\"6 3\"/><text x=\"20\" y=\"%d\" font-weight=\"bold\">", top, W - 20, h, top + 16);
			if (ncore)
				html_escf(fp, "In no NUMA node the report knows: %d core%s", ncore, ncore == 1 ? "" : "s");
			else
				html_esc(fp, "Devices on a NUMA node the report does not know");
			fputs("</text>", fp);
			y = top + h + 10;
			break;
		}
		h = 26 + (ncore ? ((ncore - 1) / per_row + 1) * (CORE + CORE_GAP) : 0);
		/* An id that is not one (1e300) matches no device: -2. */
		dy = draw_devices(fp, report, num_int_ok(id, -1, 1 << 20) ? (int)id : -2, all, 20, top + h + 4, W - 40);
		h += dy ? dy + 10 : 0;
		h += 8;
		fputs("</g>", fp);
		fprintf(fp, "<rect x=\"10\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"none\" stroke=\"#1b1f24\" "
			"class=\"frame-%s\"/><text x=\"20\" y=\"%d\" font-weight=\"bold\">", top, W - 20, h, ncls, top + 16);
		if (all)
			html_esc(fp, "All CPUs (no NUMA facts)");
		else {
			html_escf(fp, "NUMA node %.0f \xc2\xb7 CPUs %s", id, cpus ? cpus : "none");
			if (!isnan(mem))
				html_escf(fp, " \xc2\xb7 %.1f GiB", mem / 1073741824.0);
			html_escf(fp, " \xc2\xb7 %d core%s", ncore, ncore == 1 ? "" : "s");
		}
		fputs("</text>", fp);
		y = top + h + 10;
		if (all)
			break;
	}
	hwloc_bitmap_free(any);
	return y - y0;
}

static void drawing(FILE *fp, const cJSON *report)
{
	fputs("<h2 id=\"drawing\">The node</h2>\n<p class=\"note\">Packages with their memory channels (a DIMM is a "
	      "filled bar, an empty slot a dashed one), NUMA nodes with their cores (P performance, E efficiency, "
	      "C a core of the only kind; SMT siblings split a core), accelerators and NICs under their NUMA node "
	      "with their PCIe link. Each part has the colour of its worst finding:\n"
	      "<span class=\"st fail\">fail</span> <span class=\"st warn\">warn</span> "
	      "<span class=\"st unknown\">unknown</span> <span class=\"st pass\">pass</span> "
	      "<span class=\"st\">no finding</span>.</p>\n", fp);
	/* The height is known only once drawn: draw into memory first. */
	char *body = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&body, &len);
	int h1, h2;
	if (!mem)
		die("out of memory");
	h1 = draw_packages(mem, report, 10);
	h2 = draw_numa(mem, report, 10 + h1 + 14);
	fclose(mem);
	fprintf(fp, "<svg id=\"node-drawing\" role=\"img\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\"><title>Drawing of the node</title>", W, h1 + h2 + 34, W, h1 + h2 + 34);
	fwrite(body, 1, len, fp);
	free(body);
	fputs("</svg>\n", fp);
}

/* Worst first, then in report order. */
static void findings_table(FILE *fp, const cJSON *report)
{
	const cJSON *findings = jget(report, "findings"), *it;
	int r;
	fputs("<h2 id=\"findings\">Findings</h2>\n<table id=\"findings-table\"><thead><tr><th>Status</th><th>Check</th>"
	      "<th>Observed</th><th>Expected</th><th>Why</th><th>Fix</th></tr></thead><tbody>\n", fp);
	for (r = 4; r >= 0; r--)
		cJSON_ArrayForEach(it, findings) {
			const char *st = jstr(it, "status"), *key = jstr(it, "key"), *s;
			const cJSON *fix = jget(it, "fix"), *fx;
			if (html_status_rank(st) != r)
				continue;
			fprintf(fp, "<tr class=\"%s\" data-status=\"%s\"><td><span class=\"st %s\">", html_status_class(st),
				html_status_class(st), html_status_class(st));
			html_esc(fp, st ? st : "unknown");
			fputs("</span></td><td><code>", fp);
			html_esc(fp, jstr(it, "id") ? jstr(it, "id") : "?");
			if (key) {
				fputc(' ', fp);
				html_esc(fp, key);
			}
			fputs("</code><br>", fp);
			html_esc(fp, jstr(it, "title") ? jstr(it, "title") : "");
			fputs("</td><td>", fp);
			esc_value(fp, jget(it, "observed"));
			fputs("</td><td>", fp);
			esc_value(fp, jget(it, "expected"));
			fputs("</td><td>", fp);
			if ((s = jstr(it, "detail"))) {
				html_esc(fp, s);
				fputs("<br>", fp);
			}
			if ((s = jstr(it, "reason"))) {
				html_esc(fp, s);
				fputs("<br>", fp);
			}
			if ((s = jstr(it, "rationale"))) {
				fputs("<span class=\"note\">", fp);
				html_esc(fp, s);
				fputs("</span>", fp);
			}
			fputs("</td><td>", fp);
			if (!cJSON_IsArray(fix))
				fix = NULL;
			cJSON_ArrayForEach(fx, fix) {
				const char *kind = jstr(fx, "kind"), *cmd = jstr(fx, "command"), *text = jstr(fx, "text");
				fputs("<div>", fp);
				if (kind) {
					html_esc(fp, kind);
					fputs(": ", fp);
				}
				if (text)
					html_esc(fp, text);
				if (cmd) {
					fputs("<code>", fp);
					html_esc(fp, cmd);
					fputs("</code>", fp);
				}
				fputs("</div>", fp);
			}
			fputs("</td></tr>\n", fp);
		}
	fputs("</tbody></table>\n", fp);
}

static void gaps(FILE *fp, const cJSON *report)
{
	const cJSON *g = jget(report, "gaps"), *it;
	if (!cJSON_GetArraySize(g))
		return;
	fputs("<h2 id=\"gaps\">Facts not known</h2>\n<ul>", fp);
	cJSON_ArrayForEach(it, g) {
		fputs("<li><code>", fp);
		html_esc(fp, jstr(it, "fact") ? jstr(it, "fact") : "?");
		fputs("</code>: ", fp);
		html_esc(fp, jstr(it, "reason") ? jstr(it, "reason") : "");
		fputs("</li>", fp);
	}
	fputs("</ul>\n", fp);
}

void report_html(FILE *fp, const cJSON *report)
{
	char *title = xasprintf("nodeaudit check: %s", jstr(report, "host.hostname") ? jstr(report, "host.hostname") : "unknown host");
	html_begin(fp, title);
	free(title);
	header(fp, report);
	fputs("<p><a href=\"#drawing\">The node</a> &middot; <a href=\"#findings\">Findings</a> &middot; "
	      "<a href=\"#gaps\">Facts not known</a></p>\n", fp);
	drawing(fp, report);
	findings_table(fp, report);
	gaps(fp, report);
	html_end(fp);
}
