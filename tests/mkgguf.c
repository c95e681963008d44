/* mkgguf.c - write tiny llama-like GGUF files, valid or broken one rule at a time, for the tests
 *
 *   mkgguf VARIANT OUT.gguf [TYPE]
 *
 * TYPE (default f16) is the type of the weight matrices; norms are F32.
 * Valid variants: llama, tied, v2, align64, perlayer, noarch, mixed, moe,
 * kv-huge (65536 layers of 2^20 KV heads of 2^20 + 2^20 elements: a KV cache
 * per position of 2^57 elements, whose bytes for a long context overflow 64 bits),
 * and big: llama plus one 20 GiB f32 tensor (test.big.weight) whose data is a
 * hole of a sparse file (nothing written, so it costs no disk), for the plan's fit.
 * Broken variants print on stdout the file offset of the field they broke
 * (where the writer put it, so the reader's message can be checked).
 * The model: 2 layers, n_embd 256, n_ff 512, n_vocab 64, 4 heads, 2 KV heads
 * (head size 64), training context 128.
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 };

struct typeinfo { const char *name; unsigned id, blck, bytes; };
static const struct typeinfo types[] = {
	{ "f32", 0, 1, 4 }, { "f16", 1, 1, 2 }, { "q4_0", 2, 32, 18 }, { "q4_1", 3, 32, 20 },
	{ "q5_0", 6, 32, 22 }, { "q5_1", 7, 32, 24 }, { "q8_0", 8, 32, 34 }, { "q2_k", 10, 256, 84 },
	{ "q3_k", 11, 256, 110 }, { "q4_k", 12, 256, 144 }, { "q5_k", 13, 256, 176 },
	{ "q6_k", 14, 256, 210 }, { "iq2_xxs", 16, 256, 66 }, { "iq4_nl", 20, 32, 18 },
	{ "iq4_xs", 23, 256, 136 }, { "bf16", 30, 1, 2 }, { "iq1_m", 29, 256, 56 },
	{ "tq1_0", 34, 256, 54 }, { "mxfp4", 39, 32, 17 }, { "nvfp4", 40, 64, 36 },
	{ "q1_0", 41, 128, 18 }, { "q2_0", 42, 64, 18 },
};

static const struct typeinfo *type_by_name(const char *n)
{
	size_t i;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].name, n))
			return &types[i];
	fprintf(stderr, "mkgguf: unknown type '%s'\n", n);
	exit(2);
}

/*** A growable little-endian buffer ***/

static uint8_t *buf;
static size_t len, cap;

static void put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2 + 4096;
		buf = realloc(buf, cap);
		if (!buf)
			exit(2);
	}
	memcpy(buf + len, p, n);
	len += n;
}
static void le(uint64_t v, unsigned n) { uint8_t b[8]; unsigned i; for (i = 0; i < n; i++) b[i] = (uint8_t)(v >> (8 * i)); put(b, n); }
static void u32(uint64_t v) { le(v, 4); }
static void u64(uint64_t v) { le(v, 8); }
static void str(const char *s) { u64(strlen(s)); put(s, strlen(s)); }
static void f32(float f) { uint32_t v; memcpy(&v, &f, 4); u32(v); }

static const char *variant;
static int is(const char *v) { return !strcmp(variant, v); }
static long long bad_off = -1;   /* the offset to print */
static void mark(void) { if (bad_off < 0) bad_off = (long long)len; }

static unsigned nkv;
static void key(const char *k, unsigned type) { str(k); u32(type); nkv++; }

/*** The model ***/

#define N_EMBD 256
#define N_FF 512
#define N_VOCAB 64
#define N_LAYER 2
#define N_HEAD 4
#define N_HEAD_KV 2
#define HEAD 64

struct tensor { char name[80]; unsigned nd; uint64_t ne[5]; const struct typeinfo *t; uint64_t nbytes; };
static struct tensor ts[64];
static unsigned nt;

