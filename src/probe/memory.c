/* probe/memory.c - DIMMs, channels, ECC and EDAC, theoretical bandwidth, platform */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "read/sources.h"
#include "probe/memory.h"
#include "lib/output.h"
#include "read/smbios.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Sources, in order: --smbios FILE (read directly: it is a file named on the
 * command line, not part of the probed machine), the sysroot's
 * /sys/firmware/dmi/tables/{smbios_entry_point,DMI} (root only on a live
 * machine), /sys/firmware/dmi/entries/T-N/raw (one structure each), else a
 * gap.  /sys/class/dmi/id/ (world readable) still names the platform.
 * EDAC (/sys/devices/system/edac/mc) gives error counts and, without
 * SMBIOS, the ECC mode.
 *
 * Theoretical bandwidth: the sum over populated channels of the channel's
 * speed (its slowest DIMM's configured MT/s; the rated speed when the table
 * has no configured speed, and the JSON says so) times the bytes each
 * transfer moves: 8 (64 data bits).  A DDR5 DIMM is two 32-bit
 * sub-channels, but SMBIOS names the DIMM's channel, whose two
 * sub-channels together still move 8 bytes per transfer, so DDR5 counts
 * the same.  Only channels whose DIMMs report a narrower data width
 * (LPDDR parts soldered as 16- or 32-bit channels) count width/8 bytes.
 */

/*** Locator grammar ***/

static int is_sep(char c)
{
	return c == ' ' || c == '_' || c == '-' || c == '#' || c == '.' || c == ':';
}

static int token_start(const char *u, size_t i)
{
	return i == 0 || !isalpha((unsigned char)u[i - 1]);
}

/* Digits at u+i (at most 3) into buf; returns how many. */
static size_t digits(const char *u, size_t i, char *buf, size_t n)
{
	size_t k = 0;
	while (isdigit((unsigned char)u[i + k]) && k < 3 && k + 1 < n) {
		buf[k] = u[i + k];
		k++;
	}
	if (isdigit((unsigned char)u[i + k]))
		return 0;      /* more than 3 digits: not a small index */
	buf[k] = '\0';
	return k;
}

struct loc_parts {
	char pkg[8], chan[8], dimmchan[8], node[8], mc[8];
};

static void scan(const char *s, struct loc_parts *p, struct mem_loc *bare)
{
	char u[64];
	size_t i, n = 0, j;
	memset(p, 0, sizeof(*p));
	if (!s)
		return;
	for (i = 0; s[i] && n + 1 < sizeof(u); i++)
		u[n++] = (char)toupper((unsigned char)s[i]);
	u[n] = '\0';
	strtrim(u);
	if (bare && isalpha((unsigned char)u[0]) && isdigit((unsigned char)u[1]) &&
	    (!u[2] || (isdigit((unsigned char)u[2]) && !u[3]))) {
		bare->bare = 1;
		bare->letter = u[0];
		bare->num = atoi(u + 1);
		return;
	}
	for (i = 0; u[i]; i++) {
		if (!token_start(u, i))
			continue;
		if (!strncmp(u + i, "SRCID#", 6)) {
			digits(u, i + 6, p->pkg, sizeof(p->pkg));
		} else if (!strncmp(u + i, "CHANNEL", 7) || !strncmp(u + i, "CHAN", 4)) {
			j = i + (strncmp(u + i, "CHANNEL", 7) ? 4 : 7);
			while (is_sep(u[j]))
				j++;
			if (isalpha((unsigned char)u[j]) && !isalpha((unsigned char)u[j + 1])) {
				p->chan[0] = u[j];
				p->chan[1] = '\0';
			} else
				digits(u, j, p->chan, sizeof(p->chan));
		} else if (!strncmp(u + i, "MC#", 3)) {
			digits(u, i + 3, p->mc, sizeof(p->mc));
		} else if (!strncmp(u + i, "CONTROLLER", 10)) {
			/* Controller0-ChannelA-DIMM0: two controllers each with A, B */
			j = i + 10;
			while (u[j] == ' ')
				j++;
			digits(u, j, p->mc, sizeof(p->mc));
		} else if (!strncmp(u + i, "DIMM", 4)) {
			j = i + 4;
			while (u[j] == ' ' || u[j] == '_')
				j++;
			/* DIMM_P1_A0: the package first, then the channel letter */
			if (u[j] == 'P' && isdigit((unsigned char)u[j + 1])) {
				size_t k = j + 1;
				while (isdigit((unsigned char)u[k]))
					k++;
				if (is_sep(u[k]) && isalpha((unsigned char)u[k + 1]))
					j = k + 1;
			}
			/* DIMM_A1, DIMMA1; and Dell's "DIMM A" / "DIMM B" (one
			 * SODIMM per channel) where the letter ends the name */
			if (isalpha((unsigned char)u[j]) &&
			    (isdigit((unsigned char)u[j + 1]) || (!u[j + 1] && j > i + 4))) {
				p->dimmchan[0] = u[j];
				p->dimmchan[1] = '\0';
			}
		} else if (!strncmp(u + i, "CPU", 3) || !strncmp(u + i, "PROC", 4) ||
			   !strncmp(u + i, "SOCKET", 6)) {
			j = i + (u[i] == 'C' ? 3 : u[i + 1] == 'R' ? 4 : 6);
			while (u[j] == ' ')
				j++;
			if (isdigit((unsigned char)u[j]) && !p->pkg[0])
				digits(u, j, p->pkg, sizeof(p->pkg));
		} else if (u[i] == 'P' && isdigit((unsigned char)u[i + 1])) {
			if (!p->pkg[0])
				digits(u, i + 1, p->pkg, sizeof(p->pkg));
		} else if (!strncmp(u + i, "NODE", 4)) {
			j = i + 4;
			while (u[j] == ' ')
				j++;
			digits(u, j, p->node, sizeof(p->node));
		}
	}
}

static void chan_label(const struct loc_parts *p, char *out, size_t n)
{
	const char *c = p->chan[0] ? p->chan : p->dimmchan;
	out[0] = '\0';
	if (!*c)
		return;
	if (p->mc[0])
		snprintf(out, n, "MC%s-%s", p->mc, c);
	else if (p->node[0] && p->chan[0])
		snprintf(out, n, "N%s-%s", p->node, c);
	else
		snprintf(out, n, "%s", c);
}

