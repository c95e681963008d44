/* test-gguf.c - the GGUF reader on hand-built buffers: type table, values, mutations */
#include "config.h"
#include "read/gguf.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint8_t buf[4096];
static size_t len;

static void le(uint64_t v, unsigned n) { while (n--) { buf[len++] = (uint8_t)v; v >>= 8; } }
static void str(const char *s) { le(strlen(s), 8); memcpy(buf + len, s, strlen(s)); len += strlen(s); }

/* v3, 3 keys, 2 tensors (F32 [8], Q8_0 [32, 2]) at 0 and 32, alignment 32. */
static void build(void)
{
	len = 0;
	memcpy(buf, "GGUF", 4); len = 4;
	le(3, 4); le(2, 8); le(3, 8);
	str("general.architecture"); le(8, 4); str("x");
	str("x.block_count"); le(0, 4); le(7, 1);                     /* UINT8 */
	str("x.attention.head_count"); le(9, 4); le(5, 4); le(2, 8); le((uint32_t)-1, 4); le(4, 4);  /* INT32 [-1, 4] */
	str("a"); le(1, 4); le(8, 8); le(0, 4); le(0, 8);
	str("b"); le(2, 4); le(32, 8); le(2, 8); le(8, 4); le(32, 8);
	while (len % 32) buf[len++] = 0;
	memset(buf + len, 0, 32 + 68); len += 32 + 68;
}

int main(void)
{
	struct gguf_file g;
	struct gguf_model m;
	const struct gguf_kv *kv;
	uint64_t v;
	unsigned i, bad = 0, good = 0;

	ok(ggml_type(12) && ggml_type(12)->blck == 256 && ggml_type(12)->bytes == 144, "Q4_K: 144 bytes per 256");
	ok(ggml_type(42) && ggml_type(42)->bytes == 18 && ggml_type(42)->blck == 64, "Q2_0 (42) known");
	ok(ggml_type(43) == NULL, "43 unknown");
	ok(ggml_type(4)->blck == 0, "Q4_2 removed");

	build();
	memset(&g, 0, sizeof(g)); g.fd = -1;
	is_int(gguf_parse(&g, buf, len), 0, "valid buffer parses %s", g.err);
	is_int(g.n_tensors, 2, "2 tensors");
	is_int(g.t[1].nbytes, 68, "Q8_0 [32, 2] is 68 bytes");
	is_int(g.data_offset % 32, 0, "data offset aligned");
	kv = gguf_find(&g, "x.block_count");
	ok(kv && gguf_get_uint(&g, kv, 0, &v) == 0 && v == 7, "UINT8 read as a count");
	kv = gguf_find(&g, "x.attention.head_count");
	ok(kv && gguf_get_uint(&g, kv, 1, &v) == 0 && v == 4, "INT32 array element");
	ok(gguf_get_uint(&g, kv, 0, &v) == -ERANGE, "negative element refused");
	ok(gguf_get_uint(&g, kv, 2, &v) == -ERANGE, "index past the array");
	ok(gguf_model_summary(&g, &m) == 0 && !m.kv_known && strstr(m.note, "KV cache not counted"), "no head size: KV cache not counted");
	is_int(m.n_layer, 7, "block_count from a UINT8");
	gguf_close(&g);

	/* Every single-byte change and every truncation: 0, or -1 with "offset N:". */
	for (i = 0; i < len * 3; i++) {
		uint8_t save;
		unsigned pos = i % len;
		int r;
		build();
		save = buf[pos];
		buf[pos] = (uint8_t)(i / len == 0 ? 0xff : i / len == 1 ? save + 1 : 0x80);
		memset(&g, 0, sizeof(g)); g.fd = -1;
		r = gguf_parse(&g, buf, len);
		if (r == 0) {
			uint64_t k;
			good++;
			for (k = 0; k < g.n_tensors; k++)
				if (g.data_offset + g.t[k].offset + g.t[k].nbytes > len)
					bad++;
			if (gguf_model_summary(&g, &m) < 0 && strncmp(g.err, "offset ", 7))
				bad++;
		} else if (r != -1 || strncmp(g.err, "offset ", 7))
			bad++;
		gguf_close(&g);
	}
	build();
	for (i = 0; i < len; i++) {
		memset(&g, 0, sizeof(g)); g.fd = -1;
		if (gguf_parse(&g, buf, i) != -1 || strncmp(g.err, "offset ", 7))
			bad++;
		gguf_close(&g);
	}
	is_int(bad, 0, "%u mutations and %u truncations: clean results (%u still valid)", (unsigned)len * 3, (unsigned)len, good);
	return done_testing();
}
