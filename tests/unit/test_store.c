/* tregd's store: atomic writes put every file in place with nothing left in
 * DIR/tmp; the index finds, filters and pages reports; dedupe lookups see
 * exactly the indexed hashes; and after a simulated crash (report files
 * durable but no index row, a half-written temp file left behind) reopening
 * the store re-indexes the reports and removes the temp file, and removes
 * a report whose blob did not survive; reports without rows are the
 * reports with Kernel.rows and live_ranges stripped, cached as long as the
 * file is the same. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "store.h"
#include "testutil.h"
#include "treg.pb-c.h"

typedef struct fixture {
    char dir[256];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/treg-store-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* A hash made of one repeated hex digit, e.g. "aaaa...". */
static void fake_hash(char c, char out[STORE_HASH_HEX + 1])
{
    memset(out, c, STORE_HASH_HEX);
    out[STORE_HASH_HEX] = '\0';
}

/* A packed Report with the given identity and kernels. */
static uint8_t *packed_report(const char *hash, const char *target, const char **kernels,
                              size_t nkernels, int64_t created, size_t *len)
{
    Treg__V1__Report r = TREG__V1__REPORT__INIT;
    Treg__V1__Kernel ks[4], *kp[4];
    assert_true(nkernels <= 4);
    r.schema_version = 1;
    r.hash = (char *)hash;
    r.file_name = "k.hsaco";
    r.target = (char *)target;
    r.analyzer_version = "9.9.9";
    r.client_host = "node1";
    r.created_unix = created;
    for (size_t i = 0; i < nkernels; i++) {
        treg__v1__kernel__init(&ks[i]);
        ks[i].name = (char *)kernels[i];
        kp[i] = &ks[i];
    }
    r.kernels = kp;
    r.n_kernels = nkernels;
    *len = treg__v1__report__get_packed_size(&r);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    treg__v1__report__pack(&r, buf);
    return buf;
}

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void assert_file_equals(const char *path, const void *data, size_t len)
{
    size_t got_len = 0;
    uint8_t *got = tu_read_file(path, &got_len);
    assert_non_null(got);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, data, len);
    free(got);
}

/* Writes files for one report (no index row) and returns the packed bytes. */
static uint8_t *write_report(const char *dir, const char *hash, const char *target,
                             const char **kernels, size_t nkernels, int64_t created, size_t *len)
{
    uint8_t *report = packed_report(hash, target, kernels, nkernels, created, len);
    char err[256] = "";
    static const uint8_t blob[] = "\x7f"
                                  "ELF fake code object";
    assert_int_equal(store_write_upload(dir, hash, blob, sizeof blob, "{\"num_warps\": 4}", 16,
                                        "s_endpgm", 8, report, *len, err, sizeof err),
                     0);
    return report;
}

static void index_report(store *s, const char *hash, const char *target, const char **kernels,
                         size_t nkernels, int64_t created)
{
    store_meta m = {.hash = hash,
                    .file_name = "k.hsaco",
                    .target = target,
                    .analyzer_version = "9.9.9",
                    .client_host = "node1",
                    .created_unix = created,
                    .kernels = kernels,
                    .nkernels = nkernels};
    char err[256] = "";
    assert_int_equal(store_index(s, &m, err, sizeof err), 0);
}

