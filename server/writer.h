/* The store writers: a few threads in the server process that run
 * store_write_upload (temp files, fdatasyncs, renames, directory fsyncs) for
 * fresh analyses, so that neither the event loop nor the worker processes
 * wait for the disk.  A worker answers as soon as its report is packed and
 * takes the next job; pool.c hands the upload and the report here and
 * completes the job (HTTP answer, index row) only when the write is done.
 *
 * The threads touch nothing but the files and their own queue: no libevent
 * calls, no SQLite, no logging.  A finished write goes on a done list and an
 * eventfd watched by the loop wakes it; the done callbacks run on the loop
 * thread.  writer_submit never blocks and never refuses: pool.c bounds how
 * many writes are pending by not dispatching jobs past that bound. */
#ifndef TREGD_WRITER_H
#define TREGD_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "store.h"

#include "treg/error.h"

typedef struct write_req write_req;

/* One upload to write.  The inputs belong to the submitter and must stay
 * valid until done runs. */
struct write_req {
    store_upload upload;
    /* Or, when sources is not NULL, a team's source files for the report
     * under sources_key (store_write_sources) instead of an upload. */
    const store_source *sources;
    size_t nsources;
    const char *sources_key, *sources_team;
    int64_t sources_created_unix;
    size_t sources_differ; /* rc STORE_SOURCES_KEPT: the files unlike the kept ones */
    /* Or, when work is not NULL, work(req) on a thread instead of a write
     * (a report page's rendering: tregd's page threads, a writer of their
     * own); it may read the store's files, and touches nothing of the loop. */
    void (*work)(write_req *req);
    /* Called on the loop thread once the files are durable (rc 0) or the
     * write failed (rc -1, err holds one line). */
    void (*done)(write_req *req);
    int rc;
    treg_error err;
    write_req *next; /* the writer's */
};

typedef struct writer writer;

/* threads writing uploads into the store at dir, their temp files in tmp
 * (store_tmp_dir); both NULL for threads that only run work (and are
 * given nothing else). */
writer *writer_new(struct event_base *base, const char *dir, const char *tmp, unsigned threads,
                   treg_error *err);

/* Queues req; a thread picks it up.  Loop thread only. */
void writer_submit(writer *w, write_req *req);

/* Lets every submitted write finish, runs the done callbacks of those not
 * yet delivered (on the calling thread, the loop's, outside the loop), stops
 * the threads and frees. */
void writer_free(writer *w);

#endif
