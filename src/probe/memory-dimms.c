/* probe/memory-dimms.c - DIMMs and slots, their channels, the theoretical bandwidth */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/memory.h"
#include "probe/memory-internal.h"
#include "lib/output.h"
#include "read/path.h"
#include "read/smbios.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/*** DIMMs and channels ***/

static uint32_t dimm_speed(const struct smbios_dimm *d, int *rated)
{
	*rated = 0;
	if (d->configured_speed)
		return d->configured_speed;
	*rated = d->speed != 0;
	return d->speed;
}

int mem_cmp_label(const char *a, const char *b)
{
	char *ea, *eb;
	long na = strtol(a, &ea, 10), nb = strtol(b, &eb, 10);
	if (*a && *b && !*ea && !*eb)
		return na < nb ? -1 : na > nb;
	return strcmp(a, b);
}

int mem_dimm_ecc(const struct smbios_dimm *d)
{
	if (d->total_width < 0 || d->data_width < 0)
		return -1;
	if (d->total_width == d->data_width)
		return 0;
	/* 8 check bits per 64 (72/64, 40/32), DDR5 ECC RDIMM 80/64 */
	if (d->total_width - d->data_width == d->data_width / 8 ||
	    (d->data_width == 64 && d->total_width == 80))
		return 1;
	return -1;      /* nonsense such as 128/64: says nothing */
}

static const struct smbios_array *find_array(const struct smbios_info *s, uint16_t h)
{
	size_t i;
	for (i = 0; i < s->narrays; i++)
		if (s->arrays[i].handle == h)
			return &s->arrays[i];
	return NULL;
}

static void speed_facts(struct probe_ctx *ctx, cJSON *mem, struct slot *sl, size_t n)
{
	cJSON *sp = cJSON_AddObjectToObject(mem, "speed");
	struct path_cxt pc;
	uint32_t rated = 0, conf = 0;
	int rated_unknown = 0, conf_unknown = 0, below = 0, mixed = 0, ndimm = 0;
	size_t i;
	const struct smbios_dimm *first = NULL;
	for (i = 0; i < n; i++) {
		const struct smbios_dimm *d = sl[i].d;
		if (d->installed != 1)
			continue;
		ndimm++;
		if (!d->speed)
			rated_unknown = 1;
		else if (!rated || d->speed < rated)
			rated = d->speed;
		if (!d->configured_speed)
			conf_unknown = 1;
		else if (!conf || d->configured_speed < conf)
			conf = d->configured_speed;
		if (d->speed && d->configured_speed && d->configured_speed < d->speed)
			below = 1;
		if (!first)
			first = d;
		else if (first->speed != d->speed || first->size_bytes != d->size_bytes ||
			 first->type != d->type ||
			 (first->part && d->part && strcmp(first->part, d->part)))
			mixed = 1;
	}
	fj_num_or_null(sp, "rated_mts", ndimm && !rated_unknown, rated);
	fj_num_or_null(sp, "configured_mts", ndimm && !conf_unknown, conf);
	fj_bool_or_null(sp, "below_rated", ndimm && !conf_unknown && !rated_unknown ? below : below ? 1 : -1);
	fj_bool_or_null(sp, "mixed", ndimm ? mixed : -1);
	pc_init(&pc, &ctx->sr, &ctx->facts);
	if (!ndimm) {
		pc_setobj(&pc, mem, "memory");
		pc_gap(&pc, "speed", "no populated memory device in the SMBIOS table");
		return;
	}
	pc_setobj(&pc, sp, "memory.speed");
	if (rated_unknown)
		pc_gap(&pc, "rated_mts", "a DIMM's SMBIOS record gives no rated speed");
	if (conf_unknown)
		pc_gap(&pc, "configured_mts",
		       "a DIMM's SMBIOS record gives no configured speed (unknown, or a table older than SMBIOS 2.7)");
}

void mem_null_channels(struct probe_ctx *ctx, cJSON *mem, const char *fmt, const char *arg)
{
	struct path_cxt pc;
	cJSON *bw;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, mem, "memory");
	fj_set(mem, "channels", cJSON_CreateNull());
	pc_gap(&pc, "channels", fmt, arg);
	bw = cJSON_AddObjectToObject(mem, "bandwidth");
	pc_setobj(&pc, bw, "memory.bandwidth");
	fj_set(bw, "theoretical_bytes_per_s", cJSON_CreateNull());
	pc_gap(&pc, "theoretical_bytes_per_s", "needs the populated channels, which are unknown");
}