int mem_parse_locator(const char *locator, const char *bank, struct mem_loc *out)
{
	struct loc_parts a, b;
	char ca[32], cb[32];
	memset(out, 0, sizeof(*out));
	scan(locator, &a, out);
	scan(bank, &b, NULL);
	chan_label(&a, ca, sizeof(ca));
	chan_label(&b, cb, sizeof(cb));
	snprintf(out->pkg, sizeof(out->pkg), "%s", a.pkg[0] ? a.pkg : b.pkg);
	if (out->bare && (cb[0] || b.pkg[0])) {
		out->bare = 0;   /* the bank says more than a bare "A1" */
	}
	snprintf(out->chan, sizeof(out->chan), "%s", ca[0] ? ca : cb);
	return out->chan[0] != '\0';
}

/*** Small JSON helpers ***/

static void add_str(cJSON *o, const char *k, const char *v)
{
	fj_str_or_null(o, k, v);
}

static void add_u64(cJSON *o, const char *k, int has, uint64_t v)
{
	fj_num_or_null(o, k, has, (double)v);
}

/*** SMBIOS sources ***/

enum src_kind { SRC_NONE, SRC_DUMP, SRC_TABLES, SRC_ENTRIES };

struct memsrc {
	enum src_kind kind;
	const char *path;         /* for evidence */
	struct smbios_info info;
	int have;
};