static void test_atomic_write_and_index(void **state)
{
    fixture *f = *state;
    char err[256] = "", hash[STORE_HASH_HEX + 1], path[512];
    store *s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    /* Every shard directory exists from the start: uploads never create one. */
    for (unsigned i = 0; i < 256; i += 255) {
        struct stat st;
        snprintf(path, sizeof path, "%s/blobs/%02x", f->dir, i);
        assert_int_equal(stat(path, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        snprintf(path, sizeof path, "%s/reports/%02x", f->dir, i);
        assert_int_equal(stat(path, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
    }
    fake_hash('a', hash);
    const char *kernels[] = {"add_kernel", "mul_kernel"};
    size_t len;
    uint8_t *report = write_report(f->dir, hash, "gfx90a", kernels, 2, 100, &len);

    snprintf(path, sizeof path, "%s/reports/aa/%s.pb", f->dir, hash);
    assert_file_equals(path, report, len);
    snprintf(path, sizeof path, "%s/blobs/aa/%s.json", f->dir, hash);
    assert_file_equals(path, "{\"num_warps\": 4}", 16);
    snprintf(path, sizeof path, "%s/blobs/aa/%s.amdgcn", f->dir, hash);
    assert_file_equals(path, "s_endpgm", 8);
    snprintf(path, sizeof path, "%s/tmp", f->dir);
    assert_int_equal(count_entries(path), 0); /* every temp file was renamed */

    /* Files alone are not indexed: the dedupe lookup does not see them yet. */
    assert_int_equal(store_lookup(s, hash, NULL, 0), 0);
    index_report(s, hash, "gfx90a", kernels, 2, 100);
    char version[32] = "";
    assert_int_equal(store_lookup(s, hash, version, sizeof version), 1);
    assert_string_equal(version, "9.9.9");
    assert_int_equal(store_count(s), 1);

    uint8_t *read = NULL;
    size_t read_len = 0;
    assert_int_equal(store_read_report(s, hash, &read, &read_len), 0);
    assert_int_equal(read_len, len);
    assert_memory_equal(read, report, len);
    free(read);
    free(report);

    /* Indexing again (a re-analysis) replaces, never duplicates. */
    index_report(s, hash, "gfx90a", kernels, 1, 200);
    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, NULL, NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].nkernels, 1);
    assert_int_equal(rows[0].created_unix, 200);
    store_summaries_free(rows, n);
    store_close(s);
}

static void test_dedupe_lookup(void **state)
{
    fixture *f = *state;
    char err[256] = "", a[STORE_HASH_HEX + 1], b[STORE_HASH_HEX + 1];
    store *s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    fake_hash('1', a);
    fake_hash('2', b);
    const char *kernels[] = {"k"};
    size_t len;
    free(write_report(f->dir, a, "gfx90a", kernels, 1, 1, &len));
    index_report(s, a, "gfx90a", kernels, 1, 1);
    assert_int_equal(store_lookup(s, a, NULL, 0), 1);
    assert_int_equal(store_lookup(s, b, NULL, 0), 0);
    uint8_t *read = NULL;
    size_t read_len;
    assert_int_equal(store_read_report(s, b, &read, &read_len), 1); /* no such report */
    assert_int_equal(store_read_report(s, "../../etc/passwd", &read, &read_len), 1);
    assert_null(read);
    /* Not a hash: nothing is written anywhere. */
    assert_int_not_equal(store_write_upload(f->dir, "../x", (const uint8_t *)"x", 1, NULL, 0, NULL,
                                            0, (const uint8_t *)"r", 1, err, sizeof err),
                         0);
    store_close(s);
}

static void test_list_filters_and_pages(void **state)
{
    fixture *f = *state;
    char err[256] = "", h[3][STORE_HASH_HEX + 1];
    store *s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    const char *k1[] = {"matmul", "add"}, *k2[] = {"add"}, *k3[] = {"softmax"};
    fake_hash('3', h[0]);
    fake_hash('4', h[1]);
    fake_hash('5', h[2]);
    index_report(s, h[0], "gfx90a", k1, 2, 10);
    index_report(s, h[1], "gfx942", k2, 1, 30);
    index_report(s, h[2], "gfx90a", k3, 1, 20);

    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, NULL, NULL, 2, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 2);
    assert_true(more);
    assert_string_equal(rows[0].hash, h[1]); /* newest first */
    assert_string_equal(rows[1].hash, h[2]);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, NULL, NULL, 2, 2, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_false(more);
    assert_string_equal(rows[0].hash, h[0]);
    assert_int_equal(rows[0].nkernels, 2);
    assert_string_equal(rows[0].kernels[0], "matmul");
    store_summaries_free(rows, n);

    /* kernel matches any kernel of a report */
    assert_int_equal(store_list(s, "add", NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 2);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, "add", "gfx90a", 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].hash, h[0]);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, "nope", NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 0);
    store_summaries_free(rows, n);
    store_close(s);
}

