/* read/gguf.c - a strict reader for GGUF v2/v3 model files (header, metadata, tensor table) */
#include "config.h"
#include "read/gguf.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Crafted GGUF files have caused real heap overflows in loaders, so every
 * count and length is checked against the bytes left in the file before it
 * is used, arrays grow with what was actually parsed (a huge declared count
 * allocates nothing), and the rules of ggml's own reader (gguf.cpp) apply:
 * v1 refused, no nested arrays, at most 4 dimensions, no element-count
 * overflow, alignment a power of two, tensors packed in order, data inside
 * the file, unique keys and names.
 */

/*** ggml types (gguf-reference.md section 3) ***/

static const struct ggml_type_info types[GGML_TYPE_COUNT] = {
	[0] = { "F32", 1, 4 },        [1] = { "F16", 1, 2 },
	[2] = { "Q4_0", 32, 18 },     [3] = { "Q4_1", 32, 20 },
	[4] = { "Q4_2", 0, 0 },       [5] = { "Q4_3", 0, 0 },
	[6] = { "Q5_0", 32, 22 },     [7] = { "Q5_1", 32, 24 },
	[8] = { "Q8_0", 32, 34 },     [9] = { "Q8_1", 32, 36 },
	[10] = { "Q2_K", 256, 84 },   [11] = { "Q3_K", 256, 110 },
	[12] = { "Q4_K", 256, 144 },  [13] = { "Q5_K", 256, 176 },
	[14] = { "Q6_K", 256, 210 },  [15] = { "Q8_K", 256, 292 },
	[16] = { "IQ2_XXS", 256, 66 }, [17] = { "IQ2_XS", 256, 74 },
	[18] = { "IQ3_XXS", 256, 98 }, [19] = { "IQ1_S", 256, 50 },
	[20] = { "IQ4_NL", 32, 18 },  [21] = { "IQ3_S", 256, 110 },
	[22] = { "IQ2_S", 256, 82 },  [23] = { "IQ4_XS", 256, 136 },
	[24] = { "I8", 1, 1 },        [25] = { "I16", 1, 2 },
	[26] = { "I32", 1, 4 },       [27] = { "I64", 1, 8 },
	[28] = { "F64", 1, 8 },       [29] = { "IQ1_M", 256, 56 },
	[30] = { "BF16", 1, 2 },
	[31] = { "Q4_0_4_4", 0, 0 },  [32] = { "Q4_0_4_8", 0, 0 },
	[33] = { "Q4_0_8_8", 0, 0 },
	[34] = { "TQ1_0", 256, 54 },  [35] = { "TQ2_0", 256, 66 },
	[36] = { "IQ4_NL_4_4", 0, 0 }, [37] = { "IQ4_NL_4_8", 0, 0 },
	[38] = { "IQ4_NL_8_8", 0, 0 },
	[39] = { "MXFP4", 32, 17 },   [40] = { "NVFP4", 64, 36 },
	[41] = { "Q1_0", 128, 18 },   [42] = { "Q2_0", 64, 18 },
};

const struct ggml_type_info *ggml_type(uint32_t id)
{
	return id < GGML_TYPE_COUNT ? &types[id] : NULL;
}

