/* treg-analyze: the analyzer on local files, for tests, benches and people
 * without a server.  Accepts code objects, Triton cache entries (a folder
 * with <kernel>.hsaco and <kernel>.json) and whole cache folders, and the
 * containers of code objects (HIP executables and libraries, offload
 * bundles): one report per embedded code object. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convert.h"
#include "join.h"
#include "pcsamples.h"
#include "diff.h"
#include "render.h"
#include "treg/analyzer.h"
#include "treg/container.h"
#include "util/triton_cache.h"
#include "worker.h"
#include "util/error.h"

typedef struct tool {
    const char *kernel_regex;
    int json;
    int rows;
    int no_assembly;          /* --no-assembly: the code object alone */
    int what_if;              /* --what-if: the sibling .llir at each register budget */
    const char *samples_path; /* --samples: a profiler's PC samples, placed on the rows */
    const char *samples_new;  /* diff: the second --samples, the NEW run's */
    const char *samples_old;  /* diff: the first */
    treg_pcs side_samples[2]; /* diff: each side's */
    uint64_t samples_co;      /* --samples-code-object (0: the one that fits) */
    treg_pcs samples;
    treg_arena samples_arena;
    unsigned samples_placed;  /* reports the samples were placed on */
    unsigned what_if_ms;      /* --what-if-budget, in ms (0: the library's default) */
    treg_json_doc doc;        /* --format json: reports written as they come */
    json_object *errors;      /* --format json: written after the reports */
    analysis_pool *pool;      /* the child processes the analyses run in */
    unsigned jobs;            /* -j: how many */
    struct queue_item *queue; /* what is submitted or to say, in input order */
    size_t qhead, qlen, qcap;
    size_t held_outcomes;  /* collected before their turn (bounded) */
    int draining;          /* handling the queue's head: say things now */
    struct file_state *fs; /* the file being walked */
    treg_diff *diff;       /* diff, --write-baseline: the figures of each side */
    treg_site *site;       /* --format html -o DIR/: a page per report, an index */
    int side;              /* the side being analyzed (TREG_DIFF_OLD/NEW) */
    int diffing;           /* treg-analyze diff */
    int failures, analyzed;
    int walking;   /* inside a folder: a file no --kernel matches is skipped */
    int unmatched; /* files skipped that way */
    treg_text_settings text;
    int html;                 /* --format html: reports kept for one page */
    const char *output;       /* -o FILE (HTML), else stdout */
    Treg__V1__Report **pages; /* --format html: every report, in order */
    size_t npages;
    const char **targets; /* --target: keep only these processors (NULL: all) */
    size_t ntargets;
    json_object *containers; /* --format json: what each container held */
    treg_cross *cross;       /* the same kernel across targets */
    const char *entry;       /* the bundle entry being analyzed, for messages */
} tool;

/* One file's bookkeeping, shared by its analyses (which finish later). */
typedef struct file_state {
    int analyzed;   /* reports shown */
    int dropped;    /* code objects --target left out */
    char held[200]; /* the targets they were for, for the message */
    int walking;    /* found by walking a folder */
} file_state;

/* Output happens in input order while analyses run in parallel: whatever
 * is to be said, a report or a failure, queues behind what came before. */
typedef enum { Q_ANALYSIS, Q_FAIL, Q_CONTAINER_END, Q_FILE_END } queue_kind;

typedef struct queue_item {
    queue_kind kind;
    long ticket;
    char *path, *entry, *json_path, *msg;
    file_state *fs;
    size_t objects;     /* Q_CONTAINER_END: code objects in the container */
    const char *format; /* Q_CONTAINER_END: its format (a static string) */
    int done;           /* Q_ANALYSIS: out holds the outcome, collected early */
    worker_outcome out;
} queue_item;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: treg-analyze [--kernel REGEX] [--format text|json|html [-o FILE]] [--no-rows] "
            "[VIEW...] FILE|DIR...\n"
            "       treg-analyze diff [--fail-on RULES] [--format text|json] OLD NEW\n"
            "       treg-analyze diff [--fail-on RULES] --baseline FILE NEW\n"
            "  FILE: an AMDGPU code object (.hsaco, .o), or its assembly (.amdgcn, .s) alone;\n"
            "  DIR: a Triton cache entry or a whole cache (every .hsaco below it, each with its\n"
            "  sibling <kernel>.json and <kernel>.amdgcn; an .amdgcn without a .hsaco alone).\n"
            "  A code object's sibling .amdgcn supplies what the linked LLVM cannot decode.\n"
            "  --kernel REGEX         only kernels whose name matches (extended regex)\n"
            "  --format text|json|html  output (default text); html: one self-contained page\n"
            "                         (an index when several kernels), with the source from\n"
            "                         --source-map/--source-dir\n"
            "  -o, --output FILE      write the HTML page to FILE (else standard output)\n"
            "  -o DIR/                a site: DIR/index.html groups each kernel's variants\n"
            "                         (Triton options, registers, occupancy, spills), and one\n"
            "                         page per code object under DIR/kernels/\n"
            "  --no-rows              leave per-instruction rows out (not with --asm)\n"
            "  --no-assembly          ignore a code object's sibling .amdgcn\n"
            "  --samples FILE         runtime PC samples placed on the instructions: rocprofv3\n"
            "                         --pc-sampling JSON or rocpd database, or a thread-trace\n"
            "                         code.json; the profile's text at each sampled offset must\n"
            "                         be this code object's (--hot: the hot lines and their\n"
            "                         registers); diff: twice, OLD's run then NEW's, for where\n"
            "                         the time moved beside the registers\n"
            "  --samples-code-object N  the profile's code object to take (else the one whose\n"
            "                         samples fall on these instructions)\n"
            "  --what-if              also compile the sibling <kernel>.llir with the linked\n"
            "                         LLVM at each register budget (\"amdgpu-waves-per-eu\")\n"
            "                         up to the occupancy the launch allows: registers,\n"
            "                         scratch, spills and occupancy per budget (compiler\n"
            "                         results for a budget, not a measured speed)\n"
            "  --what-if-budget SECONDS  time for all of one file's builds (default 120;\n"
            "                         0.001 to 3600)\n"
            "  --target GFX           only code objects for GFX (gfx906, gfx90a...); repeatable\n"
            "  --write-baseline FILE  also write the kernels' figures to FILE, a baseline for\n"
            "                         diff --baseline (in diff: NEW's figures)\n"
            "diff: the kernels of OLD and NEW (files, cache entries, caches, fat binaries)\n"
            "  matched by name and target (autotune variants by their Triton options): old,\n"
            "  new and delta of allocation, peaks, occupancy, spills, scratch, and the source\n"
            "  lines whose peak changed most; --format json: {\"kernels\": [{name, target,\n"
            "  old, new, delta, lines}], \"broken\": [...]}.\n"
            "  --baseline FILE        OLD is a baseline written by --write-baseline\n"
            "  --fail-on RULES        exit 1 when NEW is worse by a rule, naming each broken:\n"
            "                         spills, scratch (any more), vgpr+N, agpr+N, sgpr+N\n"
            "                         (more than N more allocated), occupancy-N (more than N\n"
            "                         fewer waves/SIMD); a kernel only NEW has may not spill\n"
            "  -j, --jobs N           analyses at once, each in its own process (default: one\n"
            "                         per core, at most 8); output keeps the input's order\n"
            "  FILE may also hold code objects: a HIP executable or shared library (.hip_fatbin,\n"
            "  .llvm.offloading), an offload bundle (.hipfb) or a compressed one (CCOB): one\n"
            "  report per code object inside, with its bundle entry.\n"
            "%s",
            treg_text_help);
}