/* What the steps of channel_facts share. */
struct chanset {
	struct slot *sl;
	size_t n;
	struct channel *ch;
	size_t nch;
	char *pkgs[64];
	size_t npk;
	int all_pkg, any_pkg, empty_unknown;
	int used_rated, speed_unknown;    /* over the populated channels */
	double total_bw;
};

/* Bare "A1" names are channels only when several letters each hold at
 * most 3 slots (A1 A2 B1 B2); A0..A3 on one board, or A1..A12 for a
 * socket, are not. */
static int bare_names_are_channels(const struct slot *sl, size_t n)
{
	int nletters = 0, maxper = 0;
	int perletter[26] = { 0 };
	size_t i;
	for (i = 0; i < n; i++)
		if (sl[i].loc.bare && sl[i].loc.letter >= 'A' && sl[i].loc.letter <= 'Z')
			perletter[sl[i].loc.letter - 'A']++;
	for (i = 0; i < 26; i++) {
		nletters += perletter[i] > 0;
		if (perletter[i] > maxper)
			maxper = perletter[i];
	}
	return nletters >= 2 && maxper <= 3;
}

/* Whether each slot names a channel, and a package; returns the first
 * populated slot that names no channel, or NULL. */
static const struct slot *name_channels(struct chanset *cs, int bare_ok)
{
	const struct slot *bad = NULL;
	size_t i;
	for (i = 0; i < cs->n; i++) {
		struct slot *x = &cs->sl[i];
		if (x->loc.bare && bare_ok) {
			x->loc.chan[0] = x->loc.letter;
			x->loc.chan[1] = '\0';
		}
		x->has_chan = x->loc.chan[0] != '\0';
		if (!x->has_chan && !bad && x->d->installed == 1)
			bad = x;
		if (x->loc.pkg[0])
			cs->any_pkg = 1;
		else
			cs->all_pkg = 0;
	}
	for (i = 0; i < cs->n; i++)
		if (!cs->sl[i].has_chan)
			cs->empty_unknown++;
	return bad;
}

/* Package labels, numbered in order. */
static void number_packages(struct chanset *cs)
{
	struct slot *sl = cs->sl;
	char **pkgs = cs->pkgs;
	size_t i, k, npk = 0;
	for (i = 0; i < cs->n; i++) {
		for (k = 0; k < npk; k++)
			if (!strcmp(pkgs[k], sl[i].loc.pkg))
				break;
		if (k == npk && npk < ARRAY_SIZE(cs->pkgs))
			pkgs[npk++] = sl[i].loc.pkg;
	}
	for (i = 1; i < npk; i++)          /* insertion sort, numeric */
		for (k = i; k > 0 && mem_cmp_label(pkgs[k - 1], pkgs[k]) > 0; k--) {
			char *t = pkgs[k];
			pkgs[k] = pkgs[k - 1];
			pkgs[k - 1] = t;
		}
	cs->npk = npk;
}

/* Each slot's package index and channel; the channels, in order of first slot. */
static void assign_channels(struct chanset *cs, const struct memstate *st)
{
	size_t i, k;
	for (i = 0; i < cs->n; i++) {
		struct slot *x = &cs->sl[i];
		x->pkg = -1;
		if (cs->all_pkg && cs->any_pkg) {
			for (k = 0; k < cs->npk; k++)
				if (!strcmp(cs->pkgs[k], x->loc.pkg))
					x->pkg = (int)k;
		} else if (!cs->any_pkg && st->npackages == 1)
			x->pkg = 0;
		x->ch = -1;
		if (!x->has_chan)
			continue;
		for (k = 0; k < cs->nch; k++)
			if (!strcmp(cs->ch[k].label, x->loc.chan) && !strcmp(cs->ch[k].pkglabel, x->loc.pkg))
				break;
		if (k == cs->nch) {
			struct channel *ch;
			cs->ch = xrealloc(cs->ch, (cs->nch + 1) * sizeof(*cs->ch));
			ch = cs->ch;
			memset(&ch[cs->nch], 0, sizeof(*ch));
			snprintf(ch[cs->nch].label, sizeof(ch[cs->nch].label), "%s", x->loc.chan);
			snprintf(ch[cs->nch].pkglabel, sizeof(ch[cs->nch].pkglabel), "%s", x->loc.pkg);
			ch[cs->nch].pkg = x->pkg;
			ch[cs->nch].type = 0;
			cs->nch++;
		}
		x->ch = (int)k;
		cs->ch[k].slots++;
	}
}

/* More than 3 slots in one channel: the names are not channels after all
 * (memory.channels null); 1 then, else 0. */
