/* tregd's store: atomic writes put every file in place with nothing left in
 * DIR/tmp; reports live under their keys, so other inputs never replace
 * one; the index finds, filters and pages reports and records who uploaded
 * them; a damaged report is never served and a rewrite repairs it, a
 * missing one leaves the index; after a simulated crash (report files
 * durable but no index row, a half-written temp file left behind)
 * reopening the store re-indexes the reports and removes the temp file,
 * and removes a report whose blob did not survive; a damaged index is
 * rebuilt, an old-layout store converted; reports without rows are the
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
#include <signal.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "db.h"
#include "report_key.h"
#include "proto_wire.h"
#include "store.h"
#include "testutil.h"
#include "treg.pb-c.h"

typedef struct fixture {
    char dir[256];
} fixture;

/* The index under test: TREG_TEST_INDEX (a PostgreSQL URL: the same
 * tests against PostgreSQL, tests/CMakeLists.txt) or the store's own
 * SQLite file. */
static const char *test_index(void)
{
    const char *v = getenv("TREG_TEST_INDEX");
    return v && *v ? v : NULL;
}

/* The tests' server is instance "test": its temp files in DIR/tmp/test. */
static store *open_as(const char *dir, const char *instance, treg_error *err)
{
    store_options o = {.index = test_index(), .instance = instance};
    return store_open(dir, &o, err);
}

static store *open_at(const char *dir, treg_error *err)
{
    return open_as(dir, "test", err);
}

static void tmp_of(const char *dir, char *path, size_t len)
{
    snprintf(path, len, "%s/tmp/test", dir);
}

/* The index's engine, to change it behind the store's back: the
 * PostgreSQL index, or DIR/index.sqlite. */
static db *raw_index(const char *dir)
{
    char path[600];
    treg_error err = {0, ""};
    enum db_open_status st;
    snprintf(path, sizeof path, "%s/index.sqlite", dir);
    db *d = db_open(test_index() ? test_index() : path, &st, &err);
    if (d == NULL) fail_msg("%s", err.msg);
    return d;
}

