/* jstrip.c - delete volatile keys from a JSON document before comparing
 *
 * Usage: jstrip FILE [-k SUBSTR]... [PATH]...
 * PATH is dotted ("host.collected_at"); "[]" visits every array element
 * ("gaps[].reason").  -k SUBSTR deletes, at any depth, every object key
 * containing SUBSTR ("free" for free memory).  Prints the result; exits 0,
 * or 2 on bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

static void del_path(cJSON *node, const char *path)
{
	size_t n = strcspn(path, ".[");
	char key[256];
	cJSON *child;
	if (!node)
		return;
	if (n == 0 && !strncmp(path, "[]", 2)) {
		const char *rest = path + 2;
		if (*rest == '.')
			rest++;
		cJSON_ArrayForEach(child, node)
			del_path(child, rest);
		return;
	}
	if (n >= sizeof(key) || !cJSON_IsObject(node))
		return;
	memcpy(key, path, n);
	key[n] = '\0';
	if (!path[n]) {
		cJSON_DeleteItemFromObjectCaseSensitive(node, key);
		return;
	}
	child = cJSON_GetObjectItemCaseSensitive(node, key);
	del_path(child, path[n] == '.' ? path + n + 1 : path + n);
}

static void del_substr(cJSON *node, const char *sub)
{
	cJSON *c = node ? node->child : NULL, *next;
	for (; c; c = next) {
		next = c->next;
		if (cJSON_IsObject(node) && c->string && strstr(c->string, sub)) {
			cJSON_Delete(cJSON_DetachItemViaPointer(node, c));
			continue;
		}
		del_substr(c, sub);
	}
}

int main(int argc, char **argv)
{
	FILE *f;
	char *buf, *out;
	long n;
	cJSON *j;
	int i;
	if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: jstrip FILE [-k SUBSTR]... [PATH]...\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "jstrip: cannot read %s\n", argv[1]);
		return 2;
	}
	buf[n] = '\0';
	fclose(f);
	j = cJSON_Parse(buf);
	if (!j) {
		fprintf(stderr, "jstrip: %s: not valid JSON\n", argv[1]);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-k") && i + 1 < argc)
			del_substr(j, argv[++i]);
		else
			del_path(j, argv[i]);
	}
	out = cJSON_Print(j);
	puts(out);
	free(out);
	cJSON_Delete(j);
	free(buf);
	return 0;
}
