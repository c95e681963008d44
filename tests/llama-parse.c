/* tests/llama-parse.c - llama.cpp's own argument parser as the judge of a
 * launch line: load libllama-common.so (the npm package
 * @node-llama-cpp/linux-x64 and linux-arm64 ship one), hand the words to
 * common_params_parse() for the server (LLAMA_EXAMPLE_SERVER) and print what
 * it made of them, read back from its common_params.
 *
 *   llama-parse LIBDIR llama-server WORD...
 *
 * Prints one line: "threads=N threads_batch=N cpus=LIST cpus_batch=LIST
 * strict=0|1 strict_batch=0|1 numa=NAME load_mode=NAME model=PATH" (LIST is
 * "-" when the mask is not set: any CPU).  Exit 0: accepted; 1: refused
 * (llama.cpp's message is on stderr); 77: no library in LIBDIR (the test
 * skips); 99: the library's common_params is not laid out as below, so
 * nothing can be read back (the line is then "accepted" or "refused" only).
 *
 * common_params is a C++ struct.  What is read of it, and where, is from
 * common/common.h of the llama.cpp the package bundles (ggml-org/llama.cpp
 * at 0ad4a86, LLAMA_BUILD_NUMBER's commit; the same in later releases):
 *
 *   enum llama_load_mode load_mode;   enum llama_lazy_mode lazy_mode;
 *   common_cpu_params cpuparams, cpuparams_batch;
 *   ggml_backend_sched_eval_callback cb_eval;  void *cb_eval_user_data;
 *   ggml_numa_strategy numa;
 *
 * with common_cpu_params { int n_threads; bool cpumask[GGML_MAX_N_THREADS
 * = 512]; bool mask_valid; enum ggml_sched_priority priority; bool
 * strict_cpu; uint32_t poll; } (532 bytes), and model.path a std::string.
 * Absolute offsets depend on everything before them (std::vector and
 * std::string members), so none is assumed: the object is built by the
 * library's own constructor, and the field offsets are found by parsing
 * known lines and seeing which bytes change (-t 1234 -> n_threads), then
 * every other field's place relative to it is checked the same way (-tb,
 * -C, --cpu-strict), and load_mode, numa and model.path are found the same
 * way (-lm, --numa, -m), before a plan's line is read.  None of llama.cpp's
 * code is here; the enum values are those of llama.h and ggml.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 512                /* GGML_MAX_N_THREADS */
#define CPUP_SIZE 532           /* sizeof(common_cpu_params) */
#define STRICT 524              /* offsetof(common_cpu_params, strict_cpu) */
#define OBJ_SIZE (1u << 20)     /* more than sizeof(common_params) */
#define LLAMA_EXAMPLE_SERVER 12 /* common/common.h's enum llama_example */

typedef void (*ctor_t)(void *);
typedef int (*parse_t)(int, char **, void *, int, void (*)(int, char **));

static ctor_t ctor, dtor;
static parse_t parse;

/* The offsets found: n_threads of cpuparams, load_mode, numa, model.path. */
static long off_t_, off_lm, off_numa, off_model;

static void *fresh(void)
{
	void *p = aligned_alloc(64, OBJ_SIZE);
	if (!p) {
		perror("llama-parse");
		exit(99);
	}
	memset(p, 0, OBJ_SIZE);
	ctor(p);
	return p;
}

static void drop(void *p)
{
	dtor(p);
	free(p);
}

/* Parse words (a NULL-terminated list) into a fresh object; NULL if refused. */
static void *run(char **words)
{
	int n = 0;
	void *p = fresh();
	while (words[n])
		n++;
	if (!parse(n, words, p, LLAMA_EXAMPLE_SERVER, NULL)) {
		drop(p);
		return NULL;
	}
	return p;
}