/* Tests of SQLite's own file (damage, its rebuild) say so and skip. */
#define SQLITE_ONLY()                                                                              \
    do {                                                                                           \
        if (test_index()) {                                                                        \
            print_message("skipped: a test of the SQLite index file\n");                           \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static int setup(void **state)
{
    /* Each test starts from an empty PostgreSQL index as from an empty
     * folder. */
    if (test_index()) {
        db *d = raw_index("/nonexistent");
        if (db_exec(d, "DROP TABLE IF EXISTS reports; DROP TABLE IF EXISTS report_kernels;"
                       "DROP TABLE IF EXISTS uploads; DROP TABLE IF EXISTS treg_schema;") != 0)
            fail_msg("%s", db_error(d));
        db_close(d);
    }
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

/* One report's identity, as a test makes it. */
typedef struct made {
    char hash[STORE_HASH_HEX + 1], key[STORE_HASH_HEX + 1], inputs[STORE_HASH_HEX + 1];
    char json_sha[STORE_HASH_HEX + 1], asm_sha[STORE_HASH_HEX + 1];
    const char *json, *amdgcn, *team, *version;
    const char *target;
    const char **kernels;
    size_t nkernels;
    int64_t created;
    bool provisional;
    uint8_t *packed; /* the Report as written (no header) */
    size_t len;
    char last; /* non-zero: the hash's last digit (two hashes sharing a prefix) */
} made;

static const uint8_t blob[] = "\x7f"
                              "ELF fake code object";

/* Fills in m's hashes and packs its Report (every field the key needs). */
static void pack_made(made *m, char hash_digit)
{
    fake_hash(hash_digit, m->hash);
    if (m->last) m->hash[STORE_HASH_HEX - 1] = m->last;
    if (m->json == NULL) m->json = "{\"num_warps\": 4}";
    if (m->amdgcn == NULL) m->amdgcn = "s_endpgm";
    if (m->team == NULL) m->team = "team-a";
    if (m->version == NULL) m->version = "9.9.9";
    if (m->target == NULL) m->target = "gfx90a";
    assert_int_equal(treg_text_sha256(m->json, strlen(m->json), m->json_sha), 0);
    assert_int_equal(treg_text_sha256(m->amdgcn, strlen(m->amdgcn), m->asm_sha), 0);
    assert_int_equal(treg_inputs_digest("", m->json_sha, m->asm_sha, NULL, NULL, m->inputs), 0);
    assert_int_equal(treg_report_key(m->hash, m->inputs, m->version, "22.1.0", m->key), 0);
    Treg__V1__Report r = TREG__V1__REPORT__INIT;
    Treg__V1__Kernel ks[4], *kp[4];
    Treg__V1__ClassStat vgpr[4], sgpr[4];
    Treg__V1__Occupancy occ[4];
    assert_true(m->nkernels <= 4);
    r.provisional = m->provisional;
    r.schema_version = 1;
    r.hash = m->hash;
    r.file_name = "k.hsaco";
    r.target = (char *)m->target;
    r.analyzer_version = (char *)m->version;
    r.llvm_version = "22.1.0";
    r.client_host = "node1";
    r.created_unix = m->created;
    r.triton_json_sha256 = m->json_sha;
    r.amdgcn_sha256 = m->asm_sha;
    r.team = (char *)m->team;
    for (size_t i = 0; i < m->nkernels; i++) {
        treg__v1__kernel__init(&ks[i]);
        ks[i].name = (char *)m->kernels[i];
        /* Kernel i's figures, for the listing to give back (see
         * test_list_filters_and_pages). */
        treg__v1__class_stat__init(&vgpr[i]);
        treg__v1__class_stat__init(&sgpr[i]);
        treg__v1__occupancy__init(&occ[i]);
        vgpr[i].peak_live = 40 + (uint32_t)i;
        vgpr[i].allocated = 48 + (uint32_t)i;
        sgpr[i].peak_live = 20;
        sgpr[i].allocated = 24;
        occ[i].waves_per_simd = 8 - (uint32_t)i;
        occ[i].max_waves = 8;
        occ[i].limited_by = i ? "vgpr" : "target";
        ks[i].vgpr = &vgpr[i];
        ks[i].sgpr = &sgpr[i];
        ks[i].occupancy = &occ[i];
        ks[i].total_vgprs = 48 + (uint32_t)i;
        ks[i].spill_instructions = 3 * (uint32_t)i;
        ks[i].scratch_bytes = 16 * (uint32_t)i;
        ks[i].undecodable_words = (uint32_t)i;
        kp[i] = &ks[i];
    }
    r.kernels = kp;
    r.n_kernels = m->nkernels;
    m->len = treg__v1__report__get_packed_size(&r);
    m->packed = malloc(m->len);
    assert_non_null(m->packed);
    treg__v1__report__pack(&r, m->packed);
}

static int write_made(const char *dir, const made *m)
{
    treg_error err = {0, ""};
    store_upload u = {.key = m->key,
                      .hash = m->hash,
                      .blob = blob,
                      .blob_len = sizeof blob,
                      .json = m->json,
                      .json_len = strlen(m->json),
                      .json_sha256 = m->json_sha,
                      .amdgcn = m->amdgcn,
                      .amdgcn_len = strlen(m->amdgcn),
                      .amdgcn_sha256 = m->asm_sha,
                      .report = m->packed,
                      .report_len = m->len};
    char tmp[512];
    tmp_of(dir, tmp, sizeof tmp);
    mkdir(tmp, 0755); /* written before any open, in some tests */
    return store_write_upload(dir, tmp, &u, &err);
}

/* Writes the files for one report (no index row). */
static void write_report(const char *dir, made *m, char hash_digit)
{
    pack_made(m, hash_digit);
    assert_int_equal(write_made(dir, m), 0);
}

static void index_made(store *s, const made *m)
{
    treg_error err = {0, ""};
    assert_int_equal(store_index(s, m->key, m->inputs, m->packed, m->len, &err), 0);
}

static void report_file(const char *dir, const char *key, char *path, size_t len)
{
    snprintf(path, len, "%s/reports/%.2s/%s.report", dir, key, key);
}

static void test_atomic_write_and_index(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512];
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    /* Every shard directory exists from the start: uploads never create one. */
    static const char *const subs[] = {"blobs", "texts", "reports"};
    for (unsigned i = 0; i < 256; i += 255) {
        for (size_t k = 0; k < 3; k++) {
            struct stat st;
            snprintf(path, sizeof path, "%s/%s/%02x", f->dir, subs[k], i);
            assert_int_equal(stat(path, &st), 0);
            assert_true(S_ISDIR(st.st_mode));
        }
    }
    const char *kernels[] = {"add_kernel", "mul_kernel"};
    made m = {.kernels = kernels, .nkernels = 2, .created = 100};
    write_report(f->dir, &m, 'a');

    /* The report behind its header: magic, SHA-256 of the rest, the bytes. */
    report_file(f->dir, m.key, path, sizeof path);
    size_t file_len = 0;
    uint8_t *file = tu_read_file(path, &file_len);
    assert_non_null(file);
    assert_int_equal(file_len, STORE_REPORT_HEADER + m.len);
    assert_memory_equal(file, STORE_REPORT_MAGIC, 8);
    assert_memory_equal(file + STORE_REPORT_HEADER, m.packed, m.len);
    char sum[STORE_HASH_HEX + 1], file_sum[STORE_HASH_HEX + 1];
    assert_int_equal(treg_sha256_hex(m.packed, m.len, sum), 0);
    for (int i = 0; i < 32; i++) snprintf(file_sum + 2 * i, 3, "%02x", file[8 + i]);
    assert_string_equal(file_sum, sum);
    free(file);
    /* Blob and texts under their own SHA-256. */
    snprintf(path, sizeof path, "%s/blobs/aa/%s", f->dir, m.hash);
    assert_file_equals(path, blob, sizeof blob);
    snprintf(path, sizeof path, "%s/texts/%.2s/%s", f->dir, m.json_sha, m.json_sha);
    assert_file_equals(path, m.json, strlen(m.json));
    snprintf(path, sizeof path, "%s/texts/%.2s/%s", f->dir, m.asm_sha, m.asm_sha);
    assert_file_equals(path, m.amdgcn, strlen(m.amdgcn));
    tmp_of(f->dir, path, sizeof path);
    assert_int_equal(count_entries(path), 0); /* every temp file was renamed */

    /* Files alone are not indexed: the lookup does not see them yet. */
    assert_int_equal(store_find_key(s, m.key, NULL, NULL), 0);
    index_made(s, &m);
    store_entry e;
    assert_int_equal(store_find_key(s, m.key, NULL, &e), 1);
    assert_string_equal(e.key, m.key);
    assert_string_equal(e.team, "team-a");
    assert_string_equal(e.file_name, "k.hsaco");
    store_entry_free(&e);
    assert_int_equal(store_count(s), 1);

    uint8_t *read = NULL;
    size_t read_len = 0;
    assert_int_equal(store_read_report(s, m.key, &read, &read_len), STORE_FOUND);
    assert_int_equal(read_len, m.len);
    assert_memory_equal(read, m.packed, m.len);
    free(read);

    /* Indexing again (a repair) replaces, never duplicates. */
    m.nkernels = 1;
    m.created = 200;
    free(m.packed);
    pack_made(&m, 'a');
    index_made(s, &m);
    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, NULL, NULL, NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].nkernels, 1);
    assert_int_equal(rows[0].created_unix, 200);
    assert_string_equal(rows[0].inputs, m.inputs);
    assert_string_equal(rows[0].team, "team-a");
    store_summaries_free(rows, n);
    free(m.packed);
    store_close(s);
}

/* F1: a report is a function of its inputs.  The same code object with
 * another .json is another report under another key; writing it leaves the
 * first byte for byte; by hash alone the first uploaded answers, one by
 * the asking analyzer first. */