static int enqueue(tool *t, queue_kind kind, const char *path, const char *msg);

static void fail(tool *t, const char *path, const char *raw)
{
    if (!t->draining && t->qlen > t->qhead) { /* after what is still to be said */
        enqueue(t, Q_FAIL, path, raw);
        return;
    }
    /* One line per failure: messages may quote names taken from the file
     * (kernel names, the target id), which may hold control characters. */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", raw);
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    t->failures++;
    size_t plen = strlen(path);
    if (t->entry)
        fprintf(stderr, "treg-analyze: %s, entry %s: %s\n", path, t->entry, msg);
    else if (strncmp(msg, path, plen) == 0 && msg[plen] == ':') /* the message names the file */
        fprintf(stderr, "treg-analyze: %s\n", msg);
    else
        fprintf(stderr, "treg-analyze: %s: %s\n", path, msg);
    if (t->errors) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "file", json_object_new_string(path));
        if (t->entry) json_object_object_add(e, "bundle_entry", json_object_new_string(t->entry));
        json_object_object_add(e, "message", json_object_new_string(msg));
        json_object_array_add(t->errors, e);
    }
}

static char *slurp(const char *path, size_t *len, treg_error *why)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        treg_fail(why, TREG_E_IO, "%s", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                treg_fail(why, TREG_E_NOMEM, "out of memory");
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        treg_fail(why, TREG_E_IO, "read error");
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* --target: no list keeps everything. */
static bool wanted_target(const tool *t, const char *target)
{
    if (!t->ntargets) return true;
    for (size_t i = 0; i < t->ntargets; i++)
        if (treg_target_matches(target, t->targets[i])) return true;
    return false;
}

static void note_dropped(file_state *fs, const char *target)
{
    fs->dropped++;
    size_t at = strlen(fs->held), n = strlen(target);
    if (strstr(fs->held, target) || at + n + 3 >= sizeof fs->held) return;
    snprintf(fs->held + at, sizeof fs->held - at, "%s%s", at ? ", " : "", target);
}

/* What is done with one report: counted, diffed, gathered for the page or
 * site, or printed (json: its JSON). */
static void present(tool *t, file_state *fs, Treg__V1__Report *pb, const char *json,
                    size_t json_len, const char *path)
{
    t->analyzed++;
    fs->analyzed++;
    if (t->diff && treg_diff_add(t->diff, t->side, pb) != 0) fail(t, path, "out of memory");
    if (t->diffing) {
        treg__v1__report__free_unpacked(pb, NULL);
        return;
    }
    if (treg_cross_add(t->cross, pb) != 0) fail(t, path, "out of memory");
    if (t->site) {
        treg_error why = {0, ""};
        if (treg_site_add(t->site, pb, &why) != 0) fail(t, path, why.msg);
        treg__v1__report__free_unpacked(pb, NULL);
        return;
    }
    if (t->html) {
        Treg__V1__Report **grown = realloc(t->pages, (t->npages + 1) * sizeof *grown);
        if (!grown) {
            treg__v1__report__free_unpacked(pb, NULL);
            fail(t, path, "out of memory");
            return;
        }
        t->pages = grown;
        t->pages[t->npages++] = pb; /* freed after the page is written */
        return;
    }
    if (!t->json)
        treg_render_views(stdout, pb, &t->text.options);
    else if (json) /* (show() makes sure of it) */
        treg_json_doc_raw(&t->doc, json, json_len);
    treg__v1__report__free_unpacked(pb, NULL);
}

/* --samples on one report: 0 to show it (with its samples, or without and
 * a note when the profile has none of its code object), -1 when refused
 * (a profile of another build, or the code object named is not there). */
static int place_samples(tool *t, Treg__V1__Report *pb, const char *path)
{
    treg_pcs_joined j;
    treg_error why = {0, ""};
    if (treg_pcs_join(pb, &t->samples, t->samples_co, &j, &why) != TREG_OK) {
        char msg[sizeof why.msg + 300];
        snprintf(msg, sizeof msg, "--samples %s: %s", t->samples_path, why.msg);
        if (why.code != TREG_E_ARG || t->samples_co) {
            fail(t, path, msg);
            return -1;
        }
        fprintf(stderr, "treg-analyze: %s: note: %s; shown without samples\n", path, msg);
        return 0;
    }
    t->samples_placed++;
    fprintf(stderr,
            "treg-analyze: %s: %llu PC samples placed (the profile's code object %llu; %llu "
            "outside its kernels, %llu elsewhere)\n",
            path, (unsigned long long)j.joined, (unsigned long long)j.code_object_id,
            (unsigned long long)j.outside, (unsigned long long)j.elsewhere);
    if (j.unchecked)
        fprintf(stderr,
                "treg-analyze: %s: note: %llu of them where the profile has no instruction text, "
                "placed by address alone (rocpd: --pc-sampling-decode-instructions writes the "
                "texts)\n",
                path, (unsigned long long)j.unchecked);
    return 0;
}

/* Renders a packed report, as tregc renders a served one; with --format
 * json the child rendered it (json), and the packed one has no rows;
 * with --samples the packed one has rows and the JSON is made here. */
static void show(tool *t, file_state *fs, const uint8_t *packed, size_t len, const char *json,
                 size_t json_len, const char *path)
{
    Treg__V1__Report *pb = treg__v1__report__unpack(NULL, len, packed);
    if (!pb || (t->json && !json && !t->samples_path)) {
        fail(t, path, "the analysis returned a malformed report");
        if (pb) treg__v1__report__free_unpacked(pb, NULL);
        return;
    }
    if (!wanted_target(t, pb->target)) {
        note_dropped(fs, pb->target);
        treg__v1__report__free_unpacked(pb, NULL);
        return;
    }
    if (!t->samples_path) {
        present(t, fs, pb, json, json_len, path);
        return;
    }
    if (place_samples(t, pb, path) != 0) {
        treg__v1__report__free_unpacked(pb, NULL);
        return;
    }
    char *doc = NULL;
    size_t doc_len = 0;
    if (t->json) { /* the child's JSON has no samples: this one's instead */
        FILE *m = open_memstream(&doc, &doc_len);
        if (!m || treg_render_json_write(m, pb, t->rows, -1, NULL) != 0) {
            if (m) fclose(m);
            free(doc);
            fail(t, path, "out of memory");
            treg__v1__report__free_unpacked(pb, NULL);
            return;
        }
        fclose(m);
    }
    present(t, fs, pb, doc, doc_len, path);
    free(doc);
}

/* The error path of one file: what a user of a folder or a .json expects. */
static void analysis_failed(tool *t, const file_state *fs, const char *path, const char *json_path,
                            int code, const char *msg)
{
    if (code == TREG_E_NOKERNEL && t->kernel_regex && fs->walking)
        t->unmatched++; /* a cache holds many kernels; --kernel picks some */
    else if (code == TREG_E_METADATA && json_path)
        fail(t, json_path, msg); /* the sibling .json is at fault, not the code object */
    else
        fail(t, path, msg);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Queues what is to be said in turn: 0, or -1 when out of memory (then it
 * is said at once, a little out of order). */
static int enqueue(tool *t, queue_kind kind, const char *path, const char *msg)
{
    if (t->qhead && t->qhead == t->qlen) t->qhead = t->qlen = 0;
    if (t->qlen == t->qcap) {
        if (t->qhead) { /* room at the front */
            memmove(t->queue, t->queue + t->qhead, (t->qlen - t->qhead) * sizeof *t->queue);
            t->qlen -= t->qhead;
            t->qhead = 0;
        } else {
            size_t cap = t->qcap ? 2 * t->qcap : 64;
            queue_item *q = realloc(t->queue, cap * sizeof *q);
            if (!q) goto now;
            t->queue = q;
            t->qcap = cap;
        }
    }
    queue_item *it = &t->queue[t->qlen];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->fs = t->fs;
    it->path = strdup(path);
    it->entry = dup_or_null(t->entry);
    it->msg = dup_or_null(msg);
    if (!it->path || (t->entry && !it->entry) || (msg && !it->msg)) {
        free(it->path);
        free(it->entry);
        free(it->msg);
        goto now;
    }
    t->qlen++;
    return 0;
now:
    if (kind == Q_FAIL) {
        int was = t->draining;
        t->draining = 1;
        fail(t, path, msg);
        t->draining = was;
    }
    return -1;
}

/* A container's line in the text output, after its reports. */
static void container_line(tool *t, const queue_item *it)
{
    bool listing = it->format && strcmp(it->format, TREG_FORMAT_ASM_LISTING) == 0;
    printf("%s: %s with %zu AMDGPU %s%s", it->path, it->format, it->objects,
           listing ? "section" : "code object", it->objects == 1 ? "" : "s");
    if (it->fs->dropped) printf(" (%d not for --target)", it->fs->dropped);
    if (it->msg && it->msg[0]) printf("; skipped %s", it->msg);
    fputs("\n\n", stdout);
    (void)t;
}

/* The end of a file: --target left every code object out?  Said unless a
 * folder is being walked (a cache holds many targets). */
static void file_end(tool *t, file_state *fs, const char *path)
{
    if (!fs->analyzed && fs->dropped && !fs->walking) {
        char msg[400];
        snprintf(msg, sizeof msg, "no code object for --target %s%s (it holds %s)", t->targets[0],
                 t->ntargets > 1 ? " ..." : "", fs->held);
        fail(t, path, msg);
    }
    free(fs);
}

static void outcome(tool *t, const queue_item *it, worker_outcome *out)
{
    if (out->kind == WORKER_CRASHED) {
        char why[200];
        snprintf(why, sizeof why,
                 "the analysis crashed (signal %d): LLVM's %s cannot handle this %s", out->signal,
                 t->what_if ? "disassembler or code generator" : "disassembler",
                 t->what_if ? "code object or its LLVM IR" : "code object");
        fail(t, it->path, why);
    } else if (out->kind == WORKER_FAILED) {
        fail(t, it->path, out->why);
    } else if (out->kind == WORKER_REPORT) {
        show(t, it->fs, out->payload, out->len, out->json, out->json_len, it->path);
    } else {
        char text[300];
        snprintf(text, sizeof text, "%.*s", (int)(out->len < 299 ? out->len : 299),
                 (const char *)out->payload);
        analysis_failed(t, it->fs, it->path, it->json_path, out->code, text);
    }
}

/* Says the queue's head when it is ready (or, with wait, once it is): 1
 * when something was said. */
static int drain_one(tool *t, int wait)
{
    if (t->qhead == t->qlen) return 0;
    queue_item *it = &t->queue[t->qhead];
    worker_outcome out;
    if (it->kind == Q_ANALYSIS) {
        if (it->done) {
            out = it->out;
            t->held_outcomes--;
        } else if (!pool_collect(t->pool, it->ticket, wait, &out)) {
            return 0;
        }
    }
    t->draining = 1;
    const char *entry = t->entry;
    t->entry = it->entry;
    switch (it->kind) {
    case Q_ANALYSIS:
        outcome(t, it, &out);
        worker_outcome_free(&out);
        break;
    case Q_FAIL:
        fail(t, it->path, it->msg);
        break;
    case Q_CONTAINER_END:
        container_line(t, it);
        break;
    case Q_FILE_END:
        file_end(t, it->fs, it->path);
        break;
    }
    t->entry = entry;
    t->draining = 0;
    free(it->path);
    free(it->entry);
    free(it->json_path);
    free(it->msg);
    t->qhead++;
    return 1;
}

/* Takes the outcomes of finished analyses out of their children, which can
 * then start the next while the queue's head waits for a slow one; with
 * wait, blocks for one.  1 when one was taken. */
static int harvest(tool *t, int wait)
{
    long ticket;
    worker_outcome out;
    if (!pool_collect_any(t->pool, wait, &ticket, &out)) return 0;
    for (size_t i = t->qhead; i < t->qlen; i++)
        if (t->queue[i].kind == Q_ANALYSIS && t->queue[i].ticket == ticket) {
            t->queue[i].out = out;
            t->queue[i].done = 1;
            t->held_outcomes++;
            return 1;
        }
    worker_outcome_free(&out); /* not queued: cannot happen */
    return 1;
}

/* Says everything ready (wait: everything). */
static void drain(tool *t, int wait)
{
    while (drain_one(t, wait)) {
    }
}

/* One analysis, in a child (worker.h): queued, said in turn. */
static void analyze_isolated(tool *t, const char *path, const char *entry, const uint8_t *bytes,
                             size_t len, const treg_options *opt, const char *json_path)
{
    worker_job job = {.path = path,
                      .entry = entry,
                      .bytes = bytes,
                      .len = len,
                      .triton_json = opt->triton_json,
                      .triton_json_len = opt->triton_json_len,
                      .asm_text = opt->asm_text,
                      .asm_text_len = opt->asm_text_len,
                      .asm_name = opt->asm_name,
                      .llvm_ir = opt->llvm_ir,
                      .llvm_ir_len = opt->llvm_ir_len,
                      .llvm_ir_name = opt->llvm_ir_name,
                      .what_if_ms = opt->what_if_budget_ms,
                      .ttgir = opt->ttgir,
                      .ttgir_len = opt->ttgir_len,
                      .ttgir_name = opt->ttgir_name};
    /* A child is free, or made free: a finished one handing over its
     * outcome (at most two per child wait their turn), else the oldest. */
    while (harvest(t, 0)) {
    }
    while (pool_full(t->pool)) {
        if (t->held_outcomes >= 2 * (size_t)t->jobs || !harvest(t, 1)) drain_one(t, 1);
    }
    worker_outcome failed;
    long ticket = pool_submit(t->pool, &job, &failed);
    if (ticket < 0) {
        fail(t, path, failed.why);
    } else if (enqueue(t, Q_ANALYSIS, path, NULL) == 0) {
        t->queue[t->qlen - 1].ticket = ticket;
        /* (out of memory for the name: a bad .json is blamed on the code object) */
        if (json_path) t->queue[t->qlen - 1].json_path = strdup(json_path);
    } else { /* no room to queue it: said now */
        worker_outcome out;
        queue_item it = {.kind = Q_ANALYSIS, .fs = t->fs, .path = (char *)path};
        it.json_path = (char *)json_path;
        drain(t, 1);
        pool_collect(t->pool, ticket, 1, &out);
        t->draining = 1;
        outcome(t, &it, &out);
        t->draining = 0;
        worker_outcome_free(&out);
    }
    drain(t, 0);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

/* path's first stem bytes + ext, or NULL when out of memory. */
static char *sibling(const char *path, size_t stem, const char *ext)
{
    char *p = malloc(stem + strlen(ext) + 1);
    if (!p) return NULL;
    memcpy(p, path, stem);
    strcpy(p + stem, ext);
    return p;
}

/* One code object inside a container: analyzed alone (a sibling .json or
 * .amdgcn belongs to a Triton .hsaco, not to a bundle entry), or skipped
 * by --target before it costs an analysis. */
typedef struct container_walk {
    tool *t;
    const char *path;
    json_object *objects, *skipped; /* --format json */
    char skipped_text[300];         /* text: the entries skipped, for the file's note */
} container_walk;

static int analyze_entry(void *ctx, const treg_embedded *e, treg_error *err)
{
    container_walk *w = ctx;
    tool *t = w->t;
    if (e->skipped) {
        if (w->skipped) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
            json_object_object_add(o, "where", json_object_new_string(e->where));
            json_object_object_add(o, "reason", json_object_new_string(e->skipped));
            json_object_array_add(w->skipped, o);
        }
        size_t at = strlen(w->skipped_text);
        if (at + 1 < sizeof w->skipped_text)
            snprintf(w->skipped_text + at, sizeof w->skipped_text - at, "%s%s (%s)", at ? ", " : "",
                     e->entry_id, e->skipped);
        return TREG_OK;
    }
    if (e->target && !wanted_target(t, e->target)) {
        note_dropped(t->fs, e->target);
        return TREG_OK;
    }
    if (w->objects) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
        json_object_object_add(o, "where", json_object_new_string(e->where));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t)e->len));
        json_object_array_add(w->objects, o);
    }
    treg_options opt = {0};
    opt.kernel_regex = t->kernel_regex;
    opt.keep_rows = t->rows;
    t->entry = e->entry_id;
    if (e->text) { /* a section of a bundled listing: its text alone */
        char name[512];
        snprintf(name, sizeof name, "%s (section %s, from line %u)", w->path, e->entry_id, e->line);
        opt.asm_text = (const char *)e->bytes;
        opt.asm_text_len = e->len;
        opt.asm_name = name;
        analyze_isolated(t, w->path, e->entry_id, NULL, 0, &opt, NULL);
    } else {
        analyze_isolated(t, w->path, e->entry_id, e->bytes, e->len, &opt, NULL);
    }
    t->entry = NULL;
    (void)err;
    return TREG_OK;
}

