/* read/hfmodel.c - a Hugging Face checkpoint directory: config.json through
 * cJSON, and each safetensors file's header (an 8-byte little-endian length,
 * then that many bytes of JSON: {"NAME": {"dtype", "shape", "data_offsets"}}
 * and an optional "__metadata__"), checked against the file's size.  The
 * tensors' data is never read. */
#include "config.h"
#include "read/hfmodel.h"
#include "lib/util.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_CAP (16u << 20)          /* config.json, index.json */
#define HEADER_CAP 100000000ull         /* safetensors: MAX_HEADER_SIZE */
#define MAX_FILES 100000u
#define MAX_DIM (1ull << 40)

static int fail(struct hf_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct hf_model *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return -1;
}

int hf_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A JSON document of at most CONFIG_CAP bytes; NULL with m->err set. */
static cJSON *load_json(struct hf_model *m, const char *path)
{
	char *buf;
	size_t len;
	cJSON *j;
	int e = read_file_capped(path, CONFIG_CAP, &buf, &len);
	if (e < 0) {
		fail(m, "%s: %s", path, e == -EFBIG ? "larger than 16 MiB" : input_strerror(-e));
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		free(buf);
		fail(m, "%s: holds a NUL byte: not JSON text", path);
		return NULL;
	}
	j = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		fail(m, "%s: not a JSON object", path);
		return NULL;
	}
	return j;
}

/* A whole number from 1 to MAX_DIM at key: 1, 0 when absent (or null), -1 when bad. */
static int get_dim(struct hf_model *m, const char *file, const cJSON *o, const char *key, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 1 ||
	    v->valuedouble > (double)MAX_DIM || v->valuedouble != floor(v->valuedouble))
		return fail(m, "%s: \"%s\" is not a whole number from 1 to 2^40", file, key);
	*out = (uint64_t)v->valuedouble;
	return 1;
}

static const struct { const char *name; unsigned bytes; } dtypes[] = {
	{ "bfloat16", 2 }, { "float16", 2 }, { "float32", 4 }, { "half", 2 }, { "float", 4 },
};

static int read_config(struct hf_model *m, const char *dir)
{
	char *path = xasprintf("%s/config.json", dir);
	cJSON *j = load_json(m, path);
	const cJSON *c, *d;
	int r = -1;
	size_t i;
	if (!j)
		goto out;
	c = j;
	/* Multimodal checkpoints keep the language model's sizes in text_config. */
	if (!cJSON_GetObjectItemCaseSensitive(c, "num_attention_heads") &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "text_config")))
		c = cJSON_GetObjectItemCaseSensitive(c, "text_config");
	if (get_dim(m, path, c, "num_attention_heads", &m->heads) <= 0 ||
	    get_dim(m, path, c, "num_hidden_layers", &m->layers) <= 0 ||
	    get_dim(m, path, c, "hidden_size", &m->hidden) <= 0) {
		if (!m->err[0])
			fail(m, "%s: lacks num_attention_heads, num_hidden_layers or hidden_size", path);
		goto out;
	}
	switch (get_dim(m, path, c, "num_key_value_heads", &m->kv_heads)) {
	case -1: goto out;
	case 0: m->kv_heads = m->heads; break;
	}
	switch (get_dim(m, path, c, "head_dim", &m->head_dim)) {
	case -1: goto out;
	case 0:
		if (m->hidden % m->heads) {
			fail(m, "%s: hidden_size %llu is not a multiple of num_attention_heads %llu, and no "
			     "head_dim", path, (unsigned long long)m->hidden, (unsigned long long)m->heads);
			goto out;
		}
		m->head_dim = m->hidden / m->heads;
	}
	if (m->kv_heads > m->heads) {
		fail(m, "%s: num_key_value_heads %llu is above num_attention_heads %llu", path,
		     (unsigned long long)m->kv_heads, (unsigned long long)m->heads);
		goto out;
	}
	{
		/* The KV cache per position must not overflow 64 bits (and stays far below). */
		uint64_t kv;
		if (__builtin_mul_overflow(m->layers, m->kv_heads, &kv) || __builtin_mul_overflow(kv, m->head_dim, &kv) ||
		    kv > (1ull << 50)) {
			fail(m, "%s: num_hidden_layers x num_key_value_heads x head_dim is beyond 2^50", path);
			goto out;
		}
	}
	if (get_dim(m, path, c, "max_position_embeddings", &m->max_pos) < 0)
		goto out;
	d = cJSON_GetObjectItemCaseSensitive(c, "torch_dtype");
	if (!cJSON_IsString(d))
		d = cJSON_GetObjectItemCaseSensitive(c, "dtype");
	if (!cJSON_IsString(d) && c != j) {
		d = cJSON_GetObjectItemCaseSensitive(j, "torch_dtype");
		if (!cJSON_IsString(d))
			d = cJSON_GetObjectItemCaseSensitive(j, "dtype");
	}
	if (!cJSON_IsString(d)) {
		fail(m, "%s: no torch_dtype (or dtype): the KV cache's size is unknown", path);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(dtypes); i++)
		if (!strcmp(d->valuestring, dtypes[i].name)) {
			snprintf(m->dtype, sizeof(m->dtype), "%s", dtypes[i].name);
			m->dtype_bytes = dtypes[i].bytes;
		}
	if (!m->dtype_bytes) {
		char b[40];
		fail(m, "%s: torch_dtype '%s' is none of bfloat16, float16, float32", path,
		     str_shown(d->valuestring, b, sizeof(b)));
		goto out;
	}
	r = 0;