static int load_tables(struct probe_ctx *ctx, struct memsrc *m, char **why)
{
	struct sysroot *sr = &ctx->sr;
	char *ep = NULL, *tab = NULL, *err = NULL;
	size_t eplen = 0, tlen = 0;
	int r = sr_read(sr, "/sys/firmware/dmi/tables/smbios_entry_point", &ep, &eplen);
	if (r == 0)
		r = sr_read(sr, "/sys/firmware/dmi/tables/DMI", &tab, &tlen);
	if (r < 0) {
		free(ep);
		free(tab);
		if (r != -ENOENT && r != -ENOTDIR)
			*why = xasprintf("SMBIOS table unreadable: /sys/firmware/dmi/tables: %s", sr_reason(r));
		return 0;
	}
	if (smbios_parse_split((uint8_t *)ep, eplen, (uint8_t *)tab, tlen, &m->info, &err) < 0) {
		*why = xasprintf("SMBIOS table /sys/firmware/dmi/tables/DMI is damaged: %s", err);
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
	struct sysroot *sr = &ctx->sr;
	char **names = NULL, *err = NULL;
	size_t n = 0, i, got = 0, denied = 0;
	struct strbuf t = STRBUF_INIT;
	int r = sr_list(sr, "/sys/firmware/dmi/entries", &names, &n);
	if (r < 0)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned type;
		char *path, *buf = NULL;
		size_t len;
		if (sscanf(names[i], "%u-", &type) != 1)
			continue;
		if (type != 0 && type != 1 && type != 2 && type != 4 && type != 16 && type != 17 && type != 19)
			continue;
		path = xasprintf("/sys/firmware/dmi/entries/%s/raw", names[i]);
		r = sr_read(sr, path, &buf, &len);
		free(path);
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
static int load_smbios(struct probe_ctx *ctx, struct memsrc *m, char **why)
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
		if (!sr_exists(&ctx->sr, "/sys/firmware/dmi"))
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
	char *buf = NULL, *p, *e, *out = NULL;
	if (sr_read(&ctx->sr, "/proc/cpuinfo", &buf, NULL) < 0)
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
static void other_machine(struct probe_ctx *ctx, const struct memsrc *m)
{
	const struct smbios_info *s = &m->info;
	char *hv = NULL, *hp = NULL, *tv = squashed(s->sys_vendor), *tp = squashed(s->sys_product);
	char *tcpu = NULL, *hcpu = NULL;
	size_t i;
	if (sr_read_str(&ctx->sr, "/sys/class/dmi/id/sys_vendor", &hv) < 0 || !*hv) {
		free(hv);
		hv = NULL;
	}
	if (sr_read_str(&ctx->sr, "/sys/class/dmi/id/product_name", &hp) < 0 || !*hp) {
		free(hp);
		hp = NULL;
	}
	if ((hv && tv && strcmp(hv, tv)) || (hp && tp && strcmp(hp, tp)))
		facts_conflict(&ctx->facts, "platform", m->path, "/sys/class/dmi/id",
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

static int vm_product(const struct smbios_info *s);

static void platform_from_id(struct probe_ctx *ctx, cJSON *pl)
{
	static const struct { const char *obj, *key, *file; } ids[] = {
		{ "bios", "vendor", "bios_vendor" }, { "bios", "version", "bios_version" },
		{ "bios", "date", "bios_date" }, { "system", "vendor", "sys_vendor" },
		{ "system", "product", "product_name" }, { "system", "version", "product_version" },
		{ "system", "family", "product_family" }, { "board", "vendor", "board_vendor" },
		{ "board", "product", "board_name" }, { "board", "version", "board_version" },
	};
	size_t i;
	int any = 0;
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		char *path = xasprintf("/sys/class/dmi/id/%s", ids[i].file), *v = NULL;
		cJSON *o = cJSON_GetObjectItemCaseSensitive(pl, ids[i].obj);
		if (!o)
			o = cJSON_AddObjectToObject(pl, ids[i].obj);
		if (sr_read_str(&ctx->sr, path, &v) == 0 && *v) {
			add_str(o, ids[i].key, v);
			facts_evidence(&ctx->facts, "platform", path);
			any = 1;
		} else
			add_str(o, ids[i].key, NULL);
		free(v);
		free(path);
	}
	if (!any)
		facts_gap(&ctx->facts, "platform", "neither an SMBIOS table nor /sys/class/dmi/id names the platform");
}

static void platform_facts(struct probe_ctx *ctx, const struct memsrc *m)
{
	cJSON *pl = facts_obj(&ctx->facts, "platform"), *o, *arr;
	const struct smbios_info *s = &m->info;
	size_t i;
	if (!m->have) {
		platform_from_id(ctx, pl);
		fj_bool_or_null(pl, "virtual_machine", -1);
		add_str(pl, "hypervisor", NULL);
		facts_gap(&ctx->facts, "platform.virtual_machine", "no SMBIOS table (its BIOS characteristics say)");
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
	facts_evidence(&ctx->facts, "platform.virtual_machine", m->path);
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

/*** DIMMs and channels ***/

struct slot {
	const struct smbios_dimm *d;
	struct mem_loc loc;
	int has_chan;
	int pkg;          /* index, -1 unknown */
	int ch;           /* index into channels, -1 unknown */
};

struct channel {
	char pkglabel[16], label[32];
	int pkg;
	int slots, dimms;
	uint64_t bytes;
	int type;                 /* -1 mixed */
	uint32_t mts;             /* slowest DIMM's speed used */
	int used_rated;
	int width;                /* bytes per transfer */
	int speed_unknown;
};

static uint32_t dimm_speed(const struct smbios_dimm *d, int *rated)
{
	*rated = 0;
	if (d->configured_speed)
		return d->configured_speed;
	*rated = d->speed != 0;
	return d->speed;
}

static int cmp_label(const char *a, const char *b)
{
	char *ea, *eb;
	long na = strtol(a, &ea, 10), nb = strtol(b, &eb, 10);
	if (*a && *b && !*ea && !*eb)
		return na < nb ? -1 : na > nb;
	return strcmp(a, b);
}

static int dimm_ecc(const struct smbios_dimm *d)
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

struct edac_dimm {
	char mc[16], location[64], label[64];
	uint64_t bytes;
};

struct memstate {
	struct edac_dimm *ed;     /* populated EDAC DIMMs */
	size_t ned;
	int npackages;            /* -1 unknown */
	const char *src_path;     /* the SMBIOS source, for reasons */
	const char *pkg_source;
	const char *ecc_mode;     /* chosen */
	const char *ecc_source;
	const char *edac_mode;
	int edac_present;
};

/* Packages of the machine whose memory is described: the table's own
 * populated processor sockets first (a --smbios dump describes its machine,
 * not the probed one), else the kernel's package masks read here (not
 * cpu.packages, so that --only memory gives the same facts). */
static int packages_known(struct probe_ctx *ctx, const struct smbios_info *s, const char **src)
{
	char **names = NULL;
	size_t i, nn = 0, ng = 0;
	int n = 0, ok = 1;
	hwloc_bitmap_t seen, set;
	for (i = 0; s && i < s->nprocs; i++)
		n += s->procs[i].populated;
	if (n > 0) {
		*src = "SMBIOS processor records";
		return n;
	}
	*src = NULL;
	if (s && ctx->opts && ctx->opts->smbios)
		return -1;     /* a dump: the probed host's CPUs are another machine's */
	if (sr_list(&ctx->sr, "/sys/devices/system/cpu", &names, &nn) < 0)
		return -1;
	seen = hwloc_bitmap_alloc();
	set = hwloc_bitmap_alloc();
	for (i = 0; i < nn && ok; i++) {
		static const char *const files[] = { "package_cpus_list", "core_siblings_list" };
		char *path;
		size_t k;
		int r = -ENOENT;
		unsigned id;
		char c;
		if (sscanf(names[i], "cpu%u%c", &id, &c) != 1)
			continue;
		for (k = 0; k < ARRAY_SIZE(files) && r == -ENOENT; k++) {
			path = xasprintf("/sys/devices/system/cpu/%s/topology/%s", names[i], files[k]);
			r = sr_read_cpulist(&ctx->sr, path, set);
			free(path);
		}
		if (r < 0 || !hwloc_bitmap_isset(set, id)) {
			ok = 0;
			break;
		}
		if (!hwloc_bitmap_intersects(seen, set))
			ng++;
		hwloc_bitmap_or(seen, seen, set);
	}
	hwloc_bitmap_free(seen);
	hwloc_bitmap_free(set);
	sr_free_list(names, nn);
	if (!ok || !ng)
		return -1;
	*src = "package masks";
	return (int)ng;
}

/* Whether memory records are emulated is the table's own business: its
 * BIOS, system and board strings and its memory devices (read/smbios.c), never
 * the probed host's CPU flag (a dump may come from another machine).
 * Without a table, host.virtualized (the host probe always runs). */
static int vm_product(const struct smbios_info *s)
{
	return smbios_hypervisor(s) != NULL;
}

static int is_virtual(struct probe_ctx *ctx, const struct smbios_info *s)
{
	if (s)
		return vm_product(s);
	return cJSON_IsTrue(facts_get(ctx->facts.root, "host.virtualized"));
}

static const char *vm_name(const struct smbios_info *s)
{
	const char *n = s ? smbios_hypervisor(s) : NULL;
	return n ? n : "virtual machine";
}

static void speed_facts(struct probe_ctx *ctx, cJSON *mem, struct slot *sl, size_t n)
{
	cJSON *sp = cJSON_AddObjectToObject(mem, "speed");
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
	if (!ndimm)
		facts_gap(&ctx->facts, "memory.speed", "no populated memory device in the SMBIOS table");
	else {
		if (rated_unknown)
			facts_gap(&ctx->facts, "memory.speed.rated_mts", "a DIMM's SMBIOS record gives no rated speed");
		if (conf_unknown)
			facts_gap(&ctx->facts, "memory.speed.configured_mts",
				  "a DIMM's SMBIOS record gives no configured speed (unknown, or a table older than SMBIOS 2.7)");
	}
}

static void null_channels(struct probe_ctx *ctx, cJSON *mem, const char *fmt, const char *arg)
{
	cJSON *bw;
	fj_set(mem, "channels", cJSON_CreateNull());
	facts_gap(&ctx->facts, "memory.channels", fmt, arg);
	bw = cJSON_AddObjectToObject(mem, "bandwidth");
	fj_set(bw, "theoretical_bytes_per_s", cJSON_CreateNull());
	facts_gap(&ctx->facts, "memory.bandwidth.theoretical_bytes_per_s",
		  "needs the populated channels, which are unknown");
}

/* Assign slots to channels; fills memory.channels and memory.bandwidth. */
static void channel_facts(struct probe_ctx *ctx, cJSON *mem, struct slot *sl, size_t n,
			  struct memstate *st, const struct smbios_info *s)
{
	struct channel *ch = NULL;
	size_t nch = 0, i, k;
	char *pkgs[64];
	size_t npk = 0;
	int all_pkg = 1, any_pkg = 0, nletters = 0, maxper = 0, bare_ok, empty_unknown = 0;
	int perletter[26] = { 0 };
	const struct slot *bad = NULL;
	cJSON *c, *bw, *arr;

	if (is_virtual(ctx, s)) {
		char *why = xasprintf("virtual machine (%s firmware in %s): its memory devices are emulated "
				      "and have no channels", vm_name(s), st->src_path);
		null_channels(ctx, mem, "%s", why);
		free(why);
		return;
	}
	/* Bare "A1" names are channels only when several letters each hold at
	 * most 3 slots (A1 A2 B1 B2); A0..A3 on one board, or A1..A12 for a
	 * socket, are not. */
	for (i = 0; i < n; i++)
		if (sl[i].loc.bare && sl[i].loc.letter >= 'A' && sl[i].loc.letter <= 'Z')
			perletter[sl[i].loc.letter - 'A']++;
	for (i = 0; i < 26; i++) {
		nletters += perletter[i] > 0;
		if (perletter[i] > maxper)
			maxper = perletter[i];
	}
	bare_ok = nletters >= 2 && maxper <= 3;
	for (i = 0; i < n; i++) {
		struct slot *x = &sl[i];
		if (x->loc.bare && bare_ok) {
			x->loc.chan[0] = x->loc.letter;
			x->loc.chan[1] = '\0';
		}
		x->has_chan = x->loc.chan[0] != '\0';
		if (!x->has_chan && !bad && x->d->installed == 1)
			bad = x;
		if (x->loc.pkg[0])
			any_pkg = 1;
		else
			all_pkg = 0;
	}
	for (i = 0; i < n; i++)
		if (!sl[i].has_chan)
			empty_unknown++;
	if (bad) {
		char *w = xasprintf("DIMM locator '%s' (bank '%s') names no channel in a scheme nodeaudit knows",
				    bad->d->locator ? bad->d->locator : "", bad->d->bank ? bad->d->bank : "");
		null_channels(ctx, mem, "%s", w);
		free(w);
		return;
	}
	/* Package labels, numbered in order. */
	if (all_pkg && any_pkg) {
		for (i = 0; i < n; i++) {
			for (k = 0; k < npk; k++)
				if (!strcmp(pkgs[k], sl[i].loc.pkg))
					break;
			if (k == npk && npk < ARRAY_SIZE(pkgs))
				pkgs[npk++] = sl[i].loc.pkg;
		}
		for (i = 1; i < npk; i++)          /* insertion sort, numeric */
			for (k = i; k > 0 && cmp_label(pkgs[k - 1], pkgs[k]) > 0; k--) {
				char *t = pkgs[k];
				pkgs[k] = pkgs[k - 1];
				pkgs[k - 1] = t;
			}
	}
	for (i = 0; i < n; i++) {
		struct slot *x = &sl[i];
		x->pkg = -1;
		if (all_pkg && any_pkg) {
			for (k = 0; k < npk; k++)
				if (!strcmp(pkgs[k], x->loc.pkg))
					x->pkg = (int)k;
		} else if (!any_pkg && st->npackages == 1)
			x->pkg = 0;
		x->ch = -1;
		if (!x->has_chan)
			continue;
		for (k = 0; k < nch; k++)
			if (!strcmp(ch[k].label, x->loc.chan) && !strcmp(ch[k].pkglabel, x->loc.pkg))
				break;
		if (k == nch) {
			ch = xrealloc(ch, (nch + 1) * sizeof(*ch));
			memset(&ch[nch], 0, sizeof(*ch));
			snprintf(ch[nch].label, sizeof(ch[nch].label), "%s", x->loc.chan);
			snprintf(ch[nch].pkglabel, sizeof(ch[nch].pkglabel), "%s", x->loc.pkg);
			ch[nch].pkg = x->pkg;
			ch[nch].type = 0;
			nch++;
		}
		x->ch = (int)k;
		ch[k].slots++;
	}
	for (k = 0; k < nch; k++)
		if (ch[k].slots > 3) {
			const struct slot *x = NULL;
			for (i = 0; i < n && !x; i++)
				if (sl[i].ch == (int)k)
					x = &sl[i];
			char *w = xasprintf("DIMM locators such as '%s' put %d slots in one channel: not a channel naming scheme nodeaudit knows",
					    x && x->d->locator ? x->d->locator : "", ch[k].slots);
			null_channels(ctx, mem, "%s", w);
			free(w);
			for (i = 0; i < n; i++)
				sl[i].ch = -1;
			free(ch);
			return;
		}
	for (i = 0; i < n; i++) {
		const struct smbios_dimm *d = sl[i].d;
		struct channel *y;
		int rated;
		uint32_t v;
		if (sl[i].ch < 0 || d->installed != 1)
			continue;
		y = &ch[sl[i].ch];
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

	/* Overall, then per package. */
	{
		int npk_out = all_pkg && any_pkg ? (int)npk : (!any_pkg && st->npackages == 1 ? 1 : 0);
		int p, used_rated = 0, speed_unknown = 0;
		double total_bw = 0;
		c = cJSON_AddObjectToObject(mem, "channels");
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
					speed_unknown = 1;
				pbw += (double)ch[k].mts * 1e6 * ch[k].width;
				used_rated |= ch[k].used_rated;
			}
			if (p < 0) {
				o = c;
				total_bw = pbw;
				arr = cJSON_AddArrayToObject(c, "per_package");
				(void)arr;
			} else {
				o = cJSON_CreateObject();
				cJSON_AddNumberToObject(o, "package", p);
				cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(c, "per_package"), o);
			}
			fj_num_or_null(o, "total", !empty_unknown, tot);
			cJSON_AddNumberToObject(o, "populated", pop);
			fj_bool_or_null(o, "balanced", pop ? bal : -1);
			if (p >= 0)
				fj_num_or_null(o, "theoretical_bytes_per_s", !speed_unknown, pbw);
		}
		if (empty_unknown)
			facts_gap(&ctx->facts, "memory.channels.total",
				  "%d empty slots do not name a channel, so the number of channels is unknown",
				  empty_unknown);
		if (!npk_out) {
			fj_set(c, "per_package", cJSON_CreateNull());
			facts_gap(&ctx->facts, "memory.channels.per_package",
				  st->npackages > 1 ? "DIMM locators do not name the package of each DIMM"
						    : "the number of packages is unknown and DIMM locators do not name them");
		}
		arr = cJSON_AddArrayToObject(c, "list");
		for (k = 0; k < nch; k++) {
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
		bw = cJSON_AddObjectToObject(mem, "bandwidth");
		fj_num_or_null(bw, "theoretical_bytes_per_s", !speed_unknown && total_bw > 0, total_bw);
		add_str(bw, "basis", used_rated
			? "sum over populated channels of the slowest DIMM's rated MT/s (no configured speed in the table) x 8 bytes"
			: "sum over populated channels of the slowest DIMM's configured MT/s x 8 bytes");
		add_str(bw, "speed", used_rated ? "rated" : "configured");
		{
			int bpt = 0;
			for (k = 0; k < nch; k++)
				if (ch[k].dimms && (!bpt || ch[k].width < bpt))
					bpt = ch[k].width;
			fj_num_or_null(bw, "bytes_per_transfer", bpt > 0, bpt);
		}
		if (speed_unknown)
			facts_gap(&ctx->facts, "memory.bandwidth.theoretical_bytes_per_s",
				  "a populated channel has no DIMM speed in the SMBIOS table");
		else if (total_bw <= 0)
			facts_gap(&ctx->facts, "memory.bandwidth.theoretical_bytes_per_s", "no populated channel");
	}
	free(ch);
}

static void dimm_facts(struct probe_ctx *ctx, cJSON *mem, const struct memsrc *m, struct memstate *st)
{
	const struct smbios_info *s = &m->info;
	struct slot *sl = xcalloc(s->ndimms ? s->ndimms : 1, sizeof(*sl));
	size_t n = 0, i;
	int populated = 0, size_unknown = 0, dangling = 0;
	uint64_t installed = 0;
	cJSON *arr, *o;

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
		facts_gap(&ctx->facts, "memory.dimms", "the SMBIOS table (%s) has no system memory device (type 17) record", m->path);
		null_channels(ctx, mem, "%s", "no DIMM records");
		free(sl);
		return;
	}
	if (dangling)
		facts_gap(&ctx->facts, "memory.dimms.array",
			  "%d memory device records point at a memory array the table does not have", dangling);
	channel_facts(ctx, mem, sl, n, st, s);
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(mem, "channels"))) {
		facts_evidence(&ctx->facts, "memory.channels", m->path);
		facts_evidence(&ctx->facts, "memory.bandwidth.theoretical_bytes_per_s", m->path);
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
		fj_bool_or_null(e, "ecc", dimm_ecc(d));
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
	facts_evidence(&ctx->facts, "memory.dimms", m->path);
	facts_evidence(&ctx->facts, "memory.slots", m->path);
	facts_evidence(&ctx->facts, "memory.speed", m->path);
	if (!size_unknown && populated)
		facts_evidence(&ctx->facts, "memory.installed_bytes", m->path);
	o = cJSON_AddObjectToObject(mem, "slots");
	cJSON_AddNumberToObject(o, "total", (double)n);
	fj_num_or_null(o, "populated", !size_unknown, populated);
	fj_num_or_null(mem, "installed_bytes", !size_unknown && populated, (double)installed);
	if (size_unknown)
		facts_gap(&ctx->facts, "memory.slots.populated",
			  "%d memory device records give the size as unknown", size_unknown);
	speed_facts(ctx, mem, sl, n);
	free(sl);
}

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
		e = dimm_ecc(&s->dimms[k]);
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

/* EDAC: /sys/devices/system/edac/mc/mcN/{mc_name,ce_count,ue_count} and
 * per DIMM (dimmN or rankN) or, on old kernels, csrowN. */
static void edac_facts(struct probe_ctx *ctx, cJSON *ecc, struct memstate *st)
{
	struct sysroot *sr = &ctx->sr;
	struct facts *f = &ctx->facts;
	char **mcs = NULL;
	size_t nmc = 0, i, j;
	uint64_t ce = 0, ue = 0;
	int ce_ok = 1, ue_ok = 1, nctl = 0;
	const char *mode = NULL;
	int mode_mixed = 0;
	cJSON *ctl;
	int r = sr_list(sr, "/sys/devices/system/edac/mc", &mcs, &nmc);

	if (r < 0) {
		fj_set(ecc, "corrected_errors", cJSON_CreateNull());
		fj_set(ecc, "uncorrected_errors", cJSON_CreateNull());
		fj_set(ecc, "controllers", cJSON_CreateNull());
		facts_gap(f, "memory.ecc.corrected_errors",
			  "no EDAC (/sys/devices/system/edac/mc %s): no EDAC driver is loaded, so memory error counts are unknown",
			  r == -ENOENT || r == -ENOTDIR ? "is absent" : sr_reason(r));
		/* The whole reason: check prints this gap alone. */
		facts_gap(f, "memory.ecc.uncorrected_errors",
			  "no EDAC (/sys/devices/system/edac/mc %s): no EDAC driver is loaded, so memory error counts are unknown",
			  r == -ENOENT || r == -ENOTDIR ? "is absent" : sr_reason(r));
		return;
	}
	ctl = cJSON_AddArrayToObject(ecc, "controllers");
	for (i = 0; i < nmc; i++) {
		char *base, *p, *s = NULL, **subs = NULL;
		uint64_t v;
		size_t nsub = 0;
		cJSON *e, *dl;
		if (strncmp(mcs[i], "mc", 2) || !isdigit((unsigned char)mcs[i][2]))
			continue;
		nctl++;
		base = xasprintf("/sys/devices/system/edac/mc/%s", mcs[i]);
		e = cJSON_CreateObject();
		add_str(e, "name", mcs[i]);
		p = xasprintf("%s/mc_name", base);
		add_str(e, "mc_name", sr_read_str(sr, p, &s) == 0 ? s : NULL);
		free(s); s = NULL; free(p);
		p = xasprintf("%s/ce_count", base);
		r = sr_read_u64(sr, p, &v);
		fj_num_or_null(e, "corrected_errors", r == 0, (double)v);
		if (r == 0) { ce += v; facts_evidence(f, "memory.ecc.corrected_errors", p); }
		else { ce_ok = 0; facts_gap_read(f, "memory.ecc.corrected_errors", p, r); }
		free(p);
		p = xasprintf("%s/ue_count", base);
		r = sr_read_u64(sr, p, &v);
		fj_num_or_null(e, "uncorrected_errors", r == 0, (double)v);
		if (r == 0) { ue += v; facts_evidence(f, "memory.ecc.uncorrected_errors", p); }
		else { ue_ok = 0; facts_gap_read(f, "memory.ecc.uncorrected_errors", p, r); }
		free(p);
		dl = cJSON_AddArrayToObject(e, "dimms");
		if (sr_list(sr, base, &subs, &nsub) == 0) {
			for (j = 0; j < nsub; j++) {
				const char *pre = !strncmp(subs[j], "dimm", 4) ? "dimm_" : !strncmp(subs[j], "rank", 4) ? "dimm_"
					: !strncmp(subs[j], "csrow", 5) ? "" : NULL;
				char *d, *q, *m = NULL;
				uint64_t sz;
				cJSON *x;
				size_t plen = !strncmp(subs[j], "csrow", 5) ? 5 : 4;
				if (!pre || !isdigit((unsigned char)subs[j][plen]))
					continue;
				d = xasprintf("%s/%s", base, subs[j]);
				q = xasprintf("%s/%s", d, *pre ? "size" : "size_mb");
				if (sr_read_u64(sr, q, &sz) < 0 || sz == 0) {
					free(q); free(d);
					continue;       /* empty slot */
				}
				free(q);
				x = cJSON_CreateObject();
				add_str(x, "name", subs[j]);
				add_u64(x, "size_bytes", 1, sz << 20);
				st->ed = xrealloc(st->ed, (st->ned + 1) * sizeof(*st->ed));
				memset(&st->ed[st->ned], 0, sizeof(*st->ed));
				snprintf(st->ed[st->ned].mc, sizeof(st->ed[st->ned].mc), "%s", mcs[i]);
				st->ed[st->ned].bytes = sz << 20;
				q = xasprintf("%s/%slabel", d, *pre ? "dimm_" : "");
				add_str(x, "label", sr_read_str(sr, q, &m) == 0 && *m ? m : NULL);
				if (m)
					snprintf(st->ed[st->ned].label, sizeof(st->ed[st->ned].label), "%s", m);
				free(m); m = NULL; free(q);
				q = xasprintf("%s/dimm_location", d);
				add_str(x, "location", *pre && sr_read_str(sr, q, &m) == 0 && *m ? m : NULL);
				if (m && *pre)
					snprintf(st->ed[st->ned].location, sizeof(st->ed[st->ned].location), "%s", m);
				st->ned++;
				free(m); m = NULL; free(q);
				q = xasprintf("%s/%smem_type", d, pre);
				add_str(x, "mem_type", sr_read_str(sr, q, &m) == 0 && *m ? m : NULL);
				free(m); m = NULL; free(q);
				q = xasprintf("%s/%sedac_mode", d, pre);
				if (sr_read_str(sr, q, &m) == 0 && *m) {
					const char *mm = edac_mode_name(m);
					add_str(x, "edac_mode", m);
					facts_evidence(f, "memory.ecc.mode", q);
					if (mm && mode && strcmp(mm, mode))
						mode_mixed = 1;
					if (mm && !mode)
						mode = mm;
				} else
					add_str(x, "edac_mode", NULL);
				free(m); m = NULL; free(q);
				q = xasprintf("%s/%sce_count", d, pre);
				r = sr_read_u64(sr, q, &sz);
				fj_num_or_null(x, "corrected_errors", r == 0, (double)sz);
				free(q);
				q = xasprintf("%s/%sue_count", d, pre);
				r = sr_read_u64(sr, q, &sz);
				fj_num_or_null(x, "uncorrected_errors", r == 0, (double)sz);
				free(q);
				cJSON_AddItemToArray(dl, x);
				free(d);
			}
			sr_free_list(subs, nsub);
		}
		cJSON_AddItemToArray(ctl, e);
		free(base);
	}
	sr_free_list(mcs, nmc);
	if (!nctl) {
		fj_set(ecc, "corrected_errors", cJSON_CreateNull());
		fj_set(ecc, "uncorrected_errors", cJSON_CreateNull());
		facts_gap(f, "memory.ecc.corrected_errors",
			  "EDAC has no memory controller registered (ECC off, or no EDAC driver for this platform)");
		facts_gap(f, "memory.ecc.uncorrected_errors", "EDAC has no memory controller registered");
		return;
	}
	st->edac_present = 1;
	st->edac_mode = mode_mixed ? NULL : mode;
	fj_num_or_null(ecc, "corrected_errors", ce_ok, (double)ce);
	fj_num_or_null(ecc, "uncorrected_errors", ue_ok, (double)ue);
}

static void ecc_facts(struct probe_ctx *ctx, cJSON *mem, const struct memsrc *m, struct memstate *st)
{
	cJSON *ecc = cJSON_AddObjectToObject(mem, "ecc");
	const char *mode = NULL, *source = NULL;
	char *note = NULL;
	int vm = m->have && is_virtual(ctx, &m->info);
	char *vmwhy = vm ? xasprintf("virtual machine (%s firmware in %s): its SMBIOS memory records "
				     "are emulated; ECC is the host's", vm_name(&m->info), m->path) : NULL;
	if (m->have && !vm)
		mode = ecc_from_smbios(&m->info, &source, &note);
	if (note)
		facts_conflict(&ctx->facts, "memory.ecc.mode", source ? source : "smbios-memory-array",
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
				facts_conflict(&ctx->facts, "memory.ecc.mode", "edac", source,
					       "SMBIOS (%s) says '%s' but EDAC reports '%s'", source, mode,
					       st->edac_mode);
			mode = st->edac_mode;
			source = "edac";
		}
	}
	add_str(ecc, "mode", mode);
	add_str(ecc, "source", source);
	if (!mode)
		facts_gap(&ctx->facts, "memory.ecc.mode", "%s",
			  vm ? vmwhy
			  : m->have ? "the SMBIOS memory array gives no error correction type and EDAC gives no mode"
				    : "no SMBIOS table and no EDAC mode: ECC state unknown");
	else if (m->have && strcmp(source, "edac"))
		facts_evidence(&ctx->facts, "memory.ecc.mode", m->path);
	free(vmwhy);
}

/* Without SMBIOS, EDAC still says which channels hold DIMMs: each DIMM's
 * dimm_location ("channel 1 slot 0", "branch 0 channel 1 slot 0") within
 * its memory controller, or a label such as CPU_SrcID#0_MC#1_Chan#2_DIMM#0.
 * EDAC lists populated DIMMs only, so the total is unknown; it gives no
 * speed, so neither is the bandwidth. */
static int edac_channels(struct probe_ctx *ctx, cJSON *mem, struct memstate *st)
{
	struct { char key[48], pkg[16]; uint64_t bytes; int dimms; } *ch = NULL;
	size_t nch = 0, i, k, npk = 0;
	const char *pk[64];
	int all_pkg = 1, bal = 1;
	cJSON *c, *arr, *bw;
	if (!st->ned)
		return 0;
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
			return 0;
		}
		if (!ml.pkg[0])
			all_pkg = 0;
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
	for (k = 1; k < nch; k++)
		if (ch[k].bytes != ch[0].bytes || ch[k].dimms != ch[0].dimms)
			bal = 0;
	c = cJSON_AddObjectToObject(mem, "channels");
	fj_set(c, "total", cJSON_CreateNull());
	cJSON_AddNumberToObject(c, "populated", (double)nch);
	fj_bool_or_null(c, "balanced", bal);
	add_str(c, "source", "edac");
	facts_gap(&ctx->facts, "memory.channels.total",
		  "EDAC lists populated DIMMs only and there is no SMBIOS table: empty channels are unknown");
	if (all_pkg) {
		for (k = 0; k < nch; k++) {
			for (i = 0; i < npk; i++)
				if (!strcmp(pk[i], ch[k].pkg))
					break;
			if (i == npk && npk < ARRAY_SIZE(pk))
				pk[npk++] = ch[k].pkg;
		}
		for (i = 1; i < npk; i++)
			for (k = i; k > 0 && cmp_label(pk[k - 1], pk[k]) > 0; k--) {
				const char *t = pk[k];
				pk[k] = pk[k - 1];
				pk[k - 1] = t;
			}
	} else if (st->npackages == 1) {
		npk = 1;
		pk[0] = NULL;
	}
	if (npk) {
		arr = cJSON_AddArrayToObject(c, "per_package");
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
	} else {
		fj_set(c, "per_package", cJSON_CreateNull());
		facts_gap(&ctx->facts, "memory.channels.per_package",
			  "EDAC DIMM labels do not name the package of each DIMM");
	}
	arr = cJSON_AddArrayToObject(c, "list");
	for (k = 0; k < nch; k++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "name", ch[k].key);
		cJSON_AddNumberToObject(e, "dimms", ch[k].dimms);
		add_u64(e, "size_bytes", 1, ch[k].bytes);
		cJSON_AddItemToArray(arr, e);
	}
	facts_evidence(&ctx->facts, "memory.channels", "/sys/devices/system/edac/mc");
	bw = cJSON_AddObjectToObject(mem, "bandwidth");
	fj_set(bw, "theoretical_bytes_per_s", cJSON_CreateNull());
	facts_gap(&ctx->facts, "memory.bandwidth.theoretical_bytes_per_s",
		  "no SMBIOS table: EDAC gives no DIMM speed");
	free(ch);
	return 1;
}

