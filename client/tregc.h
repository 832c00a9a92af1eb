/* What tregc's files share (main.c parses the command line and runs the
 * command; reports.c shows what the server answers; upload.c sends code
 * objects, containers and sources; commands.c is fetch, watch, diff, list
 * and health): the run's settings and state, and the functions one file
 * calls in another. */
#ifndef TREGC_TREGC_H
#define TREGC_TREGC_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "diff.h"
#include "https.h"
#include "pcsamples.h"
#include "render.h"
#include "treg.pb-c.h"

#include "treg/error.h"

enum { EXIT_USAGE = 2 };

/* What sending one file leaves to do: the next file, stop the run (the
 * server failed), or (a report the server does not have) send the blob. */
enum { GO_ON = 0, STOP = 1, NOT_STORED = 2 };

typedef struct cli {
    int json, html, rows, reanalyze;
    int no_source;            /* --no-source: the Python files are not sent */
    int what_if;              /* --what-if: send each kernel's .llir for the budget builds */
    const char *output;       /* -o FILE for --format html, else stdout */
    Treg__V1__Report **pages; /* --format html: every report, shown at the end */
    size_t npages;
    const char *kernel, *target;
    long limit, offset; /* -1: not given */
    tregc_config cfg;
    tregc_https https;
    int failures;
    treg_json_doc doc;       /* --format json: reports written as they come */
    json_object *errors;     /* --format json */
    json_object *containers; /* --format json: what each container held */
    treg_cross *cross;       /* the same kernel across targets */
    const char *entry;       /* the bundle entry being sent, for messages */
    char *analyzer_version;  /* of the first report, for the JSON top level */
    char host_name[256];
    treg_diff *diff; /* diff, --write-baseline: each side's figures */
    int side;        /* the side being gathered */
    int diffing;     /* tregc diff */
    treg_site *site; /* --format html -o DIR/: a page per report, an index */
    int watching;    /* tregc watch: one line per kernel */
    int tally;       /* upload of a folder: counts, not a summary each */
    size_t n_analyzed, n_stored;
    treg_text_settings text; /* --lines, --peak, --asm, sources, colour */
    /* upload --samples FILE: a profile's PC samples, sent for each report
     * whose kernels they fall in (POST /v1/samples) */
    const char *samples_path;
    uint64_t samples_co; /* --samples-code-object (0: the one that fits) */
    treg_pcs samples;
    treg_arena samples_arena;
    size_t samples_placed; /* reports the server placed them on */
} cli;

/* reports.c: what the server answers, shown or kept */
void one_line(char *s);
void item_failed(cli *c, const char *key, const char *name, const char *msg);
void server_message(const tregc_response *resp, char *out, size_t len);
void server_failed(cli *c, const char *key, const char *name, const char *line);
int server_refused(cli *c, const tregc_response *resp, const char *key, const char *name);
Treg__V1__Report *unpack_report(const uint8_t *b, size_t n, treg_error *why);
Treg__V1__UploadResponse *unpack_upload_response(const uint8_t *b, size_t n, treg_error *why);
void add_report(cli *c, const Treg__V1__Report *r, int stored_before, const char *link);
void print_document(cli *c);

/* upload.c */
int wants_rows(const cli *c);
int upload_one(cli *c, const char *path);
int upload_paths(cli *c, int argc, char **argv);
int cmd_upload(cli *c, int argc, char **argv);

/* commands.c */
int is_hash_or_prefix(const char *s);
int cmd_fetch(cli *c, const char *hash_arg);
int cmd_watch(cli *c, const char *dir_arg);
int cmd_diff(cli *c, int nargs, char **args, const char *baseline, const treg_gate *gate);
int cmd_list(cli *c);
int cmd_health(cli *c);

#endif