static void test_keyed_by_inputs(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512];
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    const char *kernels[] = {"k"};
    made a = {.kernels = kernels, .nkernels = 1, .created = 10};
    made b = {.kernels = kernels,
              .nkernels = 1,
              .created = 20,
              .team = "team-b",
              .json = "{\"num_warps\": 16}"};
    made old = {.kernels = kernels, .nkernels = 1, .created = 5, .version = "0.1.0"};
    write_report(f->dir, &a, '1');
    index_made(s, &a);
    size_t a_len = 0;
    report_file(f->dir, a.key, path, sizeof path);
    uint8_t *a_file = tu_read_file(path, &a_len);
    assert_non_null(a_file);
    write_report(f->dir, &b, '1');
    index_made(s, &b);
    write_report(f->dir, &old, '1');
    index_made(s, &old);
    assert_string_not_equal(a.key, b.key);
    assert_string_equal(a.hash, b.hash);
    assert_file_equals(path, a_file, a_len); /* untouched */
    free(a_file);
    uint8_t *read = NULL;
    size_t len = 0;
    assert_int_equal(store_read_report(s, b.key, &read, &len), STORE_FOUND);
    assert_memory_equal(read, b.packed, b.len);
    free(read);
    /* The first uploaded by this analyzer (9.9.9), not the older one's. */
    store_entry e;
    assert_int_equal(store_find_hash(s, a.hash, "9.9.9", "22.1.0", NULL, &e), 1);
    assert_string_equal(e.key, a.key);
    store_entry_free(&e);
    /* An analyzer with no report of its own: the first uploaded of any. */
    assert_int_equal(store_find_hash(s, a.hash, "1.0.0", "22.1.0", NULL, &e), 1);
    assert_string_equal(e.key, old.key);
    store_entry_free(&e);
    char other[STORE_HASH_HEX + 1];
    fake_hash('2', other);
    assert_int_equal(store_find_hash(s, other, "9.9.9", "22.1.0", NULL, &e), 0);
    assert_int_equal(store_count(s), 3);
    /* Made in the same second: the first indexed, whatever the keys' order
     * (each pair tried both ways round). */
    const char *jsons[] = {"{\"num_warps\": 1}", "{\"num_warps\": 2}", "{\"num_warps\": 3}",
                           "{\"num_warps\": 4}"};
    for (int round = 0; round < 2; round++) {
        made x = {.kernels = kernels, .nkernels = 1, .created = 77, .json = jsons[2 * round]};
        made y = {.kernels = kernels, .nkernels = 1, .created = 77, .json = jsons[2 * round + 1]};
        made *first = round == 0 ? &x : &y, *second = round == 0 ? &y : &x;
        write_report(f->dir, first, '3' + round);
        write_report(f->dir, second, '3' + round);
        index_made(s, first);
        index_made(s, second);
        assert_int_equal(store_find_hash(s, x.hash, "9.9.9", "22.1.0", NULL, &e), 1);
        assert_string_equal(e.key, first->key);
        store_entry_free(&e);
        free(x.packed);
        free(y.packed);
    }
    free(a.packed);
    free(b.packed);
    free(old.packed);
    store_close(s);
}

/* Who uploaded what: every team's upload is recorded; with a team given,
 * only its reports are found and listed, with its own upload's names. */
static void test_uploads_and_visibility(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    const char *kernels[] = {"k"};
    made a = {.kernels = kernels, .nkernels = 1, .created = 10};
    write_report(f->dir, &a, '6');
    index_made(s, &a);
    assert_int_equal(store_record_upload(s, a.key, "team-b", "mine.hsaco", "node9", 50), 0);
    /* The first record per team is kept. */
    assert_int_equal(store_record_upload(s, a.key, "team-b", "later.hsaco", "node8", 60), 0);
    store_entry e;
    assert_int_equal(store_find_key(s, a.key, "team-c", &e), 0);
    assert_int_equal(store_find_hash(s, a.hash, "9.9.9", "22.1.0", "team-c", &e), 0);
    assert_int_equal(store_find_key(s, a.key, "team-b", &e), 1);
    assert_string_equal(e.team, "team-b");
    assert_string_equal(e.file_name, "mine.hsaco");
    assert_string_equal(e.client_host, "node9");
    assert_int_equal(e.created_unix, 50);

    /* What team-b is served: the report with its own names. */
    uint8_t *mine = NULL;
    size_t mine_len = 0;
    assert_int_equal(treg_pb_report_set_upload(a.packed, a.len, e.file_name, e.created_unix,
                                               e.client_host, e.team, &mine, &mine_len),
                     0);
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, mine_len, mine);
    assert_non_null(r);
    assert_string_equal(r->team, "team-b");
    assert_string_equal(r->file_name, "mine.hsaco");
    assert_string_equal(r->client_host, "node9");
    assert_int_equal(r->created_unix, 50);
    assert_string_equal(r->hash, a.hash);
    assert_string_equal(r->triton_json_sha256, a.json_sha);
    assert_int_equal(r->n_kernels, 1);
    treg__v1__report__free_unpacked(r, NULL);
    free(mine);
    store_entry_free(&e);

    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, NULL, NULL, "team-b", 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].team, "team-b");
    assert_string_equal(rows[0].file_name, "mine.hsaco");
    assert_int_equal(rows[0].nkernels, 1);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, NULL, NULL, "team-c", 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 0);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, NULL, NULL, NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].team, "team-a"); /* the maker */
    assert_string_equal(rows[0].file_name, "k.hsaco");
    store_summaries_free(rows, n);
    free(a.packed);
    store_close(s);
}

/* Source files per team (issue 31): each team's set apart; a team's first
 * set stays and a later one says how many files differ; the first set any
 * team sent, and who sent it; the old team-less set is the sole uploader's. */
