/* test-diff.c - diff_build() on hand-written fact trees: paths, identities, volatile facts, findings */
#include "config.h"
#include "audit/diff.h"
#include "lib/facts.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static cJSON *parse(const char *s)
{
	cJSON *j = cJSON_Parse(s);
	if (!j) {
		fprintf(stderr, "# bad test JSON: %s\n", s);
		exit(99);
	}
	return j;
}

/* The diff of two fact trees given as JSON text (findings optional). */
static cJSON *dif(const char *a, const char *b, const char *fa, const char *fb, int all)
{
	cJSON *ja = parse(a), *jb = parse(b), *xa = fa ? parse(fa) : NULL, *xb = fb ? parse(fb) : NULL, *d;
	struct diff_side o = { "old.json", "probe", ja, xa, "p" }, n = { "new.json", "probe", jb, xb, "p" };
	d = diff_build(&o, &n, all);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	cJSON_Delete(xa);
	cJSON_Delete(xb);
	return d;
}

static int nchanges(const cJSON *d)
{
	return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "changes"));
}

static const cJSON *change(const cJSON *d, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "changes"), i);
}

static const char *cpath(const cJSON *d, int i)
{
	return fj_get_str(change(d, i), "path");
}

static int sumv(const cJSON *d, const char *key)
{
	double v = -1;
	fj_get_num(cJSON_GetObjectItemCaseSensitive(d, "summary"), key, &v);
	return (int)v;
}

/* The change's old or new value, printed compactly. */
static char *val(const cJSON *d, int i, const char *which)
{
	static char buf[256];
	char *s = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(change(d, i), which));
	snprintf(buf, sizeof(buf), "%s", s ? s : "?");
	free(s);
	return buf;
}

