/* cmd-diff.c - `nodeaudit diff OLD [NEW]`: what changed between two probes, reports or snapshots */
#include "config.h"
#include "cli.h"
#include "diff.h"
#include "output.h"
#include "profile.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_ALL = 2100, OPT_PROFILE };

static const struct option diff_long[] = {
	{ "all", no_argument, NULL, OPT_ALL },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ NULL, 0, NULL, 0 },
};

struct diff_args {
	int all;               /* list volatile facts too */
	const char *profile;   /* check both sides against it; NULL: a report's own findings */
};

static int diff_opt(int val, const char *arg, void *data)
{
	struct diff_args *a = data;
	switch (val) {
	case OPT_ALL: a->all = 1; return 0;
	case OPT_PROFILE: a->profile = arg; return 0;
	}
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a = { 0, NULL };
	struct diff_input old, new;
	struct profile prof;
	struct output out;
	cJSON *d;
	char *err = NULL;
	int i, ok, code;

	i = parse_cmd_options(argc, argv, diff_long, "", diff_opt, &a);
	if (i == -2)
		return EXIT_OK;
	if (i < 0)
		return EXIT_UNKNOWN;
	if (i >= argc) {
		usage_error("diff", "no OLD file given");
		return EXIT_UNKNOWN;
	}
	if (argc - i > 2) {
		usage_error("diff", "unexpected argument '%s'", argv[i + 2]);
		return EXIT_UNKNOWN;
	}
	if (argc - i == 2 && (G.probe.sysroot || G.probe.smbios || G.probe.pci_dump || G.probe.cpuid_dump)) {
		usage_error("diff", "--sysroot and the dump options stand for NEW: give only OLD");
		return EXIT_UNKNOWN;
	}
	if (check_format("diff", "text,json") < 0)
		return EXIT_UNKNOWN;
	if (a.profile && profile_load(&prof, a.profile, NULL, NULL, &err) < 0) {
		error("%s", err);
		free(err);
		return EXIT_UNKNOWN;
	}
	code = EXIT_UNKNOWN;
	if (diff_input_load(&old, argv[i], NULL, a.profile ? &prof : NULL) < 0)
		goto out_prof;
	/* One operand: NEW is this node (or --sysroot). */
	if (diff_input_load(&new, argc - i == 2 ? argv[i + 1] : NULL, &G.probe, a.profile ? &prof : NULL) < 0)
		goto out_old;
	d = diff_build(&old.side, &new.side, a.all);
	ok = output_open(&out, G.output, G.probe.sysroot) == 0;
	if (ok) {
		if (G.format && !strcmp(G.format, "json"))
			output_json(out.fp, d);
		else
			diff_text(out.fp, d);
		ok = output_close(&out, 1) == 0;
	}
	code = ok ? diff_exit(d) : EXIT_UNKNOWN;
	cJSON_Delete(d);
	diff_input_release(&new);
out_old:
	diff_input_release(&old);
out_prof:
	if (a.profile)
		profile_release(&prof);
	return code;
}
