/* What the text views share inside render/ (not for the tools): one output
 * line at a time, cleaned of control characters, cut to the width, in an
 * optional colour; source locations in words. */
#ifndef TREG_RENDER_TEXT_H
#define TREG_RENDER_TEXT_H

#include <stdio.h>

#include "render.h"

#define TREG_TEXT_WIDTH 100

/* SGR parameters for treg_text_line's colour. */
#define SGR_BOLD   "1"
#define SGR_RED    "1;31"
#define SGR_YELLOW "33"
#define SGR_CYAN   "36"
#define SGR_DIM    "2"

/* Prints one line: control characters become '?', tabs spaces; cut to
 * TREG_TEXT_WIDTH columns (UTF-8 aware) with "..." at the cut; wrapped in
 * sgr when o->color and sgr is not NULL. */
void treg_text_line(FILE *out, const treg_text_options *o, const char *sgr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* lead and text as a paragraph: the first line indented by indent, the
 * next by indent + 2, broken between words at the width. */
void treg_text_wrap(FILE *out, const treg_text_options *o, const char *sgr, int indent,
                    const char *lead, const char *text);

/* The file's base name, "?" for an index outside source_files. */
const char *treg_text_file(const Treg__V1__Report *r, int file);
/* "kernels_a.py:75", "kernels_a.py, no line (compiler-generated)" or
 * "(no line)" into buf. */
void treg_text_loc(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loc *l);
/* The source text of a location (leading blanks dropped), or NULL. */
const char *treg_text_source(const Treg__V1__Report *r, const treg_text_options *o,
                             const Treg__V1__Loc *l);

void treg_text_lines_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                          const treg_text_options *o);
void treg_text_peak_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                         const treg_text_options *o);
void treg_text_asm_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o);

#endif