static void test_sources_per_team(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    char key[STORE_HASH_HEX + 1], tmp[4200];
    fake_hash('7', key);
    tmp_of(f->dir, tmp, sizeof tmp);
    const store_source beta[] = {{"/src/k.py", (const uint8_t *)"beta's text\n", 12}};
    const store_source alpha[] = {{"/src/k.py", (const uint8_t *)"alpha's text\n", 13},
                                  {"/src/lib.py", (const uint8_t *)"lib\n", 4}};
    size_t differ = 99;
    assert_int_equal(store_write_sources(f->dir, tmp, key, "beta", 50, beta, 1, &differ, &err), 0);
    assert_int_equal(store_write_sources(f->dir, tmp, key, "alpha", 60, alpha, 2, &differ, &err),
                     0);
    /* alpha again: kept; one file's text differs, one is the same */
    const store_source again[] = {{"/src/k.py", (const uint8_t *)"edited\n", 7},
                                  {"/src/lib.py", (const uint8_t *)"lib\n", 4}};
    assert_int_equal(store_write_sources(f->dir, tmp, key, "alpha", 70, again, 2, &differ, &err),
                     STORE_SOURCES_KEPT);
    assert_int_equal(differ, 1);
    assert_int_equal(store_write_sources(f->dir, tmp, key, "alpha", 70, alpha, 2, &differ, &err),
                     STORE_SOURCES_KEPT);
    assert_int_equal(differ, 0);

    store_source *files = NULL;
    size_t n = 0;
    assert_int_equal(store_read_sources(s, key, "alpha", NULL, &files, &n), 0);
    assert_int_equal(n, 2);
    assert_memory_equal(files[0].text, "alpha's text\n", 13);
    store_sources_free(files, n);
    assert_int_equal(store_read_sources(s, key, "beta", NULL, &files, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(files[0].text, "beta's text\n", 12);
    store_sources_free(files, n);
    assert_int_equal(store_read_sources(s, key, "gamma", NULL, &files, &n), 0);
    assert_int_equal(n, 0);
    store_sources_free(files, n);
    char from[64];
    assert_int_equal(store_read_first_sources(s, key, NULL, &files, &n, from), 0);
    assert_int_equal(n, 1); /* beta's, sent first */
    assert_string_equal(from, "beta");
    store_sources_free(files, n);

    /* A set from before teams were kept (reports/ab/KEY.sources): alpha's
     * set moved there stands for one. */
    char other[STORE_HASH_HEX + 1], dir[600], team_file[1024] = "", old[1024];
    fake_hash('8', other);
    assert_int_equal(store_write_sources(f->dir, tmp, other, "alpha", 60, alpha, 2, &differ, &err),
                     0);
    snprintf(dir, sizeof dir, "%s/reports/88", f->dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".sources"))
            snprintf(team_file, sizeof team_file, "%s/%s", dir, e->d_name);
    closedir(d);
    snprintf(old, sizeof old, "%s/%s.sources", dir, other);
    assert_int_equal(rename(team_file, old), 0);
    assert_int_equal(access(old, F_OK), 0);
    assert_int_equal(store_read_sources(s, other, "alpha", "alpha", &files, &n), 0);
    assert_int_equal(n, 2); /* the sole uploader's */
    store_sources_free(files, n);
    assert_int_equal(store_read_sources(s, other, "beta", "alpha", &files, &n), 0);
    assert_int_equal(n, 0);
    store_sources_free(files, n);
    assert_int_equal(store_read_sources(s, other, "alpha", NULL, &files, &n), 0);
    assert_int_equal(n, 0); /* several uploaders (none named): nobody's own */
    store_sources_free(files, n);
    assert_int_equal(store_read_first_sources(s, other, "", &files, &n, from), 0);
    assert_int_equal(n, 2);
    assert_string_equal(from, "");
    store_sources_free(files, n);
    store_close(s);
}

static void test_list_filters_and_pages(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    const char *k1[] = {"matmul", "add"}, *k2[] = {"add"}, *k3[] = {"softmax"};
    made m[3] = {
        {.kernels = k1, .nkernels = 2, .created = 10},
        {.kernels = k2, .nkernels = 1, .created = 30, .target = "gfx942", .provisional = true},
        {.kernels = k3, .nkernels = 1, .created = 20}};
    for (int i = 0; i < 3; i++) {
        write_report(f->dir, &m[i], (char)('3' + i));
        index_made(s, &m[i]);
    }
    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, NULL, NULL, NULL, 2, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 2);
    assert_true(more);
    assert_string_equal(rows[0].hash, m[1].hash); /* newest first */
    assert_string_equal(rows[1].hash, m[2].hash);
    assert_true(rows[0].provisional);
    assert_false(rows[1].provisional);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, NULL, NULL, NULL, 2, 2, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_false(more);
    assert_string_equal(rows[0].hash, m[0].hash);
    assert_int_equal(rows[0].nkernels, 2);
    /* Each kernel's figures, in the report's order, as pack_made set them. */
    const store_kernel *a = &rows[0].kernels[0], *b = &rows[0].kernels[1];
    assert_string_equal(a->name, "matmul");
    assert_string_equal(b->name, "add");
    assert_int_equal(a->vgpr_peak, 40);
    assert_int_equal(b->vgpr_peak, 41);
    assert_int_equal(b->vgpr_allocated, 49);
    assert_int_equal(b->agpr_peak, 0);
    assert_int_equal(b->sgpr_peak, 20);
    assert_int_equal(b->sgpr_allocated, 24);
    assert_int_equal(b->total_vgprs, 49);
    assert_int_equal(a->waves_per_simd, 8);
    assert_int_equal(b->waves_per_simd, 7);
    assert_int_equal(b->max_waves, 8);
    assert_string_equal(a->limited_by, "target");
    assert_string_equal(b->limited_by, "vgpr");
    assert_int_equal(a->spill_instructions, 0);
    assert_int_equal(b->spill_instructions, 3);
    assert_int_equal(b->scratch_bytes, 16);
    assert_false(a->lower_bound);
    assert_true(b->lower_bound);
    store_summaries_free(rows, n);

    /* kernel matches any kernel of a report */
    assert_int_equal(store_list(s, "add", NULL, NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 2);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, "add", "gfx90a", NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].hash, m[0].hash);
    store_summaries_free(rows, n);
    assert_int_equal(store_list(s, "nope", NULL, NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 0);
    store_summaries_free(rows, n);
    for (int i = 0; i < 3; i++) free(m[i].packed);
    store_close(s);
}

/* A hash prefix names one code object, none, or more than one; two reports
 * of one code object are one; a team sees its own uploads only. */