static int crowded_channel(struct probe_ctx *ctx, cJSON *mem, struct chanset *cs)
{
	struct slot *sl = cs->sl;
	size_t i, k, n = cs->n;
	for (k = 0; k < cs->nch; k++)
		if (cs->ch[k].slots > 3) {
			const struct slot *x = NULL;
			for (i = 0; i < n && !x; i++)
				if (sl[i].ch == (int)k)
					x = &sl[i];
			char *w = xasprintf("DIMM locators such as '%s' put %d slots in one channel: not a channel naming scheme nodeaudit knows",
					    x && x->d->locator ? x->d->locator : "", cs->ch[k].slots);
			mem_null_channels(ctx, mem, "%s", w);
			free(w);
			for (i = 0; i < n; i++)
				sl[i].ch = -1;
			return 1;
		}
	return 0;
}

/* Each channel's DIMMs, bytes, type, slowest speed and bytes per transfer. */
static void channel_dimms(struct chanset *cs)
{
	size_t i;
	for (i = 0; i < cs->n; i++) {
		const struct smbios_dimm *d = cs->sl[i].d;
		struct channel *y;
		int rated;
		uint32_t v;
		if (cs->sl[i].ch < 0 || d->installed != 1)
			continue;
		y = &cs->ch[cs->sl[i].ch];
		y->dimms++;
		y->bytes += d->size_bytes;
		if (y->dimms == 1)
			y->type = d->type;
		else if (y->type != d->type)
			y->type = -1;
		v = dimm_speed(d, &rated);
		if (!v)
			y->speed_unknown = 1;
		else if (!y->mts || v < y->mts) {
			y->mts = v;
		}
		y->used_rated |= rated;
		if (d->data_width > 0 && d->data_width < 64 && (d->data_width % 8) == 0)
			y->width = y->width && y->width < d->data_width / 8 ? y->width : d->data_width / 8;
		else if (!y->width)
			y->width = 8;
	}
}

/* memory.channels' counts: overall (p -1), then per package. */
static cJSON *channel_totals(struct probe_ctx *ctx, cJSON *mem, struct chanset *cs,
			     const struct memstate *st, int npk_out)
{
	const struct channel *ch = cs->ch;
	size_t k, nch = cs->nch;
	int p;
	struct path_cxt pc;
	cJSON *c, *arr;
	c = cJSON_AddObjectToObject(mem, "channels");
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, c, "memory.channels");
	add_str(c, "source", "smbios-locators");
	for (p = -1; p < npk_out; p++) {
		int tot = 0, pop = 0, bal = 1;
		const struct channel *ref = NULL;
		double pbw = 0;
		cJSON *o;
		for (k = 0; k < nch; k++) {
			if (p >= 0 && ch[k].pkg != p)
				continue;
			tot++;
			if (!ch[k].dimms)
				continue;
			pop++;
			if (!ref)
				ref = &ch[k];
			else if (ref->bytes != ch[k].bytes || ref->dimms != ch[k].dimms ||
				 ref->type != ch[k].type || ref->mts != ch[k].mts || ch[k].type < 0)
				bal = 0;
			if (ch[k].speed_unknown || !ch[k].mts)
				cs->speed_unknown = 1;
			pbw += (double)ch[k].mts * 1e6 * ch[k].width;
			cs->used_rated |= ch[k].used_rated;
		}
		if (p < 0) {
			o = c;
			cs->total_bw = pbw;
			arr = cJSON_AddArrayToObject(c, "per_package");
			(void)arr;
		} else {
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "package", p);
			cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(c, "per_package"), o);
		}
		fj_num_or_null(o, "total", !cs->empty_unknown, tot);
		cJSON_AddNumberToObject(o, "populated", pop);
		fj_bool_or_null(o, "balanced", pop ? bal : -1);
		if (p >= 0)
			fj_num_or_null(o, "theoretical_bytes_per_s", !cs->speed_unknown, pbw);
	}
	if (cs->empty_unknown)
		pc_gap(&pc, "total", "%d empty slots do not name a channel, so the number of channels is unknown",
		       cs->empty_unknown);
	if (!npk_out) {
		fj_set(c, "per_package", cJSON_CreateNull());
		pc_gap(&pc, "per_package", "%s",
		       st->npackages > 1 ? "DIMM locators do not name the package of each DIMM"
					 : "the number of packages is unknown and DIMM locators do not name them");
	}
	return c;
}

