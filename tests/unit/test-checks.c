/* test-checks.c - evaluation: each check on hand-written facts (pass, warn, fail, unknown, skip) */
#include "config.h"
#include "audit/checks.h"
#include "audit/profile.h"
#include "lib/util.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* Every check enabled, with mixed severities. */
static const char all_profile[] =
	"{\"name\": \"all\", \"checks\": {"
	"\"host.virtualized\": {\"expect\": false, \"severity\": \"info\"},"
	"\"cpu.smt\": {\"expect\": \"off\"},"
	"\"cpu.governor\": {\"expect\": \"performance\"},"
	"\"cpu.isa\": {\"expect\": [\"avx2\", \"neon\"], \"severity\": \"fail\"},"
	"\"cpu.hybrid.pcores\": {\"min\": 2, \"severity\": \"fail\"},"
	"\"cpu.max_mhz\": {\"min\": 3000},"
	"\"numa.balancing\": {\"expect\": \"off\", \"when\": \"pinned\"},"
	"\"numa.nodes.memory_balanced\": {\"min\": 0.9},"
	"\"memory.ecc\": {\"expect\": \"on\", \"severity\": \"fail\"},"
	"\"memory.ecc.errors\": {\"max\": 0, \"severity\": \"fail\"},"
	"\"memory.channels.populated_ratio\": {\"min\": 1, \"severity\": \"fail\"},"
	"\"memory.channels.balanced\": {\"expect\": true},"
	"\"memory.speed.configured_ratio\": {\"min\": 1},"
	"\"memory.per_core_bytes\": {\"min\": 4294967296},"
	"\"pci.accelerator.link_width_ratio\": {\"min\": 1, \"severity\": \"fail\"},"
	"\"pci.accelerator.link_speed\": {\"min\": 1, \"severity\": \"info\"},"
	"\"pci.accelerator.numa_known\": {\"expect\": true},"
	"\"pci.accelerator.numa_local\": {\"expect\": true},"
	"\"pci.accelerator.uplink\": {\"expect\": false},"
	"\"pci.accelerator.uplink_ratio\": {\"min\": 1},"
	"\"pci.nic.link\": {\"min\": 1},"
	"\"pci.nic.roce_ecn\": {\"expect\": true},"
	"\"pci.accelerator.nic_switch\": {\"expect\": true},"
	"\"kernel.sysctl\": {\"vm.swappiness\": {\"max\": 10},"
	"  \"net.ipv4.tcp_tw_reuse\": {\"expect\": 1},"
	"  \"net.ipv4.ip_local_port_range\": {\"expect\": \"1024 65535\"},"
	"  \"net.core.rmem_max\": {\"min\": 67108864, \"severity\": \"fail\"}},"
	"\"kernel.thp\": {\"expect\": [\"madvise\", \"always\"]},"
	"\"kernel.swap\": {\"max\": 0, \"severity\": \"info\"},"
	"\"bench.efficiency\": {\"min\": 0.25},"
	"\"process.cgroup.cpuset\": {\"expect\": true},"
	"\"process.cgroup.cpu_quota\": {\"expect\": true},"
	"\"process.limits.memlock\": {\"min\": 1073741824},"
	"\"process.mempolicy\": {\"expect\": true},"
	"\"kernel.hugepages\": {\"min\": 1073741824},"
	"\"kernel.cmdline\": {\"mitigations\": {\"expect\": [\"auto\", \"(unset)\"]}}"
	"}}";

