/* probe/memory-edac.c - ECC mode (SMBIOS, EDAC), EDAC error counts, channels from EDAC */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "read/path.h"
#include "probe/memory.h"
#include "probe/memory-internal.h"
#include "lib/output.h"
#include "read/smbios.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*** ECC ***/

static const char *ecc_from_smbios(const struct smbios_info *s, const char **source, char **note)
{
	size_t i, k;
	const char *mode = NULL;
	int widths = -2;   /* -2 none seen, 1 all ECC, 0 all non-ECC, -1 mixed/unknown */
	*note = NULL;
	for (i = 0; i < s->narrays; i++) {
		const struct smbios_array *a = &s->arrays[i];
		int has_dimm = 0;
		if (a->use != 3)
			continue;
		for (k = 0; k < s->ndimms; k++)
			if (s->dimms[k].array_handle == a->handle && s->dimms[k].installed == 1)
				has_dimm = 1;
		if (!has_dimm && mode)
			continue;
		if (smbios_ecc_mode(a->ecc)) {
			if (mode && strcmp(mode, smbios_ecc_mode(a->ecc)))
				*note = xasprintf("memory arrays disagree: '%s' and '%s'", mode, smbios_ecc_mode(a->ecc));
			mode = smbios_ecc_mode(a->ecc);
		}
	}
	for (k = 0; k < s->ndimms; k++) {
		int e;
		if (s->dimms[k].installed != 1)
			continue;
		e = mem_dimm_ecc(&s->dimms[k]);
		widths = widths == -2 ? e : widths == e ? e : -1;
	}
	if (mode) {
		*source = "smbios-memory-array";
		if (!*note && widths == 1 && !strcmp(mode, "none"))
			*note = xstrdup("the DIMMs carry ECC bits (72/64-bit widths) but the memory array says no error correction");
		else if (!*note && widths == 0 && strcmp(mode, "none"))
			*note = xasprintf("the memory array says '%s' but the DIMMs report no ECC bits (total width = data width)", mode);
		return mode;
	}
	if (widths == 1) {
		/* 72/64 bits say ECC is there, not what the controller corrects
		 * (SECDED or chipkill): only "ecc". */
		*source = "smbios-dimm-widths";
		return "ecc";
	}
	if (widths == 0) {
		*source = "smbios-dimm-widths";
		return "none";
	}
	return NULL;
}

static const char *edac_mode_name(const char *m)
{
	if (!m)
		return NULL;
	if (!strcmp(m, "None"))
		return "none";
	if (!strcmp(m, "Parity"))
		return "parity";
	if (!strcmp(m, "EC") || !strcmp(m, "SECDED"))
		return "single-bit";
	if (m[0] == 'S' && strstr(m, "ECD") && str_endswith(m, "ED"))
		return "multi-bit";
	return NULL;
}

/* What edac_facts sums over the controllers. */
struct edac_tally {
	uint64_t ce, ue;
	int ce_ok, ue_ok;
	const char *mode;
	int mode_mixed;
};

/* No /sys/devices/system/edac/mc (r why): the counts are unknown. */
static void no_edac(struct path_cxt *pc, int r)
{
	static const char *const keys[] = { "corrected_errors", "uncorrected_errors" };
	size_t i;
	fj_set(pc->obj, "corrected_errors", cJSON_CreateNull());
	fj_set(pc->obj, "uncorrected_errors", cJSON_CreateNull());
	fj_set(pc->obj, "controllers", cJSON_CreateNull());
	/* The whole reason in each: check prints this gap alone. */
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		pc_gap(pc, keys[i], "no EDAC (%s %s): no EDAC driver is loaded, so memory error counts are unknown",
		       pc->path, r == -ENOENT || r == -ENOTDIR ? "is absent" : sr_reason(r));
}

/* One DIMM (dimmN, rankN) or csrowN of controller mc (its directory
 * pc->dir; facts at memory.ecc): into dl and, when populated, into st->ed;
 * its mode into t. */