/* A file that is not a code object itself: every code object inside, then
 * what it held (JSON: the "containers" list; text: one line). */
static void analyze_container(tool *t, const char *path, const uint8_t *bytes, size_t len)
{
    container_walk w = {.t = t, .path = path};
    if (t->json) {
        w.objects = json_object_new_array();
        w.skipped = json_object_new_array();
    }
    treg_error err = {0, ""};
    treg_container_stats st;
    int rc =
        treg_text_bundle_is((const char *)bytes, len)
            ? treg_text_bundle_each((const char *)bytes, len, NULL, analyze_entry, &w, &st, &err)
            : treg_container_each(bytes, len, NULL, analyze_entry, &w, &st, &err);
    if (rc != TREG_OK) fail(t, path, err.msg);
    if (t->json) {
        json_object *c = json_object_new_object();
        json_object_object_add(c, "file", json_object_new_string(path));
        json_object_object_add(c, "format", st.format ? json_object_new_string(st.format) : NULL);
        json_object_object_add(c, "code_objects", w.objects);
        json_object_object_add(c, "skipped", w.skipped);
        json_object_object_add(c, "decompressed_bytes",
                               json_object_new_int64((int64_t)st.decompressed));
        json_object_array_add(t->containers, c);
    } else if (!t->html && !t->diffing && rc == TREG_OK) {
        if (enqueue(t, Q_CONTAINER_END, path, w.skipped_text) == 0) {
            queue_item *it = &t->queue[t->qlen - 1];
            it->objects = st.objects;
            it->format = st.format;
        }
    }
}

