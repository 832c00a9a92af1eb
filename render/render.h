/* Views of a report, drawn from its protobuf alone (treg.v1.Report): the
 * JSON and the text that tregc prints and treg-analyze prints for local
 * files.  Nothing here knows how the report was computed. */
#ifndef TREG_RENDER_H
#define TREG_RENDER_H

#include <json-c/json.h>
#include <stdio.h>

#include "treg.pb-c.h"

/* One report as a JSON object: {"file", "hash" (when known), "target", ...,
 * "kernels": [...]}; with_rows 0 leaves out the per-instruction rows. */
json_object *treg_render_json(const Treg__V1__Report *r, int with_rows);

/* The per-kernel text summary. */
void treg_render_text(FILE *out, const Treg__V1__Report *r);

#endif
