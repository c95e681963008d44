/* bench/membw.c - stream node-local buffers with pinned threads; bytes/s per node and in total */
#include "config.h"
#include "bench/bench.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/*
 * Decode reads every weight matrix once per token, as a matrix-vector
 * product does: many rows at once.  A kernel with one sequential stream per
 * thread leaves bandwidth unused (measured on the development VM: 31-37 GB/s
 * against 49 for llama.cpp's decode), so each thread reads its slice as 8 or
 * 16 interleaved streams with the widest vector loads the CPU has.  The sum
 * of every 64-bit word is kept and checked against a plain pass, so the
 * compiler cannot drop the loads and a variant that skips bytes is refused.
 */

/*** Kernels ***/

#define STREAM_STEP 128u          /* bytes each stream advances per iteration */
#define SLICE_ALIGN 4096u         /* at least: 16 streams x STREAM_STEP, and a 4 KiB page */
#define PREFETCH_AHEAD 1024u
#define MIN_SAMPLE 0.01           /* seconds: a sample repeats the pass until it is this long */
#define MAX_PASSES (1u << 20)

typedef uint64_t (*kernel_fn)(const uint8_t *base, uint64_t len);

/* len: a multiple of S * STREAM_STEP.  VT is a GCC vector of 64-bit lanes. */
#define DEFINE_KERNEL(NAME, ATTR, VT, S, PF)                                          \
	ATTR static uint64_t NAME(const uint8_t *base, uint64_t len)                  \
	{                                                                             \
		const uint64_t stride = len / (S);                                    \
		const unsigned per = STREAM_STEP / sizeof(VT);                        \
		VT acc[S];                                                            \
		uint64_t off, sum = 0;                                                \
		unsigned s, u, l;                                                     \
		for (s = 0; s < (S); s++)                                             \
			acc[s] = (VT){ 0 };                                           \
		for (off = 0; off < stride; off += STREAM_STEP) {                     \
			_Pragma("GCC unroll 16")                                      \
			for (s = 0; s < (S); s++) {                                   \
				const VT *p = (const VT *)(base + s * stride + off);  \
				if (PF)                                               \
					__builtin_prefetch((const uint8_t *)p + PREFETCH_AHEAD); \
				_Pragma("GCC unroll 8")                               \
				for (u = 0; u < per; u++)                             \
					acc[s] += p[u];                               \
			}                                                             \
		}                                                                     \
		for (s = 0; s < (S); s++)                                             \
			for (l = 0; l < sizeof(VT) / 8; l++)                          \
				sum += acc[s][l];                                     \
		return sum;                                                           \
	}

typedef uint64_t v16 __attribute__((vector_size(16)));
DEFINE_KERNEL(k_base_1, , v16, 1, 0)
DEFINE_KERNEL(k_base_8, , v16, 8, 0)
DEFINE_KERNEL(k_base_16, , v16, 16, 0)

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_KERNELS 1
#include <cpuid.h>
typedef uint64_t v32 __attribute__((vector_size(32)));
typedef uint64_t v64 __attribute__((vector_size(64)));
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f")))
DEFINE_KERNEL(k_avx2_8, AVX2, v32, 8, 0)
DEFINE_KERNEL(k_avx2_16, AVX2, v32, 16, 0)
DEFINE_KERNEL(k_avx2_8p, AVX2, v32, 8, 1)
DEFINE_KERNEL(k_avx2_16p, AVX2, v32, 16, 1)
DEFINE_KERNEL(k_avx512_8, AVX512, v64, 8, 0)
DEFINE_KERNEL(k_avx512_16, AVX512, v64, 16, 0)
DEFINE_KERNEL(k_avx512_8p, AVX512, v64, 8, 1)
DEFINE_KERNEL(k_avx512_16p, AVX512, v64, 16, 1)
#endif
DEFINE_KERNEL(k_base_8p, , v16, 8, 1)
DEFINE_KERNEL(k_base_16p, , v16, 16, 1)

/*
 * SVE (Graviton 3 and 4, Grace, A64FX, Neoverse V and N2 parts): the
 * vector length is the hardware's, read at run time (svcntb()), 128 to
 * 2048 bits; each load is predicated to the 128 bytes a stream advances,
 * so any length works.  GCC compiles these functions for SVE alone
 * (target "+sve"); they run only where HWCAP_SVE says the CPU and the
 * kernel have it.  SVE types have no size: the 8 accumulators are named.
 */
#if defined(__aarch64__) && (defined(__ARM_FEATURE_SVE) || (defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10))
#define HAVE_SVE_KERNELS 1
#include <arm_sve.h>
#include <sys/auxv.h>
#ifdef __ARM_FEATURE_SVE
#define SVE_ATTR
#else
#define SVE_ATTR __attribute__((target("+sve")))
#endif
#define SVE_LOAD(I) a##I = svadd_u64_m(pg, a##I, svld1_u64(pg, (const uint64_t *)(base + (I) * stride + off + u)))
#define DEFINE_SVE_KERNEL(NAME, PF)                                                   \
	SVE_ATTR static uint64_t NAME(const uint8_t *base, uint64_t len)              \
	{                                                                             \
		const uint64_t stride = len / 8, vb = svcntb();                       \
		svuint64_t a0 = svdup_n_u64(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0,  \
			   a5 = a0, a6 = a0, a7 = a0;                                 \
		uint64_t off, u;                                                      \
		for (off = 0; off < stride; off += STREAM_STEP) {                     \
			if (PF) {                                                     \
				unsigned s;                                           \
				for (s = 0; s < 8; s++)                               \
					__builtin_prefetch(base + s * stride + off + PREFETCH_AHEAD); \
			}                                                             \
			for (u = 0; u < STREAM_STEP; u += vb) {                       \
				svbool_t pg = svwhilelt_b64_u64(u / 8, STREAM_STEP / 8); \
				SVE_LOAD(0); SVE_LOAD(1); SVE_LOAD(2); SVE_LOAD(3);   \
				SVE_LOAD(4); SVE_LOAD(5); SVE_LOAD(6); SVE_LOAD(7);   \
			}                                                             \
		}                                                                     \
		a0 = svadd_u64_x(svptrue_b64(), svadd_u64_x(svptrue_b64(), a0, a1),  \
				 svadd_u64_x(svptrue_b64(), a2, a3));                 \
		a4 = svadd_u64_x(svptrue_b64(), svadd_u64_x(svptrue_b64(), a4, a5),  \
				 svadd_u64_x(svptrue_b64(), a6, a7));                 \
		return svaddv_u64(svptrue_b64(), svadd_u64_x(svptrue_b64(), a0, a4)); \
	}
DEFINE_SVE_KERNEL(k_sve_8, 0)
DEFINE_SVE_KERNEL(k_sve_8p, 1)

/* The hardware's SVE vector length in bits. */
SVE_ATTR static unsigned sve_bits(void)
{
	return (unsigned)svcntb() * 8;
}
#endif

struct kernel {
	const char *name;
	kernel_fn fn;
	const char *isa;          /* NULL: always available */
};

/* The ISA of the kernels that need none: the 128-bit vectors of GCC's
 * generic vector type are NEON on arm64 (Advanced SIMD is part of every
 * ARMv8-A CPU Linux runs on) and SSE2 on x86-64. */
#if defined(__aarch64__)
#define BASE_ISA "neon"
#elif defined(__x86_64__)
#define BASE_ISA "sse2"
#else
#define BASE_ISA "generic"
#endif

/* Widest first: the candidates are the variants of the widest usable ISA. */
static const struct kernel kernels[] = {
#ifdef HAVE_X86_KERNELS
	{ "avx512 8 streams", k_avx512_8, "avx512f" },
	{ "avx512 16 streams", k_avx512_16, "avx512f" },
	{ "avx512 8 streams prefetch", k_avx512_8p, "avx512f" },
	{ "avx512 16 streams prefetch", k_avx512_16p, "avx512f" },
	{ "avx2 8 streams", k_avx2_8, "avx2" },
	{ "avx2 16 streams", k_avx2_16, "avx2" },
	{ "avx2 8 streams prefetch", k_avx2_8p, "avx2" },
	{ "avx2 16 streams prefetch", k_avx2_16p, "avx2" },
#endif
#ifdef HAVE_SVE_KERNELS
	{ "sve 8 streams", k_sve_8, "sve" },
	{ "sve 8 streams prefetch", k_sve_8p, "sve" },
#endif
	{ BASE_ISA " 8 streams", k_base_8, NULL },
	{ BASE_ISA " 16 streams", k_base_16, NULL },
	{ BASE_ISA " 8 streams prefetch", k_base_8p, NULL },
	{ BASE_ISA " 16 streams prefetch", k_base_16p, NULL },
};

/*
 * Whether the CPU has isa ("avx2", "avx512f") and the kernel saves its
 * registers: CPUID's feature bits and XCR0, as libgcc's
 * __builtin_cpu_supports() reads them.  Asked here, when bench picks its
 * kernels: __builtin_cpu_supports() links libgcc's constructor, which runs
 * CPUID at the start of every command, bench or not, and on a VM each
 * CPUID traps to the hypervisor (about 8 us on the reference VM).
 */
static int isa_ok(const char *isa)
{
	if (!isa)
		return 1;
#ifdef HAVE_X86_KERNELS
	{
		unsigned a, b, c, d, lo, hi;
		uint64_t xcr0;
		if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
			return 0;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		xcr0 = (uint64_t)hi << 32 | lo;
		if ((xcr0 & 6) != 6 || __get_cpuid_max(0, NULL) < 7)
			return 0;   /* no SSE and AVX state saved, or no leaf 7 */
		__cpuid_count(7, 0, a, b, c, d);
		if (!strcmp(isa, "avx2"))
			return (b & bit_AVX2) != 0;
		if (!strcmp(isa, "avx512f"))   /* and the opmask and ZMM state */
			return (b & bit_AVX512F) != 0 && (xcr0 & 0xe6) == 0xe6;
	}
#endif
#ifdef HAVE_SVE_KERNELS
	/* The kernel says whether the CPU has SVE and it saves SVE state. */
	if (!strcmp(isa, "sve"))
		return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#endif
	return 0;
}

/*** Threads ***/

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct worker {
	pthread_t th;
	int cpu;                  /* OS index of the PU */
	const uint8_t *base;
	uint64_t len;
	uint64_t sum;             /* of the last pass */
	uint64_t ref;             /* of the plain pass */
	struct team *team;
	int pinned;               /* 1 ok, -errno failed */
	int idx;                  /* position in the team */
	double t0, t1;            /* the last pass, timed by the worker itself */
};

struct team {
	pthread_barrier_t start, end;
	kernel_fn fn;             /* the pass to run; NULL: exit */
	unsigned passes;          /* over the slice per timed sample (>= 1) */
	int active_from, active_to;   /* workers taking part in this pass */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct team *t = w->team;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->pinned = sched_setaffinity(0, sizeof(set), &set) == 0 ? 1 : -errno;
	for (;;) {
		pthread_barrier_wait(&t->start);
		if (!t->fn)
			break;
		if (w->idx >= t->active_from && w->idx < t->active_to) {
			unsigned k;
			w->t0 = now();
			for (k = 0; k < t->passes; k++)
				w->sum = t->fn(w->base, w->len);
			w->t1 = now();
		}
		pthread_barrier_wait(&t->end);
	}
	return NULL;
}

/* One sample of the active workers (t->passes passes over each slice);
 * seconds from the first start to the last end.  The workers time themselves: the main thread is not pinned and may
 * run late on a machine with as many threads as CPUs. */
static double pass(struct team *t, struct worker *w, kernel_fn fn)
{
	double t0 = INFINITY, t1 = -INFINITY;
	int i;
	t->fn = fn;
	pthread_barrier_wait(&t->start);
	pthread_barrier_wait(&t->end);
	for (i = t->active_from; i < t->active_to; i++) {
		t0 = fmin(t0, w[i].t0);
		t1 = fmax(t1, w[i].t1);
	}
	return t1 - t0;
}

/* Passes per sample for a pass of `one` seconds. */
static unsigned passes_for(double one)
{
	if (one >= MIN_SAMPLE)
		return 1;
	return one > 0 ? (unsigned)fmin(MIN_SAMPLE / one + 1, MAX_PASSES) : MAX_PASSES;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void stats(const double *s, int n, double *median, double *min, double *max)
{
	double *c;
	if (n <= 0) {
		*median = *min = *max = NAN;
		return;
	}
	c = xmalloc(n * sizeof(*c));
	memcpy(c, s, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	*median = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	*min = c[0];
	*max = c[n - 1];
	free(c);
}

/*** Choosing the CPUs ***/

/* PUs of a node in order: the first PU of each physical core, then the
 * others (only used when --threads asks for more than the cores).  Only
 * PUs this process may run on. */
static int node_pus(hwloc_topology_t topo, int node, int *pus, int max)
{
	hwloc_obj_t nobj = NULL, core = NULL, pu = NULL;
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc(),
		       used = hwloc_bitmap_alloc(), c = hwloc_bitmap_alloc();
	hwloc_bitmap_t hset;
	int n = 0;

	while ((nobj = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nobj)))
		if ((int)nobj->os_index == node)
			break;
	if (nobj) {
		hwloc_allowed_cpus(topo, allowed);
		hwloc_bitmap_copy(set, nobj->cpuset);
		hwloc_bitmap_and(set, set, allowed);
		hset = hwloc_bitmap_dup(set);
		while (n < max && (core = hwloc_get_next_obj_inside_cpuset_by_type(topo, hset,
				HWLOC_OBJ_CORE, core))) {
			int first;
			hwloc_bitmap_copy(c, core->cpuset);
			hwloc_bitmap_and(c, c, set);
			first = hwloc_bitmap_first(c);
			if (first >= 0) {
				pus[n++] = first;
				hwloc_bitmap_set(used, first);
			}
		}
		while (n < max && (pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, hset,
				HWLOC_OBJ_PU, pu)))
			if (!hwloc_bitmap_isset(used, pu->os_index))
				pus[n++] = pu->os_index;
		hwloc_bitmap_free(hset);
	}
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(used);
	hwloc_bitmap_free(c);
	return n;
}

static int node_cores(hwloc_topology_t topo, int node)
{
	int pus[4096];
	hwloc_obj_t nobj = NULL, core = NULL;
	int n = 0;
	(void)pus;
	while ((nobj = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nobj)))
		if ((int)nobj->os_index == node)
			break;
	if (!nobj)
		return 0;
	while ((core = hwloc_get_next_obj_inside_cpuset_by_type(topo, nobj->cpuset, HWLOC_OBJ_CORE, core)))
		n++;
	return n;
}

/*** The run ***/

struct nodebuf {
	int node;
	uint8_t *buf;
	uint64_t len;             /* allocated */
	int first, count;         /* its workers */
};

static void progress(const struct membw_opts *o, const char *what, int n, double bps)
{
	if (!o->progress)
		return;
	fprintf(stderr, "\r\033[Kbench: %s: %d sample%s, %.1f GB/s", what, n, n == 1 ? "" : "s",
		bps / 1e9);
	fflush(stderr);
}

/* The workers [from, to) the team's next passes run: the bytes one pass
 * of them reads (each slice t->passes times). */
static double use_workers(struct team *t, const struct worker *w, int from, int to)
{
	double bytes = 0;
	int i;
	for (i = from; i < to; i++)
		bytes += (double)w[i].len;
	t->active_from = from;
	t->active_to = to;
	return bytes * t->passes;
}

/* Timed passes of the workers [from, to) until the budget is spent. */
static int measure(struct team *t, struct worker *w, int from, int to, kernel_fn fn,
		   double budget, const struct membw_opts *o, const char *what, double **samples,
		   int *n)
{
	double start = now(), bytes = use_workers(t, w, from, to);
	int i, cap = 256;
	*samples = xmalloc(cap * sizeof(double));
	*n = 0;
	while (!interrupted && *n < cap && (*n == 0 || now() - start < budget)) {
		double dt = pass(t, w, fn);
		for (i = from; i < to; i++)
			if (w[i].sum != w[i].ref)
				return error("bench: the '%s' pass read wrong data on CPU %d (sum "
					     "%llx, expected %llx)", what, w[i].cpu,
					     (unsigned long long)w[i].sum, (unsigned long long)w[i].ref);
		if (!(dt > 0))
			continue;         /* too short for the clock: never a sample of 0 */
		(*samples)[(*n)++] = bytes / dt;
		progress(o, what, *n, (*samples)[*n - 1]);
	}
	return interrupted ? error("bench: interrupted") : 0;
}

/* What the steps of membw_run() share. */
struct run {
	hwloc_topology_t topo;
	const struct membw_opts *o;
	struct membw_result *r;
	struct nodebuf *nb;
	struct worker *w;
	struct team team;
	int nw, started, best, have_numa;
	double t_start, best_dt;
};

/* Each node's threads (one per core, or --threads) and its buffer's size.
 * 0, or -1 after one line. */
static int plan_workers(struct run *s)
{
	hwloc_topology_t topo = s->topo;
	const struct membw_opts *o = s->o;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t align = pg > (long)SLICE_ALIGN ? (uint64_t)pg : SLICE_ALIGN;
	int i, j;
	/* Threads and buffers per node. */
	for (i = 0; i < o->nnodes; i++) {
		int pus[4096], n, k;
		uint64_t slice;
		n = node_pus(topo, o->nodes[i], pus, (int)ARRAY_SIZE(pus));
		k = o->threads ? o->threads : node_cores(topo, o->nodes[i]);
		if (k > n)
			k = n;
		if (n == 0) {
			error("bench: node %d has no CPUs this process may use", o->nodes[i]);
			return -1;
		}
		if (o->threads > n) {
			error("bench: --threads %d: node %d has only %d CPUs this process may use",
			      o->threads, o->nodes[i], n);
			return -1;
		}
		if (k < 1)
			k = 1;
		s->nb[i].node = o->nodes[i];
		s->nb[i].first = s->nw;
		s->nb[i].count = k;
		/* Each thread's slice is whole pages, so that the pages it
		 * touches first are its own node's: 4 KiB, or 16 or 64 KiB on
		 * arm64 kernels built so (Kunpeng and Grace distributions). */
		slice = (o->size + k - 1) / k;
		slice = (slice + align - 1) / align * align;
		s->nb[i].len = slice * k;
		s->w = xrealloc(s->w, (s->nw + k) * sizeof(*s->w));
		for (j = 0; j < k; j++) {
			memset(&s->w[s->nw + j], 0, sizeof(*s->w));
			s->w[s->nw + j].cpu = pus[j];
			s->w[s->nw + j].len = slice;
		}
		s->nw += k;
	}
	return 0;
}

/* Each node's buffer, allocated on it and filled (every page touched).
 * 0, or -1 after one line. */
static int fill_buffers(struct run *s)
{
	const struct membw_opts *o = s->o;
	int i, j;
	for (i = 0; i < o->nnodes; i++) {
		if (s->have_numa)
			s->nb[i].buf = numa_alloc_onnode(s->nb[i].len, s->nb[i].node);
		else {
			void *p = mmap(NULL, s->nb[i].len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			s->nb[i].buf = p == MAP_FAILED ? NULL : p;
		}
		if (!s->nb[i].buf) {
			error("bench: cannot allocate %llu bytes on node %d", (unsigned long long)s->nb[i].len,
			      s->nb[i].node);
			return -1;
		}
		/* Transparent huge pages where THP is "madvise": 512 times fewer
		 * page faults while filling (on the development VM, under load, a
		 * 1 GiB run took 3-11 s instead of 11-19 s) and fewer TLB misses
		 * while streaming.  Advice only: refused, the pages stay small. */
		(void)madvise(s->nb[i].buf, s->nb[i].len, MADV_HUGEPAGE);
		/* Touch every page from here: the policy puts them on the node. */
		if (o->src) {
			memcpy(s->nb[i].buf, o->src, o->src_len);
			memset(s->nb[i].buf + o->src_len, 0, s->nb[i].len - o->src_len);
		} else {
			uint64_t *p = (uint64_t *)s->nb[i].buf, k;
			for (k = 0; k < s->nb[i].len / 8; k++)
				p[k] = k * 0x9e3779b97f4a7c15ull;
		}
		for (j = 0; j < s->nb[i].count; j++)
			s->w[s->nb[i].first + j].base = s->nb[i].buf + (uint64_t)j * s->w[s->nb[i].first + j].len;
	}
	return 0;
}

/* The clock of the budget, SIGINT caught (the previous action in *old),
 * the workers started and waiting on the start barrier. */
static void start_team(struct run *s, struct sigaction *old)
{
	struct sigaction sa;
	int i;
	/* The budget starts now: filling the buffers comes on top (--seconds
	 * says so).  Counted in, it left one sample where the pages came
	 * slowly (a guest right after likwid-bench freed 1 GiB: 1 sample in
	 * 4-6 s for --seconds 3, against 60-90 otherwise). */
	s->t_start = now();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, old);

	pthread_barrier_init(&s->team.start, NULL, s->nw + 1);
	pthread_barrier_init(&s->team.end, NULL, s->nw + 1);
	for (i = 0; i < s->nw; i++) {
		s->w[i].team = &s->team;
		s->w[i].idx = i;
		if (pthread_create(&s->w[i].th, NULL, worker_main, &s->w[i])) {
			/* The barriers count nw + 1: run the others out through them. */
			die("bench: cannot start a thread");
		}
		s->started++;
	}
}

/* The warm-up, then the read kernel: r->kernel and r->passes.  0, or -1
 * after one line. */
static int pick_kernel(struct run *s)
{
	const struct membw_opts *o = s->o;
	struct membw_result *r = s->r;
	kernel_fn plain = k_base_1;
	double warm;
	int i, j, reps = 2;
	/* Warm-up, with the plain one-stream pass giving each slice's reference sum. */
	s->team.active_from = 0;
	s->team.active_to = s->nw;
	s->team.passes = 1;
	warm = pass(&s->team, s->w, plain);
	for (i = 0; i < s->nw; i++) {
		s->w[i].ref = s->w[i].sum;
		if (s->w[i].pinned < 0) {
			error("bench: cannot pin a thread to CPU %d: %s", s->w[i].cpu, strerror(-s->w[i].pinned));
			return -1;
		}
	}
	/* Pick the fastest correct variant of the widest ISA: two passes each,
	 * one when a pass is slow for the time budget, and no more variants once
	 * half of the budget is gone. */
	if (8 * warm > o->seconds / 4)
		reps = 1;
	/* A buffer that fits in caches passes in microseconds: a sample repeats
	 * it so that one preemption or the clock's grain cannot make it 0. */
	s->team.passes = passes_for(warm);
	for (i = 0; i < (int)ARRAY_SIZE(kernels) && !interrupted; i++) {
		double dt;
		if (!isa_ok(kernels[i].isa))
			continue;
		if (s->best >= 0 && (kernels[s->best].isa != kernels[i].isa || now() - s->t_start > o->seconds / 2))
			break;
		s->team.active_from = 0;
		s->team.active_to = s->nw;
		dt = pass(&s->team, s->w, kernels[i].fn);
		if (reps > 1)
			dt = fmin(dt, pass(&s->team, s->w, kernels[i].fn));
		for (j = 0; j < s->nw; j++)
			if (s->w[j].sum != s->w[j].ref)
				break;
		if (j < s->nw) {
			debug("bench: variant '%s' read wrong data; not used", kernels[i].name);
			continue;
		}
		debug("bench: variant '%s': %.3f ms", kernels[i].name, dt * 1e3);
		if (dt < s->best_dt) {
			s->best_dt = dt;
			s->best = i;
		}
	}
	if (s->best < 0) {
		error(interrupted ? "bench: interrupted" : "bench: no read kernel gave correct results");
		return -1;
	}
	snprintf(r->kernel, sizeof(r->kernel), "%s", kernels[s->best].name);
	snprintf(r->isa, sizeof(r->isa), "%s", kernels[s->best].isa ? kernels[s->best].isa : BASE_ISA);
	r->vector_bits = !strcmp(r->isa, "avx512f") ? 512 : !strcmp(r->isa, "avx2") ? 256 : 128;
#ifdef HAVE_SVE_KERNELS
	if (!strcmp(r->isa, "sve"))
		r->vector_bits = (int)sve_bits();
#endif
	s->team.passes = passes_for(s->best_dt / s->team.passes);
	r->passes = s->team.passes;
	return 0;
}

/*
 * Passes of the chosen kernel over every slice, not sampled, until the
 * bandwidth holds: two passes in a row within 10% of the best one, after
 * at least three and at least 0.3 s (or a tenth of the budget), for at
 * most a fifth of the budget.  On this project's paravirtualised builder
 * the first 0.1-0.3 s of 2 threads read at about half speed in some runs
 * and not others (11, 14 and 19 slow samples of 150 in three of six runs
 * back to back): sampled, those passes moved the median by up to 15% from
 * run to run.
 */
static void warm_up(struct run *s)
{
	double t0 = now(), best = 0, prev = 0, bytes = use_workers(&s->team, s->w, 0, s->nw);
	int k;
	for (k = 0; !interrupted; k++) {
		double dt = pass(&s->team, s->w, kernels[s->best].fn), bw = dt > 0 ? bytes / dt : 0;
		if (bw > best)
			best = bw;
		if ((k >= 2 && now() - t0 >= fmin(0.3, s->o->seconds / 10) && prev >= 0.9 * best &&
		     bw >= 0.9 * best) || now() - t0 > s->o->seconds / 5)
			break;
		prev = bw;
	}
	debug("bench: warm-up: %d passes, %.0f ms", k + 1, (now() - t0) * 1e3);
}

/* The samples: each node alone, then all at once.  0, or -1 after one line. */
static int measure_nodes(struct run *s)
{
	const struct membw_opts *o = s->o;
	struct membw_result *r = s->r;
	double budget;
	int i, j, phases;
	/* Each node alone, then all at once when there are several. */
	phases = o->nnodes > 1 ? o->nnodes + 1 : o->nnodes;
	budget = (o->seconds - (now() - s->t_start)) / phases;
	r->nodes = xcalloc(o->nnodes, sizeof(*r->nodes));
	r->nnodes = o->nnodes;
	for (i = 0; i < o->nnodes; i++) {
		struct membw_node *m = &r->nodes[i];
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		char what[32];
		m->node = s->nb[i].node;
		m->threads = s->nb[i].count;
		for (j = 0; j < s->nb[i].count; j++)
			hwloc_bitmap_set(set, s->w[s->nb[i].first + j].cpu);
		m->cpus = cpulist_dup(set);
		hwloc_bitmap_free(set);
		snprintf(what, sizeof(what), "node %d", m->node);
		if (measure(&s->team, s->w, s->nb[i].first, s->nb[i].first + s->nb[i].count,
			    kernels[s->best].fn, budget, o, what, &m->samples, &m->nsamples) < 0)
			return -1;
		stats(m->samples, m->nsamples, &m->bytes_per_s, &m->min, &m->max);
	}
	if (o->nnodes > 1) {
		if (measure(&s->team, s->w, 0, s->nw, kernels[s->best].fn, budget, o, "all nodes", &r->samples,
			    &r->nsamples) < 0)
			return -1;
	} else {
		r->samples = xmalloc(r->nodes[0].nsamples * sizeof(double));
		memcpy(r->samples, r->nodes[0].samples, r->nodes[0].nsamples * sizeof(double));
		r->nsamples = r->nodes[0].nsamples;
	}
	stats(r->samples, r->nsamples, &r->bytes_per_s, &r->min, &r->max);
	r->threads = s->nw;
	r->streamed_bytes = s->nb[0].len;
	return 0;
}

/* The workers released and joined, SIGINT's action restored. */
static void stop_team(struct run *s, const struct sigaction *old)
{
	const struct membw_opts *o = s->o;
	int i;
	/* Every worker waits on the start barrier between passes: release
	 * them with no pass to run. */
	if (s->started == s->nw) {
		s->team.fn = NULL;
		pthread_barrier_wait(&s->team.start);
	}
	for (i = 0; i < s->started; i++)
		pthread_join(s->w[i].th, NULL);
	pthread_barrier_destroy(&s->team.start);
	pthread_barrier_destroy(&s->team.end);
	sigaction(SIGINT, old, NULL);
	if (o->progress)
		fprintf(stderr, "\r\033[K");
}

static void free_buffers(struct run *s)
{
	int i;
	for (i = 0; i < s->o->nnodes; i++)
		if (s->nb[i].buf)
			s->have_numa ? numa_free(s->nb[i].buf, s->nb[i].len) : (void)munmap(s->nb[i].buf, s->nb[i].len);
}

int membw_run(hwloc_topology_t topo, const struct membw_opts *o, struct membw_result *r)
{
	struct run s;
	struct sigaction old;
	int ret = -1;
	double t_begin = now();

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.topo = topo;
	s.o = o;
	s.r = r;
	s.nb = xcalloc(o->nnodes, sizeof(*s.nb));
	s.best = -1;
	s.best_dt = INFINITY;
	/* Without NUMA support (or with the memory-policy calls blocked, as
	 * container seccomp profiles do) buffers are plain pages; the note says
	 * their placement was not enforced. */
	s.have_numa = numa_available() >= 0;
	if (!s.have_numa)
		snprintf(r->note, sizeof(r->note), "libnuma is not usable here (numa_available(): no NUMA "
			 "support): buffers were not placed on their node (first touch by the main thread)");
	if (plan_workers(&s) < 0 || fill_buffers(&s) < 0)
		goto out;
	start_team(&s, &old);
	if (pick_kernel(&s) == 0) {
		warm_up(&s);
		if (measure_nodes(&s) == 0)
			ret = 0;
	}
	stop_team(&s, &old);
out:
	free_buffers(&s);
	free(s.nb);
	free(s.w);
	r->seconds = now() - t_begin;
	if (ret < 0)
		membw_result_free(r);
	return ret;
}

void membw_result_free(struct membw_result *r)
{
	int i;
	for (i = 0; i < r->nnodes; i++) {
		free(r->nodes[i].samples);
		free(r->nodes[i].cpus);
	}
	free(r->nodes);
	free(r->samples);
	r->nodes = NULL;
	r->samples = NULL;
	r->nnodes = r->nsamples = 0;
}