static bool is_code_object(const uint8_t *b, size_t n)
{
    return n >= 20 && memcmp(b, "\177ELF", 4) == 0 && b[18] == 0xE0 && b[19] == 0;
}

/* A regular file that is not a code object is mapped, not read: a ROCm
 * library runs to gigabytes, of which only the offload sections are
 * touched.  1 when it was handled here. */
static int mapped_container(tool *t, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    uint8_t head[20];
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof head ||
        pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        is_code_object(head, sizeof head)) {
        if (fd >= 0) close(fd);
        return 0;
    }
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return 0;
    analyze_container(t, path, map, len);
    munmap(map, len);
    return 1;
}

static void analyze_file(tool *t, const char *path)
{
    treg_error why = {0, ""};
    size_t len;
    file_state *fs = calloc(1, sizeof *fs);
    if (!fs) {
        fail(t, path, "out of memory");
        return;
    }
    fs->walking = t->walking;
    t->fs = fs;
    bool text = has_suffix(path, ".amdgcn") || has_suffix(path, ".s");
    char *bytes = NULL;
    if (!text && mapped_container(t, path)) goto done;
    if (!(bytes = slurp(path, &len, &why))) {
        fail(t, path, why.msg);
        goto done;
    }
    /* Not a code object (nor its text): what it holds; a listing bundled
     * by clang's offload bundler (hipcc -S / --save-temps): its sections. */
    if ((!text && !is_code_object((const uint8_t *)bytes, len)) ||
        (text && treg_text_bundle_is(bytes, len))) {
        analyze_container(t, path, (const uint8_t *)bytes, len);
        goto done;
    }
    /* Triton keeps <kernel>.json and <kernel>.amdgcn next to <kernel>.hsaco. */
    treg_options opt = {0};
    opt.kernel_regex = t->kernel_regex;
    opt.keep_rows = t->rows;
    char *json = NULL, *jp = NULL, *asm_text = NULL, *ap = NULL, *ir = NULL, *irp = NULL;
    char *ttgir = NULL, *tp = NULL;
    size_t stem = strlen(path) - (has_suffix(path, ".hsaco")    ? 6
                                  : has_suffix(path, ".amdgcn") ? 7
                                  : has_suffix(path, ".s")      ? 2
                                                                : 0);
    if (stem < strlen(path) && !has_suffix(path, ".s")) {
        size_t jlen;
        if ((jp = sibling(path, stem, ".json")) && (json = slurp(jp, &jlen, &why))) {
            opt.triton_json = json;
            opt.triton_json_len = jlen;
        }
    }
    /* Triton's <kernel>.ttgir: what the registers hold, by the ops that made them.
     * Too large or unreadable: the categories come from the machine code. */
    if (stem < strlen(path) && !has_suffix(path, ".s") && (tp = sibling(path, stem, ".ttgir"))) {
        size_t tlen;
        struct stat st;
        if (stat(tp, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > TREG_TTGIR_MAX_BYTES)
            fprintf(stderr,
                    "treg-analyze: %s: %lld bytes, more than the %u a TTGIR may have: not read "
                    "(categories from the machine code)\n",
                    tp, (long long)st.st_size, (unsigned)TREG_TTGIR_MAX_BYTES);
        else if (stat(tp, &st) == 0 && S_ISREG(st.st_mode) && (ttgir = slurp(tp, &tlen, &why))) {
            opt.ttgir = ttgir;
            opt.ttgir_len = tlen;
            opt.ttgir_name = tp;
        }
    }
    if (text) {
        opt.asm_text = bytes;
        opt.asm_text_len = len;
        opt.asm_name = path;
    } else if (has_suffix(path, ".hsaco") && !t->no_assembly) {
        size_t alen;
        if ((ap = sibling(path, stem, ".amdgcn")) && (asm_text = slurp(ap, &alen, &why))) {
            opt.asm_text = asm_text;
            opt.asm_text_len = alen;
            opt.asm_name = ap;
        }
    }
    if (t->what_if) {
        /* Triton's <kernel>.llir: asked for, so its absence is this file's error. */
        size_t irlen;
        if (stem == strlen(path) || !(irp = sibling(path, stem, ".llir"))) {
            fail(t, path,
                 stem == strlen(path) ? "--what-if needs a <kernel>.hsaco with its "
                                        "<kernel>.llir beside it"
                                      : "out of memory");
            goto skip;
        }
        if (!(ir = slurp(irp, &irlen, &why))) {
            char msg[400];
            snprintf(msg, sizeof msg, "--what-if needs the kernel's LLVM IR: %s: %s", irp, why.msg);
            fail(t, path, msg);
            goto skip;
        }
        opt.llvm_ir = ir;
        opt.llvm_ir_len = irlen;
        opt.llvm_ir_name = irp;
        opt.what_if_budget_ms = t->what_if_ms;
    }
    analyze_isolated(t, path, NULL, text ? NULL : (const uint8_t *)bytes, text ? 0 : len, &opt,
                     json ? jp : NULL);
skip:
    free(ttgir);
    free(tp);
    free(ir);
    free(irp);
    free(ap);
    free(asm_text);
    free(jp);
    free(json);
done:
    /* What --target left out is known when the file's analyses are done. */
    if (enqueue(t, Q_FILE_END, path, NULL) != 0) {
        drain(t, 1);
        file_end(t, fs, path);
    }
    t->fs = NULL;
    free(bytes);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_binary_sibling(const char *amdgcn)
{
    char *h = sibling(amdgcn, strlen(amdgcn) - 7, ".hsaco");
    struct stat st;
    bool yes = h && stat(h, &st) == 0;
    free(h);
    return yes;
}

/* Every .hsaco below dir, in name order so output is stable. */
static void walk(tool *t, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) {
        fail(t, dir, strerror(errno));
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) break;
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (names[n]) n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *p = malloc(len);
        if (p) {
            snprintf(p, len, "%s/%s", dir, names[i]);
            struct stat st;
            bool is_dir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
            if (is_dir && strcmp(names[i], TREG_FAILED_KERNELS) == 0)
                fprintf(stderr, "treg-analyze: %s: skipped: %s\n", p, TREG_FAILED_KERNELS_WHY);
            else if (is_dir && depth < 8)
                walk(t, p, depth + 1);
            else if (has_suffix(names[i], ".hsaco"))
                analyze_file(t, p);
            else if (has_suffix(names[i], ".amdgcn") && !has_binary_sibling(p))
                analyze_file(t, p); /* a cache kept as text: the text alone */
            free(p);
        }
        free(names[i]);
    }
    free(names);
}

