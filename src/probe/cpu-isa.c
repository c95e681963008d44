/* probe/cpu-isa.c - the vector and matrix extensions every online CPU has (cpu.isa) */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const struct { const char *flag, *name; } isa_x86[] = {
	{ "avx", "avx" }, { "avx2", "avx2" }, { "fma", "fma" }, { "f16c", "f16c" },
	{ "avx512f", "avx512f" }, { "avx512bw", "avx512bw" }, { "avx512vl", "avx512vl" },
	{ "avx512_vnni", "avx512_vnni" }, { "avx_vnni", "avx_vnni" }, { "avx512_bf16", "avx512_bf16" },
	{ "avx512_fp16", "avx512_fp16" }, { "amx_tile", "amx_tile" }, { "amx_int8", "amx_int8" },
	{ "amx_bf16", "amx_bf16" },
}, isa_arm[] = {
	/* The kernel's hwcap names (Documentation/arch/arm64/elf_hwcaps.rst):
	 * asimdhp is Advanced SIMD half precision (FEAT_FP16), svei8mm and
	 * svebf16 the SVE forms of the int8 matrix multiply and bf16. */
	{ "asimd", "neon" }, { "neon", "neon" }, { "asimdhp", "fp16" }, { "asimddp", "dotprod" },
	{ "i8mm", "i8mm" }, { "sve", "sve" }, { "sve2", "sve2" }, { "svei8mm", "sve_i8mm" },
	{ "bf16", "bf16" }, { "svebf16", "sve_bf16" }, { "sme", "sme" },
};

const char *arch_family(const char *arch)
{
	if (!arch)
		return NULL;
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "i686") || !strcmp(arch, "i386"))
		return "x86";
	if (!strncmp(arch, "aarch64", 7) || !strncmp(arch, "arm", 3))
		return "ARM";
	return NULL;
}

const char *cpu_isa_arch(const char *word)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(isa_x86); i++)
		if (!strcmp(word, isa_x86[i].name))
			return "x86";
	for (i = 0; i < ARRAY_SIZE(isa_arm); i++)
		if (!strcmp(word, isa_arm[i].name))
			return "ARM";
	return NULL;
}

/* What /proc/cpuinfo's first block describes: "x86" (vendor_id, no
 * implementer), "ARM" (a CPU implementer), NULL when it cannot tell. */
static const char *cpuinfo_arch(const struct cpuinfo *ci)
{
	const struct ci_proc *p = &ci->p[0];
	if (p->implementer >= 0 || ci->g.implementer >= 0)
		return "ARM";
	if (ci_str(ci, p, offsetof(struct ci_proc, vendor)))
		return "x86";
	return NULL;
}

/* The kernel's architecture against /proc/cpuinfo's: a binary run under
 * an emulator (qemu-user reads the host's /proc/cpuinfo) or a capture put
 * together from two machines.  1 after the gap when they differ. */
static int arch_mismatch(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu)
{
	const char *what = cpuinfo_arch(ci);
	const char *arch = cJSON_GetStringValue(facts_get(st->f->root, "host.arch"));
	if (!what || (!(st->arm && !strcmp(what, "x86")) && !(st->x86 && !strcmp(what, "ARM"))))
		return 0;
	fj_set(cpu, "isa", cJSON_CreateNull());
	pc_gap(&st->pc, "isa", "the kernel's architecture is %s but /proc/cpuinfo describes an %s CPU: "
		  "an emulator (qemu-user shows the host's /proc/cpuinfo) or a capture of two machines",
		  arch ? arch : st->arm ? "ARM" : "x86", what);
	return 1;
}

/* cpu.sve_vector_bits: the SVE vector length new processes get
 * (/proc/sys/abi/sve_default_vector_length, bytes): the kernel sets it at
 * boot to the largest length the hardware has up to 512 bits, so it is
 * the hardware's on every SVE server so far (128 bits on Grace, 256 on
 * Graviton 3, 512 on A64FX), unless an administrator lowered it. */
static void sve_length(struct cpu_state *st, cJSON *cpu)
{
	struct path_cxt pc = st->pc;
	uint64_t b;
	int r = pc_read_u64(&pc, &b, "/proc/sys/abi/sve_default_vector_length");
	if (r == 0 && b >= 16 && b <= 256 && b % 16 == 0) {
		fj_num(cpu, "sve_vector_bits", (double)(b * 8));
		pc_evidence(&pc, "sve_vector_bits");
		return;
	}
	fj_set(cpu, "sve_vector_bits", cJSON_CreateNull());
	if (r < 0)
		pc_gap_read(&pc, "sve_vector_bits", r);
	else
		pc_gap(&pc, "sve_vector_bits", "%s: %llu bytes is not an SVE vector length (16 to 256, "
		       "a multiple of 16)", pc.path, (unsigned long long)b);
}