static void tensor3(const char *name, const struct typeinfo *t, unsigned nd, uint64_t a, uint64_t b,
		    uint64_t c)
{
	struct tensor *x = &ts[nt++];
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->nd = nd;
	x->ne[0] = a;
	x->ne[1] = nd > 1 ? b : 1;
	x->ne[2] = nd > 2 ? c : 1;
	x->t = t;
	x->nbytes = a * x->ne[1] * x->ne[2] / t->blck * t->bytes;
}

static void tensor(const char *name, const struct typeinfo *t, unsigned nd, uint64_t a, uint64_t b)
{
	tensor3(name, t, nd, a, b, 1);
}

static void metadata(unsigned align)
{
	unsigned i;
	if (!is("noarch")) {
		key("general.architecture", STR);
		str("llama");
	}
	key("general.name", STR); str("tiny test model");
	if (align) {
		if (is("align-type")) { mark(); key("general.alignment", U64); u64(align); }
		else { key("general.alignment", U32); if (is("bad-align")) mark(); u32(align); }
	}
	key("llama.context_length", U32); u32(128);
	key("llama.embedding_length", U32); u32(N_EMBD);
	key("llama.block_count", U32); u32(is("kv-huge") ? 65536 : N_LAYER);
	key("llama.feed_forward_length", U32); u32(N_FF);
	key("llama.attention.head_count", U32); u32(N_HEAD);
	if (is("perlayer") || is("headkv-len")) {
		unsigned n = is("headkv-len") ? 3 : N_LAYER;
		if (is("headkv-len"))
			mark();
		key("llama.attention.head_count_kv", ARR); u32(I32); u64(n);
		for (i = 0; i < n; i++)
			u32(i == 0 ? 2 : 1);
		key("llama.attention.key_length", U64); u64(HEAD);
		key("llama.attention.value_length", U16); le(HEAD, 2);
	} else if (is("kv-huge")) {
		key("llama.attention.head_count_kv", U32); u32(1u << 20);
		key("llama.attention.key_length", U32); u32(1u << 20);
		key("llama.attention.value_length", U32); u32(1u << 20);
	} else {
		key("llama.attention.head_count_kv", U32); u32(N_HEAD_KV);
	}
	if (is("moe")) {
		key("llama.expert_count", U32); u32(4);
		key("llama.expert_used_count", U32); u32(2);
	}
	key("llama.attention.layer_norm_rms_epsilon", F32); f32(1e-5f);
	key("llama.rope.freq_base", F32); f32(10000.0f);
	key("llama.rope.dimension_count", U32); u32(HEAD);
	/* One of every scalar type. */
	key("test.u8", U8); le(200, 1);
	key("test.i8", I8); le((uint8_t)-5, 1);
	key("test.u16", U16); le(60000, 2);
	key("test.i16", I16); le((uint16_t)-300, 2);
	key("test.i32", I32); u32((uint32_t)-70000);
	key("test.u64", U64); u64(1ull << 40);
	key("test.i64", I64); u64((uint64_t)-1);
	key("test.f64", F64); u64(0x400921fb54442d18ull);
	key("test.bool", BOOL); le(1, 1);
	if (is("dup-key")) { mark(); key("test.u8", U8); le(1, 1); }
	if (is("empty-key")) { mark(); key("", U8); le(1, 1); }
	if (is("bad-vtype")) { str("test.what"); mark(); u32(13); nkv++; u64(0); }
	if (is("huge-string")) { mark(); u64(1ull << 40); u32(U8); nkv++; le(0, 8); }
	/* Arrays of every element type but arrays. */
	key("test.arr.u8", ARR); u32(U8); u64(3); le(1, 1); le(2, 1); le(3, 1);
	key("test.arr.i16", ARR); u32(I16); u64(2); le(1, 2); le(2, 2);
	key("test.arr.u64", ARR); u32(U64); u64(2); u64(1); u64(2);
	key("test.arr.f64", ARR); u32(F64); u64(1); u64(0);
	key("test.arr.bool", ARR); u32(BOOL); u64(2); le(0, 1); le(1, 1);
	key("test.arr.empty", ARR); u32(U32); u64(0);
	if (is("nested")) { key("test.arr.nested", ARR); mark(); u32(ARR); u64(1); u32(U8); u64(0); }
	if (is("huge-array")) { key("test.arr.huge", ARR); u32(U64); mark(); u64(1ull << 50); }
	/* A SentencePiece-style tokenizer: strings, f32 and i32 arrays. */
	key("tokenizer.ggml.model", STR); str("llama");
	key("tokenizer.ggml.tokens", ARR); u32(STR); u64(N_VOCAB);
	for (i = 0; i < N_VOCAB; i++) {
		char t[16];
		snprintf(t, sizeof(t), i == 0 ? "<unk>" : i == 1 ? "<s>" : i == 2 ? "</s>" : "tok%u", i);
		str(t);
	}
	key("tokenizer.ggml.scores", ARR); u32(F32); u64(N_VOCAB);
	for (i = 0; i < N_VOCAB; i++)
		f32(-(float)i);
	key("tokenizer.ggml.token_type", ARR); u32(I32); u64(N_VOCAB);
	for (i = 0; i < N_VOCAB; i++)
		u32(i < 3 ? 3 : 1);
}