int main(void)
{
	cJSON *d, *doc, *facts;

	/* Nothing changed. */
	d = dif("{\"cpu\":{\"cores\":8,\"isa\":[\"avx2\"]}}", "{\"cpu\":{\"cores\":8,\"isa\":[\"avx2\"]}}",
		NULL, NULL, 0);
	is_int(nchanges(d), 0, "equal trees: no change");
	is_int(sumv(d, "exit"), 0, "equal trees: exit 0");
	is_str(fj_get_str(d, "schema"), "nodeaudit.diff/1", "schema");
	cJSON_Delete(d);

	/* Where a fact was read from is provenance: listed apart, no change,
	 * exit 0 (a live probe against a snapshot of the same node). */
	d = dif("{\"cpu\":{\"libcpuid\":{\"source\":\"live\",\"types\":[]},\"kinds\":[{\"name\":\"general\","
		"\"source\":\"midr\"}]},\"pci\":{\"source\":\"sysfs\"},\"platform\":{\"smbios\":{\"source\":\"/a\"}}}",
		"{\"cpu\":{\"libcpuid\":{\"source\":\"snapshot\",\"types\":[]},\"kinds\":[{\"name\":\"general\","
		"\"source\":\"cpu_capacity\"}]},\"pci\":{\"source\":\"sysfs+dump\"},\"platform\":{\"smbios\":{\"source\":\"/b\"}}}",
		NULL, NULL, 1);
	is_int(nchanges(d), 0, "sources differ: no change listed");
	is_int(sumv(d, "facts_changed"), 0, "sources differ: no fact changed");
	is_int(sumv(d, "exit"), 0, "sources differ: exit 0");
	is_int(sumv(d, "provenance_changed"), 4, "sources differ: 4 provenance entries");
	is_str(fj_get_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "provenance"), 0), "path"),
	       "cpu.libcpuid.source", "provenance names the path");
	cJSON_Delete(d);

	/* Scalars, and keys that need quoting. */
	d = dif("{\"cpu\":{\"smt\":{\"active\":false}},\"kernel\":{\"sysctl\":{\"vm.swappiness\":\"10\"}}}",
		"{\"cpu\":{\"smt\":{\"active\":true}},\"kernel\":{\"sysctl\":{\"vm.swappiness\":\"60\"}}}",
		NULL, NULL, 0);
	is_int(nchanges(d), 2, "two scalar changes");
	is_str(cpath(d, 0), "cpu.smt.active", "path of a nested key");
	is_str(val(d, 0, "old"), "false", "old value");
	is_str(val(d, 0, "new"), "true", "new value");
	is_str(fj_get_str(change(d, 0), "kind"), "changed", "kind changed");
	is_str(cpath(d, 1), "kernel.sysctl.\"vm.swappiness\"", "a key with dots is quoted");
	is_int(sumv(d, "facts_changed"), 2, "facts_changed");
	is_int(sumv(d, "exit"), 1, "facts changed: exit 1");
	cJSON_Delete(d);

	/* A null fact that became readable, and a type change. */
	d = dif("{\"memory\":{\"total_bytes\":null,\"ecc\":{\"mode\":\"none\"}}}",
		"{\"memory\":{\"total_bytes\":1024,\"ecc\":{\"mode\":null}}}", NULL, NULL, 0);
	is_int(nchanges(d), 2, "null -> value and value -> null are changes");
	cJSON_Delete(d);

	/* DIMMs by locator: one gone in the middle shifts nothing. */
	d = dif("{\"memory\":{\"dimms\":[{\"locator\":\"A1\",\"size_bytes\":1},{\"locator\":\"B1\",\"size_bytes\":1},"
		"{\"locator\":\"C1\",\"size_bytes\":1}],\"channels\":{\"populated\":8}}}",
		"{\"memory\":{\"dimms\":[{\"locator\":\"A1\",\"size_bytes\":1},{\"locator\":\"C1\",\"size_bytes\":1}],"
		"\"channels\":{\"populated\":7}}}", NULL, NULL, 0);
	is_int(nchanges(d), 2, "a missing DIMM: two changes, not a cascade");
	is_str(cpath(d, 0), "memory.dimms[B1]", "DIMM keyed by locator");
	is_str(fj_get_str(change(d, 0), "kind"), "removed", "the DIMM is removed");
	is_str(val(d, 0, "new"), "null", "a removed element's new value is null");
	is_str(cpath(d, 1), "memory.channels.populated", "channels.populated");
	cJSON_Delete(d);

	/* PCI by bdf, reordered: only the real change. */
	d = dif("{\"pci\":{\"accelerators\":[{\"bdf\":\"0000:41:00.0\",\"link\":{\"width\":{\"current\":16}}},"
		"{\"bdf\":\"0000:c1:00.0\",\"link\":{\"width\":{\"current\":16}}}]}}",
		"{\"pci\":{\"accelerators\":[{\"bdf\":\"0000:c1:00.0\",\"link\":{\"width\":{\"current\":16}}},"
		"{\"bdf\":\"0000:41:00.0\",\"link\":{\"width\":{\"current\":8}}}]}}", NULL, NULL, 0);
	is_int(nchanges(d), 1, "reordered accelerators: one change");
	is_str(cpath(d, 0), "pci.accelerators[0000:41:00.0].link.width.current", "accelerator by bdf");
	cJSON_Delete(d);

	/* A device added. */
	d = dif("{\"pci\":{\"nics\":[]}}", "{\"pci\":{\"nics\":[{\"bdf\":\"0000:05:00.0\"}]}}", NULL, NULL, 0);
	is_int(nchanges(d), 1, "a NIC appeared");
	is_str(cpath(d, 0), "pci.nics[0000:05:00.0]", "NIC by bdf");
	is_str(fj_get_str(change(d, 0), "kind"), "added", "kind added");
	cJSON_Delete(d);

	/* NUMA nodes by id (sparse ids), CPU kinds by name, channels by package/name. */
	d = dif("{\"numa\":{\"nodes\":[{\"id\":0,\"memory_bytes\":10},{\"id\":2,\"memory_bytes\":10}]},"
		"\"cpu\":{\"kinds\":[{\"name\":\"performance\",\"cores\":8},{\"name\":\"efficiency\",\"cores\":16}]},"
		"\"memory\":{\"channels\":{\"list\":[{\"package\":0,\"name\":\"A\",\"dimms\":1},{\"package\":1,\"name\":\"A\",\"dimms\":1}]}}}",
		"{\"numa\":{\"nodes\":[{\"id\":2,\"memory_bytes\":5},{\"id\":0,\"memory_bytes\":10}]},"
		"\"cpu\":{\"kinds\":[{\"name\":\"efficiency\",\"cores\":16},{\"name\":\"performance\",\"cores\":6}]},"
		"\"memory\":{\"channels\":{\"list\":[{\"package\":0,\"name\":\"A\",\"dimms\":1},{\"package\":1,\"name\":\"A\",\"dimms\":0}]}}}",
		NULL, NULL, 0);
	is_int(nchanges(d), 3, "three identity-keyed changes");
	is_str(cpath(d, 0), "numa.nodes[2].memory_bytes", "NUMA node by id");
	is_str(cpath(d, 1), "cpu.kinds[performance].cores", "CPU kind by name");
	is_str(cpath(d, 2), "memory.channels.list[1/A].dimms", "channel by package and name");
	cJSON_Delete(d);

	/* Huge pages per node by node id and page size. */
	d = dif("{\"memory\":{\"hugepages_per_node\":[{\"node\":0,\"pages\":[{\"size_bytes\":2097152,\"total\":4},"
		"{\"size_bytes\":1073741824,\"total\":2}]}]}}",
		"{\"memory\":{\"hugepages_per_node\":[{\"node\":0,\"pages\":[{\"size_bytes\":1073741824,\"total\":1}]}]}}",
		NULL, NULL, 0);
	is_int(nchanges(d), 2, "huge pages: one size gone, one changed");
	is_str(cpath(d, 0), "memory.hugepages_per_node[0].pages[2097152]", "page size removed by size");
	is_str(cpath(d, 1), "memory.hugepages_per_node[0].pages[1073741824].total", "page size by size");
	cJSON_Delete(d);

	/* Repeated identities (two DIMMs called "DIMM 0") fall back to the index. */
	d = dif("{\"memory\":{\"dimms\":[{\"locator\":\"DIMM 0\",\"size_bytes\":1},{\"locator\":\"DIMM 0\",\"size_bytes\":2}]}}",
		"{\"memory\":{\"dimms\":[{\"locator\":\"DIMM 0\",\"size_bytes\":1},{\"locator\":\"DIMM 0\",\"size_bytes\":4}]}}",
		NULL, NULL, 0);
	is_int(nchanges(d), 1, "repeated locators: one change");
	is_str(cpath(d, 0), "memory.dimms[1].size_bytes", "by index when the key repeats");
	cJSON_Delete(d);

	/* Other arrays of objects by index; arrays of values as a whole. */
	d = dif("{\"x\":{\"list\":[{\"a\":1},{\"a\":2}]},\"cpu\":{\"isa\":[\"avx2\",\"avx512f\"]}}",
		"{\"x\":{\"list\":[{\"a\":1}]},\"cpu\":{\"isa\":[\"avx2\"]}}", NULL, NULL, 0);
	is_int(nchanges(d), 2, "index array and value list");
	is_str(cpath(d, 0), "x.list[1]", "unkeyed array by index");
	is_str(fj_get_str(change(d, 0), "kind"), "removed", "the shorter array lost an element");
	is_str(cpath(d, 1), "cpu.isa", "a list of values changes as a whole");
	is_str(val(d, 1, "old"), "[\"avx2\",\"avx512f\"]", "whole old list");
	cJSON_Delete(d);

	/* Volatile facts: counted, listed only with all. */
	{
		const char *a = "{\"host\":{\"hostname\":\"n1\",\"collected_at\":\"2026-11-30T00:00:00Z\",\"kernel\":\"6.8\"},"
				"\"kernel\":{\"hugepages\":{\"sizes\":[{\"size_bytes\":2097152,\"total\":4,\"free\":4}]},"
				"\"swap\":{\"devices\":[{\"name\":\"/dev/sda2\",\"used_bytes\":0}]}}}";
		const char *b = "{\"host\":{\"hostname\":\"n2\",\"collected_at\":\"2026-11-30T01:00:00Z\",\"kernel\":\"6.8\"},"
				"\"kernel\":{\"hugepages\":{\"sizes\":[{\"size_bytes\":2097152,\"total\":4,\"free\":1}]},"
				"\"swap\":{\"devices\":[{\"name\":\"/dev/sda2\",\"used_bytes\":4096}]}}}";
		d = dif(a, b, NULL, NULL, 0);
		is_int(nchanges(d), 0, "volatile facts are not listed by default");
		is_int(sumv(d, "volatile_changed"), 4, "but counted");
		is_int(sumv(d, "exit"), 0, "volatile changes alone: exit 0");
		cJSON_Delete(d);
		d = dif(a, b, NULL, NULL, 1);
		is_int(nchanges(d), 4, "all: volatile facts listed");
		ok(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(change(d, 0), "volatile")), "marked volatile");
		is_str(cpath(d, 2), "kernel.hugepages.sizes[2097152].free", "free huge pages are volatile");
		is_int(sumv(d, "exit"), 0, "all: still exit 0");
		cJSON_Delete(d);
	}

	/* The kernel command line: the node's own root=UUID is no drift, a new parameter is. */
	d = dif("{\"kernel\":{\"cmdline\":{\"raw\":\"BOOT_IMAGE=/vmlinuz root=UUID=aaaa ro quiet\"}}}",
		"{\"kernel\":{\"cmdline\":{\"raw\":\"BOOT_IMAGE=/vmlinuz  root=UUID=bbbb ro quiet\"}}}", NULL, NULL, 0);
	is_int(nchanges(d), 0, "cmdline differing in root=UUID only: not listed");
	is_int(sumv(d, "volatile_changed"), 1, "but counted as volatile");
	cJSON_Delete(d);
	d = dif("{\"kernel\":{\"cmdline\":{\"raw\":\"root=UUID=aaaa ro quiet\"}}}",
		"{\"kernel\":{\"cmdline\":{\"raw\":\"root=UUID=bbbb ro quiet mitigations=off\"}}}", NULL, NULL, 0);
	is_int(nchanges(d), 1, "cmdline with a new parameter: listed");
	ok(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(change(d, 0), "volatile")), "and not volatile");
	cJSON_Delete(d);

	/* EDAC counters: grew is never volatile, fell (reboot) is. */
	d = dif("{\"memory\":{\"ecc\":{\"corrected_errors\":7,\"uncorrected_errors\":0}}}",
		"{\"memory\":{\"ecc\":{\"corrected_errors\":9,\"uncorrected_errors\":0}}}", NULL, NULL, 0);
	is_int(nchanges(d), 1, "EDAC counter that grew is listed");
	ok(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(change(d, 0), "grew")), "marked grew");
	ok(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(change(d, 0), "volatile")), "not volatile");
	is_int(sumv(d, "exit"), 1, "grew: exit 1");
	cJSON_Delete(d);
	d = dif("{\"memory\":{\"ecc\":{\"corrected_errors\":9}}}", "{\"memory\":{\"ecc\":{\"corrected_errors\":0}}}",
		NULL, NULL, 0);
	is_int(nchanges(d), 0, "EDAC counter that fell is volatile");
	is_int(sumv(d, "exit"), 0, "fell: exit 0");
	cJSON_Delete(d);

	/* kernel.sysctl keys read on one side only are not compared. */
	d = dif("{\"kernel\":{\"sysctl\":{\"vm.swappiness\":\"10\"}}}",
		"{\"kernel\":{\"sysctl\":{\"vm.swappiness\":\"10\",\"net.core.rmem_max\":\"4194304\"}}}", NULL, NULL, 0);
	is_int(nchanges(d), 0, "a sysctl read on one side only is no change");
	is_int(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "not_compared")), 1, "it is not_compared");
	cJSON_Delete(d);

	/* Findings. */
	{
		const char *fa = "[{\"id\":\"cpu.smt\",\"status\":\"pass\"},{\"id\":\"memory.ecc\",\"status\":\"warn\"},"
				 "{\"id\":\"kernel.sysctl\",\"key\":\"vm.swappiness\",\"status\":\"pass\"},"
				 "{\"id\":\"kernel.sysctl\",\"key\":\"fs.file-max\",\"status\":\"fail\"},"
				 "{\"id\":\"kernel.thp\",\"status\":\"pass\"},{\"id\":\"numa.balancing\",\"status\":\"skip\"}]";
		const char *fb = "[{\"id\":\"cpu.smt\",\"status\":\"warn\"},{\"id\":\"memory.ecc\",\"status\":\"fail\"},"
				 "{\"id\":\"kernel.sysctl\",\"key\":\"vm.swappiness\",\"status\":\"pass\"},"
				 "{\"id\":\"kernel.sysctl\",\"key\":\"fs.file-max\",\"status\":\"pass\"},"
				 "{\"id\":\"kernel.thp\",\"status\":\"pass\"},{\"id\":\"numa.balancing\",\"status\":\"pass\"}]";
		const cJSON *f;
		d = dif("{}", "{}", fa, fb, 0);
		f = cJSON_GetObjectItemCaseSensitive(d, "findings");
		is_int(cJSON_GetArraySize(f), 3, "three findings changed (skip -> pass does not count)");
		is_str(fj_get_str(cJSON_GetArrayItem(f, 0), "change"), "worse", "pass -> warn worse (not appeared: it is on both sides)");
		is_str(fj_get_str(cJSON_GetArrayItem(f, 1), "change"), "worse", "warn -> fail worse");
		is_str(fj_get_str(cJSON_GetArrayItem(f, 2), "change"), "better", "fail -> pass better (not cleared)");
		is_str(fj_get_str(cJSON_GetArrayItem(f, 2), "key"), "fs.file-max", "sysctl findings keyed by key");
		is_int(sumv(d, "checks_worse"), 2, "two worse");
		is_int(sumv(d, "checks_better"), 1, "one better");
		is_int(sumv(d, "exit"), 2, "a check got worse: exit 2");
		cJSON_Delete(d);
		d = dif("{}", "{}", fb, fa, 0);
		is_int(sumv(d, "checks_worse"), 1, "reversed: the fixed one is worse");
		is_int(sumv(d, "exit"), 2, "reversed: exit 2");
		cJSON_Delete(d);
		d = dif("{}", "{}", "[{\"id\":\"cpu.smt\",\"status\":\"fail\"}]", "[{\"id\":\"cpu.smt\",\"status\":\"warn\"}]", 0);
		is_str(fj_get_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "findings"), 0), "change"),
		       "better", "fail -> warn better");
		is_int(sumv(d, "exit"), 1, "better only: exit 1");
		cJSON_Delete(d);
		d = dif("{}", "{}", "[]", "[{\"id\":\"pci.x\",\"status\":\"unknown\"}]", 0);
		is_str(fj_get_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "findings"), 0), "change"),
		       "appeared", "a new unknown check appeared");
		cJSON_Delete(d);
		d = dif("{}", "{}", fa, NULL, 0);
		ok(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "summary"),
								 "findings_compared")), "findings on one side: not compared");
		is_int(sumv(d, "exit"), 0, "not compared: exit 0");
		cJSON_Delete(d);
	}

	/* Documents: kinds and fact trees. */
	doc = parse("{\"schema\":\"nodeaudit.probe/1\",\"tool\":{},\"host\":{\"hostname\":\"a\"},\"cpu\":{},"
		    "\"gaps\":[],\"evidence\":{}}");
	is_str(diff_doc_kind(doc), "probe", "a probe document");
	facts = diff_facts_of(doc);
	ok(facts && cJSON_GetObjectItemCaseSensitive(facts, "cpu") && cJSON_GetObjectItemCaseSensitive(facts, "host") &&
	   !cJSON_GetObjectItemCaseSensitive(facts, "evidence") && !cJSON_GetObjectItemCaseSensitive(facts, "schema"),
	   "probe facts: host and cpu, no evidence or schema");
	cJSON_Delete(facts);
	cJSON_Delete(doc);
	doc = parse("{\"schema\":\"nodeaudit.report/1\",\"host\":{\"hostname\":\"a\"},\"facts\":{\"cpu\":{}},\"findings\":[]}");
	is_str(diff_doc_kind(doc), "report", "a report document");
	facts = diff_facts_of(doc);
	ok(facts && cJSON_GetObjectItemCaseSensitive(facts, "cpu") && cJSON_GetObjectItemCaseSensitive(facts, "host") &&
	   !cJSON_GetObjectItemCaseSensitive(facts, "findings"), "report facts: facts plus host");
	cJSON_Delete(facts);
	cJSON_Delete(doc);
	doc = parse("{\"schema\":\"nodeaudit.fleet/1\"}");
	ok(!diff_doc_kind(doc) && !diff_facts_of(doc), "a fleet summary is neither");
	cJSON_Delete(doc);
	doc = parse("{\"schema\":\"nodeaudit.report/1\"}");
	ok(!diff_doc_kind(doc), "a report without facts is not one");
	cJSON_Delete(doc);

	/* check --baseline: exit raised by drift for --fail-on warn only. */
	{
		const char *rep = "{\"schema\":\"nodeaudit.report/1\",\"host\":{},\"profile\":{\"name\":\"p\"},"
				  "\"facts\":{\"cpu\":{\"smt\":{\"active\":true}}},"
				  "\"findings\":[{\"id\":\"cpu.smt\",\"status\":\"pass\"}],\"summary\":{\"exit\":0}}";
		cJSON *base = parse("{\"host\":{},\"cpu\":{\"smt\":{\"active\":false}}}");
		struct diff_side bs = { "golden.json", "probe", base, NULL, NULL };
		cJSON *r = parse(rep);
		double v = -1;
		is_int(diff_report_baseline(r, &bs, "warn", 0), 1, "baseline drift, fail-on warn: exit 1");
		ok(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "baseline")), "report.baseline added");
		fj_get_num(cJSON_GetObjectItemCaseSensitive(r, "summary"), "exit", &v);
		is_int((int)v, 1, "summary.exit follows");
		cJSON_Delete(r);
		r = parse(rep);
		is_int(diff_report_baseline(r, &bs, "fail", 0), 0, "baseline drift, fail-on fail: exit 0");
		cJSON_Delete(r);
		r = parse(rep);
		is_int(diff_report_baseline(r, &bs, "warn", 2), 2, "a failing check keeps exit 2");
		cJSON_Delete(r);
		cJSON_Delete(base);
		base = parse("{\"host\":{},\"cpu\":{\"smt\":{\"active\":true}}}");
		bs.facts = base;
		r = parse(rep);
		is_int(diff_report_baseline(r, &bs, "warn", 0), 0, "no drift: exit unchanged");
		cJSON_Delete(r);
		cJSON_Delete(base);
	}
	return done_testing();
}