/* Huge pages per NUMA node (decode threads bind to a node's memory, so a
 * pool on the wrong node is no use): memory.hugepages_per_node[]
 * {node, pages: [{size_bytes, total, free}]}; null with a gap without
 * NUMA nodes in sysfs. */
static void hugepages_per_node(struct probe_ctx *ctx, cJSON *mem)
{
	struct sysroot *sr = &ctx->sr;
	char **nodes = NULL;
	size_t nn = 0, i, j;
	cJSON *arr;
	if (sr_list(sr, "/sys/devices/system/node", &nodes, &nn) < 0) {
		fj_set(mem, "hugepages_per_node", cJSON_CreateNull());
		facts_gap(&ctx->facts, "memory.hugepages_per_node", "/sys/devices/system/node: missing");
		return;
	}
	arr = cJSON_AddArrayToObject(mem, "hugepages_per_node");
	for (i = 0; i < nn; i++) {
		char *dir, **sz = NULL;
		size_t ns = 0;
		cJSON *e, *pages;
		if (strncmp(nodes[i], "node", 4) || !isdigit((unsigned char)nodes[i][4]))
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "node", atoi(nodes[i] + 4));
		pages = cJSON_AddArrayToObject(e, "pages");
		dir = xasprintf("/sys/devices/system/node/%s/hugepages", nodes[i]);
		if (sr_list(sr, dir, &sz, &ns) == 0) {
			for (j = 0; j < ns; j++) {
				unsigned long long kb;
				uint64_t tot, fr;
				char *pt, *pf;
				int rt, rf;
				cJSON *x;
				if (sscanf(sz[j], "hugepages-%llukB", &kb) != 1)
					continue;
				pt = xasprintf("%s/%s/nr_hugepages", dir, sz[j]);
				pf = xasprintf("%s/%s/free_hugepages", dir, sz[j]);
				rt = sr_read_u64(sr, pt, &tot);
				rf = sr_read_u64(sr, pf, &fr);
				x = cJSON_CreateObject();
				add_u64(x, "size_bytes", 1, (uint64_t)kb << 10);
				fj_num_or_null(x, "total", rt == 0, (double)tot);
				fj_num_or_null(x, "free", rf == 0, (double)fr);
				if (rt < 0)
					facts_gap_read(&ctx->facts, "memory.hugepages_per_node", pt, rt);
				else
					facts_evidence(&ctx->facts, "memory.hugepages_per_node", pt);
				cJSON_AddItemToArray(pages, x);
				free(pt);
				free(pf);
			}
			sr_free_list(sz, ns);
		}
		free(dir);
		cJSON_AddItemToArray(arr, e);
	}
	sr_free_list(nodes, nn);
}

