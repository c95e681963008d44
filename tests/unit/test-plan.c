/* test-plan.c - worker placement and steps from hand-written fact trees.
 * Every expected core list below follows from the modelled machine's design. */
#include "config.h"
#include "audit/plan.h"
#include "lib/quote.h"
#include "lib/facts.h"
#include "lib/util.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static const char *wstr(const cJSON *plan, int i, const char *key)
{
	const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(plan, "workers"), i);
	const cJSON *v = cJSON_GetObjectItem(w, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int wint(const cJSON *plan, int i, const char *key)
{
	const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(plan, "workers"), i);
	const cJSON *v = cJSON_GetObjectItem(w, key);
	return cJSON_IsNumber(v) ? v->valueint : -1;
}

static int nworkers(const cJSON *plan)
{
	return cJSON_GetArraySize(cJSON_GetObjectItem(plan, "workers"));
}

static int has_note(const cJSON *plan, const char *needle)
{
	const cJSON *n;
	cJSON_ArrayForEach(n, cJSON_GetObjectItem(plan, "notes"))
		if (cJSON_IsString(n) && strstr(n->valuestring, needle))
			return 1;
	return 0;
}

/* Build a fact tree: nodes[i] = cpulist of node ids[i]; cores = core cpulists. */
static cJSON *facts_of(const int *ids, const char *const *nodes, int nn, const char *const *cores,
		       int nc, const char *online, int hybrid, const char *pcpus, const char *ecpus)
{
	cJSON *f = cJSON_CreateObject(), *cpu = cJSON_AddObjectToObject(f, "cpu");
	cJSON *numa = cJSON_AddObjectToObject(f, "numa");
	cJSON *nodesj = cJSON_AddArrayToObject(numa, "nodes"), *cc, *kinds;
	int i;
	cJSON_AddStringToObject(cpu, "online", online);
	cJSON_AddBoolToObject(cpu, "hybrid", hybrid);
	cc = cJSON_AddArrayToObject(cpu, "core_cpus");
	for (i = 0; i < nc; i++)
		cJSON_AddItemToArray(cc, cJSON_CreateString(cores[i]));
	kinds = cJSON_AddArrayToObject(cpu, "kinds");
	if (hybrid) {
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "name", "performance");
		cJSON_AddStringToObject(k, "cpus", pcpus);
		cJSON_AddItemToArray(kinds, k);
		k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "name", "efficiency");
		cJSON_AddStringToObject(k, "cpus", ecpus);
		cJSON_AddItemToArray(kinds, k);
	}
	for (i = 0; i < nn; i++) {
		cJSON *n = cJSON_CreateObject();
		cJSON_AddNumberToObject(n, "id", ids[i]);
		cJSON_AddStringToObject(n, "cpus", nodes[i]);
		cJSON_AddItemToArray(nodesj, n);
	}
	return f;
}