static void test_hash_prefix(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char full[STORE_HASH_HEX + 1] = "";
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    const char *k[] = {"add"};
    made m[4] = {{.kernels = k, .nkernels = 1, .created = 1},
                 {.kernels = k, .nkernels = 1, .created = 2, .last = 'a'},
                 {.kernels = k, .nkernels = 1, .created = 3, .team = "team-b"},
                 {.kernels = k, .nkernels = 1, .created = 4, .team = "team-b", .json = "{}"}};
    const char digits[4] = {'7', '7', '8', '8'};
    for (int i = 0; i < 4; i++) {
        write_report(f->dir, &m[i], digits[i]);
        index_made(s, &m[i]);
    }
    assert_int_equal(store_complete_hash(s, "77777777", NULL, full), 2); /* 777...7 and 777...a */
    assert_int_equal(store_complete_hash(s, "8888888888", NULL, full), 1);
    assert_string_equal(full, m[2].hash); /* two reports, one code object */
    assert_int_equal(store_complete_hash(s, "99999999", NULL, full), 0);
    assert_int_equal(store_complete_hash(s, "88888888", "team-a", full), 0);
    assert_int_equal(store_complete_hash(s, "88888888", "team-b", full), 1);
    char prefix[STORE_HASH_HEX + 1];
    memcpy(prefix, m[1].hash, STORE_HASH_HEX + 1);
    assert_int_equal(store_complete_hash(s, prefix, NULL, full), 1); /* the whole hash */
    assert_string_equal(full, m[1].hash);
    for (int i = 0; i < 4; i++) free(m[i].packed);
    store_close(s);
}

static void test_recovery_after_crash(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512];
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 0);
    const char *kernels[] = {"attn_fwd", "attn_bwd"};
    made indexed = {.kernels = kernels, .nkernels = 1, .created = 5, .target = "gfx942"};
    write_report(f->dir, &indexed, 'c');
    index_made(s, &indexed);
    /* The crash: the report file was renamed into place, the process died
     * before the index insert; another write died before its rename. */
    made lost = {.kernels = kernels, .nkernels = 2, .created = 42, .team = "team-z"};
    write_report(f->dir, &lost, 'b');
    store_close(s);
    tmp_of(f->dir, path, sizeof path);
    strcat(path, "/w.half");
    FILE *half = fopen(path, "w");
    assert_non_null(half);
    fputs("half a report", half);
    fclose(half);

    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 1); /* only the unindexed one */
    assert_false(store_rebuilt(s));
    tmp_of(f->dir, path, sizeof path);
    assert_int_equal(count_entries(path), 0);
    assert_int_equal(store_find_key(s, lost.key, NULL, NULL), 1);
    assert_int_equal(store_count(s), 2);
    /* The row comes from the report file itself, its maker's record too. */
    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, "attn_bwd", "gfx90a", NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].hash, lost.hash);
    assert_string_equal(rows[0].inputs, lost.inputs);
    assert_int_equal(rows[0].created_unix, 42);
    assert_string_equal(rows[0].client_host, "node1");
    assert_string_equal(rows[0].analyzer_version, "9.9.9");
    assert_string_equal(rows[0].team, "team-z");
    store_summaries_free(rows, n);
    assert_int_equal(store_find_key(s, lost.key, "team-z", NULL), 1);
    store_close(s);

    /* A third open finds nothing more to do. */
    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 0);
    store_close(s);
    free(indexed.packed);
    free(lost.packed);
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
    assert_int_equal(treg_pb_strip_rows(buf, len, &out, &out_len), 0);
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
    assert_int_equal(treg_pb_strip_rows(junk, sizeof junk, &out, &out_len), -1);
    free(buf);
}

/* The cache of reports without rows follows the report file: a replaced
 * report is seen, a removed one is gone. */
static void test_summary_cache(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512];
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    const char *kernels[] = {"first", "second"};
    size_t got_len;
    const uint8_t *got;
    store_set_recheck_ms(s, 0); /* every read looks at the file */
    made m = {.kernels = kernels, .nkernels = 1, .created = 7};
    pack_made(&m, 'd');
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_MISSING);
    assert_int_equal(write_made(f->dir, &m), 0);
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_FOUND);
    assert_int_equal(got_len, m.len); /* no rows to strip */
    assert_memory_equal(got, m.packed, m.len);
    assert_int_equal(store_cached_bytes(s), m.len);
    /* Repaired (a new file renamed into place): the cache follows. */
    made m2 = m;
    m2.nkernels = 2;
    m2.created = 8;
    pack_made(&m2, 'd');
    assert_string_equal(m2.key, m.key);
    assert_int_equal(write_made(f->dir, &m2), 0);
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_FOUND);
    assert_int_equal(got_len, m2.len);
    assert_memory_equal(got, m2.packed, m2.len);
    assert_int_equal(store_cached_bytes(s), m2.len);
    /* Within the recheck interval a hit is served without looking at the
     * file: a replacement from outside shows once the interval is over. */
    store_set_recheck_ms(s, 3600 * 1000);
    made m3 = m;
    m3.created = 9;
    pack_made(&m3, 'd');
    assert_int_equal(write_made(f->dir, &m3), 0);
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_FOUND);
    assert_memory_not_equal(got, m3.packed, got_len < m3.len ? got_len : m3.len);
    store_set_recheck_ms(s, 0);
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_FOUND);
    assert_int_equal(got_len, m3.len);
    assert_memory_equal(got, m3.packed, m3.len);
    report_file(f->dir, m.key, path, sizeof path);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_MISSING);
    assert_int_equal(store_read_summary(s, "../x", &got, &got_len), STORE_MISSING);
    free(m.packed);
    free(m2.packed);
    free(m3.packed);
    store_close(s);
}

/* Flips one byte of a file at offset (from the end when negative). */
static void flip_byte(const char *path, long offset)
{
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, offset, offset < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(fp);
    assert_int_not_equal(c, EOF);
    assert_int_equal(fseek(fp, -1, SEEK_CUR), 0);
    fputc(c ^ 0x5a, fp);
    fclose(fp);
}