/*** The probe ***/

/* Captures without /proc/meminfo: the sum of the NUMA nodes' MemTotal
 * ("Node 0 MemTotal:  8388608 kB"), the same figure.  0 or -1. */
static int node_memtotal(struct probe_ctx *ctx, uint64_t *kb)
{
	char **names = NULL;
	size_t n = 0, i, got = 0;
	uint64_t sum = 0;
	if (sr_list(&ctx->sr, "/sys/devices/system/node", &names, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *path, *buf = NULL, *p;
		uint64_t v;
		if (strncmp(names[i], "node", 4) || !isdigit((unsigned char)names[i][4]))
			continue;
		path = xasprintf("/sys/devices/system/node/%s/meminfo", names[i]);
		if (sr_read(&ctx->sr, path, &buf, NULL) == 0 && (p = strstr(buf, "MemTotal:")) &&
		    sscanf(p + 9, "%" SCNu64, &v) == 1) {
			sum += v;
			got++;
			facts_evidence(&ctx->facts, "memory.total_bytes", path);
		} else {
			free(buf);
			free(path);
			sr_free_list(names, n);
			return -1;     /* one node unreadable: the sum would be wrong */
		}
		free(buf);
		free(path);
	}
	sr_free_list(names, n);
	if (!got)
		return -1;
	*kb = sum;
	return 0;
}

/* The NUMA nodes' MemTotal sum should be MemTotal (within what the kernel
 * keeps per node); far apart (memory hot-added to a VM, a node file not
 * updated) the per-node figures cannot be trusted for sizing: say so. */
static void nodes_vs_memtotal(struct probe_ctx *ctx, uint64_t total)
{
	const cJSON *nodes = facts_get(ctx->facts.root, "numa.nodes"), *nd;
	double sum = 0;
	int n = 0;
	char a[32], b[32];
	cJSON_ArrayForEach(nd, nodes) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(nd, "memory_bytes");
		if (!cJSON_IsNumber(m))
			return;
		sum += m->valuedouble;
		n++;
	}
	if (!n || !total || (sum > total * 0.9 && sum < total * 1.1))
		return;
	facts_conflict(&ctx->facts, "memory.total_bytes", "/proc/meminfo", "numa.nodes[].memory_bytes",
		       "MemTotal is %s, the NUMA %s MemTotal sum %s", human_bytes((double)total, a, sizeof(a)),
		       n == 1 ? "node's" : "nodes'", human_bytes(sum, b, sizeof(b)));
}

