/* test-cpu-kinds.c - grouping cores into kinds: the traps of real machines */
#include "config.h"
#include "probe/cpu-kinds.h"
#include "read/libcpuid.h"
#include "probe/probe.h"
#include "tap.h"

#include <unistd.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct ck_core C(int first, int thr, int l2, uint64_t base, uint64_t max, uint64_t cap, long part)
{
	struct ck_core c;
	c.first_cpu = first;
	c.nthreads = thr;
	c.l2_cores = l2;
	c.base_khz = base;
	c.max_khz = max;
	c.capacity = cap;
	c.part = part;
	return c;
}

static int count(const struct ck_result *r, size_t n, int k)
{
	size_t i;
	int c = 0;
	for (i = 0; i < n; i++)
		c += r->kind[i] == k;
	return c;
}

/* Raptor Lake laptop (i7-1360P-like): 4 P-cores with SMT, two of them
 * favoured by Turbo Boost Max 3.0 (5000 vs 4800 MHz), 8 E-cores. */
static void test_rpl_tbm3(void)
{
	struct ck_core c[12];
	struct ck_result r;
	char nm[32];
	int i;
	for (i = 0; i < 4; i++)
		c[i] = C(2 * i, 2, 1, 2200000, i < 2 ? 5000000 : 4800000, 0, -1);
	for (i = 4; i < 12; i++)
		c[i] = C(8 + (i - 4), 1, 4, 1600000, 3700000, 0, -1);
	ck_classify(c, 12, &r);
	is_int(r.nkinds, 2, "rpl: base_frequency gives 2 kinds");
	is_str(ck_source_name(r.source), "base_frequency", "rpl: source base_frequency");
	is_int(count(&r, 12, 0), 4, "rpl: 4 performance cores");
	is_int(count(&r, 12, 1), 8, "rpl: 8 efficiency cores");
	is_str(ck_kind_name(r.nkinds, 0, r.source, nm, sizeof(nm)), "performance", "rank 0 is performance");
	is_str(ck_kind_name(r.nkinds, 1, r.source, nm, sizeof(nm)), "efficiency", "rank 1 is efficiency");
	ck_result_release(&r);

	/* Without base_frequency, max frequency alone: 3 values, 2 kinds. */
	for (i = 0; i < 12; i++)
		c[i].base_khz = 0;
	ck_classify(c, 12, &r);
	is_int(r.nkinds, 2, "rpl without base: 3 max frequencies make 2 kinds");
	is_str(ck_source_name(r.source), "max_frequency", "rpl without base: source max_frequency");
	is_int(count(&r, 12, 0), 4, "rpl without base: TBM3 cores stay performance");
	ck_result_release(&r);
}

/* A homogeneous Xeon with two favoured cores (TBM3): one kind. */
static void test_tbm3_homogeneous(void)
{
	struct ck_core c[8];
	struct ck_result r;
	char nm[32];
	int i;
	for (i = 0; i < 8; i++)
		c[i] = C(i, 2, 1, 0, i < 2 ? 4500000 : 4300000, 0, -1);
	ck_classify(c, 8, &r);
	is_int(r.nkinds, 1, "tbm3 server: 1 kind");
	is_str(ck_kind_name(r.nkinds, 0, r.source, nm, sizeof(nm)), "general", "homogeneous kind is general");
	ck_result_release(&r);
}

/* NVIDIA GB10-like: 10 Cortex-X925 + 10 Cortex-A725, capacities and clocks
 * in 5 groups; the MIDR part gives the right 2. */
static void test_arm_midr(void)
{
	static const uint64_t cap[5] = { 1024, 1004, 985, 767, 751 };
	struct ck_core c[20];
	struct ck_result r;
	int i;
	for (i = 0; i < 20; i++) {
		int x = i < 10;
		int g = x ? (i < 4 ? 0 : i < 7 ? 1 : 2) : (i < 15 ? 3 : 4);
		c[i] = C(i, 1, 1, 0, 2000000 + cap[g] * 1000, cap[g], x ? 0x41d85 : 0x41d87);
	}
	ck_classify(c, 20, &r);
	is_int(r.nkinds, 2, "gb10: MIDR gives 2 kinds");
	is_str(ck_source_name(r.source), "midr", "gb10: source midr");
	is_int(r.kind[0], 0, "gb10: X925 is performance");
	is_int(r.kind[19], 1, "gb10: A725 is efficiency");
	is_int(count(&r, 20, 0), 10, "gb10: 10 performance cores");
	ck_result_release(&r);

	/* Without capacity or frequency the core table ranks them. */
	for (i = 0; i < 20; i++)
		c[i].capacity = c[i].max_khz = 0;
	c[0].part = 0x41d87;   /* order of appearance must not matter */
	c[19].part = 0x41d85;
	ck_classify(c, 20, &r);
	is_int(r.kind[0], 1, "table: A725 ranks below X925");
	is_int(r.kind[19], 0, "table: X925 ranks first");
	ck_result_release(&r);

	/* The capacities alone: 5 groups that do not cluster into 2: unused. */
	for (i = 0; i < 20; i++)
		c[i].part = -1;
	ck_classify(c, 20, &r);
	is_int(r.nkinds, 1, "gb10 without MIDR or capacity: topology (all private L2) says 1");
	ck_result_release(&r);
}

