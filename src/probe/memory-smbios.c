/* probe/memory-smbios.c - the SMBIOS table's sources, whether it is a VM's, the platform facts */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "read/path.h"
#include "probe/sources.h"
#include "probe/memory.h"
#include "probe/memory-internal.h"
#include "lib/output.h"
#include "read/smbios.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*** SMBIOS sources ***/

static int load_tables(struct probe_ctx *ctx, struct memsrc *m, char **why)
{
	struct path_cxt pc;
	char *ep = NULL, *tab = NULL, *err = NULL;
	size_t eplen = 0, tlen = 0;
	int r;
	pc_init(&pc, &ctx->sr, NULL);
	pc_setdir(&pc, "/sys/firmware/dmi/tables");
	r = pc_read(&pc, &ep, &eplen, "smbios_entry_point");
	if (r == 0)
		r = pc_read(&pc, &tab, &tlen, "DMI");
	if (r < 0) {
		free(ep);
		free(tab);
		if (r != -ENOENT && r != -ENOTDIR)
			*why = xasprintf("SMBIOS table unreadable: %s: %s", pc.dir, sr_reason(r));
		return 0;
	}
	if (smbios_parse_split((uint8_t *)ep, eplen, (uint8_t *)tab, tlen, &m->info, &err) < 0) {
		*why = xasprintf("SMBIOS table %s is damaged: %s", pc.path, err);
		smbios_free(&m->info);
		free(err);
		free(ep);
		free(tab);
		return 0;
	}
	free(ep);
	free(tab);
	m->kind = SRC_TABLES;
	m->path = "/sys/firmware/dmi/tables/DMI";
	m->have = 1;
	return 1;
}

/* /sys/firmware/dmi/entries/T-N/raw: each holds one structure; the ones we
 * decode are concatenated into a table. */
static int load_entries(struct probe_ctx *ctx, struct memsrc *m, char **why)
{
	struct path_cxt pc;
	char **names = NULL, *err = NULL;
	size_t n = 0, i, got = 0, denied = 0;
	struct strbuf t = STRBUF_INIT;
	int r;
	pc_init(&pc, &ctx->sr, NULL);
	pc_setdir(&pc, "/sys/firmware/dmi/entries");
	if (pc_list(&pc, &names, &n, "%s", pc.dir) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned type;
		char *buf = NULL;
		size_t len;
		if (sscanf(names[i], "%u-", &type) != 1)
			continue;
		if (type != 0 && type != 1 && type != 2 && type != 4 && type != 16 && type != 17 && type != 19)
			continue;
		r = pc_read(&pc, &buf, &len, "%s/raw", names[i]);
		if (r < 0) {
			if (r == -EACCES || r == -EPERM)
				denied++;
			continue;
		}
		strbuf_add(&t, buf, len);
		free(buf);
		got++;
	}
	sr_free_list(names, n);
	if (!got) {
		strbuf_release(&t);
		if (denied && !*why)
			*why = xstrdup("SMBIOS entries unreadable: /sys/firmware/dmi/entries/*/raw: permission denied (run as root)");
		return 0;
	}
	memset(&m->info, 0, sizeof(m->info));
	m->info.virtual_machine = -1;
	if (smbios_parse_table((const uint8_t *)t.buf, t.len, 0, &m->info, &err) < 0) {
		free(*why);
		*why = xasprintf("SMBIOS entries under /sys/firmware/dmi/entries are damaged: %s", err);
		free(err);
		smbios_free(&m->info);
		strbuf_release(&t);
		return 0;
	}
	m->info.source = SMBIOS_SRC_ENTRIES;
	strbuf_release(&t);
	m->kind = SRC_ENTRIES;
	m->path = "/sys/firmware/dmi/entries";
	m->have = 1;
	return 1;
}