static void edac_dimm(struct path_cxt *pc, const char *mc, const char *sub,
		      cJSON *dl, struct memstate *st, struct edac_tally *t)
{
	const char *pre = !strncmp(sub, "dimm", 4) ? "dimm_" : !strncmp(sub, "rank", 4) ? "dimm_"
		: !strncmp(sub, "csrow", 5) ? "" : NULL;
	struct path_cxt d = *pc;
	char *m = NULL;
	uint64_t sz;
	cJSON *x;
	size_t plen = !strncmp(sub, "csrow", 5) ? 5 : 4;
	int r;
	if (!pre || !isdigit((unsigned char)sub[plen]))
		return;
	pc_setdir(&d, "%s/%s", pc->dir, sub);
	if (pc_read_u64(&d, &sz, "%s", *pre ? "size" : "size_mb") < 0 || sz == 0)
		return;       /* empty slot */
	x = cJSON_CreateObject();
	add_str(x, "name", sub);
	add_u64(x, "size_bytes", 1, sz << 20);
	st->ed = xrealloc(st->ed, (st->ned + 1) * sizeof(*st->ed));
	memset(&st->ed[st->ned], 0, sizeof(*st->ed));
	snprintf(st->ed[st->ned].mc, sizeof(st->ed[st->ned].mc), "%s", mc);
	st->ed[st->ned].bytes = sz << 20;
	add_str(x, "label", pc_read_str(&d, &m, "%slabel", *pre ? "dimm_" : "") == 0 && *m ? m : NULL);
	if (m)
		snprintf(st->ed[st->ned].label, sizeof(st->ed[st->ned].label), "%s", m);
	free(m); m = NULL;
	add_str(x, "location", *pre && pc_read_str(&d, &m, "dimm_location") == 0 && *m ? m : NULL);
	if (m && *pre)
		snprintf(st->ed[st->ned].location, sizeof(st->ed[st->ned].location), "%s", m);
	st->ned++;
	free(m); m = NULL;
	add_str(x, "mem_type", pc_read_str(&d, &m, "%smem_type", pre) == 0 && *m ? m : NULL);
	free(m); m = NULL;
	if (pc_read_str(&d, &m, "%sedac_mode", pre) == 0 && *m) {
		const char *mm = edac_mode_name(m);
		add_str(x, "edac_mode", m);
		pc_evidence(&d, "mode");
		if (mm && t->mode && strcmp(mm, t->mode))
			t->mode_mixed = 1;
		if (mm && !t->mode)
			t->mode = mm;
	} else
		add_str(x, "edac_mode", NULL);
	free(m); m = NULL;
	r = pc_read_u64(&d, &sz, "%sce_count", pre);
	fj_num_or_null(x, "corrected_errors", r == 0, (double)sz);
	r = pc_read_u64(&d, &sz, "%sue_count", pre);
	fj_num_or_null(x, "uncorrected_errors", r == 0, (double)sz);
	cJSON_AddItemToArray(dl, x);
}

/* Controller mc: its name and counts (summed into t; their evidence and
 * gaps memory.ecc's), its DIMMs; into ctl. */
