/* cmd-probe.c - `nodeaudit probe`: the inventory, as text or JSON */
#include "config.h"
#include "cli.h"
#include "output.h"
#include "util.h"

#include <string.h>

enum { OPT_ONLY = 2000 };

static const struct option probe_long[] = {
	{ "only", required_argument, NULL, OPT_ONLY },
	{ NULL, 0, NULL, 0 },
};

static int probe_opt(int val, const char *arg, void *data)
{
	const char **only = data;
	size_t i;
	char *copy, *tok, *save = NULL;
	if (val != OPT_ONLY)
		return -1;
	copy = xstrdup(arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nprobers; i++)
			if (!strcmp(probers[i].name, tok))
				break;
		if (i == nprobers) {
			usage_error("probe", "--only: unknown subject '%s'", tok);
			free(copy);
			return -1;
		}
	}
	free(copy);
	*only = arg;
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_ctx ctx;
	struct output out;
	const char *only = NULL;
	int i = parse_cmd_options(argc, argv, probe_long, "", probe_opt, &only);
	int ok;

	if (i == -2)
		return EXIT_OK;
	if (i < 0)
		return EXIT_UNKNOWN;
	if (i < argc) {
		usage_error("probe", "unexpected argument '%s'", argv[i]);
		return EXIT_UNKNOWN;
	}
	if (check_format("probe", "text,json") < 0)
		return EXIT_UNKNOWN;
	if (probe_run(&ctx, &G.probe, only) < 0) {
		probe_release(&ctx);
		return EXIT_UNKNOWN;
	}
	if (output_open(&out, G.output, G.probe.sysroot) < 0) {
		probe_release(&ctx);
		return EXIT_UNKNOWN;
	}
	if (G.format && !strcmp(G.format, "json")) {
		cJSON *j = probe_json(&ctx);
		output_json(out.fp, j);
		cJSON_Delete(j);
	} else
		{ cJSON *j = probe_json(&ctx); probe_render_text(out.fp, j); cJSON_Delete(j); }
	ok = output_close(&out, 1) == 0;
	probe_release(&ctx);
	return ok ? EXIT_OK : EXIT_UNKNOWN;
}
