/* What the text views share inside render/ (text_out.c; not for the
 * tools): one output line at a time, cleaned of control characters, cut to
 * the width, in an optional colour; source locations in words; the peak
 * grouped by call site.  It depends on no view. */
#ifndef TREG_RENDER_TEXT_OUT_H
#define TREG_RENDER_TEXT_OUT_H

#include <stdint.h>
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

/* The same, continuation lines indented by hang columns. */
void treg_text_wrap_at(FILE *out, const treg_text_options *o, const char *sgr, int indent,
                       const char *lead, int hang, const char *text);

/* A Category.kind in words ("loaded_tile" -> "loaded tile"). */
const char *treg_text_category_words(const char *kind);

/* The file's base name, "?" for an index outside source_files. */
const char *treg_text_file(const Treg__V1__Report *r, int file);
/* A loop's lines ("kernels_a.py:100-112"), or its addresses when it has
 * none ("+0x1c0..+0x2f4"), into buf. */
void treg_text_loop_where(char *buf, size_t len, const Treg__V1__Report *r,
                          const Treg__V1__Loop *l);
/* "kernels_a.py:75", "kernels_a.py, no line (compiler-generated)" or
 * "(no line)" into buf. */
void treg_text_loc(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loc *l);
/* The author's line and the line it reaches inside inlined library code:
 * "kernels_a.py:18 via standard.py:191"; treg_text_loc's form when site is
 * NULL (a report from before call sites) or the same line. */
void treg_text_site(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loc *l,
                    const Treg__V1__Loc *site);
/* Every frame, innermost first: "standard.py:170 in standard.py:191 in
 * kernels_a.py:18" (scope: Row.scope, 1 + an index into inline_calls). */
void treg_text_frames(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loc *l,
                      uint32_t scope);
/* The source text of a location (leading blanks dropped), or NULL. */
const char *treg_text_source(const Treg__V1__Report *r, const treg_text_options *o,
                             const Treg__V1__Loc *l);

/* A location's file index (-1 for none) and line (0 for none), of NULL too. */
int treg_text_loc_file(const Treg__V1__Loc *l);
unsigned treg_text_loc_line(const Treg__V1__Loc *l);

/* The peak attribution grouped by call site (the author's line), largest
 * group first; within a group, its entries largest first. */
typedef struct treg_site_group {
    const Treg__V1__Loc *site; /* the group's call site */
    unsigned vgpr, agpr, sgpr;
    size_t first, n; /* its entries: entries[first .. first + n) */
    int inlined;     /* some entry's line is inside an inlined call */
} treg_site_group;
typedef struct treg_site_groups {
    const Treg__V1__Attribution **entries;
    treg_site_group *groups;
    size_t ngroups;
} treg_site_groups;
/* 0, or -1 when out of memory; free with treg_site_groups_free. */
int treg_text_site_groups(const Treg__V1__Kernel *k, treg_site_groups *out);
void treg_site_groups_free(treg_site_groups *g);
/* An entry's call site: its own, or its loc when it has none. */
const Treg__V1__Loc *treg_text_entry_site(const Treg__V1__Attribution *a);

#endif