static void model(const char *tname)
{
	const struct typeinfo *w = type_by_name(tname), *f = type_by_name("f32");
	const struct typeinfo *emb = w, *down = w, *attn = w, *out = w;
	unsigned l;
	char n[80];
	if (is("mixed")) {
		emb = type_by_name("q8_0");
		attn = type_by_name("q4_k");
		down = type_by_name("q6_k");
		out = type_by_name("q6_k");
		w = type_by_name("q4_k");
	}
	tensor("token_embd.weight", emb, 2, N_EMBD, N_VOCAB);
	for (l = 0; l < N_LAYER; l++) {
#define T(suffix, t, nd, a, b) (snprintf(n, sizeof(n), "blk.%u." suffix, l), tensor(n, t, nd, a, b))
		T("attn_norm.weight", f, 1, N_EMBD, 1);
		T("attn_q.weight", attn, 2, N_EMBD, N_EMBD);
		T("attn_k.weight", attn, 2, N_EMBD, N_HEAD_KV * HEAD);
		T("attn_v.weight", attn, 2, N_EMBD, N_HEAD_KV * HEAD);
		T("attn_output.weight", attn, 2, N_EMBD, N_EMBD);
		T("ffn_norm.weight", f, 1, N_EMBD, 1);
		if (is("moe")) {
			/* 4 experts, 2 used per token; the router is read whole. */
			T("ffn_gate_inp.weight", f, 2, N_EMBD, 4);
			snprintf(n, sizeof(n), "blk.%u.ffn_gate_exps.weight", l); tensor3(n, w, 3, N_EMBD, N_FF, 4);
			snprintf(n, sizeof(n), "blk.%u.ffn_up_exps.weight", l); tensor3(n, w, 3, N_EMBD, N_FF, 4);
			snprintf(n, sizeof(n), "blk.%u.ffn_down_exps.weight", l); tensor3(n, down, 3, N_FF, N_EMBD, 4);
			continue;
		}
		T("ffn_gate.weight", w, 2, N_EMBD, N_FF);
		T("ffn_up.weight", w, 2, N_EMBD, N_FF);
		T("ffn_down.weight", down, 2, N_FF, N_EMBD);
#undef T
	}
	tensor("output_norm.weight", f, 1, N_EMBD, 1);
	if (!is("tied"))
		tensor("output.weight", out, 2, N_EMBD, N_VOCAB);
	if (is("big"))   /* 1024 x 5 Mi f32: 20 GiB */
		tensor("test.big.weight", f, 2, 1024, 5ull << 20);
}

static uint64_t align_up(uint64_t x, uint64_t a) { return x + (a - x % a) % a; }