static void test_recovery_after_crash(void **state)
{
    fixture *f = *state;
    char err[256] = "", hash[STORE_HASH_HEX + 1], indexed[STORE_HASH_HEX + 1], path[512];
    store *s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 0);
    const char *kernels[] = {"attn_fwd", "attn_bwd"};
    size_t len;
    fake_hash('c', indexed);
    free(write_report(f->dir, indexed, "gfx942", kernels, 1, 5, &len));
    index_report(s, indexed, "gfx942", kernels, 1, 5);
    /* The crash: the report file was renamed into place, the process died
     * before the index insert; another write died before its rename. */
    fake_hash('b', hash);
    free(write_report(f->dir, hash, "gfx90a", kernels, 2, 42, &len));
    store_close(s);
    snprintf(path, sizeof path, "%s/tmp/w.half", f->dir);
    FILE *half = fopen(path, "w");
    assert_non_null(half);
    fputs("half a report", half);
    fclose(half);

    s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 1); /* only the unindexed one */
    snprintf(path, sizeof path, "%s/tmp", f->dir);
    assert_int_equal(count_entries(path), 0);
    assert_int_equal(store_lookup(s, hash, NULL, 0), 1);
    assert_int_equal(store_count(s), 2);
    /* The row comes from the report file itself. */
    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, "attn_bwd", "gfx90a", 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].hash, hash);
    assert_int_equal(rows[0].created_unix, 42);
    assert_string_equal(rows[0].client_host, "node1");
    assert_string_equal(rows[0].analyzer_version, "9.9.9");
    store_summaries_free(rows, n);
    store_close(s);

    /* A third open finds nothing more to do. */
    s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 0);
    store_close(s);
}

/* A report whose kernels have rows and live ranges: stripping drops
 * exactly those (fields 23 and 29), before, between and after the kernel's
 * other fields. */
static void test_strip_rows(void **state)
{
    (void)state;
    Treg__V1__Report r = TREG__V1__REPORT__INIT;
    Treg__V1__Kernel k[2], *kp[2];
    Treg__V1__Row rows[3], *rp[3];
    uint32_t reads[] = {1, 2}, writes[] = {0};
    for (int i = 0; i < 3; i++) {
        treg__v1__row__init(&rows[i]);
        rows[i].address = (uint64_t)(4 * i);
        rows[i].text = "v_add_f32 v0, v1, v2";
        rows[i].vgpr = 3;
        rows[i].reads = reads;
        rows[i].n_reads = 2;
        rows[i].writes = writes;
        rows[i].n_writes = 1;
        rp[i] = &rows[i];
    }
    Treg__V1__LiveRange ranges[3], *lp[3];
    uint32_t runs[] = {0, 1, 2, 3};
    for (int i = 0; i < 3; i++) {
        treg__v1__live_range__init(&ranges[i]);
        ranges[i].reg = (uint32_t)i;
        ranges[i].runs = runs;
        ranges[i].n_runs = i ? 2 : 4;
        lp[i] = &ranges[i];
    }
    Treg__V1__UnknownMnemonic unknown = TREG__V1__UNKNOWN_MNEMONIC__INIT, *up = &unknown;
    unknown.mnemonic = "v_new_op";
    unknown.count = 2;
    for (int i = 0; i < 2; i++) {
        treg__v1__kernel__init(&k[i]);
        k[i].name = i ? "second" : "first";
        k[i].instructions = 3;
        k[i].rows = rp;
        k[i].n_rows = i ? 1 : 3;
        k[i].live_ranges = lp;
        k[i].n_live_ranges = i ? 1 : 3;
        k[i].unknown_mnemonics = &up; /* field 28, between 23 and 29 */
        k[i].n_unknown_mnemonics = 1;
        kp[i] = &k[i];
    }
    r.hash = "abc";
    r.target = "gfx90a";
    r.kernels = kp;
    r.n_kernels = 2;
    size_t len = treg__v1__report__get_packed_size(&r), out_len = 0;
    uint8_t *buf = malloc(len), *out = NULL;
    assert_non_null(buf);
    treg__v1__report__pack(&r, buf);
    assert_int_equal(store_strip_rows(buf, len, &out, &out_len), 0);
    assert_true(out_len < len);
    Treg__V1__Report *got = treg__v1__report__unpack(NULL, out_len, out);
    assert_non_null(got);
    assert_string_equal(got->target, "gfx90a");
    assert_int_equal(got->n_kernels, 2);
    assert_string_equal(got->kernels[1]->name, "second");
    assert_int_equal(got->kernels[0]->instructions, 3);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(got->kernels[i]->n_rows, 0);
        assert_int_equal(got->kernels[i]->n_live_ranges, 0);
        assert_int_equal(got->kernels[i]->n_unknown_mnemonics, 1);
        assert_string_equal(got->kernels[i]->unknown_mnemonics[0]->mnemonic, "v_new_op");
    }
    treg__v1__report__free_unpacked(got, NULL);
    /* Repacked without rows and live ranges, the report is byte for byte
     * the stripped one. */
    for (int i = 0; i < 2; i++) {
        kp[i]->n_rows = 0;
        kp[i]->n_live_ranges = 0;
    }
    assert_int_equal(treg__v1__report__get_packed_size(&r), out_len);
    treg__v1__report__pack(&r, buf);
    assert_memory_equal(buf, out, out_len);
    free(out);
    /* Not protobuf: refused. */
    static const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff, 0x0f};
    assert_int_equal(store_strip_rows(junk, sizeof junk, &out, &out_len), -1);
    free(buf);
}

