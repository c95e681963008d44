/* probe/cpu-libcpuid.c - libcpuid's view, checked against this CPU; trusted codenames */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"
#include "probe/sources.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether a and b hold the same words (brand strings are space-padded). */
static int same_words(const char *a, const char *b)
{
	char *x = xstrdup(a), *y = xstrdup(b);
	int same = !strcmp(strsquash(x), strsquash(y));
	free(x);
	free(y);
	return same;
}

#include "read/libcpuid-rows.h"

/* Whether libcpuid's codename is its own row for this CPU, not a guess.
 * libcpuid scores every row of its table and returns the best one's name
 * even when no row is of this model: Ice Lake-SP (model 106, no row in
 * 0.6.2) comes out "P-III Xeon (Cascades)", a Rocket Lake VM with a plain
 * "Xeon" brand "Xeon (Wolfdale)".  So the name must be that of a row of
 * this very model (lc_rows), and not of a model it misnames (the hybrids,
 * whose names it mixes up; Zen 4 parts it calls "Raphael" whatever they
 * are).  Otherwise the codename is null with the reason (probe_cpu()). */
int codename_trusted(const struct cpuid_type *t)
{
	size_t i;
	int fam, xfam;
	if (!t->codename[0] || strstr(t->codename, "Unknown") || strstr(t->codename, "unknown"))
		return 0;
	if (t->intel) {
		if (t->family == 15)
			return 1;
		if (t->family != 6)
			return 0;
		/* Up to Comet/Rocket/Tiger Lake; not the hybrids, not Sapphire Rapids. */
		if (!(t->ext_model < 0x8f || t->ext_model == 0xa5 || t->ext_model == 0xa6 ||
		      t->ext_model == 0xa7))
			return 0;
		fam = 6;
		xfam = 6;
	} else if (t->amd) {
		if (t->ext_family < 0x17)
			return 1;
		if (t->ext_family == 0x19 &&
		    !((t->ext_model >= 0x00 && t->ext_model <= 0x0f) ||
		      (t->ext_model >= 0x20 && t->ext_model <= 0x3f) ||
		      (t->ext_model >= 0x50 && t->ext_model <= 0x5f)))
			return 0;
		fam = 15;
		xfam = t->ext_family;
	} else
		return 0;
	for (i = 0; i < ARRAY_SIZE(lc_rows); i++)
		if (lc_rows[i].family == fam && lc_rows[i].ext_family == xfam &&
		    lc_rows[i].key == t->ext_model && !strcmp(lc_rows[i].codename, t->codename))
			return 1;
	return 0;
}

static const char *purpose_name(int p)
{
	return p == 1 ? "performance" : p == 2 ? "efficiency" : "general";
}

/* libcpuid's view: from --cpuid-dump, the snapshot's copy, or live on x86. */
static int run_libcpuid(struct cpu_state *st, struct cpuid_info *info, const char **src)
{
	struct sysroot *sr = st->sr;
	const char *dump = st->ctx->opts->cpuid_dump;
	char *buf = NULL, *cut, *path, *err = NULL;
	size_t len = 0;
	int memfd, r, kind;
	memset(info, 0, sizeof(*info));
	if (side_in_snapshot(st->ctx, SIDE_CPUID)) {
		struct path_cxt pc = st->pc;
		r = pc_read(&pc, &buf, &len, "%s", side_sources[SIDE_CPUID].snapshot_path);
		if (r < 0) {
			pc_gap_read(&pc, "libcpuid", r);
			return -1;
		}
		*src = "snapshot";
	} else if (dump) {
		r = side_read_option(st->ctx, SIDE_CPUID, &buf, &len);
		if (r < 0)
			return error("cannot read '%s': %s", dump, r == -EFBIG ? "larger than a CPUID dump can be" :
				     input_strerror(-r)) * 2;
		*src = "dump";
	} else if (sr->live) {
		r = st->ctx->cpuid.pid != 0 ? cpuid_wait(&st->ctx->cpuid, info, "this CPU")
					   : cpuid_collect(NULL, info);
		/* Not x86 (or built without libcpuid): nothing to say, and no
		 * key, as the probe of this host's snapshot (which then holds
		 * no CPUID dump) leaves it out too. */
		if (r == -ENOTSUP)
			return -1;
		*src = "live";
		if (r < 0) {
			pc_gap(&st->pc, "libcpuid", "%s", info->err);
			return -1;
		}
		return 0;
	} else
		return -1;

	if (memchr(buf, '\0', len)) {
		pc_gap(&st->pc, "libcpuid", "'%s': unparsable (binary data in a CPUID dump)",
			  dump ? dump : "/nodeaudit/cpuid.raw");
		free(buf);
		return -1;
	}
	kind = cpuid_dump_kind(buf);
	if (kind != CPUID_DUMP_X86) {
		pc_gap(&st->pc, "libcpuid", "'%s': unsupported: %s", dump ? dump : "/nodeaudit/cpuid.raw",
			  kind == CPUID_DUMP_ARM ? "an ARM CPUID dump (this libcpuid reads x86 dumps only)"
			  : "not an x86 libcpuid raw dump");
		free(buf);
		return -1;
	}
	/* Test files carry expected values after a line of 80 dashes. */
	if ((cut = strstr(buf, "\n--------------------------------------------------------------------------------")))
		cut[1] = '\0';
	/* libcpuid reads a named file: a private copy of the text. */
	path = private_copy("nodeaudit-cpuid.raw", buf, strlen(buf), &memfd, &err);
	free(buf);
	if (!path) {
		pc_gap(&st->pc, "libcpuid", "%s", err);
		free(err);
		return -1;
	}
	r = cpuid_collect(path, info);
	private_copy_drop(path, memfd);
	if (r < 0) {
		pc_gap(&st->pc, "libcpuid", "%s", info->err);
		return -1;
	}
	return 0;
}