static void test_8node(void)
{
	/* 8 nodes (e.g. 2 sockets x NPS4), 8 cores each, no SMT: CPUs 8k..8k+7. */
	int ids[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	char *nodes[8], *cores[64];
	char want[64];
	struct plan_opts o = { .reserve = -1 };
	cJSON *f, *p;
	int i, good = 1;
	for (i = 0; i < 8; i++)
		nodes[i] = xasprintf("%d-%d", 8 * i, 8 * i + 7);
	for (i = 0; i < 64; i++)
		cores[i] = xasprintf("%d", i);
	f = facts_of(ids, (const char *const *)nodes, 8, (const char *const *)cores, 64, "0-63", 0, NULL, NULL);
	p = plan_build(f, NULL, NULL, &o);
	is_int(nworkers(p), 8, "8-node host: 8 workers");
	for (i = 0; i < 8 && nworkers(p) == 8; i++) {
		snprintf(want, sizeof(want), "%d-%d", 8 * i + 1, 8 * i + 7);
		if (!wstr(p, i, "cpus") || strcmp(wstr(p, i, "cpus"), want) || wint(p, i, "threads") != 7 ||
		    wint(p, i, "node") != i)
			good = 0;
	}
	ok(good, "8-node host: node k gets CPUs 8k+1..8k+7, 7 threads, first core reserved");
	is_str(wstr(p, 3, "numactl"), "numactl --physcpubind=25-31 --membind=3 -- <your-inference-command> -t 7",
	       "numactl line for node 3");
	is_str(wstr(p, 3, "taskset"), "taskset -c 25-31 <your-inference-command> -t 7", "taskset line for node 3");
	ok(has_note(p, "placeholder"), "the placeholder command is pointed out");
	cJSON_Delete(p);
	o.reserve = 0;
	o.command = "llama-server -m m.gguf";
	p = plan_build(f, NULL, NULL, &o);
	is_str(wstr(p, 0, "numactl"), "numactl --physcpubind=0-7 --membind=0 -- llama-server -m m.gguf -t 8",
	       "--reserve 0 and --command");
	cJSON_Delete(p);
	cJSON_Delete(f);
	for (i = 0; i < 8; i++)
		free(nodes[i]);
	for (i = 0; i < 64; i++)
		free(cores[i]);
}

static void test_2socket_smt(void)
{
	/* 2 sockets x 8 cores x 2 threads; Linux numbering: core i has CPUs i and i+16. */
	int ids[2] = { 0, 1 };
	const char *nodes[2] = { "0-7,16-23", "8-15,24-31" };
	char *cores[16];
	struct plan_opts o = { .reserve = -1 };
	cJSON *f, *p;
	const cJSON *h;
	int i;
	for (i = 0; i < 16; i++)
		cores[i] = xasprintf("%d,%d", i, i + 16);
	f = facts_of(ids, nodes, 2, (const char *const *)cores, 16, "0-31", 0, NULL, NULL);
	p = plan_build(f, NULL, NULL, &o);
	is_int(nworkers(p), 2, "2-socket SMT: 2 workers");
	is_str(wstr(p, 0, "cpus"), "1-7", "node 0: one thread per core, core 0 reserved");
	is_str(wstr(p, 0, "reserved_cpus"), "0,16", "node 0 reserves core 0 with its sibling");
	is_str(wstr(p, 1, "cpus"), "9-15", "node 1: one thread per core, core 8 reserved");
	is_int(wint(p, 1, "threads"), 7, "node 1: 7 threads");
	h = cJSON_GetObjectItem(p, "housekeeping");
	is_str(cJSON_GetObjectItem(h, "cpus")->valuestring, "0,8,16,24", "housekeeping = the reserved cores");
	cJSON_Delete(p);
	cJSON_Delete(f);
	for (i = 0; i < 16; i++)
		free(cores[i]);
}

static void test_hybrid(void)
{
	/* Alder Lake-P like: 4 P-cores with HT (0-7), 8 E-cores (8-15), one node. */
	int ids[1] = { 0 };
	const char *nodes[1] = { "0-15" };
	const char *cores[12] = { "0-1", "2-3", "4-5", "6-7", "8", "9", "10", "11", "12", "13", "14", "15" };
	struct plan_opts o = { .reserve = -1 };
	cJSON *f = facts_of(ids, nodes, 1, cores, 12, "0-15", 1, "0-7", "8-15");
	cJSON *p = plan_build(f, NULL, NULL, &o);
	const cJSON *h = cJSON_GetObjectItem(p, "housekeeping");
	is_int(nworkers(p), 1, "hybrid: one worker");
	is_str(wstr(p, 0, "cpus"), "0,2,4,6", "hybrid: P-cores only, one thread each");
	is_str(wstr(p, 0, "kind"), "performance", "hybrid: worker kind");
	is_str(cJSON_GetObjectItem(h, "cpus")->valuestring, "8-15", "hybrid: housekeeping on the E-cores");
	is_str(cJSON_GetObjectItem(h, "kind")->valuestring, "efficiency", "hybrid: housekeeping kind");
	ok(strstr(cJSON_GetObjectItem(h, "verify")->valuestring, "taskset -cp PID") != NULL, "verify command given");
	cJSON_Delete(p);
	cJSON_Delete(f);
}

static void test_sparse_and_unknown(void)
{
	int ids[3] = { 0, 2, 5 };
	const char *nodes[3] = { "0-3", "", "4-7" };
	const char *cores[8] = { "0", "1", "2", "3", "4", "5", "6", "7" };
	struct plan_opts o = { .reserve = -1 };
	cJSON *f = facts_of(ids, nodes, 3, cores, 8, "0-7", 0, NULL, NULL), *p, *acc, *a;
	p = plan_build(f, NULL, NULL, &o);
	is_int(nworkers(p), 2, "memory-only node skipped");
	is_int(wint(p, 1, "node"), 5, "sparse node id kept");
	is_str(wstr(p, 1, "cpus"), "5-7", "node 5 cores");
	ok(has_note(p, "node 2 has no CPUs"), "memory-only node noted");
	cJSON_Delete(p);

	/* Accelerators: one local to node 5, one whose node is unknown. */
	acc = cJSON_AddArrayToObject(cJSON_AddObjectToObject(f, "pci"), "accelerators");
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "bdf", "0000:41:00.0");
	cJSON_AddNumberToObject(a, "numa_node", 5);
	cJSON_AddItemToArray(acc, a);
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "bdf", "0000:c1:00.0");
	cJSON_AddNullToObject(a, "numa_node");
	cJSON_AddItemToArray(acc, a);
	p = plan_build(f, NULL, NULL, &o);
	{
		const cJSON *fe = cJSON_GetObjectItem(p, "feeders");
		const cJSON *f0 = cJSON_GetArrayItem(fe, 0), *f1 = cJSON_GetArrayItem(fe, 1);
		is_int(cJSON_GetArraySize(fe), 2, "one feeder per accelerator");
		is_str(cJSON_GetObjectItem(f0, "numactl")->valuestring,
		       "numactl --cpunodebind=5 --membind=5 -- <your-inference-command>", "feeder on the local node");
		ok(cJSON_IsNull(cJSON_GetObjectItem(f1, "node")), "unknown node stays unknown");
		ok(strstr(cJSON_GetObjectItem(f1, "note")->valuestring, "not guessing") != NULL, "and says so");
	}
	cJSON_Delete(p);
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(f, "cpu"), "core_cpus");
	p = plan_build(f, NULL, NULL, &o);
	is_int(nworkers(p), 0, "no core list: no worker plan");
	ok(has_note(p, "cpu.core_cpus"), "and a note naming the missing fact");
	cJSON_Delete(p);
	cJSON_Delete(f);
}

