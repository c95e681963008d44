/* read/hfmodel.h - a Hugging Face checkpoint directory, as vLLM loads it:
 * config.json (the architecture's sizes and dtype) and the safetensors
 * files' headers (the weights' bytes).  No tensor data is read. */
#ifndef NODEAUDIT_HFMODEL_H
#define NODEAUDIT_HFMODEL_H

#include <stdint.h>

struct hf_model {
	uint64_t heads;          /* num_attention_heads */
	uint64_t kv_heads;       /* num_key_value_heads (heads when absent: no GQA) */
	uint64_t layers;         /* num_hidden_layers */
	uint64_t hidden;         /* hidden_size */
	uint64_t head_dim;       /* head_dim, else hidden / heads */
	uint64_t max_pos;        /* max_position_embeddings; 0 when absent */
	char dtype[16];          /* torch_dtype (or dtype): "bfloat16", "float16", "float32" */
	unsigned dtype_bytes;    /* 2, 2, 4 */
	uint64_t weight_bytes;   /* the tensors' bytes, summed over the safetensors headers */
	uint64_t tensors;        /* how many tensors */
	unsigned files;          /* how many safetensors files */
	char err[600];           /* "FILE: what is wrong" after a failed read */
};

/* 1 when path is a directory (a checkpoint to read), 0 otherwise. */
int hf_is_dir(const char *path);

/* Read dir/config.json and every dir/ *.safetensors header (those that
 * model.safetensors.index.json's weight_map names, when it is there):
 * 0, or -1 with m->err set. */
int hf_model_read(const char *dir, struct hf_model *m);

/* The KV cache per context position, in bytes, at the model's dtype (vLLM's
 * kv_cache_dtype "auto"): 2 (K and V) x layers x kv_heads x head_dim x bytes. */
uint64_t hf_kv_bytes_per_pos(const struct hf_model *m);

#endif
