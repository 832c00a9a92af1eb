/* libFuzzer target for what tregc does with a server's answer: any bytes
 * unpacked as a treg.v1.Report (protobuf-c), then, when they unpack, every
 * view drawn from it: the text views together (summary, --lines, --peak,
 * --asm with its strip, colour on), the HTML page and the JSON.  A report
 * from a server is untrusted: file indices, line numbers, register numbers
 * and live-range runs may point anywhere, and nothing may be read out of
 * bounds (ASan) or overflow (UBSan).  Output goes to /dev/null.  Seeds:
 * packed reports of real code objects (report_seeds, run-fuzz.sh). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "render.h"
#include "treg.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (sink == NULL && (sink = fopen("/dev/null", "w")) == NULL) __builtin_trap();
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, size, data);
    if (r == NULL) return 0;
    treg_text_options o = {.views = TREG_VIEW_SUMMARY | TREG_VIEW_LINES | TREG_VIEW_PEAK |
                                    TREG_VIEW_WHY | TREG_VIEW_ASM,
                           .color = 1,
                           .frames = 1};
    treg_render_views(sink, r, &o);
    o.regs = (treg_reg_window){.set = 1, .first = 1280, .last = 1311}; /* an SGPR window */
    o.views = TREG_VIEW_ASM;
    treg_render_views(sink, r, &o);
    const Treg__V1__Report *pages[2] = {r, r};
    if (treg_render_html(sink, pages, 2, NULL, "fuzz") != 0) __builtin_trap();
    json_object *j = treg_render_json(r, 1);
    fputs(json_object_to_json_string(j), sink);
    json_object_put(j);
    treg__v1__report__free_unpacked(r, NULL);
    return 0;
}