static const char *const vtype_names[GGUF_VTYPE_COUNT] = {
	"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL",
	"STRING", "ARRAY", "UINT64", "INT64", "FLOAT64",
};
static const uint8_t vtype_size[GGUF_VTYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

const char *gguf_vtype_name(uint32_t t)
{
	return t < GGUF_VTYPE_COUNT ? vtype_names[t] : "unknown";
}

/*** The cursor ***/

struct cur {
	struct gguf_file *g;
	const uint8_t *buf;
	uint64_t size, pos;
};

static int fail(struct cur *c, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct cur *c, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->g->err, sizeof(c->g->err), "offset %llu: ", (unsigned long long)off);
	va_start(ap, fmt);
	vsnprintf(c->g->err + n, sizeof(c->g->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t left(const struct cur *c)
{
	return c->size - c->pos;
}

static int need(struct cur *c, uint64_t n, const char *what)
{
	if (n > left(c))
		return fail(c, c->pos, "truncated %s (needs %llu bytes, %llu left in the file)", what,
			    (unsigned long long)n, (unsigned long long)left(c));
	return 0;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	while (n--)
		v = v << 8 | p[n];
	return v;
}

static int rd_u32(struct cur *c, uint32_t *v, const char *what)
{
	if (need(c, 4, what) < 0)
		return -1;
	*v = (uint32_t)le(c->buf + c->pos, 4);
	c->pos += 4;
	return 0;
}

static int rd_u64(struct cur *c, uint64_t *v, const char *what)
{
	if (need(c, 8, what) < 0)
		return -1;
	*v = le(c->buf + c->pos, 8);
	c->pos += 8;
	return 0;
}

#define GGUF_MAX_STRING (1ull << 30)   /* ggml's limit */

/* A string in place: length checked against the bytes left. */
static int rd_str(struct cur *c, const uint8_t **s, uint64_t *len, const char *what)
{
	uint64_t at = c->pos;
	if (rd_u64(c, len, what) < 0)
		return -1;
	if (*len > GGUF_MAX_STRING)
		return fail(c, at, "%s length %llu is over the 1 GiB limit", what,
			    (unsigned long long)*len);
	if (*len > left(c))
		return fail(c, at, "%s length %llu runs past the end of the file (%llu bytes left)",
			    what, (unsigned long long)*len, (unsigned long long)left(c));
	*s = c->buf + c->pos;
	c->pos += *len;
	return 0;
}

/*** Metadata ***/

static int skip_value(struct cur *c, struct gguf_kv *kv)
{
	uint64_t at = c->pos;
	const uint8_t *s;
	uint64_t len, i;

	if (kv->type >= GGUF_VTYPE_COUNT)
		return fail(c, at - 4, "key '%.*s' has unknown value type %u", (int)kv->key_len,
			    kv->key, kv->type);
	kv->off = at;
	if (kv->type == GGUF_STRING)
		return rd_str(c, &s, &len, "string value");
	if (kv->type != GGUF_ARRAY)
		return need(c, vtype_size[kv->type], "metadata value") < 0 ? -1
			: (c->pos += vtype_size[kv->type], 0);
	if (rd_u32(c, &kv->arr_type, "array type") < 0)
		return -1;
	if (kv->arr_type == GGUF_ARRAY)
		return fail(c, at, "key '%.*s' is an array of arrays (nested arrays are not allowed)",
			    (int)kv->key_len, kv->key);
	if (kv->arr_type >= GGUF_VTYPE_COUNT)
		return fail(c, at, "key '%.*s' is an array of unknown type %u", (int)kv->key_len,
			    kv->key, kv->arr_type);
	if (rd_u64(c, &kv->arr_n, "array count") < 0)
		return -1;
	kv->off = c->pos;
	if (kv->arr_type == GGUF_STRING) {
		/* Each element is at least its 8-byte length. */
		if (kv->arr_n > left(c) / 8)
			return fail(c, at + 4, "array '%.*s' declares %llu strings, more than the "
				    "%llu bytes left in the file can hold", (int)kv->key_len, kv->key,
				    (unsigned long long)kv->arr_n, (unsigned long long)left(c));
		for (i = 0; i < kv->arr_n; i++)
			if (rd_str(c, &s, &len, "array string") < 0)
				return -1;
		return 0;
	}
	if (kv->arr_n > left(c) / vtype_size[kv->arr_type])
		return fail(c, at + 4, "array '%.*s' declares %llu elements of %s, more than the "
			    "%llu bytes left in the file", (int)kv->key_len, kv->key,
			    (unsigned long long)kv->arr_n, vtype_names[kv->arr_type],
			    (unsigned long long)left(c));
	c->pos += kv->arr_n * vtype_size[kv->arr_type];
	return 0;
}

/* Sort helpers for duplicate detection in O(n log n). */
static int cmp_kv(const void *a, const void *b)
{
	const struct gguf_kv *x = *(const struct gguf_kv *const *)a, *y = *(const struct gguf_kv *const *)b;
	uint64_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int r = memcmp(x->key, y->key, n);
	if (r)
		return r;
	if (x->key_len != y->key_len)
		return x->key_len < y->key_len ? -1 : 1;
	return x->kv_off < y->kv_off ? -1 : 1;
}

static int cmp_tensor(const void *a, const void *b)
{
	const struct gguf_tensor *x = *(const struct gguf_tensor *const *)a;
	const struct gguf_tensor *y = *(const struct gguf_tensor *const *)b;
	int r = strcmp(x->name, y->name);
	if (r)
		return r;
	return x->info_off < y->info_off ? -1 : 1;
}

static int check_dup_keys(struct cur *c)
{
	struct gguf_kv **v;
	uint64_t i;
	int ret = 0;
	if (c->g->n_kv < 2)
		return 0;
	v = xcalloc(c->g->n_kv, sizeof(*v));
	for (i = 0; i < c->g->n_kv; i++)
		v[i] = &c->g->kv[i];
	qsort(v, c->g->n_kv, sizeof(*v), cmp_kv);
	for (i = 1; i < c->g->n_kv && !ret; i++)
		if (v[i]->key_len == v[i - 1]->key_len && !memcmp(v[i]->key, v[i - 1]->key, v[i]->key_len))
			ret = fail(c, v[i]->kv_off, "duplicate key '%.*s' (first at offset %llu)",
				   (int)v[i]->key_len, v[i]->key, (unsigned long long)v[i - 1]->kv_off);
	free(v);
	return ret;
}

static int check_dup_names(struct cur *c)
{
	struct gguf_tensor **v;
	uint64_t i;
	int ret = 0;
	if (c->g->n_tensors < 2)
		return 0;
	v = xcalloc(c->g->n_tensors, sizeof(*v));
	for (i = 0; i < c->g->n_tensors; i++)
		v[i] = &c->g->t[i];
	qsort(v, c->g->n_tensors, sizeof(*v), cmp_tensor);
	for (i = 1; i < c->g->n_tensors && !ret; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name))
			ret = fail(c, v[i]->info_off, "duplicate tensor name '%s' (first at offset %llu)",
				   v[i]->name, (unsigned long long)v[i - 1]->info_off);
	free(v);
	return ret;
}

/*** Tensor table ***/

static int rd_tensor(struct cur *c, struct gguf_tensor *t, uint64_t expect_off)
{
	const struct ggml_type_info *ti;
	const uint8_t *name;
	uint64_t len, at, nelem = 1, nblocks;
	uint32_t j;

	t->info_off = c->pos;
	if (rd_str(c, &name, &len, "tensor name") < 0)
		return -1;
	if (len >= GGUF_MAX_NAME)
		return fail(c, t->info_off, "tensor name of %llu bytes is too long (at most %d)",
			    (unsigned long long)len, GGUF_MAX_NAME - 1);
	if (memchr(name, 0, len))
		return fail(c, t->info_off, "tensor name contains a NUL byte");
	t->name = xstrndup((const char *)name, len);
	at = c->pos;
	if (rd_u32(c, &t->n_dims, "tensor dimension count") < 0)
		return -1;
	if (t->n_dims > GGUF_MAX_DIMS)
		return fail(c, at, "tensor '%s' has %u dimensions (at most %d)", t->name, t->n_dims,
			    GGUF_MAX_DIMS);
	for (j = 0; j < GGUF_MAX_DIMS; j++)
		t->ne[j] = 1;
	for (j = 0; j < t->n_dims; j++) {
		at = c->pos;
		if (rd_u64(c, &t->ne[j], "tensor dimension") < 0)
			return -1;
		if (t->ne[j] > INT64_MAX)
			return fail(c, at, "tensor '%s' dimension %u is negative", t->name, j);
		if (t->ne[j] && nelem > (uint64_t)INT64_MAX / t->ne[j])
			return fail(c, at, "tensor '%s' element count overflows", t->name);
		nelem *= t->ne[j];
	}
	at = c->pos;
	if (rd_u32(c, &t->type, "tensor type") < 0)
		return -1;
	ti = ggml_type(t->type);
	if (!ti)
		return fail(c, at, "tensor '%s' has unknown type id %u (this reader knows ids up to %d)",
			    t->name, t->type, GGML_TYPE_COUNT - 1);
	if (!ti->blck)
		return fail(c, at, "tensor '%s' has type id %u (%s), which ggml removed", t->name,
			    t->type, ti->name);
	if (t->ne[0] % ti->blck)
		return fail(c, at, "tensor '%s' row of %llu elements is not a multiple of the %s "
			    "block size %u", t->name, (unsigned long long)t->ne[0], ti->name, ti->blck);
	nblocks = nelem / ti->blck;
	if (nblocks > UINT64_MAX / ti->bytes || nblocks * ti->bytes > (uint64_t)INT64_MAX)
		return fail(c, at, "tensor '%s' byte size overflows", t->name);
	t->nbytes = nblocks * ti->bytes;
	at = c->pos;
	if (rd_u64(c, &t->offset, "tensor offset") < 0)
		return -1;
	if (t->offset % c->g->alignment)
		return fail(c, at, "tensor '%s' offset %llu is not a multiple of the alignment %llu",
			    t->name, (unsigned long long)t->offset, (unsigned long long)c->g->alignment);
	if (t->offset < expect_off)
		return fail(c, at, "tensor '%s' at data offset %llu overlaps the previous tensor "
			    "(which ends at %llu)", t->name, (unsigned long long)t->offset,
			    (unsigned long long)expect_off);
	if (t->offset > expect_off)
		return fail(c, at, "tensor '%s' at data offset %llu leaves a gap of %llu bytes after "
			    "the previous tensor", t->name, (unsigned long long)t->offset,
			    (unsigned long long)(t->offset - expect_off));
	return 0;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return x + (a - x % a) % a;
}

/*** Whole file ***/

/* Magic, version and the two counts, each count within what the bytes
 * after the header can hold. */
static int parse_header(struct cur *c, uint64_t *t_np, uint64_t *kv_np)
{
	struct gguf_file *g = c->g;
	const uint8_t *buf = c->buf;
	uint64_t min_kv = 8 + 1 + 4 + 1, min_t = 8 + 1 + 4 + 4 + 8;
	uint64_t kv_n, t_n;
	if (need(c, 4, "header (magic)") < 0)
		return -1;
	if (memcmp(buf, "GGUF", 4))
		return fail(c, 0, "not a GGUF file (magic %02x %02x %02x %02x, expected 'GGUF')",
			    buf[0], buf[1], buf[2], buf[3]);
	c->pos = 4;
	if (rd_u32(c, &g->version, "header (version)") < 0)
		return -1;
	if (g->version && !(g->version & 0xffff))
		return fail(c, 4, "version field 0x%08x: a big-endian (byte-swapped) file, which "
			    "this reader does not load", g->version);
	if (g->version == 1)
		return fail(c, 4, "GGUF version 1 is no longer supported (convert the model again)");
	if (g->version != 2 && g->version != 3)
		return fail(c, 4, "unsupported GGUF version %u (2 and 3 are known)", g->version);
	if (rd_u64(c, &t_n, "header (tensor count)") < 0 || rd_u64(c, &kv_n, "header (metadata count)") < 0)
		return -1;
	if (t_n > left(c) / min_t)
		return fail(c, 8, "tensor count %llu is more than the %llu bytes after the header "
			    "can hold", (unsigned long long)t_n, (unsigned long long)left(c));
	if (kv_n > (left(c) - t_n * min_t) / min_kv)
		return fail(c, 16, "metadata count %llu is more than the %llu bytes after the header "
			    "can hold", (unsigned long long)kv_n, (unsigned long long)left(c));
	*t_np = t_n;
	*kv_np = kv_n;
	return 0;
}

/* Metadata: the array grows with what is parsed; then the keys are
 * checked unique and general.alignment read. */
static int parse_metadata(struct cur *c, uint64_t kv_n)
{
	struct gguf_file *g = c->g;
	uint64_t i, alloc = 0;
	const struct gguf_kv *al;
	for (i = 0; i < kv_n; i++) {
		struct gguf_kv *kv;
		const uint8_t *key;
		if (g->n_kv == alloc) {
			alloc = alloc ? alloc * 2 : 32;
			g->kv = xrealloc(g->kv, alloc * sizeof(*g->kv));
		}
		kv = &g->kv[g->n_kv];
		memset(kv, 0, sizeof(*kv));
		kv->kv_off = c->pos;
		if (rd_str(c, &key, &kv->key_len, "metadata key") < 0)
			return -1;
		if (!kv->key_len)
			return fail(c, kv->kv_off, "empty metadata key");
		kv->key = (const char *)key;
		if (rd_u32(c, &kv->type, "metadata value type") < 0)
			return -1;
		g->n_kv++;
		if (skip_value(c, kv) < 0)
			return -1;
	}
	if (check_dup_keys(c) < 0)
		return -1;
	al = gguf_find(g, "general.alignment");
	if (al) {
		uint64_t a;
		if (al->type != GGUF_U32)
			return fail(c, al->kv_off, "general.alignment has type %s (must be UINT32)",
				    gguf_vtype_name(al->type));
		a = le(c->buf + al->off, 4);
		if (!a || (a & (a - 1)))
			return fail(c, al->off, "general.alignment %llu is not a power of two",
				    (unsigned long long)a);
		g->alignment = a;
	}
	return 0;
}

/* Tensor table: each tensor where the previous one ends (aligned), its data
 * within the file; *expectp the data section's length. */
static int parse_tensors(struct cur *c, uint64_t t_n, uint64_t *expectp)
{
	struct gguf_file *g = c->g;
	uint64_t i, alloc = 0, expect = 0, size = c->size;
	for (i = 0; i < t_n; i++) {
		if (g->n_tensors == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			g->t = xrealloc(g->t, alloc * sizeof(*g->t));
		}
		memset(&g->t[g->n_tensors], 0, sizeof(*g->t));
		g->n_tensors++;
		if (rd_tensor(c, &g->t[i], expect) < 0)
			return -1;
		/* expect stays below the file size, so this cannot overflow. */
		if (expect > size || g->t[i].nbytes > size - expect)
			return fail(c, g->t[i].info_off, "data of tensor '%s' (%llu bytes at data offset "
				    "%llu) runs past the end of the file (%llu bytes)", g->t[i].name,
				    (unsigned long long)g->t[i].nbytes, (unsigned long long)expect,
				    (unsigned long long)size);
		expect += align_up(g->t[i].nbytes, g->alignment);
	}
	if (check_dup_names(c) < 0)
		return -1;
	*expectp = expect;
	return 0;
}

/* The data section after the table: inside the file, and every tensor's
 * data inside it. */
static int check_data(struct cur *c, uint64_t t_n, uint64_t expect)
{
	struct gguf_file *g = c->g;
	uint64_t i, size = c->size;
	g->data_offset = t_n ? align_up(c->pos, g->alignment) : c->pos;
	g->data_bytes = expect;
	if (g->data_offset > size)
		return fail(c, c->pos, "data section would start at %llu, past the end of the file "
			    "(%llu bytes)", (unsigned long long)g->data_offset, (unsigned long long)size);
	for (i = 0; i < t_n; i++) {
		const struct gguf_tensor *t = &g->t[i];
		if (t->offset > size - g->data_offset || t->nbytes > size - g->data_offset - t->offset)
			return fail(c, t->info_off, "data of tensor '%s' (%llu bytes at %llu) runs past "
				    "the end of the file (%llu bytes)", t->name,
				    (unsigned long long)t->nbytes,
				    (unsigned long long)(g->data_offset + t->offset),
				    (unsigned long long)size);
	}
	return 0;
}

int gguf_parse(struct gguf_file *g, const uint8_t *buf, uint64_t size)
{
	struct cur c = { g, buf, size, 0 };
	uint64_t kv_n = 0, t_n = 0, expect = 0;

	g->map = buf;
	g->size = size;
	g->alignment = GGUF_DEFAULT_ALIGNMENT;
	if (parse_header(&c, &t_n, &kv_n) < 0 || parse_metadata(&c, kv_n) < 0 ||
	    parse_tensors(&c, t_n, &expect) < 0)
		return -1;
	return check_data(&c, t_n, expect);
}

int gguf_open(struct gguf_file *g, const char *path)
{
	struct stat st;
	void *m;
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	g->path = xstrdup(path);
	g->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);   /* no wait on a FIFO */
	if (g->fd < 0 || fstat(g->fd, &st) < 0) {
		snprintf(g->err, sizeof(g->err), "%s", strerror(errno));
		return GGUF_EIO;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(g->err, sizeof(g->err), "not a regular file");
		return GGUF_EIO;
	}
	if (st.st_size == 0) {
		snprintf(g->err, sizeof(g->err), "offset 0: empty file (not a GGUF file)");
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, g->fd, 0);
	if (m == MAP_FAILED) {
		snprintf(g->err, sizeof(g->err), "%s", strerror(errno));
		return GGUF_EIO;
	}
	return gguf_parse(g, m, (uint64_t)st.st_size);
}

void gguf_close(struct gguf_file *g)
{
	uint64_t i;
	for (i = 0; i < g->n_tensors; i++)
		free(g->t[i].name);
	free(g->t);
	free(g->kv);
	if (g->fd >= 0) {
		if (g->map)
			munmap((void *)g->map, g->size);
		close(g->fd);
	}
	free(g->path);
	g->t = NULL;
	g->kv = NULL;
	g->path = NULL;
	g->map = NULL;
	g->fd = -1;
	g->n_tensors = g->n_kv = 0;
}

/*** Lookups ***/

const struct gguf_kv *gguf_find(const struct gguf_file *g, const char *key)
{
	uint64_t i, n = strlen(key);
	for (i = 0; i < g->n_kv; i++)
		if (g->kv[i].key_len == n && !memcmp(g->kv[i].key, key, n))
			return &g->kv[i];
	return NULL;
}

int gguf_get_str(const struct gguf_file *g, const struct gguf_kv *kv, const char **s, uint64_t *len)
{
	if (!kv || kv->type != GGUF_STRING)
		return -1;
	*len = le(g->map + kv->off, 8);
	*s = (const char *)g->map + kv->off + 8;
	return 0;
}

static int int_at(const uint8_t *p, uint32_t type, uint64_t *v)
{
	int64_t s;
	switch (type) {
	case GGUF_U8: case GGUF_U16: case GGUF_U32: case GGUF_U64:
		*v = le(p, vtype_size[type]);
		return 0;
	case GGUF_I8: s = (int8_t)p[0]; break;
	case GGUF_I16: s = (int16_t)le(p, 2); break;
	case GGUF_I32: s = (int32_t)le(p, 4); break;
	case GGUF_I64: s = (int64_t)le(p, 8); break;
	default: return -EINVAL;
	}
	if (s < 0)
		return -ERANGE;
	*v = (uint64_t)s;
	return 0;
}

int gguf_get_uint(const struct gguf_file *g, const struct gguf_kv *kv, uint64_t idx, uint64_t *v)
{
	if (!kv)
		return -ENOENT;
	if (kv->type != GGUF_ARRAY)
		return int_at(g->map + kv->off, kv->type, v);
	if (kv->arr_type == GGUF_STRING || kv->arr_type == GGUF_ARRAY || kv->arr_type == GGUF_BOOL)
		return -EINVAL;
	if (idx >= kv->arr_n)
		return -ERANGE;
	return int_at(g->map + kv->off + idx * vtype_size[kv->arr_type], kv->arr_type, v);
}

/*** Per-token estimate ***/

static int model_fail(struct gguf_file *g, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int model_fail(struct gguf_file *g, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(g->err, sizeof(g->err), "offset %llu: ", (unsigned long long)off);
	va_start(ap, fmt);
	vsnprintf(g->err + n, sizeof(g->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* An optional scalar count: 0 absent, 1 read, -1 malformed (err set). */
static int arch_uint(struct gguf_file *g, const char *arch, const char *suffix, uint64_t *v)
{
	char key[160];
	const struct gguf_kv *kv;
	int r;
	snprintf(key, sizeof(key), "%s.%s", arch, suffix);
	kv = gguf_find(g, key);
	if (!kv)
		return 0;
	if (kv->type == GGUF_ARRAY)
		return model_fail(g, kv->kv_off, "'%s' is an array, expected one number", key);
	r = gguf_get_uint(g, kv, 0, v);
	if (r == -ERANGE)
		return model_fail(g, kv->off, "'%s' is negative", key);
	if (r < 0)
		return model_fail(g, kv->kv_off, "'%s' has type %s, expected an integer", key,
				  gguf_vtype_name(kv->type));
	return 1;
}

/* A per-layer count: scalar or an array of n_layer integers. */
static int layer_uint(struct gguf_file *g, const struct gguf_kv *kv, uint64_t layer,
		      uint64_t n_layer, uint64_t *v)
{
	int r;
	if (kv->type == GGUF_ARRAY && kv->arr_n != n_layer)
		return model_fail(g, kv->kv_off, "'%.*s' has %llu values for %llu layers",
				  (int)kv->key_len, kv->key, (unsigned long long)kv->arr_n,
				  (unsigned long long)n_layer);
	r = gguf_get_uint(g, kv, layer, v);
	if (r == -ERANGE)
		return model_fail(g, kv->off, "'%.*s' is negative", (int)kv->key_len, kv->key);
	if (r < 0)
		return model_fail(g, kv->kv_off, "'%.*s' has type %s, expected integers",
				  (int)kv->key_len, kv->key,
				  gguf_vtype_name(kv->type == GGUF_ARRAY ? kv->arr_type : kv->type));
	return 0;
}

static const struct gguf_kv *arch_kv(struct gguf_file *g, const char *arch, const char *suffix)
{
	char key[160];
	snprintf(key, sizeof(key), "%s.%s", arch, suffix);
	return gguf_find(g, key);
}

int gguf_model_summary(struct gguf_file *g, struct gguf_model *m)
{
	const struct gguf_kv *kv, *hkv, *hh;
	const char *s;
	uint64_t len, i, n_exp = 0, n_used = 0, klen = 0, vlen = 0;
	int has_exp, has_used, has_k, has_v;
	int have_output = 0;

	memset(m, 0, sizeof(*m));
	kv = gguf_find(g, "general.architecture");
	if (kv) {
		if (gguf_get_str(g, kv, &s, &len) < 0)
			return model_fail(g, kv->kv_off, "general.architecture has type %s, expected a string",
					  gguf_vtype_name(kv->type));
		if (len >= sizeof(m->arch) || memchr(s, 0, len))
			return model_fail(g, kv->off, "general.architecture is not a short name");
		memcpy(m->arch, s, len);
		m->arch[len] = '\0';
	}
	if (m->arch[0]) {
		if ((m->has_n_layer = arch_uint(g, m->arch, "block_count", &m->n_layer)) < 0 ||
		    (m->has_n_embd = arch_uint(g, m->arch, "embedding_length", &m->n_embd)) < 0 ||
		    (m->has_n_ctx_train = arch_uint(g, m->arch, "context_length", &m->n_ctx_train)) < 0 ||
		    (has_exp = arch_uint(g, m->arch, "expert_count", &n_exp)) < 0 ||
		    (has_used = arch_uint(g, m->arch, "expert_used_count", &n_used)) < 0 ||
		    (has_k = arch_uint(g, m->arch, "attention.key_length", &klen)) < 0 ||
		    (has_v = arch_uint(g, m->arch, "attention.value_length", &vlen)) < 0)
			return -1;
	} else {
		has_exp = has_used = has_k = has_v = 0;
	}
	m->moe = has_exp && has_used && n_exp > 0 && n_used <= n_exp;

	for (i = 0; i < g->n_tensors; i++)
		if (!strcmp(g->t[i].name, "output.weight"))
			have_output = 1;
	m->tied = !have_output;
	for (i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->t[i];
		const struct ggml_type_info *ti = ggml_type(t->type);
		uint64_t read = t->nbytes;
		m->tensor_bytes += t->nbytes;
		m->type_bytes[t->type] += t->nbytes;
		if (!strcmp(t->name, "token_embd.weight") && have_output)
			read = t->ne[0] / ti->blck * ti->bytes;   /* one row per token */
		else if (m->moe && t->n_dims == 3 && strstr(t->name, "_exps.") && t->ne[2] == n_exp)
			read = t->nbytes / n_exp * n_used;        /* the experts used */
		if (__builtin_add_overflow(m->weight_bytes_per_token, read, &m->weight_bytes_per_token))
			return model_fail(g, 0, "the tensors' bytes per token overflow 64 bits");
	}

	/* KV cache per position: layers x n_head_kv x (k + v head size) elements. */
	if (!m->arch[0]) {
		snprintf(m->note, sizeof(m->note), "no general.architecture: KV cache not counted");
		return 0;
	}
	hh = arch_kv(g, m->arch, "attention.head_count");
	hkv = arch_kv(g, m->arch, "attention.head_count_kv");
	if (!m->has_n_layer || !hh || (!(has_k && has_v) && !m->has_n_embd)) {
		snprintf(m->note, sizeof(m->note), "%s.block_count, .attention.head_count or the head "
			 "size is missing: KV cache not counted", m->arch);
		return 0;
	}
	if (!hkv)
		hkv = hh;
	if (m->n_layer > 65536)
		return model_fail(g, arch_kv(g, m->arch, "block_count")->off,
				  "%s.block_count %llu is implausible", m->arch,
				  (unsigned long long)m->n_layer);
	for (i = 0; i < m->n_layer; i++) {
		uint64_t nh, nkv, k = klen, v = vlen;
		if (layer_uint(g, hh, i, m->n_layer, &nh) < 0 || layer_uint(g, hkv, i, m->n_layer, &nkv) < 0)
			return -1;
		if (!has_k || !has_v) {
			uint64_t hd = nh ? m->n_embd / nh : 0;
			if (!has_k)
				k = hd;
			if (!has_v)
				v = hd;
		}
		if (nkv > (1u << 20) || k > (1u << 20) || v > (1u << 20))
			return model_fail(g, hkv->kv_off, "layer %llu: KV cache width out of range",
					  (unsigned long long)i);
		{
			uint64_t layer_elems;
			if (__builtin_mul_overflow(nkv, k + v, &layer_elems) ||
			    __builtin_add_overflow(m->kv_elems_per_pos, layer_elems, &m->kv_elems_per_pos))
				return model_fail(g, hkv->kv_off, "layer %llu: the KV cache per position "
						  "overflows 64 bits", (unsigned long long)i);
		}
	}
	m->kv_known = 1;
	return 0;
}