static int32_t i32(const void *p, long off)
{
	int32_t v;
	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

static uint64_t u64(const void *p, long off)
{
	uint64_t v;
	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

/* A std::string (libstdc++: pointer, length, then a 16-byte local buffer)
 * at off that holds s; base is the object's address. */
static int is_string(const void *p, long off, const char *s)
{
	uint64_t ptr = u64(p, off), len = u64(p, off + 8);
	if (len != strlen(s) || !ptr)
		return 0;
	return !memcmp((const char *)(uintptr_t)ptr, s, len);
}

static int is_empty_string(const void *p, long off)
{
	return u64(p, off) == (uint64_t)(uintptr_t)((const char *)p + off + 16) && u64(p, off + 8) == 0;
}

static int fail_layout(const char *what)
{
	fprintf(stderr, "llama-parse: common_params is not laid out as common.h of 0ad4a86 has it: %s\n", what);
	return -1;
}

/* Find and check the offsets; -1 when the layout is not the one above. */
static int calibrate(void)
{
	static char *b[] = { "llama-server", NULL };
	static char *t[] = { "llama-server", "-t", "1234", "-tb", "2345", "-lm", "mmap+mlock", "--numa",
			     "numactl", "-C", "0x5", "--cpu-mask-batch", "0x30", "-m",
			     "/calibration/of/llama-parse/model.gguf", "--cpu-strict", "1", NULL };
	static char *u[] = { "llama-server", "-lm", "none", "--numa", "distribute", NULL };
	void *pb = run(b), *pt = run(t), *pu = run(u);
	long off;
	int r = -1;
	if (!pb || !pt || !pu) {
		r = fail_layout("a calibration line was refused");
		goto out;
	}
	off_t_ = -1;
	for (off = 0; off + 4 <= (long)OBJ_SIZE; off += 4)
		if (i32(pt, off) == 1234 && i32(pb, off) != 1234) {
			off_t_ = off;
			break;
		}
	if (off_t_ < 8) {
		r = fail_layout("-t 1234 changed no int");
		goto out;
	}
	if (i32(pt, off_t_ + CPUP_SIZE) != 2345) {
		r = fail_layout("-tb is not in cpuparams_batch.n_threads");
		goto out;
	}
	{
		const unsigned char *m = (const unsigned char *)pt + off_t_ + 4;
		const unsigned char *mb = (const unsigned char *)pt + off_t_ + CPUP_SIZE + 4;
		if (!(m[0] == 1 && m[1] == 0 && m[2] == 1 && m[3] == 0 && m[MAXT] == 1 &&
		      mb[4] == 1 && mb[5] == 1 && mb[0] == 0 && mb[MAXT] == 1)) {
			r = fail_layout("-C 0x5 / --cpu-mask-batch 0x30 are not in cpumask[] and mask_valid");
			goto out;
		}
	}
	if (((unsigned char *)pt)[off_t_ + STRICT] != 1 || ((unsigned char *)pb)[off_t_ + STRICT] != 0) {
		r = fail_layout("--cpu-strict is not in cpuparams.strict_cpu");
		goto out;
	}
	/* load_mode and numa: the int that is -1 / 0 / 3 (auto, none,
	 * mmap+mlock) and the one that is 0 / 1 / 3 (disabled, distribute,
	 * numactl) in the three objects.  In 0ad4a86 load_mode sits two ints
	 * before cpuparams and numa after cpuparams_batch and cb_eval's two
	 * pointers; other releases move them, so they are found, not assumed. */
	off_lm = off_numa = -1;
	for (off = 0; off + 4 <= (long)OBJ_SIZE; off += 4) {
		if (off_lm < 0 && i32(pb, off) == -1 && i32(pu, off) == 0 && i32(pt, off) == 3)
			off_lm = off;
		if (off_numa < 0 && i32(pb, off) == 0 && i32(pu, off) == 1 && i32(pt, off) == 3)
			off_numa = off;
	}
	if (off_lm < 0) {
		r = fail_layout("-lm changed no int from -1 (auto) to 0 (none) and 3 (mmap+mlock)");
		goto out;
	}
	if (off_numa < 0) {
		r = fail_layout("--numa changed no int from 0 to 1 (distribute) and 3 (numactl)");
		goto out;
	}
	off_model = -1;
	for (off = 0; off + 32 <= (long)OBJ_SIZE; off += 8)
		if (is_empty_string(pb, off) && u64(pt, off + 8) == strlen(t[14]) && is_string(pt, off, t[14])) {
			off_model = off;
			break;
		}
	if (off_model < 0) {
		r = fail_layout("-m changed no std::string");
		goto out;
	}
	r = 0;
out:
	if (pb)
		drop(pb);
	if (pt)
		drop(pt);
	if (pu)
		drop(pu);
	return r;
}

static void print_mask(const unsigned char *m)
{
	int i, first = 1, lo = -1;
	if (!m[MAXT]) {
		fputs("-", stdout);
		return;
	}
	for (i = 0; i <= MAXT; i++) {
		int on = i < MAXT && m[i];
		if (on && lo < 0)
			lo = i;
		if (!on && lo >= 0) {
			printf("%s%d", first ? "" : ",", lo);
			if (i - 1 > lo)
				printf("-%d", i - 1);
			first = 0;
			lo = -1;
		}
	}
	if (first)
		fputs("none", stdout);
}

static const char *name_of(int v, const char *const *names, int n, int base)
{
	return v - base >= 0 && v - base < n ? names[v - base] : "?";
}

int main(int argc, char **argv)
{
	static const char *const lm[] = { "auto", "none", "mmap", "mlock", "mmap+mlock", "dio" };
	static const char *const numa[] = { "disabled", "distribute", "isolate", "numactl", "mirror" };
	char path[4096];
	void *h, *p;
	int layout;
	if (argc < 3) {
		fputs("usage: llama-parse LIBDIR llama-server [WORD...]\n", stderr);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/libllama-common.so", argv[1]);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "llama-parse: %s\n", dlerror());
		return 77;
	}
	/* The complete-object constructor and destructor (C1, D1), or the
	 * base-object ones (C2, D2): for a class without virtual bases the
	 * Itanium C++ ABI makes them the same function, and a build may
	 * export only the second (the arm64 one of the npm package does). */
	*(void **)&ctor = dlsym(h, "_ZN13common_paramsC1Ev");
	if (!ctor)
		*(void **)&ctor = dlsym(h, "_ZN13common_paramsC2Ev");
	*(void **)&dtor = dlsym(h, "_ZN13common_paramsD1Ev");
	if (!dtor)
		*(void **)&dtor = dlsym(h, "_ZN13common_paramsD2Ev");
	*(void **)&parse = dlsym(h, "_Z19common_params_parseiPPcR13common_params13llama_examplePFviS0_E");
	if (!ctor || !dtor || !parse) {
		fprintf(stderr, "llama-parse: %s lacks common_params_parse or common_params' constructor\n", path);
		return 99;
	}
	layout = calibrate();
	p = run(argv + 2);
	if (!p) {
		puts("refused");
		return 1;
	}
	if (layout < 0) {
		puts("accepted");
		drop(p);
		return 99;
	}
	{
		const unsigned char *c = (const unsigned char *)p + off_t_;
		const unsigned char *cb = c + CPUP_SIZE;
		uint64_t len = u64(p, off_model + 8);
		printf("threads=%d threads_batch=%d cpus=", (int)i32(p, off_t_), (int)i32(p, off_t_ + CPUP_SIZE));
		print_mask(c + 4);
		fputs(" cpus_batch=", stdout);
		print_mask(cb + 4);
		printf(" strict=%d strict_batch=%d numa=%s load_mode=%s model=%.*s\n", c[STRICT] != 0,
		       cb[STRICT] != 0, name_of(i32(p, off_numa), numa, 5, 0),
		       name_of(i32(p, off_lm), lm, 6, -1), (int)len, (const char *)(uintptr_t)u64(p, off_model));
	}
	drop(p);
	return 0;
}