/* 0 loaded or gap noted in *why; -1: a bad --smbios file (message printed). */
int mem_load_smbios(struct probe_ctx *ctx, struct memsrc *m, char **why)
{
	const char *file = side_option(ctx, SIDE_SMBIOS);
	memset(m, 0, sizeof(*m));
	if (file) {
		uint8_t *buf;
		size_t len;
		char *err = NULL;
		int r = side_read_option(ctx, SIDE_SMBIOS, (char **)&buf, &len);
		if (r < 0)
			return error("cannot read SMBIOS dump '%s': %s", file,
				     r == -ENOENT ? "no such file" : sr_reason(r));
		if (smbios_parse_dump(buf, len, &m->info, &err) < 0) {
			error("'%s' is not a usable SMBIOS dump: %s", file, err);
			free(err);
			free(buf);
			smbios_free(&m->info);
			return -1;
		}
		free(buf);
		m->kind = SRC_DUMP;
		m->path = file;
		m->have = 1;
		return 0;
	}
	if (load_tables(ctx, m, why) || load_entries(ctx, m, why))
		return 0;
	if (!*why) {
		struct path_cxt pc;
		pc_init(&pc, &ctx->sr, NULL);
		if (pc_exists(&pc, "/sys/firmware/dmi") <= 0)
			*why = xstrdup("no SMBIOS table: /sys/firmware/dmi is absent (a VM or a board without SMBIOS; pass --smbios FILE from 'dmidecode --dump-bin')");
		else
			*why = xstrdup("no SMBIOS table: /sys/firmware/dmi/tables and entries are absent (SMBIOS needs root, or the firmware has none)");
	}
	return 0;
}

/*** Platform ***/

static char *squashed(const char *s)
{
	return s ? strsquash(xstrdup(s)) : NULL;
}

/* The first processor's model name in the sysroot's /proc/cpuinfo. */
static char *cpuinfo_model(struct probe_ctx *ctx)
{
	struct path_cxt pc;
	char *buf = NULL, *p, *e, *out = NULL;
	pc_init(&pc, &ctx->sr, NULL);
	if (pc_read(&pc, &buf, NULL, "/proc/cpuinfo") < 0)
		return NULL;
	if ((p = strstr(buf, "model name")) && (p = strchr(p, ':'))) {
		e = strchr(++p, '\n');
		if (e)
			*e = '\0';
		out = squashed(p);
	}
	free(buf);
	return out;
}

/* A table of another machine than the probed one (a --smbios dump, or a
 * snapshot made with one) is authoritative for its own machine; say once
 * that the two differ: by the DMI system names, or, where the sysroot has
 * none, by the CPU model. */
void mem_other_machine(struct probe_ctx *ctx, const struct memsrc *m)
{
	const struct smbios_info *s = &m->info;
	char *hv = NULL, *hp = NULL, *tv = squashed(s->sys_vendor), *tp = squashed(s->sys_product);
	char *tcpu = NULL, *hcpu = NULL;
	struct path_cxt pc;
	size_t i;
	pc_init(&pc, &ctx->sr, NULL);
	pc_setdir(&pc, "/sys/class/dmi/id");
	if (pc_read_str(&pc, &hv, "sys_vendor") < 0 || !*hv) {
		free(hv);
		hv = NULL;
	}
	if (pc_read_str(&pc, &hp, "product_name") < 0 || !*hp) {
		free(hp);
		hp = NULL;
	}
	if ((hv && tv && strcmp(hv, tv)) || (hp && tp && strcmp(hp, tp)))
		facts_conflict(&ctx->facts, "platform", m->path, pc.dir,
			       "the SMBIOS table (%s) describes '%s %s', the probed host's DMI names '%s %s': "
			       "platform and memory facts are the table's machine", m->path,
			       tv ? tv : "?", tp ? tp : "?", hv ? hv : "?", hp ? hp : "?");
	else if (!hv && !hp) {
		for (i = 0; i < s->nprocs && !tcpu; i++)
			if (s->procs[i].populated && s->procs[i].version && *s->procs[i].version)
				tcpu = squashed(s->procs[i].version);
		hcpu = cpuinfo_model(ctx);
		if (tcpu && hcpu && *tcpu && *hcpu && strcmp(tcpu, hcpu))
			facts_conflict(&ctx->facts, "platform", m->path, "/proc/cpuinfo",
				       "the SMBIOS table (%s) describes a machine with '%s', the probed host's "
				       "/proc/cpuinfo names '%s': platform and memory facts are the table's machine",
				       m->path, tcpu, hcpu);
	}
	free(hv);
	free(hp);
	free(tv);
	free(tp);
	free(tcpu);
	free(hcpu);
}

/* Whether memory records are emulated is the table's own business: its
 * BIOS, system and board strings and its memory devices (read/smbios.c), never
 * the probed host's CPU flag (a dump may come from another machine).
 * Without a table, host.virtualized (the host probe always runs). */
static int vm_product(const struct smbios_info *s)
{
	return smbios_hypervisor(s) != NULL;
}

int mem_is_virtual(struct probe_ctx *ctx, const struct smbios_info *s)
{
	if (s)
		return vm_product(s);
	return cJSON_IsTrue(facts_get(ctx->facts.root, "host.virtualized"));
}

