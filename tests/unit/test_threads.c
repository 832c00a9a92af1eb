/* The analyzer keeps no global mutable state: the server will run many
 * analyses at once.  Four threads analyze every fixture code object
 * repeatedly and must get exactly the figures a serial run got. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "treg/analyzer.h"

enum { MAX_FILES = 32, THREADS = 4, ROUNDS = 3 };

typedef struct input {
    uint8_t *bytes;
    size_t len;
    uint64_t fingerprint; /* of the serial run */
} input;

static input inputs[MAX_FILES];
static size_t ninputs;

/* FNV-1a over the figures of every kernel and row. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t fingerprint(const input *in)
{
    treg_report *r;
    treg_error err = {0, ""};
    treg_options opt = {.keep_rows = 1};
    if (treg_analyze(in->bytes, in->len, &opt, &r, &err) != TREG_OK) return 0;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < r->nkernels; i++) {
        const treg_kernel_report *k = &r->kernels[i];
        h = mix(h, k->vgpr.peak_live);
        h = mix(h, k->vgpr.allocated);
        h = mix(h, k->sgpr.peak_live);
        h = mix(h, k->agpr.peak_live);
        h = mix(h, k->occupancy.waves_per_simd);
        h = mix(h, k->nlines);
        h = mix(h, k->nattribution);
        for (size_t j = 0; j < k->nrows; j++)
            h = mix(h, (uint64_t)k->rows[j].vgpr << 32 | (uint64_t)k->rows[j].sgpr << 16 |
                           k->rows[j].agpr);
    }
    treg_report_free(r);
    return h;
}

static void *worker(void *arg)
{
    size_t *mismatches = arg;
    for (int round = 0; round < ROUNDS; round++)
        for (size_t i = 0; i < ninputs; i++)
            if (fingerprint(&inputs[i]) != inputs[i].fingerprint) (*mismatches)++;
    return NULL;
}

static void test_concurrent_equals_serial(void **state)
{
    (void)state;
    const char *archs[] = {"gfx906", "gfx90a", "gfx942"};
    const char *names[] = {"loop_kernel", "branch_kernel", "spill_kernel",
                           "call_kernel", "mfma_kernel",   "nodebug_kernel"};
    for (size_t a = 0; a < 3; a++)
        for (size_t n = 0; n < sizeof names / sizeof *names && ninputs < MAX_FILES; n++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s/%s.hsaco", TREG_FIXTURES, archs[a], names[n]);
            input *in = &inputs[ninputs];
            in->bytes = tu_read_file(path, &in->len);
            if (!in->bytes) continue; /* mfma exists for gfx90a/gfx942 only */
            in->fingerprint = fingerprint(in);
            assert_true(in->fingerprint != 0);
            ninputs++;
        }
    assert_true(ninputs >= 15);

    pthread_t threads[THREADS];
    size_t mismatches[THREADS] = {0};
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, worker, &mismatches[t]), 0);
    size_t total = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        total += mismatches[t];
    }
    printf("%d threads x %d rounds x %zu code objects: %zu mismatches\n", THREADS, ROUNDS, ninputs,
           total);
    assert_int_equal(total, 0);
    for (size_t i = 0; i < ninputs; i++) free(inputs[i].bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_concurrent_equals_serial)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
