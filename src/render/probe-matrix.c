/* render/probe-matrix.c - pci.matrix as text: the nvidia-smi topo -m table for
 * every accelerator, NIC and NVMe controller, then each device's facts */
#include "config.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#define CELL 6    /* "NODE" and two spaces */
#define LABEL 8   /* "  ACC10 " */

static const char *s_or_empty(const char *s)
{
	return s ? s : "";
}

/* ACC0, NIC0, NVM0: the device's label, numbered within its kind. */
static void mx_label(const cJSON *info, int i, char *buf, size_t n)
{
	const cJSON *o = cJSON_GetArrayItem(info, i), *p;
	const char *kind = fj_get_str(o, "kind");
	int k = 0, j = 0;
	cJSON_ArrayForEach(p, info) {
		if (j++ >= i)
			break;
		k += kind && fj_get_str(p, "kind") && !strcmp(fj_get_str(p, "kind"), kind);
	}
	snprintf(buf, n, "%s%d", !kind ? "DEV" : !strcmp(kind, "accelerator") ? "ACC" : !strcmp(kind, "nic") ? "NIC" :
		 "NVM", k);
}

/* Bytes in binary units, whole where they are whole (BAR sizes are). */
static const char *mx_bytes(double v, char *buf, size_t n)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t k = 0;
	while (v >= 1024 && k + 1 < ARRAY_SIZE(u)) {
		v /= 1024;
		k++;
	}
	if (v == (double)(long long)v)
		snprintf(buf, n, "%lld %s", (long long)v, u[k]);
	else
		snprintf(buf, n, "%.1f %s", v, u[k]);
	return buf;
}

/* Print head, then the parts separated by "; ", folded at width with an
 * indent. */
static void mx_fold(FILE *out, const char *head, int indent, int width, char **parts, int np)
{
	int col = (int)strlen(head), i;
	fputs(head, out);
	for (i = 0; i < np; i++) {
		int len = (int)strlen(parts[i]) + (i + 1 < np ? 1 : 0);
		if (i > 0 && col + 1 + len > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (i > 0) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%s%s", parts[i], i + 1 < np ? ";" : "");
		col += len;
	}
	fputc('\n', out);
}

static void mx_device(FILE *out, const cJSON *o, const char *label, int width)
{
	char *parts[8], b1[32], b2[32], head[64];
	int np = 0, i;
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "iommu_group");
	const cJSON *gn = cJSON_GetObjectItemCaseSensitive(o, "iommu_group_devices");
	const cJSON *acs = facts_get(o, "acs.p2p_redirected"), *ports = facts_get(o, "acs.redirecting_ports");
	const cJSON *bars = cJSON_GetObjectItemCaseSensitive(o, "bars"), *b;
	const cJSON *rb = cJSON_GetObjectItemCaseSensitive(o, "resizable_bar");
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(o, "memory_bytes");
	const cJSON *cov = cJSON_GetObjectItemCaseSensitive(o, "bar_covers_memory");
	const char *sw = fj_get_str(o, "switch");
	snprintf(head, sizeof(head), "  %-5s %s  ", label, s_or_empty(fj_get_str(o, "bdf")));
	parts[np++] = sw ? xasprintf("switch %s", sw) : fj_get_str(o, "port") ?
		xasprintf("port %s", fj_get_str(o, "port")) : xstrdup("no port above it");
	if (cJSON_IsNumber(g))
		parts[np++] = cJSON_IsNumber(gn) ? xasprintf("IOMMU group %d (%d device%s)", g->valueint,
							     gn->valueint, gn->valueint == 1 ? "" : "s")
						 : xasprintf("IOMMU group %d", g->valueint);
	else
		parts[np++] = xstrdup("IOMMU group unknown");
	if (cJSON_IsTrue(acs)) {
		const cJSON *p0 = cJSON_GetArrayItem(ports, 0);
		parts[np++] = xasprintf("ACS redirects P2P at %s%s", cJSON_IsString(p0) ? p0->valuestring : "?",
					cJSON_GetArraySize(ports) > 1 ? " and more" : "");
	} else
		parts[np++] = xstrdup(cJSON_IsFalse(acs) ? "ACS: P2P not redirected" : "ACS unknown");
	if (cJSON_IsArray(bars) && cJSON_GetArraySize(bars) > 0) {
		char list[256] = "";
		cJSON_ArrayForEach(b, bars) {
			const cJSON *by = cJSON_GetObjectItemCaseSensitive(b, "bytes");
			const cJSON *ix = cJSON_GetObjectItemCaseSensitive(b, "index");
			size_t l = strlen(list);
			if (cJSON_IsNumber(by) && cJSON_IsNumber(ix) && l + 40 < sizeof(list))
				snprintf(list + l, sizeof(list) - l, "%s%d:%s", l ? " " : "", ix->valueint,
					 mx_bytes(by->valuedouble, b1, sizeof(b1)));
		}
		parts[np++] = xasprintf("BARs %s", list);
	} else
		parts[np++] = xstrdup(cJSON_IsArray(bars) ? "no BARs" : "BARs unknown");
	if (cJSON_IsObject(rb)) {
		const cJSON *cur = cJSON_GetObjectItemCaseSensitive(rb, "current_bytes");
		const cJSON *max = cJSON_GetObjectItemCaseSensitive(rb, "max_bytes");
		parts[np++] = xasprintf("resizable BAR%d %s of %s", cJSON_IsNumber(facts_get(rb, "bar")) ?
					facts_get(rb, "bar")->valueint : 0,
					cJSON_IsNumber(cur) ? mx_bytes(cur->valuedouble, b1, sizeof(b1)) : "?",
					cJSON_IsNumber(max) ? mx_bytes(max->valuedouble, b2, sizeof(b2)) : "?");
	} else if (cJSON_IsFalse(rb))
		parts[np++] = xstrdup("no resizable BAR");
	if (cJSON_IsNumber(mem))
		parts[np++] = xasprintf("memory %s%s", mx_bytes(mem->valuedouble, b1, sizeof(b1)),
					cJSON_IsFalse(cov) ? " (more than its largest BAR)" : "");
	mx_fold(out, head, 8, width, parts, np);
	for (i = 0; i < np; i++)
		free(parts[i]);
}