static void edac_controller(struct probe_ctx *ctx, cJSON *ecc, const char *mc, cJSON *ctl,
			    struct memstate *st, struct edac_tally *t)
{
	struct path_cxt pc;
	char *s = NULL, **subs = NULL;
	uint64_t v;
	size_t nsub = 0, j;
	cJSON *e, *dl;
	int r;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, "/sys/devices/system/edac/mc/%s", mc);
	pc_setobj(&pc, ecc, "memory.ecc");
	e = cJSON_CreateObject();
	add_str(e, "name", mc);
	add_str(e, "mc_name", pc_read_str(&pc, &s, "mc_name") == 0 ? s : NULL);
	free(s);
	r = pc_read_u64(&pc, &v, "ce_count");
	fj_num_or_null(e, "corrected_errors", r == 0, (double)v);
	if (r == 0)
		t->ce += v;
	else
		t->ce_ok = 0;
	pc_record(&pc, "corrected_errors", r);
	r = pc_read_u64(&pc, &v, "ue_count");
	fj_num_or_null(e, "uncorrected_errors", r == 0, (double)v);
	if (r == 0)
		t->ue += v;
	else
		t->ue_ok = 0;
	pc_record(&pc, "uncorrected_errors", r);
	dl = cJSON_AddArrayToObject(e, "dimms");
	if (pc_list(&pc, &subs, &nsub, "%s", pc.dir) == 0) {
		for (j = 0; j < nsub; j++)
			edac_dimm(&pc, mc, subs[j], dl, st, t);
		sr_free_list(subs, nsub);
	}
	cJSON_AddItemToArray(ctl, e);
}

/* EDAC: /sys/devices/system/edac/mc/mcN/{mc_name,ce_count,ue_count} and
 * per DIMM (dimmN or rankN) or, on old kernels, csrowN. */
static void edac_facts(struct probe_ctx *ctx, cJSON *ecc, struct memstate *st)
{
	struct path_cxt pc;
	char **mcs = NULL;
	size_t nmc = 0, i;
	struct edac_tally t = { .ce_ok = 1, .ue_ok = 1 };
	int nctl = 0;
	cJSON *ctl;
	int r;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, ecc, "memory.ecc");
	r = pc_list(&pc, &mcs, &nmc, "/sys/devices/system/edac/mc");
	if (r < 0) {
		no_edac(&pc, r);
		return;
	}
	ctl = cJSON_AddArrayToObject(ecc, "controllers");
	for (i = 0; i < nmc; i++) {
		if (strncmp(mcs[i], "mc", 2) || !isdigit((unsigned char)mcs[i][2]))
			continue;
		nctl++;
		edac_controller(ctx, ecc, mcs[i], ctl, st, &t);
	}
	sr_free_list(mcs, nmc);
	if (!nctl) {
		fj_set(ecc, "corrected_errors", cJSON_CreateNull());
		fj_set(ecc, "uncorrected_errors", cJSON_CreateNull());
		pc_gap(&pc, "corrected_errors",
		       "EDAC has no memory controller registered (ECC off, or no EDAC driver for this platform)");
		pc_gap(&pc, "uncorrected_errors", "EDAC has no memory controller registered");
		return;
	}
	st->edac_present = 1;
	st->edac_mode = t.mode_mixed ? NULL : t.mode;
	fj_num_or_null(ecc, "corrected_errors", t.ce_ok, (double)t.ce);
	fj_num_or_null(ecc, "uncorrected_errors", t.ue_ok, (double)t.ue);
}

void mem_ecc_facts(struct probe_ctx *ctx, cJSON *mem, const struct memsrc *m, struct memstate *st)
{
	cJSON *ecc = cJSON_AddObjectToObject(mem, "ecc");
	struct path_cxt pc;
	const char *mode = NULL, *source = NULL;
	char *note = NULL;
	int vm = m->have && mem_is_virtual(ctx, &m->info);
	char *vmwhy = vm ? xasprintf("virtual machine (%s firmware in %s): its SMBIOS memory records "
				     "are emulated; ECC is the host's", mem_vm_name(&m->info), m->path) : NULL;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, ecc, "memory.ecc");
	if (m->have && !vm)
		mode = ecc_from_smbios(&m->info, &source, &note);
	if (note)
		facts_conflict(&ctx->facts, pc_fact(&pc, "mode"), source ? source : "smbios-memory-array",
			       "smbios-dimm-widths", "%s", note);
	free(note);
	edac_facts(ctx, ecc, st);
	/* EDAC reads the memory controller as it runs; SMBIOS is what the
	 * firmware wrote at boot.  When they disagree on whether ECC is on,
	 * EDAC wins and the disagreement is reported.  When both say it is on,
	 * the SMBIOS mode stays: EDAC drivers often hard-code SECDED (skx_edac
	 * does) where the firmware knows the platform corrects more. */
	if (st->edac_mode) {
		int s_on = mode && strcmp(mode, "none") != 0;
		int e_on = strcmp(st->edac_mode, "none") != 0;
		if (!mode || s_on != e_on) {
			if (mode)
				facts_conflict(&ctx->facts, pc_fact(&pc, "mode"), "edac", source,
					       "SMBIOS (%s) says '%s' but EDAC reports '%s'", source, mode,
					       st->edac_mode);
			mode = st->edac_mode;
			source = "edac";
		}
	}
	add_str(ecc, "mode", mode);
	add_str(ecc, "source", source);
	if (!mode)
		pc_gap(&pc, "mode", "%s",
		       vm ? vmwhy
		       : m->have ? "the SMBIOS memory array gives no error correction type and EDAC gives no mode"
				 : "no SMBIOS table and no EDAC mode: ECC state unknown");
	else if (m->have && strcmp(source, "edac"))
		pc_evidence_of(&pc, "mode", m->path);
	free(vmwhy);
}