/* One FILE or DIR argument: analyzed, or walked. */
static void analyze_arg(tool *t, const char *arg)
{
    struct stat st;
    if (stat(arg, &st) != 0) {
        fail(t, arg, strerror(errno));
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        analyze_file(t, arg);
        return;
    }
    int before = t->analyzed + t->failures, unmatched = t->unmatched;
    t->walking = 1;
    walk(t, arg, 0);
    t->walking = 0;
    drain(t, 1); /* the folder's figures, for what it lacked */
    if (t->analyzed + t->failures == before) {
        char msg[400];
        if (t->unmatched > unmatched)
            snprintf(msg, sizeof msg, "no kernel matches '%s' in %d code objects", t->kernel_regex,
                     t->unmatched - unmatched);
        else
            snprintf(msg, sizeof msg, "no .hsaco files in this folder");
        fail(t, arg, msg);
    }
}

/* treg-analyze diff: each side analyzed (or OLD read from a baseline), then
 * the comparison; 1 when an analysis failed or a --fail-on rule broke. */
static int run_diff(tool *t, const char *baseline, const char *const *args, int nargs,
                    const treg_gate *gate)
{
    if (baseline) {
        treg_error why = {0, ""};
        treg_diff_label(t->diff, TREG_DIFF_OLD, baseline);
        if (treg_diff_read_baseline(t->diff, TREG_DIFF_OLD, baseline, &why) != 0) {
            fprintf(stderr, "treg-analyze: --baseline %s\n", why.msg);
            return 2;
        }
    }
    for (int i = 0; i < nargs; i++) {
        t->side = nargs == 2 && i == 0 ? TREG_DIFF_OLD : TREG_DIFF_NEW;
        treg_diff_label(t->diff, t->side, args[i]);
        if (t->samples_new) { /* each side its own run's samples */
            t->samples = t->side_samples[t->side];
            t->samples_path = t->side == TREG_DIFF_OLD ? t->samples_old : t->samples_new;
        }
        analyze_arg(t, args[i]);
        drain(t, 1);
    }
    if (treg_diff_match(t->diff) != 0) {
        fprintf(stderr, "treg-analyze: out of memory\n");
        return 1;
    }
    size_t broken = treg_diff_print(stdout, t->diff, gate, t->errors, TREG_ANALYZER_VERSION);
    if (broken)
        fprintf(stderr, "treg-analyze: diff: %zu --fail-on rule%s broken\n", broken,
                broken == 1 ? "" : "s");
    return t->failures || broken ? 1 : 0;
}

