/* audit/plan-note.c - plan.notes, for the plan and its runtime and kubelet parts */
#include "config.h"
#include "audit/plan.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdlib.h>

void plan_note(cJSON *plan, const char *fmt, ...)
{
	va_list ap;
	char *s;
	cJSON *notes = cJSON_GetObjectItemCaseSensitive(plan, "notes");
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (!notes)
		notes = cJSON_AddArrayToObject(plan, "notes");
	cJSON_AddItemToArray(notes, cJSON_CreateString(s));
	free(s);
}
