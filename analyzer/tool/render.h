/* Renderers of the local tool: a report in, text or JSON out.  They only
 * read the report; the analysis never depends on them. */
#ifndef TREG_TOOL_RENDER_H
#define TREG_TOOL_RENDER_H

#include <json-c/json.h>
#include <stdio.h>

#include "treg/analyzer.h"

/* One code object's report as a JSON object {"file", "target", ..., "kernels": [...]}. */
json_object *treg_render_json(const treg_report *r, const char *path, int with_rows);

void treg_render_text(FILE *out, const treg_report *r, const char *path);

#endif