/* memory.channels.list: each channel, its slots by locator and the empty ones. */
static void channel_list(cJSON *c, const struct chanset *cs)
{
	const struct channel *ch = cs->ch;
	const struct slot *sl = cs->sl;
	size_t i, k, n = cs->n;
	cJSON *arr = cJSON_AddArrayToObject(c, "list");
	for (k = 0; k < cs->nch; k++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "name", ch[k].label);
		fj_num_or_null(e, "package", ch[k].pkg >= 0, ch[k].pkg);
		cJSON_AddNumberToObject(e, "slots", ch[k].slots);
		cJSON_AddNumberToObject(e, "dimms", ch[k].dimms);
		add_u64(e, "size_bytes", 1, ch[k].bytes);
		fj_num_or_null(e, "speed_mts", ch[k].dimms && ch[k].mts, ch[k].mts);
		/* Its slots by locator, and the empty ones: the part to name. */
		{
			cJSON *loc = cJSON_AddArrayToObject(e, "locators");
			cJSON *emp = cJSON_AddArrayToObject(e, "empty_slots");
			for (i = 0; i < n; i++) {
				if (sl[i].ch != (int)k)
					continue;
				cJSON_AddItemToArray(loc, sl[i].d->locator ? cJSON_CreateString(sl[i].d->locator)
									   : cJSON_CreateNull());
				if (sl[i].d->installed != 1)
					cJSON_AddItemToArray(emp, sl[i].d->locator ?
							     cJSON_CreateString(sl[i].d->locator) : cJSON_CreateNull());
			}
		}
		cJSON_AddItemToArray(arr, e);
	}
}

/* memory.bandwidth: the sum over the populated channels. */
static void channel_bandwidth(struct probe_ctx *ctx, cJSON *mem, const struct chanset *cs)
{
	const struct channel *ch = cs->ch;
	size_t k;
	int used_rated = cs->used_rated, speed_unknown = cs->speed_unknown;
	double total_bw = cs->total_bw;
	cJSON *bw = cJSON_AddObjectToObject(mem, "bandwidth");
	struct path_cxt pc;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, bw, "memory.bandwidth");
	fj_num_or_null(bw, "theoretical_bytes_per_s", !speed_unknown && total_bw > 0, total_bw);
	add_str(bw, "basis", used_rated
		? "sum over populated channels of the slowest DIMM's rated MT/s (no configured speed in the table) x 8 bytes"
		: "sum over populated channels of the slowest DIMM's configured MT/s x 8 bytes");
	add_str(bw, "speed", used_rated ? "rated" : "configured");
	{
		int bpt = 0;
		for (k = 0; k < cs->nch; k++)
			if (ch[k].dimms && (!bpt || ch[k].width < bpt))
				bpt = ch[k].width;
		fj_num_or_null(bw, "bytes_per_transfer", bpt > 0, bpt);
	}
	if (speed_unknown)
		pc_gap(&pc, "theoretical_bytes_per_s", "a populated channel has no DIMM speed in the SMBIOS table");
	else if (total_bw <= 0)
		pc_gap(&pc, "theoretical_bytes_per_s", "no populated channel");
}

/* Assign slots to channels; fills memory.channels and memory.bandwidth. */
static void channel_facts(struct probe_ctx *ctx, cJSON *mem, struct slot *sl, size_t n,
			  struct memstate *st, const struct smbios_info *s)
{
	struct chanset cs = { .sl = sl, .n = n, .all_pkg = 1 };
	const struct slot *bad;
	cJSON *c;
	int npk_out;

	if (mem_is_virtual(ctx, s)) {
		char *why = xasprintf("virtual machine (%s firmware in %s): its memory devices are emulated "
				      "and have no channels", mem_vm_name(s), st->src_path);
		mem_null_channels(ctx, mem, "%s", why);
		free(why);
		return;
	}
	bad = name_channels(&cs, bare_names_are_channels(sl, n));
	if (bad) {
		char *w = xasprintf("DIMM locator '%s' (bank '%s') names no channel in a scheme nodeaudit knows",
				    bad->d->locator ? bad->d->locator : "", bad->d->bank ? bad->d->bank : "");
		mem_null_channels(ctx, mem, "%s", w);
		free(w);
		return;
	}
	if (cs.all_pkg && cs.any_pkg)
		number_packages(&cs);
	assign_channels(&cs, st);
	if (crowded_channel(ctx, mem, &cs)) {
		free(cs.ch);
		return;
	}
	channel_dimms(&cs);
	npk_out = cs.all_pkg && cs.any_pkg ? (int)cs.npk : (!cs.any_pkg && st->npackages == 1 ? 1 : 0);
	c = channel_totals(ctx, mem, &cs, st, npk_out);
	channel_list(c, &cs);
	channel_bandwidth(ctx, mem, &cs);
	free(cs.ch);
}