void text_pci_matrix(FILE *out, const cJSON *m, int width)
{
	const cJSON *devs = cJSON_GetObjectItemCaseSensitive(m, "devices");
	const cJSON *paths = cJSON_GetObjectItemCaseSensitive(m, "paths");
	const cJSON *info = cJSON_GetObjectItemCaseSensitive(m, "info");
	const cJSON *pairs = cJSON_GetObjectItemCaseSensitive(m, "switch_pairs"), *pr;
	int n = cJSON_GetArraySize(devs), i, j, g, per, aff = 12, with_aff;
	char lb[16];
	if (width <= 0)
		width = 80;
	if (!cJSON_IsArray(devs) || n == 0)
		return;
	tx_section(out, "PCI device matrix (nvidia-smi topo -m terms)");
	for (i = 0; i < n; i++) {
		const char *c = fj_get_str(cJSON_GetArrayItem(info, i), "local_cpus");
		if (c && (int)strlen(c) > aff)
			aff = (int)strlen(c);
	}
	/* Each row with its affinity columns, in groups of as many devices
	 * as the width allows (all of them up to 8 in 80 columns); when not
	 * even one fits beside the affinity, the affinity goes to the list. */
	with_aff = LABEL + CELL + 1 + aff + 1 + 4 <= width;
	per = with_aff ? (width - LABEL - 1 - aff - 1 - 4) / CELL : (width - LABEL) / CELL;
	if (per < 1)
		per = 1;
	for (g = 0; g < n; g += per) {
		int end = g + per < n ? g + per : n;
		if (g > 0)
			fputc('\n', out);
		fprintf(out, "%-*s", LABEL, "");
		for (j = g; j < end; j++) {
			mx_label(info, j, lb, sizeof(lb));
			fprintf(out, "%-*s", j + 1 < end || with_aff ? CELL : (int)strlen(lb), lb);
		}
		if (with_aff)
			fprintf(out, " %-*s %s", aff, "CPU affinity", "NUMA");
		fputc('\n', out);
		for (i = 0; i < n; i++) {
			const cJSON *row = cJSON_GetArrayItem(paths, i), *o = cJSON_GetArrayItem(info, i);
			/* Whole: every cell of the group, the CPU list as the kernel gave it. */
			struct strbuf line = STRBUF_INIT;
			mx_label(info, i, lb, sizeof(lb));
			strbuf_addf(&line, "  %-*s", LABEL - 2, lb);
			for (j = g; j < end; j++) {
				const cJSON *c = cJSON_GetArrayItem(row, j);
				strbuf_addf(&line, "%-*s", CELL, cJSON_IsString(c) ? c->valuestring : "?");
			}
			if (with_aff) {
				const cJSON *nd = cJSON_GetObjectItemCaseSensitive(o, "numa_node");
				const char *cpus = fj_get_str(o, "local_cpus");
				char nb[16] = "?";
				if (cJSON_IsNumber(nd))
					snprintf(nb, sizeof(nb), "%d", nd->valueint);
				strbuf_addf(&line, " %-*s %s", aff, cpus ? cpus : "?", nb);
			}
			while (line.len > 0 && line.buf[line.len - 1] == ' ')
				line.buf[--line.len] = '\0';
			fprintf(out, "%s\n", line.len ? line.buf : "");
			strbuf_release(&line);
		}
	}
	fputs("  ", out);
	tl_wrap_width(out, 2, 2, (size_t)width, "X self; PIX one switch or bridge between; PXB several bridges; "
		      "PHB the host bridge; NODE host bridges of one NUMA node; SYS across NUMA nodes; "
		      "? a NUMA node is unknown");
	for (i = 0; i < n; i++) {
		const cJSON *o = cJSON_GetArrayItem(info, i);
		mx_label(info, i, lb, sizeof(lb));
		if (!with_aff) {
			const cJSON *nd = cJSON_GetObjectItemCaseSensitive(o, "numa_node");
			const char *cpus = fj_get_str(o, "local_cpus");
			if (cJSON_IsNumber(nd))
				fprintf(out, "  %-5s CPUs %s, NUMA node %d\n", lb, cpus ? cpus : "unknown", nd->valueint);
			else
				fprintf(out, "  %-5s CPUs %s, NUMA node unknown\n", lb, cpus ? cpus : "unknown");
		}
		mx_device(out, o, lb, width);
	}
	if (cJSON_GetArraySize(pairs) > 0) {
		fprintf(out, "  Accelerator and NIC inside one switch (GPUDirect RDMA without the CPU):\n");
		cJSON_ArrayForEach(pr, pairs)
			fprintf(out, "    %s - %s (switch %s)\n", s_or_empty(fj_get_str(pr, "accelerator")),
				s_or_empty(fj_get_str(pr, "nic")), s_or_empty(fj_get_str(pr, "switch")));
	}
}
