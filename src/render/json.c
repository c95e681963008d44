/* render/json.c - every JSON document nodeaudit prints: indented, valid UTF-8 */
#include "config.h"
#include "render/render.h"
#include "lib/output.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

void render_json(FILE *fp, const struct doc *d)
{
	output_json(fp, d->json);
}