/* What the command line asks beyond the tool's own settings. */
typedef struct cli {
    const char *baseline, *write_baseline, *fail_on;
    treg_gate gate;
    char **args; /* the inputs */
    int nargs;
} cli;

/* The number in s for --jobs (1..64) or --what-if-budget (seconds,
 * 0.001..3600, as ms): 0, or -1 with a one-line message on stderr. */
static int jobs_option(const char *s, unsigned *jobs)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || n < 1 || n > 64) {
        fprintf(stderr, "treg-analyze: --jobs takes a number from 1 to 64, not '%s'\n", s);
        return -1;
    }
    *jobs = (unsigned)n;
    return 0;
}

static int budget_option(const char *s, unsigned *ms)
{
    char *end;
    double v = strtod(s, &end);
    if (*s < '0' || *s > '9' || *end || !(v >= 0.001 && v <= 3600)) {
        fprintf(stderr,
                "treg-analyze: --what-if-budget takes seconds from 0.001 to 3600, not '%s'\n", s);
        return -1;
    }
    *ms = (unsigned)(v * 1000.0 + 0.5);
    return 0;
}

static int target_option(tool *t, const char *s)
{
    if (strncmp(s, "gfx", 3) != 0 || strlen(s) < 6 || strchr(s, ':')) {
        fprintf(stderr,
                "treg-analyze: --target takes a processor such as gfx906 or gfx90a, not '%s'\n", s);
        return -1;
    }
    const char **grown = realloc(t->targets, (t->ntargets + 1) * sizeof *grown);
    if (!grown) {
        fprintf(stderr, "treg-analyze: out of memory\n");
        return -1;
    }
    t->targets = grown;
    t->targets[t->ntargets++] = s;
    return 0;
}