/* Alder Lake-P without cpufreq or capacity (ghw capture): topology. */
static void test_adl_topology(void)
{
	struct ck_core c[12];
	struct ck_result r;
	int i;
	for (i = 0; i < 4; i++)
		c[i] = C(2 * i, 2, 1, 0, 0, 0, -1);
	for (i = 4; i < 12; i++)
		c[i] = C(8 + i - 4, 1, 4, 0, 0, 0, -1);
	ck_classify(c, 12, &r);
	is_int(r.nkinds, 2, "adl: topology gives 2 kinds");
	is_str(ck_source_name(r.source), "topology", "adl: source topology");
	is_int(count(&r, 12, 0), 4, "adl: 4 P-cores");
	ck_result_release(&r);

	/* An SMT core that shares its L2: ambiguous, unknown. */
	c[5].nthreads = 2;
	ck_classify(c, 12, &r);
	is_int(r.nkinds, 0, "ambiguous topology: unknown");
	ok(strlen(r.note) > 0, "ambiguous topology: says why");
	ck_result_release(&r);

	/* No L2 information at all: unknown. */
	for (i = 0; i < 12; i++)
		c[i].l2_cores = 0;
	ck_classify(c, 12, &r);
	is_int(r.nkinds, 0, "no L2 data: unknown");
	ck_result_release(&r);
}

/* Ryzen 9 7950X-like on amd-pstate: the CCDs boost to 5.7 and 5.1 GHz
 * (10.5% apart), all cores SMT with a private L2: one kind. */
static void test_amd_ccds(void)
{
	struct ck_core c[16];
	struct ck_result r;
	int i;
	for (i = 0; i < 16; i++)
		c[i] = C(i, 2, 1, 0, i < 8 ? 5700000 : 5100000, 0, -1);
	ck_classify(c, 16, &r);
	is_int(r.nkinds, 1, "7950X: CCD boost clocks are not kinds");
	is_str(ck_source_name(r.source), "topology", "7950X: topology decides");
	ck_result_release(&r);
}

/* Lunar Lake-like: P- and E-cores share a 2.2 GHz base; max 4.8 vs 3.7,
 * P-cores private L2, E-cores one shared L2. */
static void test_lunar_lake(void)
{
	struct ck_core c[8];
	struct ck_result r;
	int i;
	for (i = 0; i < 8; i++)
		c[i] = C(i, 1, i < 4 ? 1 : 4, 2200000, i < 4 ? 4800000 : 3700000, 0, -1);
	ck_classify(c, 8, &r);
	is_int(r.nkinds, 2, "lunar lake: 2 kinds despite one base frequency");
	is_str(ck_source_name(r.source), "max_frequency", "lunar lake: source max_frequency");
	is_int(count(&r, 8, 0), 4, "lunar lake: 4 performance cores");
	ck_result_release(&r);
}

static void test_misc(void)
{
	uint64_t v[6] = { 4900, 4700, 3400, 3400, 4700, 1000 };
	int g[6];
	char nm[32];
	struct ck_result r;
	is_int(ck_cluster(v, 6, 0.10, g), 3, "cluster: 3 clusters");
	is_int(g[0], 0, "cluster: 4900 with 4700");
	is_int(g[1], 0, "cluster: 4700 highest cluster");
	is_int(g[2], 1, "cluster: 3400 second");
	is_int(g[5], 2, "cluster: 1000 third");
	v[3] = 0;
	is_int(ck_cluster(v, 6, 0.10, g), -1, "cluster: unknown value refused");
	is_str(ck_kind_name(3, 0, CK_MIDR, nm, sizeof(nm)), "performance", "3 kinds: the top is performance");
	is_str(ck_kind_name(3, 1, CK_MIDR, nm, sizeof(nm)), "mid", "3 kinds: the middle is mid");
	is_str(ck_kind_name(3, 2, CK_BASE_FREQ, nm, sizeof(nm)), "efficiency", "3 kinds: the last is efficiency");
	is_str(ck_kind_name(4, 2, CK_CAPACITY, nm, sizeof(nm)), "mid2", "4 kinds: the third is mid2");
	is_str(ck_kind_name(4, 3, CK_CAPACITY, nm, sizeof(nm)), "efficiency", "4 kinds: the last is efficiency");
	is_str(ck_arm_part_name(0x41d85, NULL), "Cortex-X925", "part name X925");
	ok(ck_arm_part_name(0x41fff, NULL) == NULL, "unknown part");
	ck_classify(NULL, 0, &r);
	is_int(r.nkinds, 0, "no cores: unknown");
	ck_result_release(&r);
}

/* A phone with three core types (X1 + A76 + A55: capacities 1024, 820
 * and 280 by its device tree's capacity-dmips-mhz) and no MIDR per CPU (one
 * CPU part in /proc/cpuinfo): three kinds by capacity, the single X1 the
 * performance kind; and 4 core types of 4 capacities, 4 kinds; 5 are not
 * core types. */
