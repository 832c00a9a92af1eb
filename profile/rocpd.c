/* rocprofv3's rocpd SQLite database read into the sampled-instruction table
 * (pcsamples.h).  No released rocprofv3 (to ROCm 7.x) writes PC samples to
 * rocpd: the layout read is the one rocm-systems' drafts insert (PR #4946,
 * "Introduce PC sampling support for rocpd", and #10106), one table per run
 * beside the released schema's code objects:
 *
 *   rocpd_gpu_pc_sample_<uuid>(..., nid, pid, ..., code_object_id,
 *       code_object_offset, wave_issued, inst_type, stall_reason, wave_count)
 *       wave_issued and stall_reason NULL for host-trap samples, the
 *       reasons as pc_sampling.h's enum values
 *   rocpd_info_code_object_<uuid>(id, nid, pid, ..., uri, load_base,
 *       load_size, load_delta, ...)      (released schema 3, id = the load id)
 *   rocpd_disassembly_data_<uuid>(nid, pid, code_object_id,
 *       code_object_offset, instruction, comment)   (optional)
 *
 * The file is hostile until read: only base tables are read (never the
 * file's own views or triggers, whose SQL is the file's), under SQLite's
 * defensive mode with an untrusted schema, strings bounded by
 * SQLITE_LIMIT_LENGTH, a small page cache, and a budget of virtual-machine
 * steps; the samples are summed by SQLite (GROUP BY), so memory grows with
 * the distinct instructions, not the samples. */
#include "pcsamples.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pcs_build.h"
#include "util/error.h"

#define STEP_BUDGET  (4000u * 1000u) /* progress calls, each 1000 VM steps */
#define MAX_TABLES   64              /* runs in one database */
#define MAX_NAME     128
#define MAX_DISTINCT (1u << 22) /* GROUP BY rows: ~512 MB of them at most */

bool treg_pcs_is_sqlite(const void *head, size_t len)
{
    return len >= 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

typedef struct db {
    sqlite3 *h;
    unsigned steps;
    treg_error *err;
} db;

static int on_progress(void *arg)
{
    db *d = arg;
    return ++d->steps > STEP_BUDGET;
}

static int db_fail(db *d, int rc, const char *what)
{
    if (d->steps > STEP_BUDGET)
        return treg_fail(d->err, TREG_E_LIMIT, "reading it takes more than %u million SQLite steps",
                         STEP_BUDGET / 1000);
    if (rc == SQLITE_NOMEM) return treg_fail(d->err, TREG_E_NOMEM, "out of memory");
    if (rc == SQLITE_TOOBIG) return treg_fail(d->err, TREG_E_LIMIT, "%s: a value over 1 MiB", what);
    /* SQLite's message may quote the file's own SQL: one line, bounded */
    char msg[160];
    snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(d->h));
    treg_one_line(msg);
    return treg_fail(d->err, TREG_E_FORMAT, "%s: %s", what, msg);
}

/* The base tables (no view, no virtual table) named prefix or
 * prefix_<uuid>, the uuid of hex digits, '_' and '-'. */
static int tables(db *d, const char *prefix, char names[][MAX_NAME], size_t *n)
{
    sqlite3_stmt *st;
    *n = 0;
    /* pragma_table_list's type: 'table' for ordinary tables only ('view',
     * 'virtual' and 'shadow' apart), as SQLite itself parsed the schema */
    int rc = sqlite3_prepare_v2(d->h,
                                "SELECT name FROM pragma_table_list WHERE schema = 'main' AND "
                                "type = 'table' ORDER BY name",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) return db_fail(d, rc, "not a database SQLite can read");
    size_t plen = strlen(prefix);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!name || strncmp(name, prefix, plen) != 0 || strlen(name) >= MAX_NAME) continue;
        const char *tail = name + plen;
        bool ok = *tail == 0 || *tail == '_';
        for (const char *p = *tail ? tail + 1 : tail; ok && *p; p++)
            ok = isxdigit((unsigned char)*p) || *p == '_' || *p == '-';
        if (!ok || (*tail && !tail[1])) continue;
        if (*n == MAX_TABLES) {
            sqlite3_finalize(st);
            return treg_fail(d->err, TREG_E_LIMIT, "more than %d %s tables", MAX_TABLES, prefix);
        }
        snprintf(names[(*n)++], MAX_NAME, "%s", name);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TREG_OK : db_fail(d, rc, "its schema cannot be read");
}