/* Reads the options into t and o: -1 to go on, else the exit status (0 for
 * --help; 2 with a one-line message or the usage on stderr). */
static int parse_options(tool *t, cli *o, int argc, char **argv)
{
    static const struct option longopts[] = {{"kernel", required_argument, NULL, 'k'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"no-rows", no_argument, NULL, 'R'},
                                             {"no-assembly", no_argument, NULL, 'A'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"target", required_argument, NULL, 'T'},
                                             {"jobs", required_argument, NULL, 'j'},
                                             {"fail-on", required_argument, NULL, 'F'},
                                             {"baseline", required_argument, NULL, 'B'},
                                             {"write-baseline", required_argument, NULL, 'W'},
                                             {"what-if", no_argument, NULL, 'w'},
                                             {"samples", required_argument, NULL, 'P'},
                                             {"samples-code-object", required_argument, NULL, 'C'},
                                             {"what-if-budget", required_argument, NULL, 'b'},
                                             {"help", no_argument, NULL, 'h'},
                                             TREG_TEXT_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "k:f:o:j:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            t->kernel_regex = optarg;
            break;
        case 'f':
            t->json = strcmp(optarg, "json") == 0;
            t->html = strcmp(optarg, "html") == 0;
            if (!t->json && !t->html && strcmp(optarg, "text") != 0) {
                fprintf(stderr, "treg-analyze: --format must be text, json or html, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'R':
            t->rows = 0;
            break;
        case 'F':
            o->fail_on = optarg;
            break;
        case 'B':
            o->baseline = optarg;
            break;
        case 'W':
            o->write_baseline = optarg;
            break;
        case 'j':
            if (jobs_option(optarg, &t->jobs) != 0) return 2;
            break;
        case 'A':
            t->no_assembly = 1;
            break;
        case 'w':
            t->what_if = 1;
            break;
        case 'P':
            if (t->samples_path && t->samples_new) {
                fprintf(stderr, "treg-analyze: --samples: at most twice (diff: OLD's, NEW's)\n");
                return 2;
            }
            *(t->samples_path ? &t->samples_new : &t->samples_path) = optarg;
            break;
        case 'C': {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || v == 0) {
                fprintf(stderr,
                        "treg-analyze: --samples-code-object: '%s' is not a code object id (1 "
                        "or more, as the profile's code_objects[] number them)\n",
                        optarg);
                return 2;
            }
            t->samples_co = v;
            break;
        }
        case 'b':
            if (budget_option(optarg, &t->what_if_ms) != 0) return 2;
            break;
        case 'o':
            t->output = optarg;
            break;
        case 'T':
            if (target_option(t, optarg) != 0) return 2;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            if (c >= TREG_TEXT_OPT_FIRST && c <= TREG_TEXT_OPT_LAST) {
                treg_error why = {0, ""};
                if (treg_text_option(&t->text, c, optarg, &why) != 0) {
                    fprintf(stderr, "treg-analyze: %s\n", why.msg);
                    return 2;
                }
                break;
            }
            usage(stderr);
            return 2;
        }
    }
    o->args = argv + optind;
    o->nargs = argc - optind;
    return -1;
}

/* Options that do not go together, or a bad --fail-on or --kernel: the
 * one-line message (into why when it is made), or NULL. */
static const char *conflicting(const tool *t, cli *o, treg_error *why)
{
    if (!t->diffing && (o->fail_on || o->baseline))
        return "--fail-on and --baseline are for treg-analyze diff";
    if (t->diffing && (t->html || t->output || t->text.explicit_views || t->text.sources_given))
        return "diff prints its own table: --format text or json only, no views";
    if (t->diffing && o->nargs != (o->baseline ? 1 : 2))
        return o->baseline ? "diff --baseline FILE takes one more argument: NEW"
                           : "diff takes two arguments: OLD NEW (or --baseline FILE NEW)";
    if (o->fail_on && treg_gate_parse(o->fail_on, &o->gate, why) != 0) return why->msg;
    if (t->json && (t->text.explicit_views || t->text.sources_given))
        return "--lines, --peak, --why, --hot, --asm, --summary, --regs, --source-dir and "
               "--source-map are for text output, not --format json";
    if (t->html && t->text.explicit_views)
        return "--lines, --peak, --why, --hot, --asm, --summary and --regs are text views: the "
               "HTML page has them all";
    if (t->html && !t->rows) return "--format html draws every instruction: not with --no-rows";
    if (t->output && !t->html) return "-o/--output is for --format html";
    if (!t->rows && (t->text.options.views & TREG_VIEW_ASM))
        return "--asm lists the per-instruction rows: not with --no-rows";
    if (t->diffing && t->samples_path && (!t->samples_new || o->baseline))
        return "diff: give --samples twice, the OLD run's then the NEW run's (not with --baseline)";
    if (!t->diffing && t->samples_new) return "--samples once: one profile of this build";
    if (t->samples_co && !t->samples_path) return "--samples-code-object needs --samples FILE";
    if ((t->text.options.views & TREG_VIEW_HOT) && !t->samples_path)
        return "--hot shows where runtime PC samples fall: give them with --samples FILE";
    return NULL;
}

/* A bad --kernel pattern is a usage error, not one failure per file: 0, or
 * -1 with the line on stderr. */
static int kernel_regex_ok(const char *pattern)
{
    regex_t re;
    int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[128];
        regerror(rc, &re, why, sizeof why);
        fprintf(stderr, "treg-analyze: --kernel: bad regex '%s': %s\n", pattern, why);
        return -1;
    }
    regfree(&re);
    return 0;
}

/* The outputs and the analysis processes: 0, or the exit status with a
 * line on stderr. */