void mem_dimm_facts(struct probe_ctx *ctx, cJSON *mem, const struct memsrc *m, struct memstate *st)
{
	const struct smbios_info *s = &m->info;
	struct slot *sl = xcalloc(s->ndimms ? s->ndimms : 1, sizeof(*sl));
	size_t n = 0, i;
	int populated = 0, size_unknown = 0, dangling = 0;
	uint64_t installed = 0;
	struct path_cxt pc;
	cJSON *arr, *o;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, mem, "memory");

	for (i = 0; i < s->ndimms; i++) {
		const struct smbios_dimm *d = &s->dimms[i];
		const struct smbios_array *a = find_array(s, d->array_handle);
		if (a && a->use != 3)
			continue;          /* flash, video or cache memory */
		if (!a && s->narrays)
			dangling++;
		sl[n].d = d;
		mem_parse_locator(d->locator, d->bank, &sl[n].loc);
		sl[n].pkg = sl[n].ch = -1;
		n++;
	}
	if (!n) {
		fj_set(mem, "dimms", cJSON_CreateNull());
		fj_set(mem, "slots", cJSON_CreateNull());
		fj_set(mem, "installed_bytes", cJSON_CreateNull());
		fj_set(mem, "speed", cJSON_CreateNull());
		pc_gap(&pc, "dimms", "the SMBIOS table (%s) has no system memory device (type 17) record", m->path);
		mem_null_channels(ctx, mem, "%s", "no DIMM records");
		free(sl);
		return;
	}
	if (dangling)   /* the records', no member of the list */
		facts_gap(&ctx->facts, "memory.dimms.array",
			  "%d memory device records point at a memory array the table does not have", dangling);
	channel_facts(ctx, mem, sl, n, st, s);
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(mem, "channels"))) {
		pc_evidence_of(&pc, "channels", m->path);
		pc_setobj(&pc, NULL, "memory.bandwidth");   /* channel_bandwidth()'s */
		pc_evidence_of(&pc, "theoretical_bytes_per_s", m->path);
		pc_setobj(&pc, mem, "memory");
	}

	arr = cJSON_AddArrayToObject(mem, "dimms");
	for (i = 0; i < n; i++) {
		const struct smbios_dimm *d = sl[i].d;
		cJSON *e;
		if (d->installed == 0)
			continue;
		if (d->installed < 0) {
			size_unknown++;
			continue;
		}
		populated++;
		installed += d->size_bytes;
		e = cJSON_CreateObject();
		add_str(e, "locator", d->locator);
		add_str(e, "bank", d->bank);
		add_u64(e, "size_bytes", 1, d->size_bytes);
		add_str(e, "type", smbios_mem_type(d->type));
		add_str(e, "form_factor", smbios_form_factor(d->form_factor));
		fj_num_or_null(e, "speed_mts", d->speed != 0, d->speed);
		fj_num_or_null(e, "configured_speed_mts", d->configured_speed != 0, d->configured_speed);
		fj_num_or_null(e, "rank", d->rank != 0, d->rank);
		fj_bool_or_null(e, "ecc", mem_dimm_ecc(d));
		fj_num_or_null(e, "total_width_bits", d->total_width > 0, d->total_width);
		fj_num_or_null(e, "data_width_bits", d->data_width > 0, d->data_width);
		fj_bool_or_null(e, "registered", d->type_detail < 0 ? -1 : d->type_detail & (1 << 13) ? 1
						: d->type_detail & (1 << 14) ? 0 : -1);
		add_str(e, "manufacturer", d->manufacturer);
		add_str(e, "part_number", d->part);
		add_str(e, "channel", sl[i].ch >= 0 ? sl[i].loc.chan : NULL);
		fj_num_or_null(e, "package", sl[i].ch >= 0 && sl[i].pkg >= 0, sl[i].pkg);
		cJSON_AddItemToArray(arr, e);
	}
	pc_evidence_of(&pc, "dimms", m->path);
	pc_evidence_of(&pc, "slots", m->path);
	pc_evidence_of(&pc, "speed", m->path);
	if (!size_unknown && populated)
		pc_evidence_of(&pc, "installed_bytes", m->path);
	o = cJSON_AddObjectToObject(mem, "slots");
	cJSON_AddNumberToObject(o, "total", (double)n);
	fj_num_or_null(o, "populated", !size_unknown, populated);
	fj_num_or_null(mem, "installed_bytes", !size_unknown && populated, (double)installed);
	pc_setobj(&pc, o, "memory.slots");
	if (size_unknown)
		pc_gap(&pc, "populated", "%d memory device records give the size as unknown", size_unknown);
	speed_facts(ctx, mem, sl, n);
	free(sl);
}

