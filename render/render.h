/* Views of a report, drawn from its protobuf alone (treg.v1.Report): the
 * JSON and the text that tregc prints and treg-analyze prints for local
 * files.  Nothing here knows how the report was computed. */
#ifndef TREG_RENDER_H
#define TREG_RENDER_H

#include <json-c/json.h>
#include <stdio.h>

#include "treg.pb-c.h"
#include "treg/error.h"

/* One report as JSON, written to out: {"file", "hash" (when known),
 * "target", ..., "kernels": [...]}; with_rows 0 leaves out the
 * per-instruction rows; stored_before 0 or 1 adds "stored_before" (tregc's
 * upload), -1 leaves it out; link, when not NULL, adds "link" (the report's
 * page on the server).  -1 when a write failed. */
int treg_render_json_write(FILE *out, const Treg__V1__Report *r, int with_rows, int stored_before,
                           const char *link);
/* The same report as the HTML page's data (render_html.c): the JSON view
 * with its rows and the fields only the page draws (the occupancy cliffs),
 * every '<', '>', '&' and line separator in a string escaped so no report
 * can end the page's script element.  0, or -1 when out of memory or the
 * write failed. */
int treg_render_json_page(FILE *out, const Treg__V1__Report *r);

/* The JSON view is written from treg.proto's descriptors, with a table of
 * presentation rules by message and field name; the first rule naming a
 * field treg.proto lacks (a rename left behind), or NULL.  For the tests. */
const char *treg_render_json_unknown_rule(void);

/* The same, read back as a json-c object (NULL when out of memory). */
json_object *treg_render_json(const Treg__V1__Report *r, int with_rows);

/* The --format json document, {"reports": [...], then other members}, written
 * while it is made: treg_json_doc_report writes a report at once (see
 * treg_render_json_write).  Members (errors, containers...) follow the
 * reports; treg_json_doc_member takes ownership of the object it is given. */
typedef struct treg_json_doc {
    FILE *out;
    size_t reports;
    int closed; /* the reports array is closed: members follow */
    int failed; /* a write failed (or a report could not be made) */
} treg_json_doc;
void treg_json_doc_begin(treg_json_doc *d, FILE *out);
void treg_json_doc_report(treg_json_doc *d, const Treg__V1__Report *r, int with_rows,
                          int stored_before, const char *link);
/* A report already written as JSON (by treg_render_json_write elsewhere). */
void treg_json_doc_raw(treg_json_doc *d, const char *json, size_t len);
void treg_json_doc_member(treg_json_doc *d, const char *key, json_object *value);
/* Closes the document; -1 when any write failed. */
int treg_json_doc_end(treg_json_doc *d);

/* s with control characters (C0, DEL, C1) as '?': a name from someone's
 * upload must not drive the reader's terminal. */
void treg_print_clean(FILE *out, const char *s);

/* The per-kernel text summary, without colour (treg_render_views with the
 * summary alone). */
void treg_render_text(FILE *out, const Treg__V1__Report *r);

/* --- source files ------------------------------------------------------------------ */

/* Local copies of a report's source files (Report.source_files holds the
 * compiling machine's paths).  A file is tried as given, then through each
 * OLD=NEW prefix rewrite, then by its base name under each folder; each is
 * read once per treg_sources. */
typedef struct treg_sources treg_sources;
treg_sources *treg_sources_new(void);
void treg_sources_free(treg_sources *s);
/* spec: "OLD=NEW".  0, or -1 with a one-line message in err. */
int treg_sources_add_map(treg_sources *s, const char *spec, treg_error *err);
int treg_sources_add_dir(treg_sources *s, const char *dir, treg_error *err);
/* Line `line` (from 1) of file, without its newline; NULL when the file
 * cannot be read locally or is shorter.  Valid until treg_sources_free. */
const char *treg_sources_line(treg_sources *s, const char *file, unsigned line);
int treg_sources_readable(treg_sources *s, const char *file);
/* A set that holds only the texts given to it (tregd: a report's names are
 * never read as this machine's files). */
treg_sources *treg_sources_new_texts(void);
/* file's text as it is: 0, or -1 (out of memory, too large); a name given
 * twice keeps its first text. */
int treg_sources_add_text(treg_sources *s, const char *file, const char *text, size_t len);
/* The whole of file as this set finds it (malloc'd, NUL-terminated, *len
 * bytes), NULL when it cannot. */
char *treg_sources_read(const treg_sources *s, const char *file, size_t *len);