/* Flags every online CPU has (kernels print the same list for all, but a
 * capture may be edited or truncated). */
void cpu_probe_isa(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu, const char **first)
{
	cJSON *a;
	const cJSON *e0;
	size_t i, nt = st->x86 ? ARRAY_SIZE(isa_x86) : ARRAY_SIZE(isa_arm);
	int id, any = 0, sve = 0;
	hwloc_bitmap_t none = hwloc_bitmap_alloc();
	*first = NULL;
	if (!ci->read_ok) {
		fj_set(cpu, "isa", cJSON_CreateNull());
		hwloc_bitmap_free(none);
		return;   /* the gap for /proc/cpuinfo is already there */
	}
	hwloc_bitmap_foreach_begin(id, st->online) {
		const char *fl = ci_str(ci, ci_find(ci, id), offsetof(struct ci_proc, flags));
		if (fl) {
			any = 1;
			if (!*first)
				*first = fl;
		} else
			hwloc_bitmap_set(none, (unsigned)id);
	} hwloc_bitmap_foreach_end();
	if (any && arch_mismatch(st, ci, cpu)) {
		hwloc_bitmap_free(none);
		return;
	}
	if (!any || (!st->x86 && !st->arm)) {
		fj_set(cpu, "isa", cJSON_CreateNull());
		pc_gap(&st->pc, "isa", any ? "/proc/cpuinfo: the architecture is neither x86 nor ARM"
			  : "/proc/cpuinfo: no flags or Features line");
		hwloc_bitmap_free(none);
		return;
	}
	/* An online CPU without flags (no block of its own, none shared) is
	 * unknown, not a CPU that lacks them: what all CPUs have is unknown. */
	if (!hwloc_bitmap_iszero(none)) {
		char *b = cpulist_dup(none);
		fj_set(cpu, "isa", cJSON_CreateNull());
		pc_gap(&st->pc, "isa", "/proc/cpuinfo has no flags or Features for online CPU%s %s",
			  hwloc_bitmap_weight(none) == 1 ? "" : "s", b);
		free(b);
		hwloc_bitmap_free(none);
		return;
	}
	hwloc_bitmap_free(none);
	a = cJSON_CreateArray();
	for (i = 0; i < nt; i++) {
		const char *flag = st->x86 ? isa_x86[i].flag : isa_arm[i].flag;
		const char *name = st->x86 ? isa_x86[i].name : isa_arm[i].name;
		int all = 1, dup = 0;
		const cJSON *e;
		hwloc_bitmap_foreach_begin(id, st->online) {
			const char *fl = ci_str(ci, ci_find(ci, id), offsetof(struct ci_proc, flags));
			if (!fl || !cpu_has_word(fl, flag))
				all = 0;
		} hwloc_bitmap_foreach_end();
		cJSON_ArrayForEach(e, a)
			if (!strcmp(e->valuestring, name))
				dup = 1;
		if (all && !dup)
			cJSON_AddItemToArray(a, cJSON_CreateString(name));
	}
	fj_set(cpu, "isa", a);
	pc_evidence_of(&st->pc, "isa", "/proc/cpuinfo");
	cJSON_ArrayForEach(e0, a)
		if (!strcmp(e0->valuestring, "sve"))
			sve = 1;
	if (st->arm && sve)
		sve_length(st, cpu);
}

/* The kernel may hide what the CPU has (clearcpuid=, a hypervisor's
 * CPUID masking is seen by both): report it, keep /proc/cpuinfo. */
void cpu_isa_vs_libcpuid(struct cpu_state *st, const struct cpu_lib *cl, const char *flags)
{
	const struct cpuid_info *lib = &cl->lib;
	if (cl->lib_ok && cl->libsrc && strcmp(cl->libsrc, "dump") && lib->ntypes > 0 && flags && st->x86) {
		static const char *const fl[] = { "avx2", "avx512f" };
		size_t q;
		for (q = 0; q < ARRAY_SIZE(fl); q++) {
			int has_lib = q == 0 ? lib->t[0].avx2 : lib->t[0].avx512f;
			int has_ci = cpu_has_word(flags, fl[q]);
			if (has_lib != has_ci)
				pc_conflict(&st->pc, "isa", "/proc/cpuinfo", "libcpuid",
					       "CPUID %s %s, /proc/cpuinfo %s", has_lib ? "has" : "lacks",
					       fl[q], has_ci ? "lists it" : "does not list it");
		}
	}
}
