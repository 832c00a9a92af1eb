/* The per-register half of a report with rows, on every generated fixture
 * and every corpus kernel: each row's reads and writes are ascending
 * without repeats and below the specials, and each kernel's live ranges
 * are maximal, disjoint, ascending runs that reproduce the row counts
 * exactly (at every row, per class, the registers whose runs hold the row
 * number vgpr/agpr/sgpr) and hold every register a row reads or writes.
 * Through the protobuf the fields survive, the JSON names them, and
 * store_strip_rows drops the live ranges with the rows.  One hand-read
 * stretch of the loop fixture pins the lists themselves. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "render.h"
#include "proto_wire.h"
#include "store.h"
#include "testutil.h"
#include "treg.pb-c.h"
#include "treg/analyzer.h"

/* Every .hsaco below a folder, sorted; bad/ (inputs meant to fail) left out. */
typedef struct file_list {
    char **paths;
    size_t n, cap;
} file_list;

static file_list walked; /* nftw takes no context */

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t len = strlen(path);
    if (type != FTW_F || len < 6 || strcmp(path + len - 6, ".hsaco") != 0) return 0;
    if (strstr(path, "/bad/")) return 0;
    if (walked.n == walked.cap) {
        walked.cap = walked.cap ? 2 * walked.cap : 64;
        walked.paths = realloc(walked.paths, walked.cap * sizeof *walked.paths);
        assert_non_null(walked.paths);
    }
    walked.paths[walked.n] = strdup(path);
    assert_non_null(walked.paths[walked.n]);
    walked.n++;
    return 0;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static file_list hsaco_files(const char *root)
{
    memset(&walked, 0, sizeof walked);
    assert_int_equal(nftw(root, collect, 16, FTW_PHYS), 0);
    qsort(walked.paths, walked.n, sizeof *walked.paths, cmp_path);
    return walked;
}

static void free_files(file_list *f)
{
    for (size_t i = 0; i < f->n; i++) free(f->paths[i]);
    free(f->paths);
}

static int class_of(uint32_t reg)
{
    return reg < TREG_REPORT_A0 ? 0 : reg < TREG_REPORT_S0 ? 1 : 2;
}

static const treg_live_range *range_of(const treg_kernel_report *k, uint32_t reg)
{
    size_t lo = 0, hi = k->nlive_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (k->live_ranges[mid].reg == reg) return &k->live_ranges[mid];
        if (k->live_ranges[mid].reg < reg)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool occupied_at(const treg_kernel_report *k, uint32_t reg, uint32_t row)
{
    const treg_live_range *lr = range_of(k, reg);
    if (!lr) return false;
    for (uint32_t j = 0; j < lr->nruns; j++)
        if (lr->runs[2 * j] <= row && row < lr->runs[2 * j + 1]) return true;
    return false;
}

static void check_list(const char *what, size_t row, const uint32_t *regs, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++) {
        if (regs[j] >= TREG_REPORT_VCC_LO)
            fail_msg("%s row %zu: special register %u", what, row, regs[j]);
        if (j && regs[j] <= regs[j - 1])
            fail_msg("%s row %zu: registers not ascending (%u after %u)", what, row, regs[j],
                     regs[j - 1]);
    }
}

