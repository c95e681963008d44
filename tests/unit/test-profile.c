/* test-profile.c - profile loading: inheritance, override, disable, every error */
#include "config.h"
#include "audit/profile.h"
#include "lib/util.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* In-memory profiles: name -> text. */
static const char *const *mem;

static int fetch_mem(void *data, const char *name, const char *from, char **text, char **source,
		     char **err)
{
	size_t i;
	(void)data;
	(void)from;
	for (i = 0; mem[i]; i += 2)
		if (!strcmp(mem[i], name)) {
			*text = xstrdup(mem[i + 1]);
			*source = xasprintf("%s.json", name);
			return 0;
		}
	/* Fall back to the built-in ones, as the real search does. */
	for (i = 0; i < nbuiltin_profiles; i++)
		if (!strcmp(builtin_profiles[i].name, name)) {
			*text = xstrdup(builtin_profiles[i].json);
			*source = xasprintf("built-in:%s", name);
			return 0;
		}
	*err = xasprintf("no profile named '%s'", name);
	return -1;
}

static const struct pspec *spec(const struct profile *p, const char *id, const char *key)
{
	size_t i;
	for (i = 0; i < p->nspecs; i++)
		if (!strcmp(p->specs[i].check->id, id) &&
		    (key ? p->specs[i].key && !strcmp(p->specs[i].key, key) : !p->specs[i].key))
			return &p->specs[i];
	return NULL;
}

/* Load name from the table; returns the error text (malloc'd) or NULL. */
static char *load(struct profile *p, const char *const *table, const char *name)
{
	char *err = NULL;
	mem = table;
	if (profile_load(p, name, fetch_mem, NULL, &err) < 0)
		return err ? err : xstrdup("(no message)");
	return NULL;
}

static void expect_error(const char *const *table, const char *name, const char *want, const char *what)
{
	struct profile p;
	char *err = load(&p, table, name);
	ok(err && strstr(err, want), "%s: error mentions \"%s\"", what, want);
	if (!err || !strstr(err, want))
		fprintf(stderr, "#   got: %s\n", err ? err : "(loaded)");
	if (!err)
		profile_release(&p);
	free(err);
}