/* The cache of reports without rows follows the report file: a replaced
 * report is seen, a removed one is gone. */
static void test_summary_cache(void **state)
{
    fixture *f = *state;
    char err[256] = "", hash[STORE_HASH_HEX + 1], path[512];
    store *s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    const char *kernels[] = {"first", "second"};
    size_t len, got_len;
    const uint8_t *got;
    store_set_recheck_ms(s, 0); /* every read looks at the file */
    fake_hash('d', hash);
    assert_int_equal(store_read_summary(s, hash, &got, &got_len), 1);
    uint8_t *report = write_report(f->dir, hash, "gfx90a", kernels, 1, 7, &len);
    assert_int_equal(store_read_summary(s, hash, &got, &got_len), 0);
    assert_int_equal(got_len, len); /* no rows to strip */
    assert_memory_equal(got, report, len);
    assert_int_equal(store_cached_bytes(s), len);
    free(report);
    /* Re-analyzed (a new file renamed into place): the cache follows. */
    report = write_report(f->dir, hash, "gfx90a", kernels, 2, 8, &len);
    assert_int_equal(store_read_summary(s, hash, &got, &got_len), 0);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, report, len);
    assert_int_equal(store_cached_bytes(s), len);
    free(report);
    /* Within the recheck interval a hit is served without looking at the
     * file: a replacement from outside shows once the interval is over. */
    store_set_recheck_ms(s, 3600 * 1000);
    uint8_t *third = write_report(f->dir, hash, "gfx90a", kernels, 1, 9, &len);
    assert_int_equal(store_read_summary(s, hash, &got, &got_len), 0);
    assert_memory_not_equal(got, third, got_len < len ? got_len : len);
    store_set_recheck_ms(s, 0);
    assert_int_equal(store_read_summary(s, hash, &got, &got_len), 0);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, third, len);
    free(third);
    snprintf(path, sizeof path, "%s/reports/dd/%s.pb", f->dir, hash);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(store_read_summary(s, hash, &got, &got_len), 1);
    assert_int_equal(store_read_summary(s, "../x", &got, &got_len), 1);
    store_close(s);
}

/* A crash that kept a report's rename but not its blob's: the upload was
 * never acknowledged, and the report is removed rather than indexed. */
static void test_recovery_without_blob(void **state)
{
    fixture *f = *state;
    char err[256] = "", hash[STORE_HASH_HEX + 1], path[512];
    const char *kernels[] = {"k"};
    size_t len;
    fake_hash('e', hash);
    store *s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    store_close(s);
    free(write_report(f->dir, hash, "gfx90a", kernels, 1, 9, &len));
    snprintf(path, sizeof path, "%s/blobs/ee/%s", f->dir, hash);
    assert_int_equal(unlink(path), 0);
    s = store_open(f->dir, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 0);
    assert_int_equal(store_lookup(s, hash, NULL, 0), 0);
    snprintf(path, sizeof path, "%s/reports/ee/%s.pb", f->dir, hash);
    assert_int_not_equal(access(path, F_OK), 0);
    store_close(s);
}

static void test_unusable_dir(void **state)
{
    char err[256] = "";
    store *s = store_open("/proc/treg-no-such-store", err, sizeof err);
    assert_null(s);
    assert_non_null(strstr(err, "/proc/treg-no-such-store"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_atomic_write_and_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dedupe_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_filters_and_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_after_crash, setup, teardown),
        cmocka_unit_test(test_strip_rows),
        cmocka_unit_test_setup_teardown(test_summary_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_without_blob, setup, teardown),
        cmocka_unit_test(test_unusable_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