/* Everything the live ranges and the row lists promise, for one kernel. */
static void check_kernel(const char *path, const treg_kernel_report *k)
{
    char what[1200];
    snprintf(what, sizeof what, "%s:%s", path, k->name);
    assert_int_equal(k->nrows, k->instructions);
    size_t n = k->nrows;
    int32_t *delta = calloc(3 * (n + 1), sizeof *delta); /* per class, a difference array */
    assert_non_null(delta);
    for (size_t i = 0; i < k->nlive_ranges; i++) {
        const treg_live_range *lr = &k->live_ranges[i];
        if (i && lr->reg <= k->live_ranges[i - 1].reg) fail_msg("%s: ranges not ascending", what);
        if (lr->reg >= TREG_REPORT_REG_END) fail_msg("%s: range of register %u", what, lr->reg);
        if (lr->nruns == 0) fail_msg("%s: register %u has no run", what, lr->reg);
        int c = class_of(lr->reg);
        for (uint32_t j = 0; j < lr->nruns; j++) {
            uint32_t start = lr->runs[2 * j], end = lr->runs[2 * j + 1];
            if (!(start < end && end <= n))
                fail_msg("%s: register %u run [%u,%u) of %zu rows", what, lr->reg, start, end, n);
            /* Disjoint and maximal: a gap of at least one row between runs. */
            if (j && !(lr->runs[2 * j - 1] < start))
                fail_msg("%s: register %u runs touch or overlap at %u", what, lr->reg, start);
            delta[c * (n + 1) + start]++;
            delta[c * (n + 1) + end]--;
        }
    }
    int32_t live[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        const treg_row *w = &k->rows[i];
        for (int c = 0; c < 3; c++) live[c] += delta[c * (n + 1) + i];
        if (live[0] != w->vgpr || live[1] != w->agpr || live[2] != w->sgpr)
            fail_msg("%s row %zu (%s): ranges hold %d/%d/%d registers, the row counts %u/%u/%u",
                     what, i, w->text, live[0], live[1], live[2], w->vgpr, w->agpr, w->sgpr);
        check_list(what, i, w->reads, w->nreads);
        check_list(what, i, w->writes, w->nwrites);
        for (uint32_t j = 0; j < w->nwrites; j++)
            if (!occupied_at(k, w->writes[j], (uint32_t)i))
                fail_msg("%s row %zu (%s): writes register %u, not occupied", what, i, w->text,
                         w->writes[j]);
        for (uint32_t j = 0; j < w->nreads; j++)
            if (!occupied_at(k, w->reads[j], (uint32_t)i))
                fail_msg("%s row %zu (%s): reads register %u, not occupied", what, i, w->text,
                         w->reads[j]);
    }
    free(delta);
}

static void same_uint32s(const char *what, const uint32_t *a, size_t na, const uint32_t *b,
                         size_t nb)
{
    if (na != nb) fail_msg("%s: %zu values, expected %zu", what, na, nb);
    if (na) assert_memory_equal(a, b, na * sizeof *a);
}

/* Through the wire: the fields survive packing; stripped, they are gone. */
static void check_protobuf(const char *path, const treg_report *r, size_t *with, size_t *without)
{
    uint8_t *packed, *stripped;
    size_t plen, slen;
    assert_int_equal(treg_pb_pack_report(r, NULL, &packed, &plen), 0);
    Treg__V1__Report *p = treg__v1__report__unpack(NULL, plen, packed);
    assert_non_null(p);
    assert_int_equal(p->n_kernels, r->nkernels);
    for (size_t i = 0; i < r->nkernels; i++) {
        const treg_kernel_report *k = &r->kernels[i];
        const Treg__V1__Kernel *pk = p->kernels[i];
        assert_int_equal(pk->n_rows, k->nrows);
        for (size_t j = 0; j < k->nrows; j++) {
            same_uint32s(path, pk->rows[j]->reads, pk->rows[j]->n_reads, k->rows[j].reads,
                         k->rows[j].nreads);
            same_uint32s(path, pk->rows[j]->writes, pk->rows[j]->n_writes, k->rows[j].writes,
                         k->rows[j].nwrites);
        }
        assert_int_equal(pk->n_live_ranges, k->nlive_ranges);
        for (size_t j = 0; j < k->nlive_ranges; j++) {
            assert_int_equal(pk->live_ranges[j]->reg, k->live_ranges[j].reg);
            same_uint32s(path, pk->live_ranges[j]->runs, pk->live_ranges[j]->n_runs,
                         k->live_ranges[j].runs, 2 * (size_t)k->live_ranges[j].nruns);
        }
    }
    treg__v1__report__free_unpacked(p, NULL);

    assert_int_equal(treg_pb_strip_rows(packed, plen, &stripped, &slen), 0);
    p = treg__v1__report__unpack(NULL, slen, stripped);
    assert_non_null(p);
    for (size_t i = 0; i < r->nkernels; i++) {
        assert_int_equal(p->kernels[i]->n_rows, 0);
        assert_int_equal(p->kernels[i]->n_live_ranges, 0);
        assert_string_equal(p->kernels[i]->name, r->kernels[i].name);
        assert_int_equal(p->kernels[i]->instructions, r->kernels[i].instructions);
    }
    treg__v1__report__free_unpacked(p, NULL);
    *with += plen;
    *without += slen;
    free(stripped);
    free(packed);
}