/* Whether table t has every column of cols (NULL-ended). */
static bool has_columns(db *d, const char *t, const char *const *cols)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return false;
    bool all = true;
    for (; all && *cols; cols++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, *cols, -1, SQLITE_STATIC);
        all = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return all;
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
    sqlite3_int64 v = sqlite3_column_int64(st, i);
    return v < 0 ? 0 : (uint64_t)v;
}

typedef struct proc {
    sqlite3_int64 nid, pid;
    bool set;
} proc;

static int read_samples(db *d, pcs_build *b, const char *t, proc *who)
{
    static const char *const need[] = {
        "nid", "pid", "code_object_id", "code_object_offset", "wave_issued", "stall_reason", NULL};
    if (!has_columns(d, t, need))
        return treg_fail(d->err, TREG_E_FORMAT,
                         "table %s lacks one of nid, pid, code_object_id, code_object_offset, "
                         "wave_issued, stall_reason",
                         t);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT nid, pid, code_object_id, code_object_offset, wave_issued, stall_reason, "
             "count(*) FROM \"%s\" GROUP BY 1, 2, 3, 4, 5, 6",
             t);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(d->h, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return db_fail(d, rc, t);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 nid = sqlite3_column_int64(st, 0), pid = sqlite3_column_int64(st, 1);
        if (who->set && (nid != who->nid || pid != who->pid)) {
            sqlite3_finalize(st);
            return treg_fail(d->err, TREG_E_FORMAT,
                             "holds the PC samples of more than one process (pids %lld and "
                             "%lld): give one process's database",
                             (long long)who->pid, (long long)pid);
        }
        *who = (proc){nid, pid, true};
        uint64_t co = col_u64(st, 2), n = col_u64(st, 6);
        if (co == 0 || sqlite3_column_int64(st, 3) < 0) { /* code rocprofv3 could not place */
            b->out->unknown = pcs_add_sat(b->out->unknown, n);
            continue;
        }
        pcs_raw *x = b->nraws < MAX_DISTINCT ? pcs_build_add(b) : NULL;
        if (!x) {
            sqlite3_finalize(st);
            if (b->nraws >= MAX_DISTINCT)
                return treg_fail(d->err, TREG_E_LIMIT,
                                 "more than %u distinct sampled instructions and reasons",
                                 MAX_DISTINCT);
            return b->err->code;
        }
        x->co = co;
        x->offset = col_u64(st, 3);
        x->samples = n;
        if (sqlite3_column_type(st, 4) == SQLITE_NULL) { /* host-trap */
            b->out->sources |= TREG_PCS_HOST_TRAP;
            continue;
        }
        b->out->sources |= TREG_PCS_STOCHASTIC;
        if (sqlite3_column_int64(st, 4)) {
            x->issued = n;
        } else {
            x->stalled = n;
            sqlite3_int64 why = sqlite3_column_int64(st, 5);
            if (why >= 0 && why < TREG_PCS_NREASONS) x->reasons[why] = n;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TREG_OK : db_fail(d, rc, t);
}

/* Each row of SELECT cols FROM t WHERE nid = ? AND pid = ? (the sampled
 * process's) of every table in names that has the columns need, to row;
 * a table without them is another layout's, skipped.  A TREG_ code. */
typedef int (*row_fn)(db *d, sqlite3_stmt *st, void *ctx);

static int each_row(db *d, const char (*names)[MAX_NAME], size_t nt, const char *const *need,
                    const char *cols, const proc *who, row_fn row, void *ctx)
{
    for (size_t i = 0; i < nt; i++) {
        if (!has_columns(d, names[i], need)) continue;
        char sql[512];
        snprintf(sql, sizeof sql, "SELECT %s FROM \"%s\" WHERE nid = ?1 AND pid = ?2", cols,
                 names[i]);
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(d->h, sql, -1, &st, NULL);
        if (rc != SQLITE_OK) return db_fail(d, rc, names[i]);
        sqlite3_bind_int64(st, 1, who->nid);
        sqlite3_bind_int64(st, 2, who->pid);
        int got = TREG_OK;
        while (got == TREG_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) got = row(d, st, ctx);
        sqlite3_finalize(st);
        if (got != TREG_OK) return got;
        if (rc != SQLITE_DONE) return db_fail(d, rc, names[i]);
    }
    return TREG_OK;
}

typedef struct co_list {
    pcs_build *b;
    size_t cap;
} co_list;

/* One rocpd_info_code_object row (id > 0) into b->out->code_objects. */
static int code_object_row(db *d, sqlite3_stmt *st, void *ctx)
{
    co_list *l = ctx;
    treg_pcs *out = l->b->out;
    if (sqlite3_column_int64(st, 0) <= 0) return TREG_OK;
    if (out->ncode_objects == l->cap) {
        if (l->cap >= TREG_PCS_MAX_RECORDS)
            return treg_fail(d->err, TREG_E_LIMIT, "more than %u code objects",
                             (unsigned)TREG_PCS_MAX_RECORDS);
        size_t cap = l->cap ? l->cap * 2 : 16;
        treg_pcs_code_object *n =
            treg_arena_grow(l->b->a, out->code_objects, out->ncode_objects, cap, sizeof *n);
        if (!n) return treg_fail(d->err, TREG_E_NOMEM, "out of memory");
        out->code_objects = n;
        l->cap = cap;
    }
    treg_pcs_code_object *co = &out->code_objects[out->ncode_objects++];
    co->id = col_u64(st, 0);
    const char *uri = (const char *)sqlite3_column_text(st, 1);
    co->uri =
        treg_arena_strndup(l->b->a, uri ? uri : "", uri ? strnlen(uri, TREG_PCS_MAX_STRING) : 0);
    if (!co->uri) return treg_fail(d->err, TREG_E_NOMEM, "out of memory");
    co->load_base = col_u64(st, 2);
    co->load_size = col_u64(st, 3);
    co->load_delta = sqlite3_column_int64(st, 4);
    return TREG_OK;
}

static treg_pcs_pc *find_pc(treg_pcs *s, uint64_t co, uint64_t off)
{
    size_t lo = 0, hi = s->npcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const treg_pcs_pc *p = &s->pcs[mid];
        if (p->code_object_id < co || (p->code_object_id == co && p->offset < off))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->npcs && s->pcs[lo].code_object_id == co && s->pcs[lo].offset == off ? &s->pcs[lo]
                                                                                       : NULL;
}

/* One rocpd_disassembly_data row: its text on the sampled instruction at
 * its place, when that one has none yet (the others are not kept). */
static int text_row(db *d, sqlite3_stmt *st, void *ctx)
{
    pcs_build *b = ctx;
    treg_pcs_pc *p = find_pc(b->out, col_u64(st, 0), col_u64(st, 1));
    const char *text = (const char *)sqlite3_column_text(st, 2);
    if (!p || p->text || !text || !text[0]) return TREG_OK;
    p->text = treg_arena_strndup(b->a, text, strnlen(text, TREG_PCS_MAX_STRING));
    return p->text ? TREG_OK : treg_fail(d->err, TREG_E_NOMEM, "out of memory");
}

static const char *const code_object_cols[] = {"id",        "nid",       "pid",        "uri",
                                               "load_base", "load_size", "load_delta", NULL};
/* --pc-sampling-decode-instructions' texts */
static const char *const text_cols[] = {
    "nid", "pid", "code_object_id", "code_object_offset", "instruction", NULL};

/* path as a read-only, immutable SQLite URI (no journal, no lock, no
 * file written beside it). */
static int uri_of(const char *path, char *buf, size_t len)
{
    /* an absolute path after "file://" (an empty authority): "//x" is a path, not host x */
    size_t o = (size_t)snprintf(buf, len, path[0] == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        bool plain = isalnum(*p) || strchr("/._-~", *p);
        if (o + 4 >= len) return -1;
        o += (size_t)snprintf(buf + o, len - o, plain ? "%c" : "%%%02X", *p);
    }
    return snprintf(buf + o, len - o, "?mode=ro&immutable=1") < (int)(len - o) ? 0 : -1;
}

int treg_pcs_read_rocpd(treg_arena *a, const char *path, treg_pcs *out, treg_error *err)
{
    memset(out, 0, sizeof *out);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return treg_fail(err, TREG_E_IO, "cannot read it as a file");
    if ((uint64_t)sb.st_size > TREG_PCS_MAX_DB)
        return treg_fail(err, TREG_E_LIMIT, "a database of %lld bytes, past the limit of %u GiB",
                         (long long)sb.st_size, (unsigned)(TREG_PCS_MAX_DB >> 30));
    char uri[8192];
    if (uri_of(path, uri, sizeof uri) != 0)
        return treg_fail(err, TREG_E_ARG, "the path is too long");
    db d = {NULL, 0, err};
    int rc = sqlite3_open_v2(uri, &d.h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    if (rc != SQLITE_OK) {
        int code = rc == SQLITE_NOMEM ? TREG_E_NOMEM : TREG_E_FORMAT;
        treg_fail(err, code, "cannot open it as SQLite: %s", sqlite3_errstr(rc));
        sqlite3_close(d.h);
        return code;
    }
    sqlite3_db_config(d.h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(d.h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(d.h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
    sqlite3_db_config(d.h, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
    sqlite3_limit(d.h, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_limit(d.h, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_progress_handler(d.h, 1000, on_progress, &d);
    sqlite3_exec(d.h, "PRAGMA cache_size = -8192; PRAGMA temp_store = FILE", NULL, NULL, NULL);

    pcs_build b = {a, err, out, NULL, 0, 0};
    char(*names)[MAX_NAME] = malloc(MAX_TABLES * sizeof *names);
    size_t nt = 0;
    proc who = {0, 0, false};
    co_list cos = {&b, 0};
    if (!names) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = tables(&d, "rocpd_gpu_pc_sample", names, &nt))) goto done;
    if (nt == 0) {
        rc = treg_fail(err, TREG_E_FORMAT,
                       "a SQLite database without a rocpd_gpu_pc_sample table (rocprofv3 to "
                       "7.x writes PC samples to JSON, not rocpd: --output-format json)");
        goto done;
    }
    for (size_t i = 0; i < nt; i++)
        if ((rc = read_samples(&d, &b, names[i], &who))) goto done;
    if ((rc = pcs_build_sum(&b))) goto done;
    if (out->nsamples == 0 && out->unknown == 0) {
        rc = treg_fail(err, TREG_E_FORMAT, "holds no PC samples");
        goto done;
    }
    if ((rc = tables(&d, "rocpd_info_code_object", names, &nt)) ||
        (rc = each_row(&d, (const char(*)[MAX_NAME])names, nt, code_object_cols,
                       "id, uri, load_base, load_size, load_delta", &who, code_object_row, &cos)))
        goto done;
    if ((rc = tables(&d, "rocpd_disassembly_data", names, &nt)) ||
        (rc = each_row(&d, (const char(*)[MAX_NAME])names, nt, text_cols,
                       "code_object_id, code_object_offset, instruction", &who, text_row, &b)))
        goto done;
done:
    free(names);
    pcs_build_drop(&b);
    sqlite3_close(d.h);
    return rc;
}
