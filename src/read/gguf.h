/* read/gguf.h - a strict reader for GGUF v2/v3 model files (header, metadata, tensor table) */
#ifndef NODEAUDIT_GGUF_H
#define NODEAUDIT_GGUF_H

#include <stddef.h>
#include <stdint.h>

/* Metadata value types (gguf.md). */
enum gguf_vtype {
	GGUF_U8 = 0, GGUF_I8, GGUF_U16, GGUF_I16, GGUF_U32, GGUF_I32, GGUF_F32, GGUF_BOOL,
	GGUF_STRING, GGUF_ARRAY, GGUF_U64, GGUF_I64, GGUF_F64, GGUF_VTYPE_COUNT
};

#define GGUF_MAX_DIMS 4
#define GGUF_MAX_NAME 64                 /* ggml: name length < 64 */
#define GGUF_DEFAULT_ALIGNMENT 32
#define GGML_TYPE_COUNT 43               /* ggml d99724f2; gguf-reference.md */

/* A ggml tensor type: block of `blck` elements stored in `bytes` bytes.
 * Removed ids have blck 0.  NULL for an id beyond the table. */
struct ggml_type_info {
	const char *name;
	uint32_t blck;
	uint32_t bytes;
};
const struct ggml_type_info *ggml_type(uint32_t id);

struct gguf_kv {
	const char *key;         /* into the mapping: NOT NUL-terminated */
	uint64_t key_len;
	uint32_t type;           /* enum gguf_vtype */
	uint32_t arr_type;       /* element type when type == GGUF_ARRAY */
	uint64_t arr_n;          /* element count when an array */
	uint64_t off;            /* file offset of the value (of the first element for arrays) */
	uint64_t kv_off;         /* file offset of the key-value pair */
};

struct gguf_tensor {
	char *name;              /* NUL-terminated copy */
	uint32_t n_dims;
	uint64_t ne[GGUF_MAX_DIMS];   /* missing dimensions are 1 */
	uint32_t type;           /* ggml type id */
	uint64_t offset;         /* relative to data_offset */
	uint64_t nbytes;         /* unpadded size */
	uint64_t info_off;       /* file offset of this tensor's info entry */
};

struct gguf_file {
	char *path;
	int fd;
	const uint8_t *map;      /* the whole file, read-only */
	uint64_t size;
	uint32_t version;
	uint64_t n_kv, n_tensors;
	struct gguf_kv *kv;
	struct gguf_tensor *t;
	uint64_t alignment;
	uint64_t data_offset;    /* file offset of the data section */
	uint64_t data_bytes;     /* sum of the padded tensor sizes */
	char err[512];           /* "offset N: what is wrong" after a failed open */
};

/* Map and validate path.  Returns 0, -1 for a malformed file (g->err set:
 * "offset N: ..."), or GGUF_EIO when it cannot be opened or mapped (g->err
 * is the reason).  gguf_close() in every case. */
#define GGUF_EIO (-2)
int gguf_open(struct gguf_file *g, const char *path);
/* Validate a buffer in memory (the same checks; for tests and fuzzing). */
int gguf_parse(struct gguf_file *g, const uint8_t *buf, uint64_t size);
void gguf_close(struct gguf_file *g);

/* The metadata pair named key, or NULL. */
const struct gguf_kv *gguf_find(const struct gguf_file *g, const char *key);
/* A string value (not NUL-terminated): 0 or -1 when absent or not a string. */
int gguf_get_str(const struct gguf_file *g, const struct gguf_kv *kv, const char **s, uint64_t *len);
/* An integer of any integer type, or element idx of an integer array (idx is
 * ignored for a scalar).  0, -ENOENT (kv NULL), -EINVAL (not an integer),
 * -ERANGE (negative or idx out of range). */
int gguf_get_uint(const struct gguf_file *g, const struct gguf_kv *kv, uint64_t idx, uint64_t *v);
const char *gguf_vtype_name(uint32_t t);

/*** Per-token estimate ***/

struct gguf_model {
	char arch[64];           /* "" when general.architecture is absent */
	uint64_t n_layer, n_embd, n_ctx_train;   /* 0 when absent */
	int has_n_layer, has_n_embd, has_n_ctx_train;
	uint64_t tensor_bytes;   /* all tensors, unpadded */
	uint64_t weight_bytes_per_token;   /* what decode reads of the weights */
	uint64_t kv_elems_per_pos;         /* KV cache elements per context position */
	int kv_known;            /* 0: the keys for the KV cache are missing */
	int tied;                /* no output.weight: token_embd is read whole */
	int moe;                 /* expert tensors scaled by used/count */
	uint64_t type_bytes[GGML_TYPE_COUNT];
	char note[256];          /* why kv_known is 0, or "" */
};

/* Fill m from g.  Returns 0 or -1 with g->err set ("offset N: ...") when a needed key is
 * malformed (a per-layer array of the wrong length, a string for a count). */
int gguf_model_summary(struct gguf_file *g, struct gguf_model *m);

#endif