static void test_three_capacities(void)
{
	struct ck_core c[8];
	struct ck_result r;
	uint64_t caps[5] = { 1024, 870, 700, 420, 180 };
	int i;
	for (i = 0; i < 8; i++)
		c[i] = C(i, 1, 1, 0, 0, i < 4 ? 280 : i < 7 ? 820 : 1024, -1);
	ck_classify(c, 8, &r);
	is_int(r.nkinds, 3, "3 capacities: 3 kinds");
	is_str(ck_source_name(r.source), "cpu_capacity", "3 capacities: source cpu_capacity");
	is_int(r.kind[7], 0, "3 capacities: the 1024 core is the top kind");
	is_int(count(&r, 8, 1), 3, "3 capacities: 3 mid cores");
	is_int(count(&r, 8, 2), 4, "3 capacities: 4 efficiency cores");
	ck_result_release(&r);
	for (i = 0; i < 8; i++)
		c[i].capacity = caps[i < 4 ? i : 3];
	ck_classify(c, 8, &r);
	is_int(r.nkinds, 4, "4 capacities: 4 kinds");
	ck_result_release(&r);
	for (i = 0; i < 8; i++)
		c[i].capacity = caps[i < 5 ? i : 4];
	ck_classify(c, 8, &r);
	ok(r.source != CK_CAPACITY, "5 capacity groups: not kinds by capacity");
	ck_result_release(&r);
}

/* libcpuid's codename is shown only where a row of the CPU's own model
 * carries it: Ice Lake-SP (family 6, model 106) has no row in 0.6.2 and
 * comes out as its nearest, "P-III Xeon (Cascades)". */
static void test_codename_trust(void)
{
	struct cpuid_type t;
	memset(&t, 0, sizeof(t));
	t.intel = 1;
	t.family = t.ext_family = 6;
	t.model = 10;
	t.ext_model = 106;
	snprintf(t.codename, sizeof(t.codename), "P-III Xeon (Cascades)");
	ok(!codename_trusted(&t), "Ice Lake-SP (6/106): libcpuid's P-III guess is not trusted");
	t.model = 7;
	t.ext_model = 167;
	snprintf(t.codename, sizeof(t.codename), "Xeon (Wolfdale)");
	ok(!codename_trusted(&t), "Rocket Lake (6/167) named Wolfdale (a 6/23 row): not trusted");
	snprintf(t.codename, sizeof(t.codename), "Rocket Lake (Core i7)");
	ok(codename_trusted(&t), "Rocket Lake (6/167) named by its own row: trusted");
	t.model = 5;
	t.ext_model = 85;
	snprintf(t.codename, sizeof(t.codename), "Skylake (Xeon Scalable)");
	ok(codename_trusted(&t), "Skylake-SP (6/85): its own row");
	t.intel = 0;
	t.amd = 1;
	t.family = 15;
	t.ext_family = 0x19;
	t.ext_model = 0x75;
	snprintf(t.codename, sizeof(t.codename), "Ryzen 7 (Raphael)");
	ok(!codename_trusted(&t), "Hawk Point (19h/0x75) named Raphael: not trusted");
	t.ext_model = 1;
	snprintf(t.codename, sizeof(t.codename), "EPYC (Milan)");
	ok(codename_trusted(&t), "Milan (19h/1): its own row");
}

/* The live dump the snapshot stores reads back through the same path a
 * --cpuid-dump takes; ARM dumps are recognised without libcpuid. */
static void test_cpuid(void)
{
	char path[] = "/tmp/test-cpuid.XXXXXX";
	struct cpuid_info info;
	int fd = mkstemp(path), r;
	is_int(cpuid_dump_kind("_____ Logical CPU #0 _____\narm_midr=f1255ec0410fd083\n"), CPUID_DUMP_ARM,
	       "ARM dump recognised");
	is_int(cpuid_dump_kind("basic_cpuid[0]=00000010 68747541 444d4163 69746e65\n"), CPUID_DUMP_X86,
	       "native x86 dump recognised");
	is_int(cpuid_dump_kind("hello\n"), CPUID_DUMP_UNKNOWN, "anything else is unknown");
	if (fd >= 0)
		close(fd);
	r = cpu_snapshot_cpuid(path);
	if (r == -ENOTSUP) {
		ok(1, "# SKIP no CPUID on this host");
	} else {
		is_int(r, 0, "live dump written");
		is_int(cpuid_collect(path, &info), 0, "live dump reads back");
		ok(info.ntypes >= 1 && info.t[0].threads >= 1, "live dump has a CPU type");
	}
	unlink(path);
}

int main(void)
{
	test_three_capacities();
	test_codename_trust();
	test_cpuid();
	test_rpl_tbm3();
	test_tbm3_homogeneous();
	test_arm_midr();
	test_adl_topology();
	test_amd_ccds();
	test_lunar_lake();
	test_misc();
	return done_testing();
}
