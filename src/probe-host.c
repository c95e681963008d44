/* probe-host.c - host identity: name, kernel, architecture, when, as whom */
#include "config.h"
#include "probe.h"
#include "output.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* The collection time; SOURCE_DATE_EPOCH pins it for reproducible tests. */
static void collected_at(char *buf, size_t n)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	uint64_t v;
	time_t t = time(NULL);
	struct tm tm;
	if (sde && parse_u64(sde, &v) == 0)
		t = (time_t)v;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The architecture of a capture, from what its /proc/cpuinfo looks like. */
static const char *arch_from_cpuinfo(const char *ci)
{
	if (strstr(ci, "\nflags\t") || strstr(ci, "vendor_id\t"))
		return strstr(ci, " lm ") || strstr(ci, " lm\n") ? "x86_64" : "i686";
	if (strstr(ci, "CPU implementer")) {
		if (strstr(ci, "AArch64") || strstr(ci, "asimd") || strstr(ci, "CPU architecture: 8"))
			return "aarch64";
		return "arm";
	}
	if (strstr(ci, "\nisa\t") && strstr(ci, "rv64"))
		return "riscv64";
	if (strstr(ci, "POWER") || strstr(ci, "\ncpu\t\t: ppc") || strstr(ci, "PowerPC"))
		return "ppc64";
	if (strstr(ci, "vendor_id       : IBM/S390"))
		return "s390x";
	return NULL;
}

int probe_host(struct probe_ctx *ctx)
{
	struct sysroot *sr = &ctx->sr;
	struct facts *f = &ctx->facts;
	cJSON *h = facts_obj(f, "host");
	char *s = NULL, when[32];
	int r;

	r = sr_read_str(sr, "/proc/sys/kernel/hostname", &s);
	if (r == 0 && *s) {
		fj_str_or_null(h, "hostname", s);
		facts_evidence(f, "host.hostname", "/proc/sys/kernel/hostname");
	} else {
		fj_str_or_null(h, "hostname", NULL);
		facts_gap_read(f, "host.hostname", "/proc/sys/kernel/hostname", r ? r : -22);
	}
	free(s);
	s = NULL;

	r = sr_read_str(sr, "/proc/sys/kernel/osrelease", &s);
	if (r == 0 && *s) {
		fj_str_or_null(h, "kernel", s);
		facts_evidence(f, "host.kernel", "/proc/sys/kernel/osrelease");
	} else {
		fj_str_or_null(h, "kernel", NULL);
		facts_gap_read(f, "host.kernel", "/proc/sys/kernel/osrelease", r ? r : -22);
	}
	free(s);
	s = NULL;

	if (sr->live) {
		struct utsname u;
		fj_str_or_null(h, "arch", uname(&u) == 0 ? u.machine : NULL);
	} else {
		/* A snapshot names its architecture; a hand-made capture is judged
		 * by its cpuinfo. */
		const char *a = NULL;
		if (sr_read_str(sr, "/nodeaudit/arch", &s) == 0 && *s)
			a = s;
		else {
			char *ci = NULL;
			free(s);
			s = NULL;
			if (sr_read(sr, "/proc/cpuinfo", &ci, NULL) == 0) {
				a = arch_from_cpuinfo(ci);
				if (a)
					s = xstrdup(a);
				a = s;
				free(ci);
			}
		}
		fj_str_or_null(h, "arch", a);
		if (!a)
			facts_gap(f, "host.arch", "the sysroot names no architecture and /proc/cpuinfo does not tell");
	}
	free(s);
	s = NULL;

	fj_str_or_null(h, "sysroot", sr->live ? NULL : ctx->opts->sysroot);
	collected_at(when, sizeof(when));
	if (!sr->live && sr_read_str(sr, "/nodeaudit/collected_at", &s) == 0 && *s)
		fj_str_or_null(h, "collected_at", s);
	else
		fj_str_or_null(h, "collected_at", when);
	free(s);
	s = NULL;
	if (sr->live)
		fj_bool_or_null(h, "root", geteuid() == 0);
	else if (sr_read_str(sr, "/nodeaudit/root", &s) == 0)
		fj_bool_or_null(h, "root", !strcmp(s, "1") ? 1 : !strcmp(s, "0") ? 0 : -1);
	else
		fj_bool_or_null(h, "root", -1);
	free(s);
	return 0;
}