out:
	cJSON_Delete(j);
	free(path);
	return r;
}

/* Bits per element of a safetensors dtype; 0 unknown. */
static unsigned st_bits(const char *t)
{
	static const struct { const char *n; unsigned bits; } tab[] = {
		{ "BOOL", 8 }, { "U8", 8 }, { "I8", 8 }, { "F8_E5M2", 8 }, { "F8_E4M3", 8 }, { "F8_E8M0", 8 },
		{ "I16", 16 }, { "U16", 16 }, { "F16", 16 }, { "BF16", 16 }, { "I32", 32 }, { "U32", 32 },
		{ "F32", 32 }, { "F64", 64 }, { "I64", 64 }, { "U64", 64 }, { "F4", 4 }, { "F6_E2M3", 6 },
		{ "F6_E3M2", 6 },
	};
	size_t i;
	for (i = 0; i < ARRAY_SIZE(tab); i++)
		if (!strcmp(t, tab[i].n))
			return tab[i].bits;
	return 0;
}

static int num_u64(const cJSON *v, uint64_t *out)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble >= 18446744073709551616.0 || v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = (uint64_t)v->valuedouble;
	return 0;
}

/* One tensor entry of a header: its bytes, checked against the data section. */
static int st_tensor(struct hf_model *m, const char *path, const cJSON *t, uint64_t data, uint64_t *bytes)
{
	const cJSON *dt = cJSON_GetObjectItemCaseSensitive(t, "dtype");
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(t, "shape");
	const cJSON *off = cJSON_GetObjectItemCaseSensitive(t, "data_offsets"), *d;
	uint64_t b, e, elems = 1, v;
	unsigned bits;
	char nb[48];
	str_shown(t->string ? t->string : "", nb, sizeof(nb));
	if (!cJSON_IsObject(t) || !cJSON_IsString(dt) || !cJSON_IsArray(sh) || cJSON_GetArraySize(off) != 2 ||
	    num_u64(cJSON_GetArrayItem(off, 0), &b) < 0 || num_u64(cJSON_GetArrayItem(off, 1), &e) < 0)
		return fail(m, "%s: tensor '%s' lacks dtype, shape or data_offsets [begin, end]", path, nb);
	if (e < b || e > data)
		return fail(m, "%s: tensor '%s' has data_offsets [%llu, %llu] outside the file's %llu bytes of "
			    "data", path, nb, (unsigned long long)b, (unsigned long long)e, (unsigned long long)data);
	cJSON_ArrayForEach(d, sh) {
		if (num_u64(d, &v) < 0 || v > MAX_DIM)
			return fail(m, "%s: tensor '%s' has a shape that is not whole numbers up to 2^40", path, nb);
		if (v && elems > UINT64_MAX / 8 / v)
			return fail(m, "%s: tensor '%s' has more elements than fit 64 bits", path, nb);
		elems *= v;
	}
	bits = st_bits(dt->valuestring);
	if (bits && (elems * bits + 7) / 8 != e - b)
		return fail(m, "%s: tensor '%s' of %llu %s elements needs %llu bytes, its data_offsets give %llu",
			    path, nb, (unsigned long long)elems, dt->valuestring,
			    (unsigned long long)((elems * bits + 7) / 8), (unsigned long long)(e - b));
	*bytes = e - b;
	return 0;
}