/* F7: a report that fails its checksum is never served, whole or without
 * rows, and the next write of its inputs repairs it; a damaged blob is
 * replaced by the upload's bytes; a missing report leaves the index at
 * once, and at the next start. */
static void test_checksums_and_repair(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512], blob_path[512];
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    store_set_recheck_ms(s, 0);
    const char *kernels[] = {"k"};
    made m = {.kernels = kernels, .nkernels = 1, .created = 3};
    write_report(f->dir, &m, '7');
    index_made(s, &m);
    report_file(f->dir, m.key, path, sizeof path);
    const uint8_t *got = NULL;
    size_t got_len = 0;
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_FOUND);
    for (long at = -1; at >= -3; at -= 2) { /* a payload byte; then the magic */
        flip_byte(path, at == -1 ? -1 : 2);
        uint8_t *read = NULL;
        size_t len = 0;
        assert_int_equal(store_read_report(s, m.key, &read, &len), STORE_DAMAGED);
        assert_null(read);
        assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_DAMAGED);
        flip_byte(path, at == -1 ? -1 : 2); /* back */
    }
    /* Truncated: damaged, not a short report. */
    assert_int_equal(truncate(path, STORE_REPORT_HEADER + 3), 0);
    uint8_t *read = NULL;
    size_t len = 0;
    assert_int_equal(store_read_report(s, m.key, &read, &len), STORE_DAMAGED);
    assert_int_equal(truncate(path, 5), 0);
    assert_int_equal(store_read_report(s, m.key, &read, &len), STORE_DAMAGED);
    /* The repair: the next upload's write, with a damaged blob too. */
    snprintf(blob_path, sizeof blob_path, "%s/blobs/77/%s", f->dir, m.hash);
    flip_byte(blob_path, 0);
    assert_int_equal(write_made(f->dir, &m), 0);
    assert_int_equal(store_read_report(s, m.key, &read, &len), STORE_FOUND);
    assert_memory_equal(read, m.packed, m.len);
    free(read);
    assert_file_equals(blob_path, blob, sizeof blob);
    assert_int_equal(store_read_summary(s, m.key, &got, &got_len), STORE_FOUND);

    /* Gone: the read says so and the index forgets it. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(store_read_report(s, m.key, &read, &len), STORE_MISSING);
    assert_int_equal(store_find_key(s, m.key, NULL, NULL), 0);
    /* Gone while the server was down: dropped at start and from listings. */
    made other = {.kernels = kernels, .nkernels = 1, .created = 4};
    write_report(f->dir, &other, '8');
    index_made(s, &other);
    made third = {.kernels = kernels, .nkernels = 1, .created = 5};
    write_report(f->dir, &third, '9');
    index_made(s, &third);
    report_file(f->dir, third.key, path, sizeof path);
    assert_int_equal(unlink(path), 0);
    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, NULL, NULL, NULL, 1, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1); /* the page is whole: the missing one skipped */
    assert_string_equal(rows[0].key, other.key);
    assert_false(more);
    store_summaries_free(rows, n);
    assert_int_equal(store_count(s), 1);
    store_close(s);
    report_file(f->dir, other.key, path, sizeof path);
    assert_int_equal(unlink(path), 0);
    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_count(s), 0);
    store_close(s);
    free(m.packed);
    free(other.packed);
    free(third.packed);
}

/* A report file under a name that is not its key is not indexed; nor is a
 * damaged one (the next upload of its inputs rewrites it). */
static void test_recovery_refuses_strangers(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512], moved[600];
    const char *kernels[] = {"k"};
    made m = {.kernels = kernels, .nkernels = 1, .created = 3};
    made d = {.kernels = kernels, .nkernels = 1, .created = 4};
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    store_close(s);
    write_report(f->dir, &m, '1');
    write_report(f->dir, &d, '2');
    report_file(f->dir, m.key, path, sizeof path);
    char other[STORE_HASH_HEX + 1];
    fake_hash('f', other);
    report_file(f->dir, other, moved, sizeof moved);
    assert_int_equal(rename(path, moved), 0);
    report_file(f->dir, d.key, path, sizeof path);
    flip_byte(path, -1);
    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 0);
    assert_int_equal(store_count(s), 0);
    store_close(s);
    free(m.packed);
    free(d.packed);
}

/* An index SQLite cannot read (its header overwritten, or a damaged page)
 * is moved aside and rebuilt from the report files at start. */
static void test_rebuilds_damaged_index(void **state)
{
    SQLITE_ONLY();
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512];
    const char *kernels[] = {"k", "j"};
    made m[20];
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    for (int i = 0; i < 20; i++) {
        /* The last four: other inputs for four of the blobs. */
        m[i] = (made){
            .kernels = kernels, .nkernels = 2, .created = 100 + i, .json = i >= 16 ? "{}" : NULL};
        write_report(f->dir, &m[i], "0123456789abcdef"[i % 16]);
        index_made(s, &m[i]);
    }
    assert_int_equal(store_count(s), 20);
    store_close(s);
    snprintf(path, sizeof path, "%s/index.sqlite", f->dir);
    for (int round = 0; round < 2; round++) {
        FILE *fp = fopen(path, "r+b");
        assert_non_null(fp);
        /* Round 0: the header; round 1: every page past the first. */
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size > 8192);
        assert_int_equal(fseek(fp, round == 0 ? 0 : 4096, SEEK_SET), 0);
        for (long i = 0; i < (round == 0 ? 100 : st.st_size - 4096); i++) fputc(0xa5, fp);
        fclose(fp);
        s = open_at(f->dir, &err);
        assert_non_null(s);
        assert_true(store_rebuilt(s));
        assert_int_equal(store_recovered(s), 20);
        assert_int_equal(store_count(s), 20);
        for (int i = 0; i < 20; i++) assert_int_equal(store_find_key(s, m[i].key, NULL, NULL), 1);
        char aside[600];
        snprintf(aside, sizeof aside, "%s.damaged", path);
        assert_true(tu_exists(aside));
        store_close(s);
        s = open_at(f->dir, &err); /* whole again */
        assert_non_null(s);
        assert_false(store_rebuilt(s));
        assert_int_equal(store_recovered(s), 0);
        store_close(s);
    }
    for (int i = 0; i < 20; i++) free(m[i].packed);
}