int main(int argc, char **argv)
{
	unsigned align = 32, i, j;
	uint64_t off = 0;
	size_t kvcount_at;
	long long last_info = -1;
	uint64_t hole = 0;   /* zeros left to the end of a sparse file */
	FILE *fp;

	if (argc < 3) {
		fprintf(stderr, "usage: mkgguf VARIANT OUT.gguf [TYPE]\n");
		return 2;
	}
	variant = argv[1];
	model(argc > 3 ? argv[3] : "f16");
	if (is("align64"))
		align = 64;
	if (is("bad-align"))
		align = 24;

	put("GGUF", 4);
	if (is("v1") || is("bigendian"))
		mark();
	u32(is("v1") ? 1 : is("v2") ? 2 : is("bigendian") ? 0x03000000 : 3);
	if (is("huge-tensors"))
		mark();
	u64(is("huge-tensors") ? 1ull << 40 : nt);
	kvcount_at = len;
	u64(0);
	if (is("huge-kv")) {
		bad_off = (long long)kvcount_at;
		memcpy(buf + kvcount_at, "\0\0\0\0\0\0\1\0", 8);
	}
	metadata(is("align64") || is("bad-align") || is("align-type") ? align : 0);
	if (!is("huge-kv"))
		for (j = 0; j < 8; j++)
			buf[kvcount_at + j] = (uint8_t)((uint64_t)nkv >> (8 * j));
	if (is("bad-align"))
		align = 32;   /* write the rest as usual: the reader stops at the key */

	for (i = 0; i < nt; i++) {
		struct tensor *t = &ts[i];
		const char *name = t->name;
		char longname[80];
		if (is("dup-name") && i == 2) { mark(); name = ts[1].name; }
		if (is("long-name") && i == 1) {
			memset(longname, 'x', 64);
			longname[64] = '\0';
			mark();
			name = longname;
		}
		if (i == nt - 1)
			last_info = (long long)len;
		str(name);
		if (is("bad-block") && i == 1) {
			u32(1); u64(100); mark(); u32(12);
		} else if (is("dims5") && i == 1) {
			mark(); u32(5);
			for (j = 0; j < 5; j++) u64(1);
		} else if (is("overflow") && i == 1) {
			u32(3); u64(1ull << 32); mark(); u64(1ull << 32); u64(4);
		} else {
			u32(t->nd);
			for (j = 0; j < t->nd; j++)
				u64(t->ne[j]);
		}
		if ((is("unknown-type") || is("removed-type")) && i == 1) {
			mark(); u32(is("unknown-type") ? 43 : 4);
		} else if (!(is("bad-block") && i == 1))
			u32(t->t->id);
		if ((is("overlap") || is("gap") || is("misaligned")) && i == 2) {
			mark();
			u64(is("overlap") ? off - align : is("gap") ? off + align : off + 4);
		} else
			u64(off);
		off += align_up(t->nbytes, align);
	}
	while (len % align)
		put("", 1);
	/* Data: zeros (the bench streams them; values do not matter). */
	{
		uint64_t data = off;
		if (is("past-eof")) {
			/* The last tensor loses its last byte: the message names its info entry. */
			data = off - align_up(ts[nt - 1].nbytes, align) + ts[nt - 1].nbytes - 1;
		}
		if (is("big"))
			hole = data;
		else
			for (; data; data--)
				put("", 1);
	}
	if (is("past-eof"))
		bad_off = last_info;
	if (is("truncated")) {
		len = 10;
		bad_off = 8;
	}
	fp = fopen(argv[2], "wb");
	if (!fp || fwrite(buf, 1, len, fp) != len ||
	    (hole && (fseeko(fp, (off_t)(hole - 1), SEEK_CUR) || fputc(0, fp) == EOF)) || fclose(fp)) {
		perror(argv[2]);
		return 2;
	}
	if (bad_off >= 0)
		printf("%lld\n", bad_off);
	return 0;
}
