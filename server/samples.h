/* A team's runtime PC samples of a stored report: POST /v1/samples places
 * a PcSampleSet on the report's rows (profile/join.c: the code object
 * whose samples fit, every sampled text equal to the report's) and keeps
 * the set of the code object placed (store_write_samples), the report file
 * unchanged; GET /v1/reports/{hash}?samples=1 and the report's page show
 * the report with the team's kept samples on it.  Each reads and writes
 * files and joins: run on a page thread, never on the event loop. */
#ifndef TREGD_SAMPLES_H
#define TREGD_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "treg.pb-c.h"

typedef struct samples_result {
    int status; /* HTTP: 200 with body, else msg (one line) */
    char msg[400];
    uint8_t *body; /* 200: the packed answer */
    size_t len;
    uint8_t *kept; /* the packed set kept (samples_post) */
    size_t kept_len;
} samples_result;

/* req's samples placed on the report under key and kept as team's; 200
 * and a packed SamplesResponse (the report, with rows, samples and link),
 * else 400 (a malformed set), 422 (the samples are not of this build, or
 * none fits), 507 or 500.  names: the upload record to show (--visibility
 * team), or NULL. */
void samples_post(store *st, const char *key, const char *team, const store_entry *names,
                  const Treg__V1__SamplesRequest *req, const char *link, samples_result *out);

/* 200 and the packed report under key with team's kept samples on it; 404
 * when the team sent none. */
void samples_get(store *st, const char *key, const char *team, const store_entry *names,
                 samples_result *out);

/* team's kept samples placed on rep (a whole report, unpacked): 1, 0 when
 * the team sent none, -1 when they cannot be read or placed. */
int samples_place_kept(store *st, const char *key, const char *team, Treg__V1__Report *rep);

void samples_result_free(samples_result *r);

#endif
