/* fuzz-smbios.c - the SMBIOS parser: the input as a `dmidecode --dump-bin`
 * image, as a bare structure table, and split in two as the kernel's
 * smbios_entry_point + DMI pair (the first byte says where). */
#include "config.h"
#include "read/smbios.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(int r, struct smbios_info *s, char *err)
{
	/* An error always comes with its one line; success without one. */
	if ((r < 0) != (err != NULL))
		abort();
	free(err);
	smbios_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smbios_info s;
	char *err = NULL;
	uint8_t *buf = malloc(size ? size : 1);
	size_t cut;
	int r;
	memcpy(buf, data, size);

	memset(&s, 0, sizeof(s));
	r = smbios_parse_dump(buf, size, &s, &err);
	one(r, &s, err);

	err = NULL;
	memset(&s, 0, sizeof(s));
	r = smbios_parse_table(buf, size, 0, &s, &err);
	one(r, &s, err);

	cut = size ? buf[0] % 64 : 0;
	if (cut > size)
		cut = size;
	err = NULL;
	memset(&s, 0, sizeof(s));
	r = smbios_parse_split(buf, cut, buf + cut, size - cut, &s, &err);
	one(r, &s, err);
	free(buf);
	return 0;
}