int main(void)
{
	struct profile p;
	const struct pspec *s;
	char *err;
	size_t i;
	int line, col;
	static const char *const none[] = { NULL };

	/* Every built-in profile loads and validates. */
	for (i = 0; i < nbuiltin_profiles; i++) {
		err = load(&p, none, builtin_profiles[i].name);
		ok(!err, "built-in profile %s loads", builtin_profiles[i].name);
		free(err);
		if (!err)
			profile_release(&p);
	}

	/* The default: inherits base, overrides key by key. */
	err = load(&p, none, DEFAULT_PROFILE);
	ok(!err, "default profile loads");
	is_str(p.name, "agent-cpu-inference", "name");
	is_int(p.nchain, 2, "chain of two");
	is_str(p.chain[0], "base", "chain starts at base");
	s = spec(&p, "cpu.smt", NULL);
	ok(s && s->expect && !strcmp(s->expect->valuestring, "off"), "cpu.smt expects off");
	ok(s && s->severity == SEV_WARN, "cpu.smt is a warning");
	s = spec(&p, "kernel.sysctl", "vm.swappiness");
	ok(s && s->has_max && s->max == 10 && !strcmp(s->from, "base"), "vm.swappiness <= 10 from base");
	s = spec(&p, "memory.channels.balanced", NULL);
	ok(s && s->severity == SEV_FAIL && !strcmp(s->from, "agent-cpu-inference"),
	   "memory.channels.balanced: child raises base's warn to fail");
	s = spec(&p, "numa.balancing", NULL);
	ok(s && !strcmp(s->when, "pinned"), "numa.balancing applies when pinned");
	{
		char *e1 = pspec_expected(spec(&p, "kernel.thp", NULL));
		char *e2 = pspec_expected(spec(&p, "memory.per_core_bytes", NULL));
		is_str(e1, "one of: madvise, always", "expected text for a list");
		is_str(e2, ">= 4294967296", "expected text for min");
		free(e1);
		free(e2);
	}
	profile_release(&p);

	/* Key-by-key override, null disables, null removes one comparator. */
	{
		static const char *const t[] = {
			"child", "{\"extends\": \"base\", \"checks\": {"
				 "\"kernel.sysctl\": {\"vm.swappiness\": {\"max\": 20}, \"fs.file-max\": null,"
				 " \"net.core.somaxconn\": {\"min\": 4096}},"
				 "\"memory.ecc\": {\"severity\": \"warn\"},"
				 "\"cpu.governor\": null,"
				 "\"memory.ecc.errors\": {\"max\": null, \"expect\": 0}}}",
			NULL };
		err = load(&p, t, "child");
		ok(!err, "child profile loads");
		free(err);
		is_str(p.name, "child", "name from the file name");
		s = spec(&p, "kernel.sysctl", "vm.swappiness");
		ok(s && s->max == 20 && s->severity == SEV_WARN, "override max, keep inherited severity");
		ok(!spec(&p, "kernel.sysctl", "fs.file-max"), "null disables one inherited sysctl");
		ok(spec(&p, "kernel.sysctl", "net.core.somaxconn") != NULL, "child adds a sysctl");
		ok(!spec(&p, "cpu.governor", NULL), "null disables an inherited check");
		s = spec(&p, "memory.ecc", NULL);
		ok(s && s->severity == SEV_WARN && s->expect && !strcmp(s->expect->valuestring, "on"),
		   "override severity, keep inherited expect");
		s = spec(&p, "memory.ecc.errors", NULL);
		ok(s && !s->has_max && s->expect, "a null field removes the inherited comparator");
		profile_release(&p);
	}

	/* Line and column of an offset. */
	text_line_col("ab\ncd\nef", 7, &line, &col);
	ok(line == 3 && col == 2, "offset 7 is line 3, column 2");

	/* Errors: one line naming the file, the key and the problem. */
	{
		static const char *const t[] = {
			"syntax", "{\n  \"name\": \"x\",\n  \"checks\": {\"cpu.smt\": {\"expect\": \"off\",}}\n}",
			"trailing", "{\"checks\": {}} x",
			"unknown", "{\"checks\": {\"cpu.smtt\": {\"expect\": \"off\"}}}",
			"unknown2", "{\"checks\": {\"memory.ecc.error\": {\"max\": 0}}}",
			"faraway", "{\"checks\": {\"frobnicate.everything.now\": {\"max\": 0}}}",
			"a", "{\"extends\": \"b\"}",
			"b", "{\"extends\": \"a\"}",
			"self", "{\"extends\": \"self\"}",
			"d0", "{\"extends\": \"d1\"}", "d1", "{\"extends\": \"d2\"}", "d2", "{\"extends\": \"d3\"}",
			"d3", "{\"extends\": \"d4\"}", "d4", "{\"extends\": \"d5\"}", "d5", "{\"extends\": \"d6\"}",
			"d6", "{\"extends\": \"d7\"}", "d7", "{\"extends\": \"d8\"}", "d8", "{\"extends\": \"d9\"}",
			"d9", "{}",
			"notobj", "{\"checks\": {\"cpu.smt\": \"off\"}}",
			"minstr", "{\"checks\": {\"memory.per_core_bytes\": {\"min\": \"4G\"}}}",
			"badval", "{\"checks\": {\"cpu.smt\": {\"expect\": \"maybe\"}}}",
			"badcmp", "{\"checks\": {\"memory.per_core_bytes\": {\"mni\": 4}}}",
			"notapply", "{\"checks\": {\"cpu.smt\": {\"min\": 1}}}",
			"sev", "{\"checks\": {\"cpu.smt\": {\"expect\": \"off\", \"severity\": \"critical\"}}}",
			"top", "{\"check\": {}}",
			"noparent", "{\"extends\": \"nosuch\"}",
			"minmax", "{\"checks\": {\"kernel.swap\": {\"min\": 10, \"max\": 1}}}",
			"empty", "{\"extends\": \"base\", \"checks\": {\"memory.ecc\": {\"expect\": null}}}",
			"boolstr", "{\"checks\": {\"memory.channels.balanced\": {\"expect\": \"yes\"}}}",
			"emptylist", "{\"checks\": {\"kernel.thp\": {\"expect\": []}}}",
			"badkey", "{\"checks\": {\"kernel.sysctl\": {\"../../etc/passwd\": {\"expect\": 1}}}}",
			"array", "[1, 2]",
			"extnum", "{\"extends\": 3}",
			NULL };
		/* The stray '}' is column 42; cJSON stops one past it when it wanted a key. */
		expect_error(t, "syntax", "'syntax.json': line 3, column 43: invalid JSON", "syntax error");
		expect_error(t, "trailing", "line 1, column 16", "trailing garbage");
		expect_error(t, "unknown", "checks.\"cpu.smtt\": unknown check (did you mean 'cpu.smt'?)",
			     "unknown check ID");
		expect_error(t, "unknown2", "did you mean 'memory.ecc.errors'?", "unknown check, plural");
		expect_error(t, "faraway", "unknown check; 'nodeaudit explain' lists them", "no close ID");
		expect_error(t, "a", "extends: cycle: a -> b -> a", "cycle");
		expect_error(t, "self", "extends: cycle: self -> self", "self cycle");
		expect_error(t, "d0", "extends: chain deeper than 8 profiles", "depth");
		expect_error(t, "notobj", "checks.\"cpu.smt\": expected an object (or null to disable), not a string",
			     "wrong type of a check");
		expect_error(t, "minstr", "checks.\"memory.per_core_bytes\".min: expected a number, not a string",
			     "min must be a number");
		expect_error(t, "badval", "checks.\"cpu.smt\".expect: 'maybe' is not one of: on, off",
			     "value not allowed");
		expect_error(t, "badcmp", "unknown comparator 'mni' (did you mean 'min'?)", "bad comparator");
		expect_error(t, "notapply", "comparator 'min' does not apply to cpu.smt (it takes expect)",
			     "comparator the check lacks");
		expect_error(t, "sev", "severity: expected info, warn or fail, not critical", "bad severity");
		expect_error(t, "top", "unknown key 'check' (did you mean 'checks'?)", "unknown top-level key");
		expect_error(t, "noparent", "'noparent.json': extends: no profile named 'nosuch'", "missing parent");
		expect_error(t, "minmax", "min 10 is greater than max 1", "min > max");
		expect_error(t, "empty", "checks.\"memory.ecc\": no comparator left", "no comparator after merge");
		expect_error(t, "boolstr", "expect: expected true or false, not a string", "bool check");
		expect_error(t, "emptylist", "expect: empty list", "empty expect list");
		expect_error(t, "badkey", "bad key name", "sysctl key with a path in it");
		expect_error(t, "array", "expected a JSON object at the top, not an array", "not an object");
		expect_error(t, "extnum", "extends: expected a profile name or path, not a number", "extends type");
	}

	/* Suggestions. */
	is_str(check_suggest("cpu.governer"), "cpu.governor", "suggest cpu.governor");
	ok(check_suggest("zzz") == NULL, "no suggestion for nonsense");
	return done_testing();
}