static int start(tool *t, const cli *o)
{
    if (t->diffing || o->write_baseline) t->diff = treg_diff_new();
    if (t->diffing) {
        t->rows = 0; /* the figures and the source lines are enough */
        if (t->json) t->errors = json_object_new_array();
        t->json = 0;
    }
    if (t->json) {
        treg_json_doc_begin(&t->doc, stdout);
        t->errors = json_object_new_array();
        t->containers = json_object_new_array();
    }
    t->cross = treg_cross_new();
    if (!t->jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        t->jobs = n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
    }
    if (t->samples_path) {
        /* the rows come back packed: the samples are placed here */
        treg_error why = {0, ""};
        treg_arena_init(&t->samples_arena);
        for (int side = 0; side < (t->samples_new ? 2 : 1); side++) {
            const char *path = side ? t->samples_new : t->samples_path;
            if (treg_pcs_read_file(&t->samples_arena, path, &t->side_samples[side], &why) !=
                TREG_OK) {
                fprintf(stderr, "treg-analyze: --samples %s: %s\n", path, why.msg);
                return 2;
            }
        }
        t->samples = t->side_samples[0];
        t->samples_old = t->samples_path;
    }
    t->pool = pool_new(t->kernel_regex, t->rows || t->samples_path,
                       t->json && !t->samples_path ? t->rows : -1, t->jobs);
    if (!t->cross || !t->pool || ((t->diffing || o->write_baseline) && !t->diff)) {
        fprintf(stderr, "treg-analyze: out of memory\n");
        return 1;
    }
    t->side = TREG_DIFF_NEW;
    if (t->html && treg_is_site_path(t->output)) {
        treg_error why = {0, ""};
        if (!(t->site = treg_site_open(t->output, t->text.options.sources, &why))) {
            fprintf(stderr, "treg-analyze: -o %s\n", why.msg);
            return 1;
        }
    }
    return 0;
}

/* After the last analysis: the JSON document's closing members, the
 * cross-target table, the HTML page or the site's index. */
static void finish(tool *t, const cli *o)
{
    if (t->json) {
        treg_json_doc_member(&t->doc, "analyzer_version",
                             json_object_new_string(TREG_ANALYZER_VERSION));
        if (json_object_array_length(t->containers))
            treg_json_doc_member(&t->doc, "containers", t->containers);
        else
            json_object_put(t->containers);
        t->containers = NULL;
        if (treg_cross_kernels(t->cross))
            treg_json_doc_member(&t->doc, "cross_target", treg_cross_json(t->cross));
        treg_json_doc_member(&t->doc, "errors", t->errors);
        t->errors = NULL;
        if (treg_json_doc_end(&t->doc) != 0) {
            fprintf(stderr, "treg-analyze: standard output: %s\n", strerror(errno));
            t->failures++;
        }
    }
    if (!t->json && !t->html) treg_cross_text(stdout, t->cross, &t->text.options);
    treg_error why = {0, ""};
    if (t->site) {
        char title[300];
        if (o->nargs == 1)
            snprintf(title, sizeof title, "%s", o->args[0]);
        else
            snprintf(title, sizeof title, "%d inputs", o->nargs);
        if (treg_site_close(t->site, title, &why) != 0) {
            fprintf(stderr, "treg-analyze: %s\n", why.msg);
            t->failures++;
        }
    } else if (t->html) {
        if (treg_render_html_page(t->output, (const Treg__V1__Report *const *)t->pages, t->npages,
                                  t->text.options.sources, (const char *const *)o->args, o->nargs,
                                  &why) != 0) {
            fprintf(stderr, "treg-analyze: %s\n", why.msg);
            t->failures++;
        }
    }
}

static void tool_free(tool *t)
{
    pool_free(t->pool);
    free(t->queue);
    json_object_put(t->errors);
    json_object_put(t->containers);
    treg_diff_free(t->diff);
    treg_site_free(t->site);
    for (size_t i = 0; i < t->npages; i++) treg__v1__report__free_unpacked(t->pages[i], NULL);
    free(t->pages);
    treg_cross_free(t->cross);
    free(t->targets);
    treg_text_free(&t->text);
    treg_arena_free(&t->samples_arena);
}

int main(int argc, char **argv)
{
    tool t = {0};
    cli o = {0};
    t.rows = 1;
    if (argc > 1 && strcmp(argv[1], "diff") == 0) {
        t.diffing = 1;
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    int status = parse_options(&t, &o, argc, argv);
    treg_error why = {0, ""};
    const char *conflict = status < 0 ? conflicting(&t, &o, &why) : NULL;
    if (conflict) {
        fprintf(stderr, "treg-analyze: %s\n", conflict);
        status = 2;
    } else if (status < 0 && o.nargs == 0) {
        usage(stderr);
        status = 2;
    } else if (status < 0 && t.kernel_regex && kernel_regex_ok(t.kernel_regex) != 0) {
        status = 2;
    }
    if (status >= 0) {
        treg_text_free(&t.text);
        free(t.targets);
        return status;
    }
    treg_text_finish(&t.text);
    status = start(&t, &o);
    if (status != 0) {
        tool_free(&t);
        return status;
    }
    if (t.diffing)
        status = run_diff(&t, o.baseline, (const char *const *)o.args, o.nargs,
                          o.fail_on ? &o.gate : NULL);
    else
        for (int i = 0; i < o.nargs; i++) analyze_arg(&t, o.args[i]);
    drain(&t, 1);
    if (o.write_baseline &&
        treg_diff_write_baseline(t.diff, TREG_DIFF_NEW, o.write_baseline, &why)) {
        fprintf(stderr, "treg-analyze: --write-baseline %s\n", why.msg);
        status = status ? status : 1;
    }
    if (!t.diffing) {
        finish(&t, &o);
        status = t.failures || status ? 1 : 0;
    }
    if (t.samples_path && !t.samples_placed && t.analyzed) {
        fprintf(stderr,
                "treg-analyze: --samples %s: no code object given has this profile's "
                "samples\n",
                t.samples_path);
        status = 1;
    }
    tool_free(&t);
    return status;
}
