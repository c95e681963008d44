/* replay.c - run a fuzz target's inputs without libFuzzer: each file named
 * on the command line (or each file in a named directory) once.  Used by
 * `make check` for the seed corpus and the kept crash inputs. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;
	if (!f) {
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)(n > 0 ? n : 0));
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, bad = 0, count = 0;
	for (i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;
			while (d && (de = readdir(d))) {
				char p[4096];
				if (de->d_name[0] == '.')
					continue;
				snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
				bad |= run_file(p);
				count++;
			}
			if (d)
				closedir(d);
		} else {
			bad |= run_file(argv[i]);
			count++;
		}
	}
	printf("replayed %d inputs\n", count);
	return bad;
}