/* A well-set 2-socket node with one GPU. */
static const char good[] =
	"{\"host\": {\"virtualized\": false},"
	" \"process\": {\"cgroup\": {\"cpuset_cpus\": \"0-3\", \"cpu_quota_cpus\": \"unlimited\"},"
	"   \"limits\": {\"memlock\": {\"soft\": \"unlimited\"}},"
	"   \"mempolicy\": {\"get_mempolicy\": \"allowed\", \"set_mempolicy\": \"allowed\"}},"
	" \"cpu\": {\"cores\": 32, \"smt\": {\"active\": false, \"threads_per_core\": 1, \"control\": \"off\"},"
	"   \"core_cpus\": [\"0\", \"1\", \"2\", \"3\"],"
	"   \"isa\": [\"sse4_2\", \"avx2\", \"avx512f\"], \"hybrid\": false, \"max_mhz\": 3500,"
	"   \"kinds\": [{\"name\": \"general\", \"cpus\": \"0-31\", \"cores\": 32}]},"
	" \"numa\": {\"node_count\": 2, \"nodes\": ["
	"   {\"id\": 0, \"cpus\": \"0-15\", \"cpu_count\": 16, \"memory_bytes\": 68719476736},"
	"   {\"id\": 1, \"cpus\": \"16-31\", \"cpu_count\": 16, \"memory_bytes\": 68182605824}]},"
	" \"memory\": {\"total_bytes\": 137438953472,"
	"   \"ecc\": {\"mode\": \"multi-bit\", \"source\": \"smbios\", \"corrected_errors\": 3, \"uncorrected_errors\": 0},"
	"   \"channels\": {\"total\": 16, \"populated\": 16, \"balanced\": true},"
	"   \"speed\": {\"rated_mts\": 3200, \"configured_mts\": 3200}},"
	" \"pci\": {\"accelerators\": [{\"bdf\": \"0000:41:00.0\", \"numa_node\": 1, \"local_cpus\": \"16-31\","
	"   \"link\": {\"width\": {\"current\": 16, \"max\": 16}, \"speed_gts\": {\"current\": 16, \"max\": 16}},"
	"   \"upstream\": {\"bdf\": \"0000:40:01.0\", \"width_max\": 16, \"speed_gts_max\": 32},"
	"   \"shared_uplink\": null}],"
	"   \"nics\": []},"
	" \"kernel\": {\"governor\": \"performance\", \"numa_balancing\": \"off\","
	"   \"sysctl\": {\"vm.swappiness\": \"10\", \"net.ipv4.tcp_tw_reuse\": \"1\","
	"     \"net.ipv4.ip_local_port_range\": \"1024  65535\", \"net.core.rmem_max\": \"67108864\"},"
	"   \"thp\": {\"enabled\": \"madvise\", \"defrag\": \"madvise\"}, \"swap\": {\"total_bytes\": 0},"
	"   \"hugepages\": {\"total_bytes\": 2147483648, \"nodes\": [{\"node\": 0, \"total_bytes\": 1073741824},"
	"     {\"node\": 1, \"total_bytes\": 1073741824}]},"
	"   \"cmdline\": {\"raw\": \"ro quiet\", \"params\": {\"ro\": \"\", \"quiet\": \"\"}}}}";

