/* db.h on SQLite: a file beside the store, WAL, statements prepared once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db_impl.h"
#include "util/error.h"

typedef struct lite {
    db base;
    sqlite3 *h;
    sqlite3_stmt *st[DB_MAX_STATEMENTS];
    bool busy[DB_MAX_STATEMENTS]; /* its rows are being read */
} lite;

typedef struct lite_rows {
    db_rows base;
    lite *l;
    int id;
    sqlite3_stmt *st;
} lite_rows;

static const db_ops lite_ops;

static int fail(lite *l, const char *what)
{
    db_set_error(&l->base, what, sqlite3_errmsg(l->h));
    return -1;
}

static void lite_close(db *d)
{
    lite *l = (lite *)d;
    for (int i = 0; i < DB_MAX_STATEMENTS; i++) sqlite3_finalize(l->st[i]);
    sqlite3_close(l->h);
    free(l);
}

static int lite_exec(db *d, const char *sql)
{
    lite *l = (lite *)d;
    char *msg = NULL;
    if (sqlite3_exec(l->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        db_set_error(d, "index", msg ? msg : sqlite3_errmsg(l->h));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Statement id, reset and bound: $N by name (SQLite numbers its named
 * parameters in order of appearance, not by N). */
static sqlite3_stmt *prepare(lite *l, int id, const char *sql, const db_arg *args, int nargs)
{
    if (l->busy[id]) {
        db_set_error(&l->base, "index", "statement in use");
        return NULL;
    }
    sqlite3_stmt *st = l->st[id];
    if (st == NULL) {
        if (sqlite3_prepare_v3(l->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
            fail(l, "index");
            return NULL;
        }
        l->st[id] = st;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    for (int i = 0; i < nargs; i++) {
        char name[16];
        snprintf(name, sizeof name, "$%d", i + 1);
        int at = sqlite3_bind_parameter_index(st, name), rc = SQLITE_OK;
        if (at == 0) continue; /* the statement does not use it */
        if (args[i].type == DB_TEXT)
            rc = sqlite3_bind_text(st, at, args[i].text, -1, SQLITE_TRANSIENT);
        else if (args[i].type == DB_INT)
            rc = sqlite3_bind_int64(st, at, args[i].i);
        if (rc != SQLITE_OK) {
            fail(l, "index");
            return NULL;
        }
    }
    return st;
}

static int lite_run(db *d, int id, const char *sql, const db_arg *args, int nargs, db_rows **rows)
{
    lite *l = (lite *)d;
    sqlite3_stmt *st = prepare(l, id, sql, args, nargs);
    if (st == NULL) return -1;
    if (rows == NULL) {
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : fail(l, "index");
    }
    lite_rows *r = calloc(1, sizeof *r);
    if (r == NULL) {
        db_set_error(d, "index", "out of memory");
        return -1;
    }
    *r = (lite_rows){.base = {&lite_ops}, .l = l, .id = id, .st = st};
    l->busy[id] = true;
    *rows = &r->base;
    return 0;
}

static int lite_next(db_rows *rows)
{
    lite_rows *r = (lite_rows *)rows;
    int rc = sqlite3_step(r->st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    return fail(r->l, "index");
}

static const char *lite_text(db_rows *rows, int i)
{
    const unsigned char *v = sqlite3_column_text(((lite_rows *)rows)->st, i);
    return v ? (const char *)v : "";
}

static int64_t lite_int(db_rows *rows, int i)
{
    return sqlite3_column_int64(((lite_rows *)rows)->st, i);
}

static void lite_done(db_rows *rows)
{
    lite_rows *r = (lite_rows *)rows;
    sqlite3_reset(r->st);
    r->l->busy[r->id] = false;
    free(r);
}

static int lite_begin(db *d)
{
    return lite_exec(d, "BEGIN IMMEDIATE");
}
static int lite_commit(db *d)
{
    return lite_exec(d, "COMMIT");
}
static void lite_rollback(db *d)
{
    char keep[sizeof d->err];
    memcpy(keep, d->err, sizeof keep); /* the error that made it roll back */
    lite_exec(d, "ROLLBACK");
    memcpy(d->err, keep, sizeof keep);
}

static int lite_version(db *d, int *version)
{
    lite *l = (lite *)d;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(l->h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        *version = sqlite3_column_int(st, 0);
        rc = 0;
    } else {
        fail(l, "cannot read the index version");
    }
    sqlite3_finalize(st);
    return rc;
}

static int lite_set_version(db *d, int version)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", version);
    return lite_exec(d, sql);
}

static bool damaged_code(int code)
{
    code &= 0xff;
    return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

static const db_ops lite_ops = {
    .close = lite_close,
    .exec = lite_exec,
    .run = lite_run,
    .next = lite_next,
    .text = lite_text,
    .integer = lite_int,
    .done = lite_done,
    .begin = lite_begin,
    .commit = lite_commit,
    .rollback = lite_rollback,
    .begin_migration = lite_begin,
    .version = lite_version,
    .set_version = lite_set_version,
};

db *db_sqlite_open(const char *path, enum db_open_status *status, treg_error *err)
{
    lite *l = calloc(1, sizeof *l);
    if (l == NULL) {
        treg_fail(err, TREG_E_NOMEM, "index %s: out of memory", path);
        return NULL;
    }
    l->base.ops = &lite_ops;
    enum db_open_status st = DB_OPEN_OK;
    if (sqlite3_open_v2(path, &l->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        treg_fail(err, TREG_E_IO, "index %s: %s", path,
                  l->h ? sqlite3_errmsg(l->h) : "cannot open");
        st =
            l->h && damaged_code(sqlite3_extended_errcode(l->h)) ? DB_OPEN_DAMAGED : DB_OPEN_FAILED;
    } else {
        sqlite3_busy_timeout(l->h, 2000);
        sqlite3_stmt *q = NULL;
        if (lite_exec(&l->base, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;") != 0) {
            treg_fail(err, TREG_E_FORMAT, "index %s: %s", path, l->base.err);
            st = damaged_code(sqlite3_extended_errcode(l->h)) ? DB_OPEN_DAMAGED : DB_OPEN_FAILED;
        } else if (sqlite3_prepare_v2(l->h, "PRAGMA quick_check", -1, &q, NULL) != SQLITE_OK) {
            treg_fail(err, TREG_E_FORMAT, "index %s: %s", path, sqlite3_errmsg(l->h));
            st = damaged_code(sqlite3_extended_errcode(l->h)) ? DB_OPEN_DAMAGED : DB_OPEN_FAILED;
        } else {
            /* Damaged means SQLite says so: a row other than "ok", or a
             * CORRUPT/NOTADB error.  Anything else (busy, I/O, a full
             * disk) is not a reason to throw the index away. */
            int step = sqlite3_step(q);
            const unsigned char *v = step == SQLITE_ROW ? sqlite3_column_text(q, 0) : NULL;
            if (v != NULL && strcmp((const char *)v, "ok") != 0) {
                treg_fail(err, TREG_E_FORMAT, "quick_check: %s", (const char *)v);
                st = DB_OPEN_DAMAGED;
            } else if (v == NULL) {
                treg_fail(err, TREG_E_FORMAT, "index %s: quick_check: %s", path,
                          sqlite3_errmsg(l->h));
                st =
                    damaged_code(sqlite3_extended_errcode(l->h)) ? DB_OPEN_DAMAGED : DB_OPEN_FAILED;
            }
        }
        sqlite3_finalize(q);
    }
    *status = st;
    if (st != DB_OPEN_OK) {
        lite_close(&l->base);
        return NULL;
    }
    return &l->base;
}