struct edac_chan {
	char key[48], pkg[16];
	uint64_t bytes;
	int dimms;
};

/* The channels of EDAC's DIMMs, in order of first DIMM (*all_pkg: every
 * DIMM names its package); -1 when a DIMM's location and label name none. */
static int edac_chan_list(const struct memstate *st, struct edac_chan **chp, size_t *nchp, int *all_pkg)
{
	struct edac_chan *ch = NULL;
	size_t nch = 0, i, k;
	for (i = 0; i < st->ned; i++) {
		const struct edac_dimm *e = &st->ed[i];
		struct mem_loc ml;
		const char *p = strstr(e->location, "channel ");
		char key[48];
		mem_parse_locator(e->label, NULL, &ml);
		if (p && isdigit((unsigned char)p[8])) {
			const char *b = strstr(e->location, "branch ");
			snprintf(key, sizeof(key), "%s-%s%.1s%s", e->mc, b ? "B" : "", b ? b + 7 : "",
				 p + 8);
			key[strcspn(key, " ")] = '\0';
		} else if (ml.chan[0] && !ml.bare)
			snprintf(key, sizeof(key), "%s", ml.chan);
		else {
			free(ch);
			return -1;
		}
		if (!ml.pkg[0])
			*all_pkg = 0;
		for (k = 0; k < nch; k++)
			if (!strcmp(ch[k].key, key) && !strcmp(ch[k].pkg, ml.pkg))
				break;
		if (k == nch) {
			ch = xrealloc(ch, (nch + 1) * sizeof(*ch));
			memset(&ch[nch], 0, sizeof(*ch));
			snprintf(ch[nch].key, sizeof(ch[nch].key), "%s", key);
			snprintf(ch[nch].pkg, sizeof(ch[nch].pkg), "%s", ml.pkg);
			nch++;
		}
		ch[k].bytes += e->bytes;
		ch[k].dimms++;
	}
	*chp = ch;
	*nchp = nch;
	return 0;
}

/* The package labels of the channels, numbered in order (pk[0] NULL: the
 * one package of the machine); how many. */
static size_t edac_packages(const struct edac_chan *ch, size_t nch, int all_pkg, const struct memstate *st,
			    const char **pk, size_t max)
{
	size_t i, k, npk = 0;
	if (all_pkg) {
		for (k = 0; k < nch; k++) {
			for (i = 0; i < npk; i++)
				if (!strcmp(pk[i], ch[k].pkg))
					break;
			if (i == npk && npk < max)
				pk[npk++] = ch[k].pkg;
		}
		for (i = 1; i < npk; i++)
			for (k = i; k > 0 && mem_cmp_label(pk[k - 1], pk[k]) > 0; k--) {
				const char *t = pk[k];
				pk[k] = pk[k - 1];
				pk[k - 1] = t;
			}
	} else if (st->npackages == 1) {
		npk = 1;
		pk[0] = NULL;
	}
	return npk;
}