/* A store of the layout before keys: reports/ab/<hash>.pb without header,
 * the texts beside the blob.  Opened, it is converted: the report under its
 * key naming its texts' hashes, the texts under texts/, the old files
 * gone; and an index of a newer tregd is refused, not overwritten. */
static void test_converts_old_layout(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[600];
    const char *kernels[] = {"old_kernel"};
    made m = {.kernels = kernels, .nkernels = 1, .created = 77, .team = ""};
    pack_made(&m, 'a');
    /* The old report named no texts: pack one without those fields. */
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, m.len, m.packed);
    assert_non_null(r);
    char *js = r->triton_json_sha256, *as = r->amdgcn_sha256;
    r->triton_json_sha256 = r->amdgcn_sha256 = "";
    size_t old_len = treg__v1__report__get_packed_size(r);
    uint8_t *old = malloc(old_len);
    assert_non_null(old);
    treg__v1__report__pack(r, old);
    r->triton_json_sha256 = js;
    r->amdgcn_sha256 = as;
    treg__v1__report__free_unpacked(r, NULL);
    static const char *const dirs[] = {"", "/blobs", "/blobs/aa", "/reports", "/reports/aa"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s%s", f->dir, dirs[i]);
        mkdir(path, 0755);
    }
    struct {
        const char *dir, *ext;
        const void *data;
        size_t len;
    } files[] = {{"blobs", "", blob, sizeof blob},
                 {"blobs", ".json", m.json, strlen(m.json)},
                 {"blobs", ".amdgcn", m.amdgcn, strlen(m.amdgcn)},
                 {"reports", ".pb", old, old_len}};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s/aa/%s%s", f->dir, files[i].dir, m.hash, files[i].ext);
        FILE *fp = fopen(path, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(files[i].data, 1, files[i].len, fp), files[i].len);
        fclose(fp);
    }
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_converted(s), 1);
    assert_int_equal(store_find_key(s, m.key, NULL, NULL), 1);
    uint8_t *read = NULL;
    size_t len = 0;
    assert_int_equal(store_read_report(s, m.key, &read, &len), STORE_FOUND);
    assert_int_equal(len, m.len);
    assert_memory_equal(read, m.packed, m.len); /* what a fresh upload would store */
    free(read);
    for (size_t i = 1; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s/aa/%s%s", f->dir, files[i].dir, m.hash, files[i].ext);
        assert_false(tu_exists(path));
    }
    snprintf(path, sizeof path, "%s/texts/%.2s/%s", f->dir, m.json_sha, m.json_sha);
    assert_file_equals(path, m.json, strlen(m.json));
    store_close(s);
    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_converted(s), 0);
    assert_int_equal(store_count(s), 1);
    store_close(s);
    free(old);
    free(m.packed);

    /* A newer tregd's index: refused with a line that says so. */
    db *d = raw_index(f->dir);
    assert_int_equal(db_begin_migration(d), 0);
    assert_int_equal(db_set_version(d, 7), 0);
    assert_int_equal(db_commit(d), 0);
    db_close(d);
    assert_null(open_at(f->dir, &err));
    assert_non_null(strstr(err.msg, "index version 7 is newer"));
}

/* An index of version 1 (kernel names without figures): its reports are
 * indexed again from their files, with figures, at the next open; the
 * upload records of teams survive it. */
static void test_upgrades_version_1(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    const char *kernels[] = {"matmul", "add"};
    made m = {.kernels = kernels, .nkernels = 2, .created = 12, .provisional = true};
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_false(store_upgraded(s));
    write_report(f->dir, &m, '9');
    index_made(s, &m);
    assert_int_equal(store_record_upload(s, m.key, "team-b", "theirs.hsaco", "node7", 40), 0);
    store_close(s);

    /* What a version-1 tregd left: names only, no provisional column. */
    db *d = raw_index(f->dir);
    assert_int_equal(db_begin_migration(d), 0);
    if (db_exec(d, "DROP TABLE report_kernels;"
                   "CREATE TABLE report_kernels(key TEXT NOT NULL, name TEXT NOT NULL);"
                   "INSERT INTO report_kernels SELECT key, 'matmul' FROM reports;"
                   "ALTER TABLE reports DROP COLUMN provisional;") != 0)
        fail_msg("%s", db_error(d));
    assert_int_equal(db_set_version(d, 1), 0);
    assert_int_equal(db_commit(d), 0);
    db_close(d);

    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_true(store_upgraded(s));
    assert_false(store_rebuilt(s));
    assert_int_equal(store_recovered(s), 1);
    store_summary *rows;
    size_t n;
    bool more;
    assert_int_equal(store_list(s, "add", NULL, NULL, 10, 0, &rows, &n, &more), 0);
    assert_int_equal(n, 1);
    assert_true(rows[0].provisional);
    assert_int_equal(rows[0].nkernels, 2);
    assert_int_equal(rows[0].kernels[1].vgpr_peak, 41);
    assert_int_equal(rows[0].kernels[1].waves_per_simd, 7);
    store_summaries_free(rows, n);
    store_entry e;
    assert_int_equal(store_find_key(s, m.key, "team-b", &e), 1);
    assert_string_equal(e.file_name, "theirs.hsaco");
    store_entry_free(&e);
    store_close(s);

    /* Once upgraded, an open is an ordinary one. */
    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_false(store_upgraded(s));
    assert_int_equal(store_recovered(s), 0);
    store_close(s);
    free(m.packed);
}

/* A crash that kept a report's rename but not its blob's: the upload was
 * never acknowledged, and the report is removed rather than indexed. */