static void memtotal(struct probe_ctx *ctx, cJSON *mem)
{
	char *buf = NULL, *p;
	uint64_t kb;
	int r = sr_read(&ctx->sr, "/proc/meminfo", &buf, NULL);
	if (r == 0 && (p = strstr(buf, "MemTotal:")) && sscanf(p + 9, "%" SCNu64, &kb) == 1) {
		add_u64(mem, "total_bytes", 1, kb * 1024);
		facts_evidence(&ctx->facts, "memory.total_bytes", "/proc/meminfo");
		nodes_vs_memtotal(ctx, kb * 1024);
	} else if (!node_memtotal(ctx, &kb)) {
		add_u64(mem, "total_bytes", 1, kb * 1024);
	} else {
		add_u64(mem, "total_bytes", 0, 0);
		facts_gap_read(&ctx->facts, "memory.total_bytes", "/proc/meminfo", r ? r : -EINVAL);
	}
	free(buf);
}

int probe_memory(struct probe_ctx *ctx)
{
	struct memsrc m;
	struct memstate st;
	char *why = NULL;
	cJSON *mem;

	if (load_smbios(ctx, &m, &why) < 0)
		return -1;
	mem = facts_obj(&ctx->facts, "memory");
	memtotal(ctx, mem);
	memset(&st, 0, sizeof(st));
	st.npackages = packages_known(ctx, m.have ? &m.info : NULL, &st.pkg_source);
	st.src_path = m.have ? m.path : NULL;
	if (m.have)
		other_machine(ctx, &m);
	platform_facts(ctx, &m);
	if (m.have) {
		dimm_facts(ctx, mem, &m, &st);
	} else {
		fj_set(mem, "dimms", cJSON_CreateNull());
		fj_set(mem, "slots", cJSON_CreateNull());
		fj_set(mem, "installed_bytes", cJSON_CreateNull());
		fj_set(mem, "speed", cJSON_CreateNull());
		if (!why)
			why = xstrdup("no SMBIOS memory device records");
		facts_gap(&ctx->facts, "memory.dimms", "%s", why);
		/* The whole reason each time: check prints one gap per finding. */
		facts_gap(&ctx->facts, "memory.slots", "%s", why);
		facts_gap(&ctx->facts, "memory.installed_bytes", "%s", why);
		facts_gap(&ctx->facts, "memory.speed", "%s", why);
	}
	ecc_facts(ctx, mem, &m, &st);
	hugepages_per_node(ctx, mem);
	{
		/* What the kernel does not manage (firmware, reserved, crash
		 * kernel): the DIMMs minus MemTotal. */
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(mem, "total_bytes");
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(mem, "installed_bytes");
		int ok = cJSON_IsNumber(t) && cJSON_IsNumber(in) && in->valuedouble >= t->valuedouble;
		fj_num_or_null(mem, "unmanaged_bytes", ok, ok ? in->valuedouble - t->valuedouble : 0);
		if (!ok)
			facts_gap(&ctx->facts, "memory.unmanaged_bytes", "%s",
				  cJSON_IsNumber(t) && cJSON_IsNumber(in)
				  ? "MemTotal exceeds the DIMM sum: the SMBIOS table does not list every module"
				  : "needs both MemTotal and the DIMM sum");
	}
	if (!m.have && !(is_virtual(ctx, NULL) == 0 && edac_channels(ctx, mem, &st)))
		null_channels(ctx, mem, "%s", st.ned ? "no SMBIOS DIMM list, and EDAC DIMM locations name no channel"
						     : why);
	free(st.ed);
	free(why);
	if (m.have)
		smbios_free(&m.info);
	return 0;
}
