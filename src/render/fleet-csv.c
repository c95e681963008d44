/* render/fleet-csv.c - the fleet as CSV, one row a node (report --format csv) */
#include "config.h"
#include "audit/fleet.h"
#include "render/render.h"
#include "lib/util.h"

#include <string.h>

void csv_field(FILE *fp, const char *s)
{
	int formula = *s && strchr("=+-@\t\r", *s);
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	if (formula)
		fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void fleet_csv(FILE *fp, const struct fleet *f)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;
	int k;
	char b[64];
	fputs("hostname,file,exit", fp);
	for (k = 0; k < ST_N; k++)
		fprintf(fp, ",%s", report_status_names[k]);
	for (k = 0; k < FIG_N; k++)
		fprintf(fp, ",%s", report_figure_csv_names[k]);
	fputs(",outliers\r\n", fp);
	for (i = 0; i < f->nrows; i++) {
		const struct node_row *r = &f->rows[i];
		csv_field(fp, r->hostname);
		fputc(',', fp);
		csv_field(fp, r->file);
		fprintf(fp, ",%d", r->exit);
		for (k = 0; k < ST_N; k++)
			fprintf(fp, ",%d", r->count[k]);
		for (k = 0; k < FIG_N; k++)
			fprintf(fp, ",%s", fleet_fmt_num(b, sizeof(b), r->fig[k]));
		/* the facts where this node differs from the fleet: fact=value;... */
		sb.len = 0;
		for (j = 0; j < f->nuf; j++)
			if (fleet_row_differs(&f->uf[j], i)) {
				const char *v = fleet_row_value(&f->uf[j], i, b, sizeof(b));
				if (f->uf[j].measured)
					v = fleet_fmt_num(b, sizeof(b), f->uf[j].num[i]);
				strbuf_addf(&sb, "%s%s=%s", sb.len ? ";" : "", f->uf[j].name, v);
			}
		fputc(',', fp);
		csv_field(fp, sb.len ? sb.buf : "");
		fputs("\r\n", fp);
	}
	strbuf_release(&sb);
}