/* Analyzes every .hsaco below root with rows and checks each kernel; also
 * that without rows there are no live ranges. */
static void check_tree(const char *root)
{
    file_list files = hsaco_files(root);
    assert_true(files.n > 0);
    size_t kernels = 0, ranges = 0, runs = 0, with = 0, without = 0;
    struct {
        char path[1024];
        size_t rows, ranges, with, without;
    } largest = {"", 0, 0, 0, 0};
    for (size_t f = 0; f < files.n; f++) {
        size_t len;
        uint8_t *bytes = tu_read_file(files.paths[f], &len);
        assert_non_null(bytes);
        treg_report *r;
        treg_error err = {0, ""};
        treg_options opt = {.keep_rows = 1};
        if (treg_analyze(bytes, len, &opt, &r, &err)) {
            if (tu_needs_newer_llvm(files.paths[f], TREG_LLVM_MAJOR, err.msg)) {
                free(bytes);
                continue;
            }
            fail_msg("%s: %s", files.paths[f], err.msg);
        }
        for (size_t i = 0; i < r->nkernels; i++) {
            const treg_kernel_report *k = &r->kernels[i];
            check_kernel(files.paths[f], k);
            kernels++;
            ranges += k->nlive_ranges;
            for (size_t j = 0; j < k->nlive_ranges; j++) runs += k->live_ranges[j].nruns;
        }
        size_t w = 0, wo = 0;
        check_protobuf(files.paths[f], r, &w, &wo);
        with += w;
        without += wo;
        if (r->nkernels == 1 && r->kernels[0].nrows > largest.rows) {
            snprintf(largest.path, sizeof largest.path, "%s", files.paths[f]);
            largest.rows = r->kernels[0].nrows;
            largest.ranges = r->kernels[0].nlive_ranges;
            largest.with = w;
            largest.without = wo;
        }
        treg_report_free(r);

        opt.keep_rows = 0;
        assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), 0);
        for (size_t i = 0; i < r->nkernels; i++) {
            assert_null(r->kernels[i].live_ranges);
            assert_int_equal(r->kernels[i].nlive_ranges, 0);
        }
        treg_report_free(r);
        free(bytes);
    }
    print_message("%s: %zu files, %zu kernels, %zu live ranges, %zu runs; protobuf %zu bytes with "
                  "rows, %zu without\n",
                  root, files.n, kernels, ranges, runs, with, without);
    print_message("largest one-kernel file: %s, %zu rows, %zu live ranges; protobuf %zu bytes "
                  "with rows, %zu without\n",
                  largest.path, largest.rows, largest.ranges, largest.with, largest.without);
    free_files(&files);
}

static void test_fixtures(void **state)
{
    (void)state;
    check_tree(TREG_FIXTURES);
}

static void test_corpus(void **state)
{
    (void)state;
    if (!tu_exists(TREG_CORPUS)) {
        print_message("shared corpus not found at %s\n", TREG_CORPUS);
        skip();
    }
    check_tree(TREG_CORPUS);
}

/* The JSON row whose disassembly is text, or a failure naming it. */
static json_object *row_with_text(json_object *rows, const char *text)
{
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        json_object *row = json_object_array_get_idx(rows, i), *t;
        if (json_object_object_get_ex(row, "text", &t) &&
            strcmp(json_object_get_string(t), text) == 0)
            return row;
    }
    fail_msg("no row '%s' in the loop fixture (was it built by another compiler?)", text);
    return NULL;
}

static void assert_names(json_object *row, const char *key, const char *expected)
{
    json_object *list;
    assert_true(json_object_object_get_ex(row, key, &list));
    char got[256] = "";
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        if (i) strcat(got, " ");
        strcat(got, json_object_get_string(json_object_array_get_idx(list, i)));
    }
    assert_string_equal(got, expected);
}

