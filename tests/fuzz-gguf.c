/* fuzz-gguf.c - libFuzzer target for the GGUF reader (not built by make):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -I. tests/fuzz-gguf.c \
 *     src/gguf.c src/util.c -o fuzz-gguf && ./fuzz-gguf -max_total_time=60
 */
#include "config.h"
#include "gguf.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gguf_file g;
	struct gguf_model m;
	memset(&g, 0, sizeof(g));
	g.fd = -1;
	if (gguf_parse(&g, data, size) == 0)
		(void)gguf_model_summary(&g, &m);
	gguf_close(&g);
	return 0;
}