/* Whether a CPUID dump is of another CPU than /proc/cpuinfo's first
 * processor (vendor, or brand string): the reason, malloc'd, else NULL. */
static char *dump_other_cpu(const struct cpuinfo *ci, const struct cpuid_info *lib)
{
	const struct cpuid_type *t = NULL;
	const char *vid, *model;
	int i;
	for (i = 0; i < lib->ntypes; i++)
		if (!t || lib->t[i].purpose == 1)
			t = &lib->t[i];
	if (!t || !ci->read_ok)
		return NULL;
	vid = ci_str(ci, &ci->p[0], offsetof(struct ci_proc, vendor));
	model = ci_str(ci, &ci->p[0], offsetof(struct ci_proc, model));
	if (vid && t->vendor[0] && strcmp(vid, t->vendor))
		return xasprintf("the CPUID dump's vendor is '%s', /proc/cpuinfo's '%s': not this CPU",
				 t->vendor, vid);
	if (model && t->brand[0] && !same_words(model, t->brand)) {
		char *b = strsquash(xstrdup(t->brand)), *o;
		o = xasprintf("the CPUID dump is of '%s', /proc/cpuinfo names '%s': not this CPU", b, model);
		free(b);
		return o;
	}
	return NULL;
}

/* A --cpuid-dump of another CPU: said once, and nothing of it is
 * compared with this machine's counts.  A snapshot's own copy is of
 * the captured machine (a VM's CPUID brand may differ from its
 * cpuinfo): only its codename is withheld. */
static void lib_foreign(struct cpu_state *st, const struct cpuinfo *ci, struct cpu_lib *cl)
{
	if (cl->lib_ok && cl->libsrc && strcmp(cl->libsrc, "live") &&
	    (cl->foreign = dump_other_cpu(ci, &cl->lib)) && !strcmp(cl->libsrc, "dump")) {
		cl->foreign_dump = 1;
		pc_conflict(&st->pc, "libcpuid", st->ctx->opts->cpuid_dump, "/proc/cpuinfo", "%s",
			       cl->foreign);
	}
	if (cl->lib_ok && cl->libsrc && !strcmp(cl->libsrc, "dump"))
		pc_evidence_of(&st->pc, "libcpuid", st->ctx->opts->cpuid_dump);
}

/* Types that make no sense drop libcpuid; its thread count against sysfs. */
static void lib_check(struct cpu_state *st, struct cpu_lib *cl)
{
	const struct cpuid_info *lib = &cl->lib;
	int i;
	if (cl->lib_ok) {
		int bad = lib->ntypes < 1, tot = 0;
		for (i = 0; i < lib->ntypes; i++) {
			if (lib->t[i].cores < 1 || lib->t[i].threads < lib->t[i].cores)
				bad = 1;
			tot += lib->t[i].threads;
		}
		if (bad) {
			cl->lib_ok = 0;
			pc_gap(&st->pc, "libcpuid", "libcpuid found no usable CPU in the %s",
				  !strcmp(cl->libsrc, "live") ? "CPUID data" : "dump");
		} else if (st->nc > 0 && tot != st->nc && !cl->foreign_dump)
			pc_conflict(&st->pc, "threads", "sysfs", "libcpuid",
				       "libcpuid counts %d logical CPUs, sysfs %d online", tot, st->nc);
	}
}

/* cpu.libcpuid: its source and core types. */
static void lib_fact(cJSON *cpu, const struct cpu_lib *cl)
{
	const struct cpuid_info *lib = &cl->lib;
	int i;
	if (cl->libsrc && cl->lib_ok) {
		cJSON *l = cJSON_AddObjectToObject(cpu, "libcpuid"), *ta = cJSON_AddArrayToObject(l, "types");
		cJSON_AddStringToObject(l, "source", cl->libsrc);
		for (i = 0; i < lib->ntypes; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "purpose", purpose_name(lib->t[i].purpose));
			fj_num(o, "cores", lib->t[i].cores);
			fj_num(o, "threads", lib->t[i].threads);
			/* libcpuid's guesses are not shown (codename_trusted()). */
			fj_str_or_null(o, "codename", codename_trusted(&lib->t[i]) ? lib->t[i].codename : NULL);
			cJSON_AddItemToArray(ta, o);
		}
	} else if (cl->libsrc)
		fj_set(cpu, "libcpuid", cJSON_CreateNull());
}

/* libcpuid (cross-check; codename). */
int cpu_libcpuid(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu, struct cpu_lib *cl)
{
	int r;
	cl->libsrc = NULL;
	cl->foreign = NULL;
	cl->foreign_dump = 0;
	r = run_libcpuid(st, &cl->lib, &cl->libsrc);
	if (r == -2) {
		cl->lib_ok = 0;
		return -EINVAL;
	}
	cl->lib_ok = r == 0;
	lib_foreign(st, ci, cl);
	lib_check(st, cl);
	lib_fact(cpu, cl);
	return 0;
}