/* gfx906 loop_kernel, read by hand: the inner loop's first load, a
 * multiply-add that reads its own destination, and the address add whose
 * carry goes to VCC (not listed as written, yet a live range of its own,
 * since the row counts VCC among the SGPRs). */
static void test_loop_fixture_by_hand(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes = tu_read_file(TREG_FIXTURES "/gfx906/loop_kernel.hsaco", &len);
    assert_non_null(bytes);
    treg_report *r;
    treg_error err = {0, ""};
    treg_options opt = {.keep_rows = 1};
    assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), 0);
    uint8_t *packed;
    size_t plen;
    assert_int_equal(treg_pb_pack_report(r, NULL, &packed, &plen), 0);
    Treg__V1__Report *p = treg__v1__report__unpack(NULL, plen, packed);
    assert_non_null(p);

    json_object *j = treg_render_json(p, 1), *ks, *k, *rows, *ranges;
    assert_true(json_object_object_get_ex(j, "kernels", &ks));
    k = json_object_array_get_idx(ks, 0);
    assert_true(json_object_object_get_ex(k, "rows", &rows));
    json_object *load = row_with_text(rows, "global_load_dwordx4 v[19:22], v24, s[10:11]");
    assert_names(load, "reads", "v24 s10 s11");
    assert_names(load, "writes", "v19 v20 v21 v22");
    json_object *fmac = row_with_text(rows, "v_fmac_f32_e32 v6, v19, v23");
    assert_names(fmac, "reads", "v6 v19 v23");
    assert_names(fmac, "writes", "v6");
    json_object *add = row_with_text(rows, "v_add_co_u32_e32 v0, vcc, s8, v0");
    assert_names(add, "reads", "v0 s8");
    assert_names(add, "writes", "v0");
    json_object *branch = row_with_text(rows, "s_endpgm");
    assert_names(branch, "reads", "");
    assert_names(branch, "writes", "");

    /* live_ranges: named, runs as [start, end] pairs; vcc_lo has one
     * holding the add's row. */
    assert_true(json_object_object_get_ex(k, "live_ranges", &ranges));
    assert_int_equal(json_object_array_length(ranges), r->kernels[0].nlive_ranges);
    size_t add_row = 0;
    for (size_t i = 0; i < r->kernels[0].nrows; i++)
        if (strcmp(r->kernels[0].rows[i].text, "v_add_co_u32_e32 v0, vcc, s8, v0") == 0)
            add_row = i;
    bool vcc_seen = false;
    for (size_t i = 0; i < json_object_array_length(ranges); i++) {
        json_object *x = json_object_array_get_idx(ranges, i), *reg, *runs;
        assert_true(json_object_object_get_ex(x, "reg", &reg));
        assert_true(json_object_object_get_ex(x, "runs", &runs));
        assert_true(json_object_array_length(runs) > 0);
        if (strcmp(json_object_get_string(reg), "vcc_lo") != 0) continue;
        for (size_t q = 0; q < json_object_array_length(runs); q++) {
            json_object *run = json_object_array_get_idx(runs, q);
            assert_int_equal(json_object_array_length(run), 2);
            size_t start = (size_t)json_object_get_int64(json_object_array_get_idx(run, 0));
            size_t end = (size_t)json_object_get_int64(json_object_array_get_idx(run, 1));
            if (start <= add_row && add_row < end) vcc_seen = true;
        }
    }
    assert_true(vcc_seen);
    json_object_put(j);

    /* Without rows, neither rows nor live ranges are rendered. */
    j = treg_render_json(p, 0);
    assert_true(json_object_object_get_ex(j, "kernels", &ks));
    k = json_object_array_get_idx(ks, 0);
    assert_false(json_object_object_get_ex(k, "rows", &rows));
    assert_false(json_object_object_get_ex(k, "live_ranges", &ranges));
    json_object_put(j);

    treg__v1__report__free_unpacked(p, NULL);
    free(packed);
    treg_report_free(r);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_loop_fixture_by_hand),
                                       cmocka_unit_test(test_fixtures),
                                       cmocka_unit_test(test_corpus)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
