/* jsubset.c - does a JSON document contain an expected subset?
 *
 * Usage: jsubset EXPECTED.json ACTUAL.json
 * Every key of an expected object must be in the actual object with a
 * matching value; arrays must have the same length and match element by
 * element; numbers match within 1e-9 (relative).  Two special values:
 * the string "<any>" matches anything present (null included), and
 * {"$absent": true} asserts the key is not there.  Prints each mismatch
 * with its path; exits 0 (match), 1 (mismatch) or 2 (bad input). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

static int mismatches;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(b);
		return NULL;
	}
	b[n] = 0;
	fclose(f);
	return b;
}

static void report(const char *path, const char *what, const cJSON *exp, const cJSON *act)
{
	char *e = exp ? cJSON_PrintUnformatted(exp) : strdup("(nothing)");
	char *a = act ? cJSON_PrintUnformatted(act) : strdup("(missing)");
	if (a && strlen(a) > 300)
		strcpy(a + 290, "...");
	printf("%s: %s: expected %s, got %s\n", path[0] ? path : "(root)", what, e, a);
	free(e);
	free(a);
	mismatches++;
}

static void compare(const char *path, const cJSON *exp, const cJSON *act)
{
	char sub[1024];
	if (cJSON_IsString(exp) && !strcmp(exp->valuestring, "<any>")) {
		if (!act)
			report(path, "missing", exp, act);
		return;
	}
	if (!act) {
		report(path, "missing", exp, act);
		return;
	}
	if (cJSON_IsObject(exp)) {
		const cJSON *e;
		if (!cJSON_IsObject(act)) {
			report(path, "not an object", exp, act);
			return;
		}
		cJSON_ArrayForEach(e, exp) {
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(act, e->string);
			const cJSON *absent = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "$absent") : NULL;
			snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", e->string);
			if (absent) {
				if (a)
					report(sub, "should be absent", NULL, a);
				continue;
			}
			compare(sub, e, a);
		}
		return;
	}
	if (cJSON_IsArray(exp)) {
		int i, n = cJSON_GetArraySize(exp);
		if (!cJSON_IsArray(act)) {
			report(path, "not an array", exp, act);
			return;
		}
		if (cJSON_GetArraySize(act) != n) {
			report(path, "array length differs", exp, act);
			return;
		}
		for (i = 0; i < n; i++) {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			compare(sub, cJSON_GetArrayItem(exp, i), cJSON_GetArrayItem(act, i));
		}
		return;
	}
	if (cJSON_IsNumber(exp)) {
		double e = exp->valuedouble, a;
		if (!cJSON_IsNumber(act)) {
			report(path, "not a number", exp, act);
			return;
		}
		a = act->valuedouble;
		if (fabs(e - a) > 1e-9 * fmax(1.0, fabs(e)))
			report(path, "differs", exp, act);
		return;
	}
	if (cJSON_IsString(exp)) {
		if (!cJSON_IsString(act) || strcmp(exp->valuestring, act->valuestring))
			report(path, "differs", exp, act);
		return;
	}
	if (cJSON_IsBool(exp) || cJSON_IsNull(exp)) {
		if (exp->type != act->type)
			report(path, "differs", exp, act);
		return;
	}
}

int main(int argc, char **argv)
{
	char *es, *as;
	cJSON *e, *a;
	if (argc != 3) {
		fprintf(stderr, "usage: jsubset EXPECTED ACTUAL\n");
		return 2;
	}
	es = slurp(argv[1]);
	as = slurp(argv[2]);
	if (!es || !as) {
		fprintf(stderr, "jsubset: cannot read %s\n", !es ? argv[1] : argv[2]);
		return 2;
	}
	e = cJSON_Parse(es);
	if (!e) {
		fprintf(stderr, "jsubset: %s: not valid JSON near '%.20s'\n", argv[1], cJSON_GetErrorPtr());
		return 2;
	}
	a = cJSON_Parse(as);
	if (!a) {
		fprintf(stderr, "jsubset: %s: not valid JSON near '%.20s'\n", argv[2], cJSON_GetErrorPtr());
		return 2;
	}
	compare("", e, a);
	cJSON_Delete(e);
	cJSON_Delete(a);
	free(es);
	free(as);
	return mismatches ? 1 : 0;
}