/* Everything wrong. */
static const char bad[] =
	"{\"host\": {\"virtualized\": true, \"hypervisor\": \"kvm\"},"
	" \"process\": {\"cgroup\": {\"cpuset_cpus\": \"0-1\", \"cpu_quota_cpus\": 1.5},"
	"   \"limits\": {\"memlock\": {\"soft\": 8388608}},"
	"   \"mempolicy\": {\"get_mempolicy\": \"denied\", \"set_mempolicy\": \"denied\"}},"
	" \"cpu\": {\"cores\": 32, \"smt\": {\"active\": true, \"threads_per_core\": 2, \"control\": \"on\"},"
	"   \"core_cpus\": [\"0,4\", \"1,5\", \"2,6\", \"3,7\"],"
	"   \"isa\": [\"sse4_2\"], \"hybrid\": true, \"max_mhz\": 2000,"
	"   \"kinds\": [{\"name\": \"performance\", \"cpus\": \"0\", \"cores\": 1},"
	"              {\"name\": \"efficiency\", \"cpus\": \"1-31\", \"cores\": 31}]},"
	" \"numa\": {\"node_count\": 2, \"nodes\": ["
	"   {\"id\": 0, \"cpus\": \"0-15\", \"memory_bytes\": 68719476736},"
	"   {\"id\": 1, \"cpus\": \"16-31\", \"memory_bytes\": 34359738368},"
	"   {\"id\": 2, \"cpus\": \"\", \"memory_bytes\": 1}]},"
	" \"memory\": {\"total_bytes\": 68719476736,"
	"   \"ecc\": {\"mode\": \"none\", \"uncorrected_errors\": 2},"
	"   \"channels\": {\"total\": 8, \"populated\": 4, \"balanced\": false},"
	"   \"speed\": {\"rated_mts\": 3200, \"configured_mts\": 2933}},"
	" \"pci\": {\"accelerators\": [{\"bdf\": \"0000:41:00.0\", \"numa_node\": -1, \"local_cpus\": \"\","
	"   \"link\": {\"width\": {\"current\": 8, \"max\": 16}, \"speed_gts\": {\"current\": 2.5, \"max\": 16}},"
	"   \"upstream\": {\"bdf\": \"0000:40:01.0\", \"width_max\": 8, \"speed_gts_max\": 16},"
	"   \"shared_uplink\": {\"bdf\": \"0000:40:01.0\", \"devices\": [\"0000:41:00.0\", \"0000:42:00.0\"],"
	"     \"oversubscribed\": true}}],"
	"   \"nics\": [{\"bdf\": \"0000:01:00.0\", \"link\": {\"width\": {\"current\": 4, \"max\": 8},"
	"     \"speed_gts\": {\"current\": 8, \"max\": 8}}}]},"
	" \"kernel\": {\"governor\": \"powersave\", \"numa_balancing\": \"on\","
	"   \"sysctl\": {\"vm.swappiness\": \"60\", \"net.ipv4.tcp_tw_reuse\": \"2\","
	"     \"net.ipv4.ip_local_port_range\": \"32768 60999\", \"net.core.rmem_max\": \"212992\"},"
	"   \"thp\": {\"enabled\": \"never\"}, \"swap\": {\"total_bytes\": 8589934592},"
	"   \"hugepages\": {\"total_bytes\": 1073741824, \"nodes\": [{\"node\": 0, \"total_bytes\": 1073741824},"
	"     {\"node\": 1, \"total_bytes\": 0}]},"
	"   \"cmdline\": {\"params\": {\"mitigations\": \"off\"}}}}";

static int fetch_all(void *data, const char *name, const char *from, char **text, char **source,
		     char **err)
{
	(void)data;
	(void)from;
	(void)err;
	(void)name;
	*text = xstrdup(all_profile);
	*source = xstrdup("all.json");
	return 0;
}

static const cJSON *find(const cJSON *findings, const char *id, const char *key)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		const cJSON *i = cJSON_GetObjectItemCaseSensitive(f, "id");
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(f, "key");
		if (!strcmp(i->valuestring, id) && (key ? k && !strcmp(k->valuestring, key) : !k))
			return f;
	}
	return NULL;
}

static const char *field(const cJSON *findings, const char *id, const char *key, const char *name)
{
	const cJSON *f = find(findings, id, key);
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(f, name);
	return cJSON_IsString(s) ? s->valuestring : f ? "(not a string)" : "(no finding)";
}

#define STATUS(fs, id, key, want) is_str(field(fs, id, key, "status"), want, "%s%s%s is %s", id, \
					 key ? " " : "", key ? key : "", want)

