/* fuzz-smbios.c - libFuzzer target for the SMBIOS parser.
 * Build and run (clang): make fuzz-smbios  (seed corpus: the tables that
 * tests/mksmbios writes from tests/smbios/*.desc). */
#include "config.h"
#include "smbios.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smbios_info s;
	char *err = NULL;
	/* As a dump file (entry point at 0) ... */
	if (smbios_parse_dump(data, size, &s, &err) < 0)
		free(err);
	smbios_free(&s);
	/* ... and as a bare structure table (sysfs DMI or entries). */
	err = NULL;
	memset(&s, 0, sizeof(s));
	if (smbios_parse_table(data, size, 0, &s, &err) < 0)
		free(err);
	smbios_free(&s);
	return 0;
}
