/* The JSON document of tregc and treg-analyze, written as it is made: each
 * report is written as soon as it is added, so memory follows the largest
 * report, not the number of them. */
#include "render.h"

#include <string.h>

static void put(treg_json_doc *d, const char *s)
{
    if (fputs(s, d->out) == EOF) d->failed = 1;
}

void treg_json_doc_begin(treg_json_doc *d, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->out = out;
    put(d, "{\"reports\":[");
}

void treg_json_doc_report(treg_json_doc *d, const Treg__V1__Report *r, int with_rows,
                          int stored_before, const char *link)
{
    if (d->reports++) put(d, ",");
    if (treg_render_json_write(d->out, r, with_rows, stored_before, link) != 0) d->failed = 1;
}

void treg_json_doc_raw(treg_json_doc *d, const char *json, size_t len)
{
    if (d->reports++) put(d, ",");
    if (fwrite(json, 1, len, d->out) != len) d->failed = 1;
}

void treg_json_doc_member(treg_json_doc *d, const char *key, json_object *value)
{
    json_object *k = json_object_new_string(key);
    put(d, d->closed ? "," : "],");
    d->closed = 1;
    put(d, json_object_to_json_string_ext(k, JSON_C_TO_STRING_PLAIN));
    put(d, ":");
    put(d, value ? json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN) : "null");
    json_object_put(k);
    json_object_put(value);
}

int treg_json_doc_end(treg_json_doc *d)
{
    put(d, d->closed ? "}\n" : "]}\n");
    if (fflush(d->out) != 0 || ferror(d->out)) d->failed = 1;
    return d->failed ? -1 : 0;
}