/* --- text views -------------------------------------------------------------------- */

enum treg_view {
    TREG_VIEW_SUMMARY = 1 << 0, /* the default */
    TREG_VIEW_LINES = 1 << 1,   /* per source line */
    TREG_VIEW_PEAK = 1 << 2,    /* what is live at the VGPR peak, by defining line */
    TREG_VIEW_ASM = 1 << 3,     /* per instruction, with live-range strips; needs rows */
    TREG_VIEW_WHY = 1 << 4,     /* what the peak's registers hold, uniform values, spill cost */
    TREG_VIEW_HOT = 1 << 5      /* where the runtime PC samples fall, and the registers there */
};

/* The register window of --asm's live-range strip: numbers in Row.reads'
 * numbering (vN = N, aN = 1024 + N, sN = 1280 + N), first..last inclusive. */
typedef struct treg_reg_window {
    int set;
    unsigned first, last;
} treg_reg_window;

typedef struct treg_text_options {
    unsigned views;        /* treg_view bits; 0 means the summary */
    int color;             /* ANSI escapes */
    treg_sources *sources; /* NULL: file:line only */
    treg_reg_window regs;  /* unset: the first VGPRs the kernel occupies */
    int frames;            /* --asm: every inlined frame, not only the author's line */
} treg_text_options;

/* Every view in o->views, per kernel, after the report's header line.
 * Lines fit 100 columns, except the header that names the input file. */
void treg_render_views(FILE *out, const Treg__V1__Report *r, const treg_text_options *o);

/* The text-view options that treg-analyze and tregc share: long options with
 * values TREG_TEXT_OPT_FIRST.., their help lines, and their parser.  A tool
 * appends TREG_TEXT_LONGOPTS to its getopt_long table and hands every
 * option value in that range to treg_text_option, which returns 0 or -1
 * with a one-line message in err.  treg_text_finish resolves --color=auto
 * (a terminal on stdout and NO_COLOR unset or empty). */
enum {
    TREG_TEXT_OPT_FIRST = 0x400,
    TREG_TEXT_OPT_LINES = TREG_TEXT_OPT_FIRST,
    TREG_TEXT_OPT_PEAK,
    TREG_TEXT_OPT_ASM,
    TREG_TEXT_OPT_SUMMARY,
    TREG_TEXT_OPT_REGS,
    TREG_TEXT_OPT_SOURCE_MAP,
    TREG_TEXT_OPT_SOURCE_DIR,
    TREG_TEXT_OPT_COLOR,
    TREG_TEXT_OPT_FRAMES,
    TREG_TEXT_OPT_WHY,
    TREG_TEXT_OPT_HOT,
    TREG_TEXT_OPT_LAST = TREG_TEXT_OPT_HOT
};
/* clang-format off */
#define TREG_TEXT_LONGOPTS                                                \
    {"lines", no_argument, NULL, TREG_TEXT_OPT_LINES},                    \
    {"peak", no_argument, NULL, TREG_TEXT_OPT_PEAK},                      \
    {"asm", no_argument, NULL, TREG_TEXT_OPT_ASM},                        \
    {"summary", no_argument, NULL, TREG_TEXT_OPT_SUMMARY},                \
    {"regs", required_argument, NULL, TREG_TEXT_OPT_REGS},                \
    {"source-map", required_argument, NULL, TREG_TEXT_OPT_SOURCE_MAP},    \
    {"source-dir", required_argument, NULL, TREG_TEXT_OPT_SOURCE_DIR},    \
    {"color", required_argument, NULL, TREG_TEXT_OPT_COLOR},              \
    {"frames", no_argument, NULL, TREG_TEXT_OPT_FRAMES},                  \
    {"why", no_argument, NULL, TREG_TEXT_OPT_WHY},                        \
    {"hot", no_argument, NULL, TREG_TEXT_OPT_HOT}
/* clang-format on */
extern const char treg_text_help[];

typedef struct treg_text_settings {
    treg_text_options options;
    int color_mode;     /* 0 auto, 1 always, 2 never */
    int explicit_views; /* --lines, --peak, --asm, --summary or --regs given */
    int sources_given;  /* --source-map or --source-dir given (the HTML view uses them too) */
} treg_text_settings;
int treg_text_option(treg_text_settings *t, int opt, const char *arg, treg_error *err);
void treg_text_finish(treg_text_settings *t);
void treg_text_free(treg_text_settings *t);

/* --- the same kernel across targets ------------------------------------------------ */

