/* tregc watch: a Triton cache followed with inotify.  Triton (Hygon's
 * too) writes each file of an entry under a temporary name and renames it
 * into <cache>/<hash>/, the __grp__<name>.json group file last; an entry is
 * complete when that file is there (or, for a cache that writes none, when
 * it holds a .hsaco and a .json and ten seconds passed without a change).
 * Complete entries wait in a bounded queue and are sent in order; while the
 * server is away an entry is tried again with a doubling delay (1 s to a
 * minute).  SIGINT and SIGTERM end the watch cleanly. */
#ifndef TREGC_WATCH_H
#define TREGC_WATCH_H

#include <stddef.h>

#include "treg/error.h"

enum { TREGC_WATCH_SENT = 0, TREGC_WATCH_RETRY = 1 };

typedef struct tregc_watch_settings {
    const char *dir;   /* the cache */
    size_t queue_max;  /* complete entries waiting at most (0: 256) */
    int settle_ms;     /* quiet time for an entry without a group file (0: 10000) */
    int max_backoff_s; /* (0: 60) */
    /* Sends one complete entry (a folder): TREGC_WATCH_SENT, or
     * TREGC_WATCH_RETRY when the server could not take it. */
    int (*send)(void *ctx, const char *entry);
    void *ctx;
} tregc_watch_settings;

typedef struct tregc_watch_stats {
    size_t sent, retries, dropped;
} tregc_watch_stats;

/* Runs until SIGINT or SIGTERM: 0, or -1 with a one-line reason in err
 * (the folder cannot be watched). */
int tregc_watch(const tregc_watch_settings *s, tregc_watch_stats *st, treg_error *err);

#endif