int main(void)
{
	struct profile p;
	char *err = NULL;
	int counts[ST__N];
	cJSON *facts, *fs, *gaps, *ev;
	const cJSON *f, *x;
	size_t i;

	ok(profile_load(&p, "all", fetch_all, NULL, &err) == 0, "the all-checks profile loads");
	if (err)
		fprintf(stderr, "# %s\n", err);
	is_int(p.nspecs, ncheck_catalog + 4 + 1 - 2, "one spec per check, per sysctl key and cmdline key");

	/* A good node: everything passes but what does not apply. */
	facts = cJSON_Parse(good);
	ok(facts != NULL, "good facts parse");
	fs = checks_run(&p, facts, NULL, NULL, counts);
	for (i = 0; i < p.nspecs; i++) {
		const char *id = p.specs[i].check->id, *key = p.specs[i].key;
		if (!strcmp(id, "cpu.hybrid.pcores") || !strcmp(id, "pci.nic.link") ||
		    !strcmp(id, "bench.efficiency") || !strcmp(id, "pci.accelerator.nic_switch") ||
		    !strcmp(id, "pci.nic.roce_ecn"))
			STATUS(fs, id, key, "skip");
		else
			STATUS(fs, id, key, "pass");
	}
	is_int(counts[ST_PASS], (int)p.nspecs - 5, "pass count");
	is_int(counts[ST_SKIP], 5, "skip count");
	is_str(field(fs, "pci.accelerator.nic_switch", NULL, "reason"), "no network controllers found",
	       "no NICs: no accelerator-NIC pair to ask for");
	is_str(field(fs, "cpu.hybrid.pcores", NULL, "reason"), "not a hybrid CPU: every core is of one kind",
	       "skip says why");
	is_str(field(fs, "pci.nic.link", NULL, "reason"), "no network controllers found", "no NICs: skip");
	is_str(field(fs, "bench.efficiency", NULL, "reason"), "not measured: run 'nodeaudit check --bench'",
	       "bench not run: skip, saying how to run it");
	f = find(fs, "numa.nodes.memory_balanced", NULL);
	x = cJSON_GetObjectItemCaseSensitive(f, "observed");
	ok(cJSON_IsNumber(x) && x->valuedouble > 0.992 && x->valuedouble < 0.993, "node memory ratio 0.9922");
	f = find(fs, "memory.per_core_bytes", NULL);
	x = cJSON_GetObjectItemCaseSensitive(f, "observed");
	ok(cJSON_IsNumber(x) && x->valuedouble == 4294967296.0, "128 GiB / 32 cores = 4 GiB per core (min is inclusive)");
	ok(!cJSON_GetObjectItemCaseSensitive(find(fs, "cpu.smt", NULL), "fix"), "a pass has no fix");
	is_int(checks_exit(counts, "warn"), 0, "exit 0 when everything passes");
	cJSON_Delete(fs);
	cJSON_Delete(facts);

	/* A bad node: warn, fail or info per severity. */
	facts = cJSON_Parse(bad);
	ok(facts != NULL, "bad facts parse");
	ev = cJSON_Parse("{\"cpu.smt.active\": [\"/sys/devices/system/cpu/smt/active\"],"
			 " \"kernel.sysctl.\\\"vm.swappiness\\\"\": [\"/proc/sys/vm/swappiness\"]}");
	fs = checks_run(&p, facts, NULL, ev, counts);
	STATUS(fs, "host.virtualized", NULL, "info");
	STATUS(fs, "cpu.smt", NULL, "warn");
	STATUS(fs, "cpu.governor", NULL, "warn");
	STATUS(fs, "cpu.isa", NULL, "fail");
	STATUS(fs, "cpu.hybrid.pcores", NULL, "fail");
	STATUS(fs, "cpu.max_mhz", NULL, "warn");
	STATUS(fs, "numa.balancing", NULL, "warn");
	STATUS(fs, "numa.nodes.memory_balanced", NULL, "warn");
	STATUS(fs, "memory.ecc", NULL, "fail");
	STATUS(fs, "memory.ecc.errors", NULL, "fail");
	STATUS(fs, "memory.channels.populated_ratio", NULL, "fail");
	STATUS(fs, "memory.channels.balanced", NULL, "warn");
	STATUS(fs, "memory.speed.configured_ratio", NULL, "warn");
	STATUS(fs, "memory.per_core_bytes", NULL, "warn");
	/* x8 of x16 in a slot wired x8: as wide as the slot allows. */
	STATUS(fs, "pci.accelerator.link_width_ratio", NULL, "pass");
	STATUS(fs, "pci.accelerator.link_speed", NULL, "info");
	STATUS(fs, "pci.accelerator.numa_known", NULL, "warn");
	STATUS(fs, "pci.accelerator.numa_local", NULL, "warn");
	STATUS(fs, "pci.accelerator.uplink", NULL, "warn");
	STATUS(fs, "pci.accelerator.uplink_ratio", NULL, "warn");
	is_str(field(fs, "pci.accelerator.uplink_ratio", NULL, "detail"),
	       "0000:41:00.0: upstream x8 at 16 GT/s for a x16 16 GT/s device", "uplink ratio detail");
	STATUS(fs, "pci.nic.link", NULL, "warn");
	STATUS(fs, "kernel.sysctl", "vm.swappiness", "warn");
	STATUS(fs, "kernel.sysctl", "net.ipv4.tcp_tw_reuse", "warn");
	STATUS(fs, "kernel.sysctl", "net.ipv4.ip_local_port_range", "warn");
	STATUS(fs, "kernel.sysctl", "net.core.rmem_max", "fail");
	STATUS(fs, "kernel.thp", NULL, "warn");
	STATUS(fs, "kernel.swap", NULL, "info");
	STATUS(fs, "kernel.hugepages", NULL, "pass");
	ok(strstr(field(fs, "kernel.hugepages", NULL, "detail"), "not the same on every NUMA node") != NULL,
	   "1 GiB on node 0 and none on node 1: said");
	STATUS(fs, "kernel.cmdline", "mitigations", "warn");
	/* The plan's CPUs are 0-3 (one per core); the cpuset 0-1 lacks 2-3. */
	STATUS(fs, "process.cgroup.cpuset", NULL, "warn");
	is_str(field(fs, "process.cgroup.cpuset", NULL, "detail"),
	       "the cgroup's cpuset is 0-1: CPUs 2-3 of the plan's one thread per core are outside it", "cpuset detail");
	STATUS(fs, "process.cgroup.cpu_quota", NULL, "warn");
	STATUS(fs, "process.limits.memlock", NULL, "warn");
	STATUS(fs, "process.mempolicy", NULL, "warn");
	is_int(checks_exit(counts, "warn"), 2, "failures: exit 2");
	is_int(checks_exit(counts, "fail"), 2, "--fail-on fail: still 2");
	is_int(checks_exit(counts, "never"), 0, "--fail-on never: 0");
	is_str(field(fs, "numa.nodes.memory_balanced", NULL, "detail"), "node 0: 64.0 GiB, node 1: 32.0 GiB",
	       "CPU-less node 2 left out of the balance");
	is_str(field(fs, "pci.accelerator.link_width_ratio", NULL, "detail"),
	       "0000:41:00.0: x8 of the x8 its slot allows (the card can do x16)", "link width detail: the slot");
	STATUS(fs, "pci.accelerator.nic_switch", NULL, "unknown");
	is_str(field(fs, "cpu.smt", NULL, "observed"), "on", "observed on");
	is_str(field(fs, "cpu.smt", NULL, "expected"), "off", "expected off");
	is_str(field(fs, "cpu.hybrid.pcores", NULL, "detail"), "P-cores on CPUs 0", "P-core detail");
	is_str(field(fs, "kernel.sysctl", "vm.swappiness", "title"), "sysctl vm.swappiness", "sysctl title");
	is_str(field(fs, "kernel.cmdline", "mitigations", "observed"), "off", "cmdline value");
	is_str(field(fs, "numa.balancing", NULL, "when"), "pinned", "when is carried into the finding");
	f = find(fs, "cpu.smt", NULL);
	x = cJSON_GetObjectItemCaseSensitive(f, "evidence");
	ok(cJSON_GetArraySize(x) == 1 && !strcmp(x->child->valuestring, "/sys/devices/system/cpu/smt/active"),
	   "evidence from the facts' evidence");
	x = cJSON_GetObjectItemCaseSensitive(find(fs, "kernel.sysctl", "vm.swappiness"), "evidence");
	ok(cJSON_GetArraySize(x) == 1 && !strcmp(x->child->valuestring, "/proc/sys/vm/swappiness"),
	   "sysctl evidence by quoted key");
	x = cJSON_GetObjectItemCaseSensitive(f, "fix");
	ok(cJSON_GetArraySize(x) >= 2, "a warning carries fixes");
	x = cJSON_GetObjectItemCaseSensitive(find(fs, "cpu.governor", NULL), "fix");
	is_str(cJSON_GetObjectItemCaseSensitive(x->child, "command")->valuestring,
	       "cpupower frequency-set -g performance", "fix command with the expected value");
	x = cJSON_GetObjectItemCaseSensitive(find(fs, "kernel.sysctl", "vm.swappiness"), "fix");
	is_str(cJSON_GetObjectItemCaseSensitive(x->child, "command")->valuestring,
	       "sysctl -w vm.swappiness='10'", "sysctl fix uses the limit");
	is_str(cJSON_GetObjectItemCaseSensitive(x->child, "kind")->valuestring, "sysctl", "fix kind");
	cJSON_Delete(fs);
	/* The same card in a slot wired x16: trained at x8, it is downtrained. */
	x = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "pci"),
								 "accelerators"), 0);
	cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(x, "upstream"),
							      "width_max"), 16);
	fs = checks_run(&p, facts, NULL, ev, counts);
	STATUS(fs, "pci.accelerator.link_width_ratio", NULL, "fail");
	is_str(field(fs, "pci.accelerator.link_width_ratio", NULL, "detail"), "0000:41:00.0: x8 of x16",
	       "link width detail: downtrained");
	cJSON_Delete(fs);
	cJSON_Delete(ev);

	/* Only warnings: exit 1, or 0 with --fail-on fail. */
	memset(counts, 0, sizeof(counts));
	counts[ST_WARN] = 1;
	counts[ST_UNKNOWN] = 4;
	counts[ST_INFO] = 2;
	is_int(checks_exit(counts, "warn"), 1, "warnings: exit 1");
	is_int(checks_exit(counts, "fail"), 0, "warnings with --fail-on fail: exit 0");
	counts[ST_WARN] = 0;
	is_int(checks_exit(counts, "warn"), 0, "unknown and info alone: exit 0");
	cJSON_Delete(facts);

	/* Nothing known: every check unknown, never pass; gaps give the reason. */
	facts = cJSON_Parse("{\"cpu\": {\"smt\": {\"active\": null}}, \"kernel\": {\"sysctl\": {\"vm.swappiness\": null}}}");
	gaps = cJSON_Parse("[{\"fact\": \"cpu.smt.active\", \"reason\": \"/sys/devices/system/cpu/smt/active: missing\"},"
			   " {\"fact\": \"memory.ecc\", \"reason\": \"no EDAC driver loaded\"}]");
	fs = checks_run(&p, facts, gaps, NULL, counts);
	is_int(counts[ST_UNKNOWN], (int)p.nspecs - 1, "every check unknown on an empty fact tree "
	       "(but bench.efficiency: skipped, as no benchmark ran)");
	{
		/* check --bench: 19.2 GB/s measured of 76.8 GB/s theoretical = 0.25, the
		 * inclusive minimum; 7.68 of 76.8 = 0.1 warns; no peak: unknown. */
		cJSON *b1 = cJSON_Parse("{\"bench\": {\"efficiency\": 0.25, \"peak_bytes_per_s\": 76.8e9,"
					" \"bandwidth\": {\"bytes_per_s\": 19.2e9}}}");
		cJSON *b2 = cJSON_Parse("{\"bench\": {\"efficiency\": 0.1, \"peak_bytes_per_s\": 76.8e9,"
					" \"bandwidth\": {\"bytes_per_s\": 7.68e9}}}");
		cJSON *b3 = cJSON_Parse("{\"bench\": {\"efficiency\": null, \"peak_bytes_per_s\": null,"
					" \"bandwidth\": {\"bytes_per_s\": 7.68e9}}}");
		cJSON *r1 = checks_run(&p, b1, NULL, NULL, counts);
		cJSON *r2 = checks_run(&p, b2, NULL, NULL, counts);
		cJSON *r3 = checks_run(&p, b3, NULL, NULL, counts);
		STATUS(r1, "bench.efficiency", NULL, "pass");
		STATUS(r2, "bench.efficiency", NULL, "warn");
		STATUS(r3, "bench.efficiency", NULL, "unknown");
		ok(strstr(field(r3, "bench.efficiency", NULL, "reason"), "theoretical peak is unknown") != NULL,
		   "unknown peak: says so");
		cJSON_Delete(r1); cJSON_Delete(r2); cJSON_Delete(r3);
		cJSON_Delete(b1); cJSON_Delete(b2); cJSON_Delete(b3);
	}
	is_int(counts[ST_PASS], 0, "none passes");
	is_str(field(fs, "cpu.smt", NULL, "reason"), "cpu.smt.active: /sys/devices/system/cpu/smt/active: missing",
	       "reason from the gap");
	is_str(field(fs, "memory.ecc", NULL, "reason"), "memory.ecc: no EDAC driver loaded",
	       "reason from a parent's gap");
	is_str(field(fs, "memory.channels.populated_ratio", NULL, "reason"),
	       "memory.channels.populated not known (the memory probe did not report it)", "reason without a gap");
	ok(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(find(fs, "cpu.smt", NULL), "observed")),
	   "observed is null when unknown");
	is_int(checks_exit(counts, "warn"), 0, "unknowns alone do not fail the run");
	cJSON_Delete(fs);
	cJSON_Delete(gaps);
	cJSON_Delete(facts);

	/* One NUMA node: balancing and accelerator node checks do not apply. */
	facts = cJSON_Parse("{\"numa\": {\"node_count\": 1},"
			    " \"pci\": {\"accelerators\": [], \"nics\": null},"
			    " \"memory\": {\"ecc\": {\"mode\": \"unknown\"}},"
			    " \"kernel\": {\"numa_balancing\": \"on\", \"governor\": \"mixed\","
			    "   \"sysctl\": {\"net.core.rmem_max\": \"4096 8192\"}}}");
	fs = checks_run(&p, facts, NULL, NULL, counts);
	STATUS(fs, "numa.balancing", NULL, "skip");
	STATUS(fs, "pci.accelerator.numa_known", NULL, "skip");
	STATUS(fs, "pci.accelerator.link_width_ratio", NULL, "skip");
	STATUS(fs, "pci.nic.link", NULL, "unknown");
	STATUS(fs, "memory.ecc", NULL, "unknown");
	STATUS(fs, "cpu.governor", NULL, "warn");
	STATUS(fs, "kernel.sysctl", "net.core.rmem_max", "unknown");
	is_str(field(fs, "kernel.sysctl", "net.core.rmem_max", "reason"), "'4096 8192' is not a single number",
	       "min on a multi-number sysctl is unknown");
	is_str(field(fs, "pci.accelerator.link_width_ratio", NULL, "reason"), "no accelerators found",
	       "no accelerators: skip");
	cJSON_Delete(fs);
	cJSON_Delete(facts);

	/* An ARM node: NEON satisfies the ISA check (any of the list). */
	facts = cJSON_Parse("{\"cpu\": {\"isa\": [\"neon\", \"sve\"]}}");
	fs = checks_run(&p, facts, NULL, NULL, counts);
	STATUS(fs, "cpu.isa", NULL, "pass");
	cJSON_Delete(fs);
	cJSON_Delete(facts);

	/* The catalog: every check has explain text and a fix. */
	for (i = 0; i < ncheck_catalog; i++) {
		const struct check *c = &check_catalog[i];
		ok(c->what && c->why && strstr(c->why, "nodeaudit-checks(7)") && c->fixes[0].kind,
		   "%s has what, why (citing nodeaudit-checks(7)) and a fix", c->id);
		/* Cite only what ships: no .md file (DOMAIN.md is not installed). */
		ok(!strstr(c->why, ".md") && !strstr(c->what, ".md") &&
		   (!c->disagree || !strstr(c->disagree, ".md")),
		   "%s cites no unshipped document", c->id);
	}
	ok(check_find("cpu.smt") == &check_catalog[1], "check_find");
	profile_release(&p);
	return done_testing();
}
