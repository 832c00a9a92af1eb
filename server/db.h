/* The index's SQL engine: SQLite (a file beside the store, the embedded
 * default) or PostgreSQL (a server several tregd share).  Both run the same
 * statements (store.c's): PostgreSQL's `$N` parameters, which SQLite takes as
 * names, `CAST($N AS TEXT)` where a parameter may be NULL, `ON CONFLICT`
 * upserts, and no engine-only functions.
 *
 * One connection per db; not thread-safe (tregd uses it on its event loop).
 * A PostgreSQL connection lost between statements is made again once, with
 * its prepared statements, before a statement fails. */
#ifndef TREGD_DB_H
#define TREGD_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "treg/error.h"

typedef struct db db;
typedef struct db_rows db_rows;

/* A statement's argument: text, a NULL (SQL's "any" in store.c's
 * statements) or an integer. */
typedef struct db_arg {
    enum { DB_NULL, DB_TEXT, DB_INT } type;
    const char *text;
    int64_t i;
} db_arg;

#define DB_TEXT_ARG(s) ((db_arg){.type = DB_TEXT, .text = (s) ? (s) : ""})
#define DB_OPT_ARG(s)  ((db_arg){.type = (s) ? DB_TEXT : DB_NULL, .text = (s)})
#define DB_INT_ARG(n)  ((db_arg){.type = DB_INT, .i = (n)})

/* What db_open found. */
enum db_open_status {
    DB_OPEN_OK = 0,
    DB_OPEN_FAILED = -1, /* cannot connect or open (err says why) */
    DB_OPEN_DAMAGED = -2 /* SQLite says the file is damaged: set it aside and start again */
};

/* True when where names a PostgreSQL server (postgresql:// or postgres://). */
bool db_is_postgres(const char *where);

/* A PostgreSQL URL (libpq's connection URI), or an SQLite file made when
 * missing (WAL, checked with quick_check).  NULL with err and *status. */
db *db_open(const char *where, enum db_open_status *status, treg_error *err);
void db_close(db *d);
bool db_postgres(const db *d);

/* The engine's last error, one line. */
const char *db_error(db *d);

/* A script of statements without parameters or rows (DDL). */
int db_exec(db *d, const char *sql);

/* Runs statement id (its text sql, prepared once per connection and id;
 * ids are small, below DB_MAX_STATEMENTS) with args.  rows NULL: a
 * statement without rows, 0 or -1.  Otherwise *rows to step with db_next
 * and end with db_done; -1 on error. */
#define DB_MAX_STATEMENTS 32
int db_run(db *d, int id, const char *sql, const db_arg *args, int nargs, db_rows **rows);

/* 1 when the next row is there, 0 at the end, -1 on error (a damaged page
 * is an error, not a short answer). */
int db_next(db_rows *r);
/* Column i of the current row: its text ("" for NULL), its integer. */
const char *db_text(db_rows *r, int i);
int64_t db_int(db_rows *r, int i);
void db_done(db_rows *r);

/* A transaction that takes the write lock at once (SQLite's IMMEDIATE). */
int db_begin(db *d);
int db_commit(db *d);
void db_rollback(db *d);

/* The schema's version (0 for a new index) and setting it, inside the
 * caller's transaction.  On PostgreSQL db_begin_migration also takes a
 * lock held to the commit, so that of several servers starting at once one
 * migrates and the others then find the schema current. */
int db_begin_migration(db *d);
int db_version(db *d, int *version);
int db_set_version(db *d, int version);

#endif