/* Reports are added as they come (their figures copied); a kernel whose
 * name appears in reports for two or more targets gets one table, a column
 * per report: VGPR/AGPR/SGPR peak and allocated, waves per SIMD and what
 * limits them, registers to the next wave, scratch, spill instructions.
 * Peaks that are lower bounds are marked ">=", provisional targets "*". */
typedef struct treg_cross treg_cross;
treg_cross *treg_cross_new(void);
void treg_cross_free(treg_cross *x);
/* 0, or -1 when out of memory. */
int treg_cross_add(treg_cross *x, const Treg__V1__Report *r);
/* How many kernels have a table. */
size_t treg_cross_kernels(treg_cross *x);
/* The tables, or nothing when no kernel has one. */
void treg_cross_text(FILE *out, treg_cross *x, const treg_text_options *o);
/* [{"kernel", "targets": [{"target", "file", "bundle_entry", "provisional", "vgpr":
 * {"peak_live", "allocated", "lower_bound"}, "agpr", "sgpr", "waves_per_simd",
 * "max_waves", "limited_by", "vgprs_to_next", "sgprs_to_next", "scratch_bytes",
 * "spill_instructions"}]}] */
json_object *treg_cross_json(treg_cross *x);

/* --- HTML ------------------------------------------------------------------------- */

/* s as HTML text or an attribute value (quoted with " or '): the five markup
 * characters escaped, control characters (C0, DEL) shown as '?'. */
void treg_html_text(FILE *out, const char *s);

/* One self-contained page (inline CSS and script, no network: its
 * Content-Security-Policy forbids any) over n reports: summary cards, a
 * pressure plot, the source with heat bars (from src, when the files are
 * readable here; NULL: line numbers only), the listing with live-range
 * strips, the peak attribution and the loops; an index of kernels when
 * there are several.  Every string from a report or a source file is
 * written as escaped JSON data and shown as text.  0, or -1 when writing
 * to out failed. */
int treg_render_html(FILE *out, const Treg__V1__Report *const *reports, size_t n, treg_sources *src,
                     const char *title);
/* The same, saying beside each source file's name who sent its text
 * (sources_from, e.g. "team b": a server showing another team's upload);
 * NULL says nothing. */
int treg_render_html_from(FILE *out, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *title, const char *sources_from);

/* The Content-Security-Policy of a page whose one script is script: nothing
 * from outside the page, its style inline, its script allowed by its
 * SHA-256 ('sha256-BASE64'), never by 'unsafe-inline' (a script that
 * escaped into a page does not run), then extra ("img-src data:", or NULL).
 * 0, or -1 when it does not fit in out or hashing failed. */
#define TREG_CSP_MAX 256
int treg_html_csp(const char *script, const char *extra, char *out, size_t len);
/* The report page's policy (the one its <meta> says), made once; NULL when
 * hashing failed. */
const char *treg_html_report_csp(void);

/* The page of n reports, written to path atomically (a temporary file in the
 * same folder, renamed when complete): 0, or -1 with a one-line message. */
int treg_render_html_file(const char *path, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *title, treg_error *err);

/* A whole run as a site (--format html -o DIR/): DIR/kernels/NNNNN-NAME.html,
 * one page per report written as it comes (the report is not kept), and at
 * the end DIR/index.html: the variants of each kernel (same name and
 * source) in one sortable table with their Triton options, VGPR/AGPR/SGPR
 * allocated, waves per SIMD, spills and scratch, the best occupancy
 * without spills marked; relative links, opens from file://. */
typedef struct treg_site treg_site;
/* Makes DIR (and DIR/kernels) when missing; NULL with a one-line message. */
treg_site *treg_site_open(const char *dir, treg_sources *src, treg_error *err);
int treg_site_add(treg_site *s, const Treg__V1__Report *r, treg_error *err);
/* Writes the index (titled title): 0, or -1 with a one-line message. */
int treg_site_close(treg_site *s, const char *title, treg_error *err);
void treg_site_free(treg_site *s);
/* Whether -o names a site: ends with '/' or is a folder. */
int treg_is_site_path(const char *path);

/* The page of a run over ninputs inputs (titled by the one input, else "N
 * inputs"), written to path atomically (a temporary file in the same folder,
 * renamed when complete), or to standard output when path is NULL: 0, or -1
 * with a one-line message in err. */
int treg_render_html_page(const char *path, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *const *inputs, int ninputs,
                          treg_error *err);

#endif
