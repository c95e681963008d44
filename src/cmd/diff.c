/* cmd/diff.c - `nodeaudit diff OLD [NEW]`: what changed between two probes, reports or snapshots */
#include "config.h"
#include "cmd/cli.h"
#include "audit/diff.h"
#include "lib/output.h"
#include "audit/profile.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_ALL = 256, OPT_PROFILE };

struct diff_args {
	int all;               /* list volatile facts too */
	const char *profile;   /* check both sides against it; NULL: a report's own findings */
};

static int diff_option(void *args, int val, const char *arg)
{
	struct diff_args *a = args;
	switch (val) {
	case OPT_ALL: a->all = 1; return 0;
	case OPT_PROFILE: a->profile = arg; return 0;
	}
	return -1;
}

static int diff_cmd(struct invocation *inv)
{
	const struct diff_args *a = inv->args;
	struct diff_input old, new;
	struct profile prof;
	char *err = NULL;
	int code = -1;

	if (inv->noperands == 2 && (G.probe.sysroot || G.probe.smbios || G.probe.pci_dump || G.probe.cpuid_dump))
		return usage_error("diff", "--sysroot and the dump options stand for NEW: give only OLD");
	if (a->profile && profile_load(&prof, a->profile, NULL, NULL, &err) < 0) {
		error("%s", err);
		free(err);
		return -1;
	}
	if (diff_input_load(&old, inv->operands[0], NULL, a->profile ? &prof : NULL) < 0)
		goto out_prof;
	/* One operand: NEW is this node (or --sysroot). */
	if (diff_input_load(&new, inv->noperands == 2 ? inv->operands[1] : NULL, &G.probe,
			    a->profile ? &prof : NULL) < 0)
		goto out_old;
	inv->doc.json = diff_build(&old.side, &new.side, a->all);
	code = diff_exit(inv->doc.json);
	diff_input_release(&new);
out_old:
	diff_input_release(&old);
out_prof:
	if (a->profile)
		profile_release(&prof);
	return code;
}

static void render_text(FILE *fp, const struct doc *d)
{
	struct tl_buf b;
	diff_text(tl_begin(&b), d->json);
	tl_end(fp, &b, TL_AUTO);
}

static const struct cmd_option diff_options[] = {
	{ "all", OPT_ALL, NULL, "also list volatile facts (time of reading, host name, free\n"
	  "huge pages, swap in use, bench figures); EDAC error\n"
	  "counters that grew are always listed" },
	{ "profile", OPT_PROFILE, "NAME", "check both sides against this profile and compare findings" },
	{ NULL, 0, NULL, NULL },
};

static const struct cmd_format diff_formats[] = {
	{ "text", render_text },
	{ "json", render_json },
	{ NULL, NULL },
};

const struct command cmd_diff = {
	.name = "diff",
	.summary = "OLD [NEW]: what changed between two probes, reports or snapshots",
	.synopsis = "[--all] [--profile NAME] OLD [NEW]",
	.description =
		"Compare two nodes, or one node at two times: OLD and NEW are each a\n"
		"'probe --format json' file, a 'check --format json' report, or a snapshot\n"
		"(directory or archive, probed here).  Without NEW, this node (or --sysroot)\n"
		"is NEW: 'nodeaudit diff golden.json' shows its drift from the golden node.\n"
		"Facts are shown by path, arrays keyed by what identifies an element\n"
		"(numa.nodes by id, PCI devices by address, DIMMs by locator, CPU kinds\n"
		"by name):\n"
		"  pci.accelerators[0000:41:00.0].link.width.current 16 -> 8\n"
		"Checks that appeared, cleared, got worse or better are listed when both\n"
		"sides are reports, or with --profile.\n",
	.options = diff_options,
	.formats = diff_formats,
	.format_help = "json: schema nodeaudit.diff/1",
	.epilog = "Exit status: 0 nothing that matters changed, 1 facts changed, 2 a check got\n"
		  "worse, 3 could not run (an input that is none of the above).\n",
	.min_operands = 1, .max_operands = 2,
	.operands_help = "OLD file",
	.flags = CMD_PROBES,
	.args_size = sizeof(struct diff_args),
	.option = diff_option,
	.run = diff_cmd,
};