const char *mem_vm_name(const struct smbios_info *s)
{
	const char *n = s ? smbios_hypervisor(s) : NULL;
	return n ? n : "virtual machine";
}

static void platform_from_id(struct probe_ctx *ctx, cJSON *pl)
{
	static const struct { const char *obj, *key, *file; } ids[] = {
		{ "bios", "vendor", "bios_vendor" }, { "bios", "version", "bios_version" },
		{ "bios", "date", "bios_date" }, { "system", "vendor", "sys_vendor" },
		{ "system", "product", "product_name" }, { "system", "version", "product_version" },
		{ "system", "family", "product_family" }, { "board", "vendor", "board_vendor" },
		{ "board", "product", "board_name" }, { "board", "version", "board_version" },
	};
	struct path_cxt pc;
	size_t i;
	int any = 0;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, "/sys/class/dmi/id");
	pc_setobj_in(&pc, pl, "platform");
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		cJSON *o = cJSON_GetObjectItemCaseSensitive(pl, ids[i].obj);
		char *v = NULL;
		if (!o)
			o = cJSON_AddObjectToObject(pl, ids[i].obj);
		if (pc_read_str(&pc, &v, "%s", ids[i].file) == 0 && *v) {
			add_str(o, ids[i].key, v);
			pc_evidence(&pc, ids[i].key);
			any = 1;
		} else
			add_str(o, ids[i].key, NULL);
		free(v);
	}
	if (!any)
		pc_gap(&pc, "platform", "neither an SMBIOS table nor %s names the platform", pc.dir);
}

void mem_platform_facts(struct probe_ctx *ctx, const struct memsrc *m)
{
	cJSON *pl = facts_obj(&ctx->facts, "platform"), *o, *arr;
	const struct smbios_info *s = &m->info;
	struct path_cxt pc;
	size_t i;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, pl, "platform");
	if (!m->have) {
		platform_from_id(ctx, pl);
		fj_bool_or_null(pl, "virtual_machine", -1);
		add_str(pl, "hypervisor", NULL);
		pc_gap(&pc, "virtual_machine", "no SMBIOS table, whose BIOS characteristics would say");
		return;
	}
	if (!s->bios_vendor && !s->sys_vendor && !s->sys_product && !s->board_product) {
		platform_from_id(ctx, pl);   /* entries with type 17 alone */
		goto rest;
	}
	o = cJSON_AddObjectToObject(pl, "bios");
	add_str(o, "vendor", s->bios_vendor);
	add_str(o, "version", s->bios_version);
	add_str(o, "date", s->bios_date);
	o = cJSON_AddObjectToObject(pl, "system");
	add_str(o, "vendor", s->sys_vendor);
	add_str(o, "product", s->sys_product);
	add_str(o, "version", s->sys_version);
	add_str(o, "family", s->sys_family);
	o = cJSON_AddObjectToObject(pl, "board");
	add_str(o, "vendor", s->board_vendor);
	add_str(o, "product", s->board_product);
	add_str(o, "version", s->board_version);
rest:
	fj_bool_or_null(pl, "virtual_machine", s->virtual_machine == 1 || vm_product(s) ? 1 : s->virtual_machine);
	add_str(pl, "hypervisor", smbios_hypervisor(s));
	pc_evidence_of(&pc, "virtual_machine", m->path);
	o = cJSON_AddObjectToObject(pl, "smbios");
	if (s->source == SMBIOS_SRC_ENTRIES)
		add_str(o, "version", NULL);
	else {
		char v[16];
		snprintf(v, sizeof(v), "%d.%d", s->major, s->minor);
		add_str(o, "version", v);
	}
	add_str(o, "entry_point", s->source == SMBIOS_SRC_SM3 ? "_SM3_" : s->source == SMBIOS_SRC_SM2 ? "_SM_"
			     : s->source == SMBIOS_SRC_DMI ? "_DMI_" : NULL);
	add_str(o, "source", m->path);
	arr = cJSON_AddArrayToObject(pl, "sockets");
	for (i = 0; i < s->nprocs; i++) {
		const struct smbios_proc *p = &s->procs[i];
		cJSON *e = cJSON_CreateObject();
		add_str(e, "designation", p->socket);
		cJSON_AddBoolToObject(e, "populated", p->populated);
		add_str(e, "manufacturer", p->manufacturer);
		add_str(e, "version", p->version);
		fj_num_or_null(e, "cores", p->cores >= 0, p->cores);
		fj_num_or_null(e, "threads", p->threads >= 0, p->threads);
		cJSON_AddItemToArray(arr, e);
	}
	facts_evidence(&ctx->facts, "platform", m->path);
}