static void test_steps(void)
{
	const char *findings_json =
		"[{\"id\":\"kernel.sysctl.net.core.rmem_max\",\"status\":\"fail\",\"expected\":\">= 67108864\","
		"\"reason\":\"large socket buffers\"},"
		"{\"id\":\"kernel.sysctl.vm.swappiness\",\"status\":\"warn\",\"expected\":\"<= 10\"},"
		"{\"id\":\"kernel.sysctl.fs.file-max\",\"status\":\"pass\",\"expected\":\">= 2097152\"},"
		"{\"id\":\"numa.balancing\",\"status\":\"warn\",\"expected\":\"off\"},"
		"{\"id\":\"cpu.governor\",\"status\":\"warn\",\"expected\":\"performance\"},"
		"{\"id\":\"cpu.smt\",\"status\":\"warn\",\"expected\":\"off\",\"fix\":[{\"kind\":\"bios\",\"text\":\"Disable Hyper-Threading\"},"
		"{\"kind\":\"runtime\",\"command\":\"echo off > /sys/devices/system/cpu/smt/control\"}]}]";
	cJSON *findings = cJSON_Parse(findings_json), *f = cJSON_CreateObject(), *p;
	struct plan_opts o = { .reserve = -1 };
	const cJSON *steps, *s;
	int sysctls = 0, bios = 0, runtime = 0, gov = 0, smt = 0;
	p = plan_build(f, findings, "agent-cpu-inference", &o);
	steps = cJSON_GetObjectItem(p, "steps");
	cJSON_ArrayForEach(s, steps) {
		const char *k = cJSON_GetObjectItem(s, "kind")->valuestring;
		if (!strcmp(k, "sysctl")) {
			const char *key = cJSON_GetObjectItem(s, "key")->valuestring;
			const char *v = cJSON_GetObjectItem(s, "value")->valuestring;
			if ((!strcmp(key, "net.core.rmem_max") && !strcmp(v, "67108864")) ||
			    (!strcmp(key, "vm.swappiness") && !strcmp(v, "10")) ||
			    (!strcmp(key, "kernel.numa_balancing") && !strcmp(v, "0")))
				sysctls++;
			else
				sysctls += 100;
		}
		bios += !strcmp(k, "bios");
		runtime += !strcmp(k, "runtime");
		gov += !strcmp(k, "governor");
		smt += !strcmp(k, "smt");
	}
	is_int(sysctls, 3, "three sysctl steps with the bound as value; passed checks left out");
	is_int(gov, 1, "governor step");
	is_int(smt, 1, "SMT as a typed step");
	is_int(bios, 1, "BIOS hint passed through");
	is_int(runtime, 0, "raw runtime command replaced by the idempotent typed step");
	cJSON_Delete(p);
	cJSON_Delete(f);
	cJSON_Delete(findings);
}