static void test_recovery_without_blob(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512];
    const char *kernels[] = {"k"};
    made m = {.kernels = kernels, .nkernels = 1, .created = 9};
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    store_close(s);
    write_report(f->dir, &m, 'e');
    snprintf(path, sizeof path, "%s/blobs/ee/%s", f->dir, m.hash);
    assert_int_equal(unlink(path), 0);
    s = open_at(f->dir, &err);
    assert_non_null(s);
    assert_int_equal(store_recovered(s), 0);
    assert_int_equal(store_find_key(s, m.key, NULL, NULL), 0);
    report_file(f->dir, m.key, path, sizeof path);
    assert_int_not_equal(access(path, F_OK), 0);
    store_close(s);
    free(m.packed);
}

/* A full filesystem is STORE_WRITE_FULL, not a broken store: nothing is
 * left behind, and the same write succeeds once there is room.  (A file
 * size limit stands in for a full disk: EFBIG, classed with ENOSPC.) */
static void test_full_store(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[512];
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    const char *kernels[] = {"k"};
    made m = {.kernels = kernels, .nkernels = 1, .created = 3};
    pack_made(&m, '5');
    struct rlimit was, small = {.rlim_cur = 16, .rlim_max = RLIM_INFINITY};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    small.rlim_max = was.rlim_max;
    void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = write_made(f->dir, &m);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, old);
    assert_int_equal(rc, STORE_WRITE_FULL);
    tmp_of(f->dir, path, sizeof path);
    assert_int_equal(count_entries(path), 0);
    report_file(f->dir, m.key, path, sizeof path);
    assert_false(tu_exists(path));
    assert_int_equal(write_made(f->dir, &m), 0);
    assert_true(tu_exists(path));
    /* The room check: whatever the disk has, a reserve past it is refused. */
    treg_error why = {0, ""};
    assert_true(store_has_room(s, 1, 0, &why));
    assert_false(store_has_room(s, 1, (uint64_t)1 << 62, &why));
    assert_non_null(strstr(why.msg, "MiB free"));
    free(m.packed);
    store_close(s);
}

static void test_bad_names(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    store *s = open_at(f->dir, &err);
    assert_non_null(s);
    uint8_t *read = NULL;
    size_t len;
    assert_int_equal(store_read_report(s, "../../etc/passwd", &read, &len), STORE_MISSING);
    assert_null(read);
    /* Not a hash: nothing is written anywhere. */
    store_upload u = {.key = "../x",
                      .hash = "../x",
                      .blob = (const uint8_t *)"x",
                      .blob_len = 1,
                      .json_sha256 = "",
                      .amdgcn_sha256 = "",
                      .report = (const uint8_t *)"r",
                      .report_len = 1};
    assert_int_not_equal(store_write_upload(f->dir, store_tmp_dir(s), &u, &err), 0);
    store_close(s);
}

/* Servers sharing a store: each instance has its own temp folder, which
 * its open alone empties; one instance name is one live server; an SQLite
 * index is one server's, a PostgreSQL index everyone's. */
static void test_instances(void **state)
{
    fixture *f = *state;
    treg_error err = {0, ""};
    char path[600], other[600];
    store *a = open_as(f->dir, "a", &err);
    assert_non_null(a);
    snprintf(path, sizeof path, "%s/tmp/a", f->dir);
    assert_string_equal(store_tmp_dir(a), path);
    assert_string_equal(store_instance(a), "a");
    /* A second server named a: refused while a is open. */
    assert_null(open_as(f->dir, "a", &err));
    assert_non_null(strstr(err.msg, "instance 'a' is in use by another tregd"));
    assert_null(open_as(f->dir, "../x", &err));
    assert_non_null(strstr(err.msg, "instance '../x' is not"));

    /* b beside a: with SQLite refused, naming a; with PostgreSQL opened,
     * and a's temp file in flight survives b's start. */
    snprintf(other, sizeof other, "%s/w.in-flight", store_tmp_dir(a));
    FILE *fp = fopen(other, "w");
    assert_non_null(fp);
    fclose(fp);
    store *b = open_as(f->dir, "b", &err);
    if (test_index() == NULL) {
        assert_null(b);
        assert_non_null(strstr(err.msg, "tregd instance 'a' has it open"));
        assert_non_null(strstr(err.msg, "--index postgresql://"));
    } else {
        assert_non_null(b);
        assert_string_equal(store_index_kind(b), "postgresql");
        store_close(b);
    }
    assert_true(tu_exists(other));
    store_close(a);

    /* Once a is gone, b opens (a's leftovers are a's to clean); an
     * old-layout leftover in DIR/tmp goes once ten minutes old. */
    char old_fresh[600], old_stale[600];
    snprintf(old_fresh, sizeof old_fresh, "%s/tmp/w.1.1", f->dir);
    snprintf(old_stale, sizeof old_stale, "%s/tmp/w.1.2", f->dir);
    assert_non_null(fp = fopen(old_fresh, "w"));
    fclose(fp);
    assert_non_null(fp = fopen(old_stale, "w"));
    fclose(fp);
    struct timespec times[2] = {{.tv_sec = time(NULL) - 3600}, {.tv_sec = time(NULL) - 3600}};
    assert_int_equal(utimensat(AT_FDCWD, old_stale, times, 0), 0);
    b = open_as(f->dir, "b", &err);
    assert_non_null(b);
    assert_true(tu_exists(other));
    assert_true(tu_exists(old_fresh));
    assert_false(tu_exists(old_stale));
    store_close(b);
    /* a again: its own leftover is removed. */
    a = open_as(f->dir, "a", &err);
    assert_non_null(a);
    assert_false(tu_exists(other));
    store_close(a);
}

static void test_unusable_dir(void **state)
{
    treg_error err = {0, ""};
    store *s = open_at("/proc/treg-no-such-store", &err);
    (void)state;
    assert_null(s);
    assert_non_null(strstr(err.msg, "/proc/treg-no-such-store"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_atomic_write_and_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyed_by_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uploads_and_visibility, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sources_per_team, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_filters_and_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hash_prefix, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_after_crash, setup, teardown),
        cmocka_unit_test(test_strip_rows),
        cmocka_unit_test_setup_teardown(test_summary_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checksums_and_repair, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_refuses_strangers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rebuilds_damaged_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_converts_old_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery_without_blob, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upgrades_version_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_store, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instances, setup, teardown),
        cmocka_unit_test(test_unusable_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