/* memory.channels.per_package from EDAC: populated and balanced. */
static void edac_per_package(cJSON *c, const struct edac_chan *ch, size_t nch, const char **pk, size_t npk)
{
	cJSON *arr = cJSON_AddArrayToObject(c, "per_package");
	size_t i, k;
	for (i = 0; i < npk; i++) {
		cJSON *o = cJSON_CreateObject();
		int pop = 0, pb = 1;
		size_t ref = nch;
		for (k = 0; k < nch; k++) {
			if (pk[i] && strcmp(pk[i], ch[k].pkg))
				continue;
			pop++;
			if (ref == nch)
				ref = k;
			else if (ch[k].bytes != ch[ref].bytes || ch[k].dimms != ch[ref].dimms)
				pb = 0;
		}
		cJSON_AddNumberToObject(o, "package", (double)i);
		fj_set(o, "total", cJSON_CreateNull());
		cJSON_AddNumberToObject(o, "populated", pop);
		fj_bool_or_null(o, "balanced", pb);
		cJSON_AddItemToArray(arr, o);
	}
}

/* Without SMBIOS, EDAC still says which channels hold DIMMs: each DIMM's
 * dimm_location ("channel 1 slot 0", "branch 0 channel 1 slot 0") within
 * its memory controller, or a label such as CPU_SrcID#0_MC#1_Chan#2_DIMM#0.
 * EDAC lists populated DIMMs only, so the total is unknown; it gives no
 * speed, so neither is the bandwidth. */
int mem_edac_channels(struct probe_ctx *ctx, cJSON *mem, struct memstate *st)
{
	struct edac_chan *ch = NULL;
	struct path_cxt pc;
	size_t nch = 0, k, npk;
	const char *pk[64];
	int all_pkg = 1, bal = 1;
	cJSON *c, *arr, *bw;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	if (!st->ned)
		return 0;
	if (edac_chan_list(st, &ch, &nch, &all_pkg) < 0)
		return 0;
	for (k = 1; k < nch; k++)
		if (ch[k].bytes != ch[0].bytes || ch[k].dimms != ch[0].dimms)
			bal = 0;
	c = cJSON_AddObjectToObject(mem, "channels");
	pc_setobj(&pc, c, "memory.channels");
	fj_set(c, "total", cJSON_CreateNull());
	cJSON_AddNumberToObject(c, "populated", (double)nch);
	fj_bool_or_null(c, "balanced", bal);
	add_str(c, "source", "edac");
	pc_gap(&pc, "total",
	       "EDAC lists populated DIMMs only and there is no SMBIOS table: empty channels are unknown");
	npk = edac_packages(ch, nch, all_pkg, st, pk, ARRAY_SIZE(pk));
	if (npk)
		edac_per_package(c, ch, nch, pk, npk);
	else {
		fj_set(c, "per_package", cJSON_CreateNull());
		pc_gap(&pc, "per_package", "EDAC DIMM labels do not name the package of each DIMM");
	}
	arr = cJSON_AddArrayToObject(c, "list");
	for (k = 0; k < nch; k++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "name", ch[k].key);
		cJSON_AddNumberToObject(e, "dimms", ch[k].dimms);
		add_u64(e, "size_bytes", 1, ch[k].bytes);
		cJSON_AddItemToArray(arr, e);
	}
	pc_setobj(&pc, mem, "memory");
	pc_evidence_of(&pc, "channels", "/sys/devices/system/edac/mc");
	bw = cJSON_AddObjectToObject(mem, "bandwidth");
	pc_setobj(&pc, bw, "memory.bandwidth");
	fj_set(bw, "theoretical_bytes_per_s", cJSON_CreateNull());
	pc_gap(&pc, "theoretical_bytes_per_s", "no SMBIOS table: EDAC gives no DIMM speed");
	free(ch);
	return 1;
}