/* The one rule of generated files (lib/quote.h) and the one cleaner (lib/util.h). */
static void test_quote(void)
{
	char *q, *c;
	size_t len = 0;
	FILE *mem;
	char *out = NULL;
	q = sh_quote("it's $(id) `x` \"y\"");
	is_str(q, "'it'\\''s $(id) `x` \"y\"'", "sh_quote: single quotes, ' as '\\''");
	free(q);
	ok(sh_quote("a\nb") == NULL, "sh_quote: a newline is not one word");
	ok(sh_quote("a\xc2\x9b" "b") == NULL, "sh_quote: nor a C1 control");
	ok(!sysctl_key_why("vm.swappiness") && !sysctl_key_why("net.ipv4.conf.eth0/100.rp_filter") &&
	   !sysctl_key_why("net.ipv4.conf.br-lan.forwarding"), "sysctl keys of the kernel's grammar");
	ok(sysctl_key_why("-vm.swappiness") && sysctl_key_why("vm..x") && sysctl_key_why("vm.x;id") &&
	   sysctl_key_why("vm.x y") && sysctl_key_why("vm.") && sysctl_key_why("") && sysctl_key_why("a\nb"),
	   "sysctl keys off the grammar refused");
	ok(!gen_value_why("1024 65535") && gen_value_why("10\nkernel.core_pattern = |x") && gen_value_why("a\rb"),
	   "a value is one line");
	ok(!plan_step_why("cmdline", "transparent_hugepage", "madvise") && plan_step_why("cmdline", "a b", "1") &&
	   plan_step_why("cmdline", "nosmt", "1 init=/bin/sh"), "kernel parameters are one word");
	mem = open_memstream(&out, &len);
	gen_comment(mem, "# ", "host\nrm -rf /\r\x1b[2J\xc2\x9b" "31m\xff");
	fclose(mem);
	is_str(out, "# host?rm -rf /?\?[2J?31m\xef\xbf\xbd\n", "gen_comment: one line, controls and bad UTF-8 replaced");
	free(out);
	c = str_clean("a\tb\nc\x7f", CLEAN_TEXT);
	is_str(c, "a\tb\nc?", "CLEAN_TEXT keeps tab and newline, not DEL");
	free(c);
	ok(str_clean("plain \xc3\xa9", CLEAN_LINE) == NULL, "nothing to clean: NULL");
	is_int(str_ctrl("ok"), -1, "str_ctrl: none");
	is_int(str_ctrl("a\xc2\x85"), 0x85, "str_ctrl: U+0085");
	is_int(str_ctrl("\xed\xa0\x80"), 0xfffd, "str_ctrl: a surrogate is invalid UTF-8");
	is_int(utf8_bad_offset("ab\0c", 4), 2, "utf8_bad_offset: a NUL byte");
	is_int(utf8_bad_offset("\xe2\x82\xac\xe2\x82", 5), 3, "utf8_bad_offset: a cut sequence");
	ok(num_int_ok(1023, 0, 1023) && !num_int_ok(1e300, 0, 1023) && !num_int_ok(0.5, 0, 1) &&
	   !num_int_ok(-1, 0, 1), "num_int_ok");
	is_int(num_clamp(1e300, 1, 4), 4, "num_clamp: 1e300");
	is_int(num_clamp(-1e300, 1, 4), 1, "num_clamp: -1e300");
}

int main(void)
{
	test_quote();
	test_8node();
	test_2socket_smt();
	test_hybrid();
	test_sparse_and_unknown();
	test_steps();
	return done_testing();
}
