/* fuzz-gguf.c - the GGUF reader (header, metadata, tensor table) and the
 * per-token summary, on a buffer in memory (gguf_parse does the same checks
 * as gguf_open on a mapped file). */
#include "config.h"
#include "read/gguf.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gguf_file g;
	struct gguf_model m;
	/* A private copy: the reader must not read past size (ASan sees it). */
	uint8_t *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	memset(&g, 0, sizeof(g));
	g.fd = -1;
	if (gguf_parse(&g, buf, size) == 0) {
		const struct gguf_kv *kv = gguf_find(&g, "general.architecture");
		const char *s;
		uint64_t len, v;
		if (kv)
			(void)gguf_get_str(&g, kv, &s, &len);
		kv = gguf_find(&g, "llama.block_count");
		if (kv)
			(void)gguf_get_uint(&g, kv, 0, &v);
		(void)gguf_model_summary(&g, &m);
	}
	gguf_close(&g);
	free(buf);
	return 0;
}