/* One file's header: the tensors' bytes added to m. */
static int read_safetensors(struct hf_model *m, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	unsigned char lenb[8];
	uint64_t n = 0, data;
	struct stat st;
	char *hdr = NULL;
	cJSON *j = NULL;
	const cJSON *t;
	int i, r = -1;
	if (fd < 0)
		return fail(m, "%s: %s", path, input_strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fail(m, "%s: not a regular file", path);
		goto out;
	}
	if (pread(fd, lenb, 8, 0) != 8) {
		fail(m, "%s: shorter than the 8-byte header length", path);
		goto out;
	}
	for (i = 7; i >= 0; i--)
		n = n << 8 | lenb[i];
	if (n < 2 || n > HEADER_CAP || n > (uint64_t)st.st_size - 8) {
		fail(m, "%s: header length %llu is not between 2 and the file's size (and 100 MB)", path,
		     (unsigned long long)n);
		goto out;
	}
	data = (uint64_t)st.st_size - 8 - n;
	hdr = xmalloc(n + 1);
	if (pread(fd, hdr, n, 8) != (ssize_t)n) {
		fail(m, "%s: cannot read its %llu-byte header", path, (unsigned long long)n);
		goto out;
	}
	hdr[n] = '\0';
	if (memchr(hdr, '\0', n) || !(j = cJSON_ParseWithLength(hdr, n)) || !cJSON_IsObject(j)) {
		fail(m, "%s: its header is not a JSON object", path);
		goto out;
	}
	cJSON_ArrayForEach(t, j) {
		uint64_t b = 0;
		if (t->string && !strcmp(t->string, "__metadata__"))
			continue;
		if (st_tensor(m, path, t, data, &b) < 0)
			goto out;
		if (m->weight_bytes > UINT64_MAX - b) {
			fail(m, "%s: the tensors' bytes overflow 64 bits", path);
			goto out;
		}
		m->weight_bytes += b;
		m->tensors++;
	}
	m->files++;
	r = 0;
out:
	cJSON_Delete(j);
	free(hdr);
	close(fd);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The safetensors files: those model.safetensors.index.json's weight_map
 * names, else every *.safetensors in dir, sorted. */
static int list_files(struct hf_model *m, const char *dir, char ***out, size_t *n_out)
{
	char *ipath = xasprintf("%s/model.safetensors.index.json", dir);
	char **names = NULL;
	size_t n = 0, i;
	struct stat st;
	if (stat(ipath, &st) == 0) {
		cJSON *j = load_json(m, ipath);
		const cJSON *wm = cJSON_GetObjectItemCaseSensitive(j, "weight_map"), *v;
		if (!j) {
			free(ipath);
			return -1;
		}
		if (!cJSON_IsObject(wm)) {
			cJSON_Delete(j);
			fail(m, "%s: no weight_map object", ipath);
			free(ipath);
			return -1;
		}
		cJSON_ArrayForEach(v, wm) {
			if (!cJSON_IsString(v) || !*v->valuestring || strchr(v->valuestring, '/') ||
			    !strcmp(v->valuestring, "..")) {
				cJSON_Delete(j);
				fail(m, "%s: weight_map names a file that is not a plain file name in the directory", ipath);
				free(ipath);
				for (i = 0; i < n; i++)
					free(names[i]);
				free(names);
				return -1;
			}
			for (i = 0; i < n && strcmp(names[i], v->valuestring); i++)
				;
			if (i == n && n < MAX_FILES) {
				names = xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = xstrdup(v->valuestring);
			}
		}
		cJSON_Delete(j);
	} else {
		DIR *d = opendir(dir);
		struct dirent *e;
		if (!d) {
			fail(m, "%s: %s", dir, strerror(errno));
			free(ipath);
			return -1;
		}
		while ((e = readdir(d)) && n < MAX_FILES)
			if (e->d_name[0] != '.' && str_endswith(e->d_name, ".safetensors")) {
				names = xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = xstrdup(e->d_name);
			}
		closedir(d);
	}
	free(ipath);
	if (!n)
		return fail(m, "%s: no *.safetensors file: nodeaudit sizes a checkpoint from its safetensors "
			    "headers", dir);
	qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	*n_out = n;
	return 0;
}

int hf_model_read(const char *dir, struct hf_model *m)
{
	char **names = NULL;
	size_t n = 0, i;
	int r = 0;
	memset(m, 0, sizeof(*m));
	if (read_config(m, dir) < 0 || list_files(m, dir, &names, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!r) {
			char *p = xasprintf("%s/%s", dir, names[i]);
			r = read_safetensors(m, p);
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

uint64_t hf_kv_bytes_per_pos(const struct hf_model *m)
{
	return 2 * m->layers * m->kv_heads * m->head_dim * m->dtype_bytes;
}
