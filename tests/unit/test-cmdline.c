/* test-cmdline.c - the kernel command line parser: quotes, repeats, pairs, garbage */
#include "config.h"
#include "probe/cmdline.h"
#include "lib/facts.h"
#include "tap.h"

#include <stdlib.h>

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_split(void)
{
	struct cmdline cl;
	int present;
	cmdline_parse("  BOOT_IMAGE=/vmlinuz-6.8 root=UUID=ab-cd ro  quiet\tnosmt\n", &cl);
	is_int(cl.n, 5, "five parameters, white space of any kind between");
	is_str(cl.v[0].key, "BOOT_IMAGE", "first key");
	is_str(cl.v[1].value, "UUID=ab-cd", "value keeps later '='");
	ok(cl.v[2].value == NULL, "flag 'ro' has no value");
	is_str(cl.v[4].key, "nosmt", "tab separates, final newline dropped");
	ok(cmdline_get(&cl, "nosmt", &present) == NULL && present, "flag present");
	ok(cmdline_get(&cl, "mitigations", &present) == NULL && !present, "absent key");
	ok(!cl.unbalanced && !cl.init_args, "nothing odd");
	cmdline_free(&cl);
}

static void test_quotes(void)
{
	struct cmdline cl;
	cmdline_parse("dyndbg=\"file foo.c +p\" \"acpi_osi=Windows 2020\" a=\"\" b=x\"y z\"w c", &cl);
	is_int(cl.n, 5, "quoted spaces stay inside one parameter");
	is_str(cl.v[0].value, "file foo.c +p", "key=\"a b\": quotes dropped");
	is_str(cl.v[1].key, "acpi_osi", "\"key=a b\": key");
	is_str(cl.v[1].value, "Windows 2020", "\"key=a b\": value without quotes");
	is_str(cl.v[2].value, "", "empty quoted value");
	is_str(cl.v[3].value, "x\"y z\"w", "inner quotes kept as the kernel keeps them");
	is_str(cl.v[4].key, "c", "after the quotes");
	cmdline_free(&cl);

	cmdline_parse("a=1 b=\"never closed c=3", &cl);
	is_int(cl.n, 2, "unbalanced quote runs to the end");
	is_str(cl.v[1].value, "never closed c=3", "value runs to the end, opening quote dropped");
	ok(cl.unbalanced, "unbalanced quote flagged");
	cmdline_free(&cl);
}

static void test_repeats_and_end(void)
{
	struct cmdline cl;
	cJSON *p;
	cmdline_parse("mitigations=off intel-idle.max_cstate=1 mitigations=auto,nosmt isolcpus=1 "
		      "isolcpus=nohz,domain,2-15 -- nosmt isolcpus=99", &cl);
	ok(cl.init_args, "'--' ends the kernel's parameters");
	is_int(cl.n, 5, "init's arguments are not the kernel's");
	is_str(cmdline_get(&cl, "mitigations", NULL), "auto,nosmt", "repeated key: the last wins");
	is_str(cmdline_get(&cl, "intel_idle.max_cstate", NULL), "1", "'-' and '_' are one in names");
	p = cmdline_params_json(&cl);
	is_str(jstr(p, "mitigations"), "auto,nosmt", "params: last wins");
	is_str(jstr(p, "isolcpus"), "nohz,domain,2-15", "params: isolcpus with flags");
	is_str(jstr(p, "intel_idle.max_cstate"), "1", "params: canonical name");
	ok(!cJSON_GetObjectItemCaseSensitive(p, "nosmt"), "params: nosmt after '--' is init's");
	is_int(cJSON_GetArraySize(p), 3, "only wanted, present parameters");
	cJSON_Delete(p);
	cmdline_free(&cl);
}

static void test_pairs(void)
{
	struct cmdline cl;
	cJSON *p, *hp, *e;
	cmdline_parse("hugepages=16 default_hugepagesz=1G hugepagesz=1G hugepages=4 "
		      "hugepagesz=2M hugepages=0:512,1:512 hugepagesz=16G nosmt idle=poll", &cl);
	p = cmdline_params_json(&cl);
	hp = cJSON_GetObjectItemCaseSensitive(p, "hugepages");
	is_int(cJSON_GetArraySize(hp), 4, "four hugepage entries");
	e = cJSON_GetArrayItem(hp, 0);
	ok(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "size")), "hugepages= first: default size");
	is_str(jstr(e, "count"), "16", "default size count");
	e = cJSON_GetArrayItem(hp, 1);
	is_str(jstr(e, "size"), "1G", "pair 1 size");
	is_int(cJSON_GetObjectItemCaseSensitive(e, "size_bytes")->valuedouble, 1073741824, "pair 1 bytes");
	is_str(jstr(e, "count"), "4", "pair 1 count");
	e = cJSON_GetArrayItem(hp, 2);
	is_int(cJSON_GetObjectItemCaseSensitive(e, "size_bytes")->valuedouble, 2097152, "pair 2 bytes");
	is_str(jstr(e, "count"), "0:512,1:512", "per-node count kept as written");
	e = cJSON_GetArrayItem(hp, 3);
	ok(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "count")), "size without count: null");
	is_str(jstr(p, "default_hugepagesz"), "1G", "default_hugepagesz");
	ok(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "nosmt")), "flag is true");
	is_str(jstr(p, "idle"), "poll", "idle=poll");
	cJSON_Delete(p);
	cmdline_free(&cl);
}

static void test_garbage(void)
{
	struct cmdline cl;
	cJSON *p;
	unsigned long long v;
	cmdline_parse("", &cl);
	is_int(cl.n, 0, "empty line");
	cmdline_free(&cl);
	cmdline_parse(NULL, &cl);
	is_int(cl.n, 0, "NULL line");
	cmdline_free(&cl);
	cmdline_parse("   \n ", &cl);
	is_int(cl.n, 0, "only blanks");
	cmdline_free(&cl);
	cmdline_parse("=x \"\" = hugepages hugepagesz == nosmt=", &cl);
	is_int(cl.n, 7, "seven odd parameters");
	is_str(cl.v[1].key, "", "a lone pair of quotes is an empty name");
	p = cmdline_params_json(&cl);
	is_str(cl.v[0].key, "=x", "leading '=' is part of the name, as in the kernel");
	ok(cl.v[0].value == NULL, "and no value");
	is_str(jstr(p, "nosmt"), "", "nosmt= is an empty string, not a flag");
	is_int(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "hugepages")), 2,
	       "hugepages flag and bare hugepagesz kept");
	cJSON_Delete(p);
	cmdline_free(&cl);

	ok(cmdline_memparse("2M", &v) == 0 && v == 2097152, "memparse 2M");
	ok(cmdline_memparse("1g", &v) == 0 && v == 1073741824ULL, "memparse 1g");
	ok(cmdline_memparse("4096", &v) == 0 && v == 4096, "memparse plain");
	ok(cmdline_memparse("2MB", &v) < 0, "memparse 2MB refused");
	ok(cmdline_memparse("x", &v) < 0, "memparse garbage refused");
	ok(cmdline_memparse("99999999999E", &v) < 0, "memparse overflow refused");
	ok(cmdline_memparse("", &v) < 0, "memparse empty refused");
}

int main(void)
{
	test_split();
	test_quotes();
	test_repeats_and_end();
	test_pairs();
	test_garbage();
	return done_testing();
}
