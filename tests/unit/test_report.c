/* Report-level facts on real code objects the project builds itself
 * (tests/fixtures/make-fixtures.sh): source lines from every DWARF file,
 * loops and their nesting, spills with their lines, calls, the peak's
 * attribution, and the invariants that tie the report's parts together. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "render.h"
#include "testutil.h"
#include "treg/analyzer.h"

typedef struct loaded {
    uint8_t *bytes;
    char *json;
    treg_report *r;
} loaded;

static loaded analyze(const char *rel, const char *json_rel)
{
    char path[1024];
    loaded L = {0};
    size_t len, jlen = 0;
    snprintf(path, sizeof path, "%s/%s", TREG_FIXTURES, rel);
    L.bytes = tu_read_file(path, &len);
    if (!L.bytes) fail_msg("fixture %s missing", path);
    if (json_rel) {
        snprintf(path, sizeof path, "%s/%s", TREG_FIXTURES, json_rel);
        L.json = (char *)tu_read_file(path, &jlen);
    }
    treg_options opt = {.triton_json = L.json, .triton_json_len = jlen, .keep_rows = 1};
    treg_error err = {0, ""};
    if (treg_analyze(L.bytes, len, &opt, &L.r, &err)) fail_msg("%s: %s", rel, err.msg);
    return L;
}

/* As analyze(), with Triton metadata given as text. */
static loaded analyze_with_json(const char *rel, const char *json)
{
    char path[1024];
    loaded L = {0};
    size_t len;
    snprintf(path, sizeof path, "%s/%s", TREG_FIXTURES, rel);
    L.bytes = tu_read_file(path, &len);
    if (!L.bytes) fail_msg("fixture %s missing", path);
    treg_options opt = {.triton_json = json, .triton_json_len = strlen(json)};
    treg_error err = {0, ""};
    if (treg_analyze(L.bytes, len, &opt, &L.r, &err)) fail_msg("%s: %s", rel, err.msg);
    return L;
}

/* The summary text of r, as treg-analyze prints it (caller frees). */
static char *summary_text(const treg_report *r)
{
    uint8_t *packed;
    size_t plen;
    treg_pb_info info = {0};
    assert_int_equal(treg_pb_pack_report(r, &info, &packed, &plen), 0);
    Treg__V1__Report *p = treg__v1__report__unpack(NULL, plen, packed);
    assert_non_null(p);
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    assert_non_null(f);
    treg_render_text(f, p);
    fclose(f);
    treg__v1__report__free_unpacked(p, NULL);
    free(packed);
    return text;
}

static void release(loaded *L)
{
    treg_report_free(L->r);
    free(L->bytes);
    free(L->json);
}

static const treg_kernel_report *kernel(const treg_report *r, const char *name)
{
    for (size_t i = 0; i < r->nkernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0) return &r->kernels[i];
    fail_msg("no kernel %s", name);
    return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Invariants every report keeps, whatever the kernel. */
static void check_invariants(const treg_report *r, const treg_kernel_report *k)
{
    assert_int_equal(k->nrows, k->instructions);
    uint32_t peak_rows = 0, line_insns = 0;
    for (size_t i = 0; i < k->nrows; i++) {
        const treg_row *w = &k->rows[i];
        if (i) assert_true(w->address > k->rows[i - 1].address);
        if (!(w->flags & TREG_ROW_UNREACHABLE)) {
            assert_true(w->vgpr <= k->vgpr.peak_live);
            assert_true(w->agpr <= k->agpr.peak_live);
            assert_true(w->sgpr <= k->sgpr.peak_live);
        }
        if (w->flags & TREG_ROW_VGPR_PEAK) {
            peak_rows++;
            assert_int_equal(w->address, k->vgpr.peak_address);
            assert_int_equal(w->vgpr, k->vgpr.peak_live);
        }
        assert_true(w->loc.file < (int32_t)r->nfiles);
    }
    assert_int_equal(peak_rows, 1);
    for (size_t i = 0; i < k->nlines; i++) {
        line_insns += k->lines[i].instructions;
        assert_true(k->lines[i].peak_vgpr <= k->vgpr.peak_live);
        assert_true(k->lines[i].loc.line > 0);
        if (i) { /* sorted by (file, line), no duplicates */
            const treg_loc *a = &k->lines[i - 1].loc, *b = &k->lines[i].loc;
            assert_true(a->file < b->file || (a->file == b->file && a->line < b->line));
        }
    }
    assert_true(line_insns <= k->instructions);
    /* The peak's registers, attributed: every VGPR and AGPR once. */
    uint32_t v = 0, a = 0;
    for (size_t i = 0; i < k->nattribution; i++) {
        v += k->peak_attribution[i].vgpr;
        a += k->peak_attribution[i].agpr;
    }
    assert_int_equal(v, k->vgpr.peak_live);
    /* AGPRs occupied at the VGPR peak, not at the AGPR peak: at most that. */
    assert_true(a <= k->agpr.peak_live);
    for (size_t i = 0; i < k->nloops; i++) {
        assert_true(k->loops[i].depth >= 1);
        assert_true(k->loops[i].peak_vgpr <= k->vgpr.peak_live);
        assert_true(k->loops[i].head < k->loops[i].end);
    }
    assert_int_equal(k->undefined_reads, 0);
}

/* softmax from Triton's own IR: two source files, lines from both, the
 * peak in the kernel's file, its registers defined by kernel lines. */
static void test_triton_softmax(void **state)
{
    (void)state;
    loaded L = analyze("triton/softmax_kernel/softmax_kernel.hsaco",
                       "triton/softmax_kernel/softmax_kernel.json");
    const treg_report *r = L.r;
    const treg_kernel_report *k = kernel(r, "softmax_kernel");
    check_invariants(r, k);
    assert_int_equal(r->nfiles, 2);
    int kfile = -1, std = -1;
    for (size_t i = 0; i < r->nfiles; i++) {
        if (ends_with(r->files[i], "/workspace/kernels/kernels_a.py")) kfile = (int)i;
        if (ends_with(r->files[i], "triton/language/standard.py")) std = (int)i;
    }
    assert_true(kfile >= 0 && std >= 0);
    bool line_17 = false;
    for (size_t i = 0; i < k->nlines; i++) {
        /* per-line figures are the author's lines: tl.max's body is line 18's */
        assert_int_equal(k->lines[i].loc.file, kfile);
        /* kernels_a.py:17 is softmax's masked load */
        line_17 |= k->lines[i].loc.line == 17;
    }
    assert_true(line_17);
    /* Rows inside standard.py are tl.max's (line 18) and tl.sum's (line 20). */
    unsigned in_std = 0;
    for (size_t i = 0; i < k->nrows; i++) {
        const treg_row *w = &k->rows[i];
        if (w->loc.file != std || !w->loc.line) continue;
        in_std++;
        assert_int_equal(w->call_site.file, kfile);
        assert_true(w->call_site.line == 18 || w->call_site.line == 20);
        assert_true(w->scope >= 0 && (size_t)w->scope < r->ninline_calls);
    }
    assert_true(in_std > 0);
    /* The row's maximum, read back from LDS by every lane, is one value
     * for the wave held in a VGPR: uniform at the peak. */
    assert_true(k->npeak_uniform > 0);
    assert_int_equal(k->workgroup_size, 512); /* num_warps 8 x 64 */
    assert_int_equal(k->occupancy.waves_per_simd, 8);
    release(&L);
}

/* Nested loops: two loops, the inner at depth 2 inside the outer. */
static void test_loops(void **state)
{
    (void)state;
    const char *archs[] = {"gfx906", "gfx90a", "gfx942"};
    for (int i = 0; i < 3; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "%s/loop_kernel.hsaco", archs[i]);
        loaded L = analyze(rel, NULL);
        const treg_kernel_report *k = kernel(L.r, "loop_kernel");
        check_invariants(L.r, k);
        uint16_t max_depth = 0;
        for (size_t j = 0; j < k->nloops; j++)
            if (k->loops[j].depth > max_depth) max_depth = k->loops[j].depth;
        assert_true(k->nloops >= 2);
        assert_int_equal(max_depth, 2);
        /* Every loop covers lines of the source's loops (8..22). */
        for (size_t j = 0; j < k->nloops; j++) {
            assert_true(k->loops[j].first_line >= 7);
            assert_true(k->loops[j].last_line <= 23);
        }
        bool deep_row = false;
        for (size_t j = 0; j < k->nrows; j++) deep_row |= k->rows[j].loop_depth == 2;
        assert_true(deep_row);
        release(&L);
    }
}

/* A forced spill: scratch stores and loads, each on a source line, counted
 * in the kernel and per line. */
static void test_spills(void **state)
{
    (void)state;
    const char *archs[] = {"gfx906", "gfx90a", "gfx942"};
    for (int i = 0; i < 3; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "%s/spill_kernel.hsaco", archs[i]);
        loaded L = analyze(rel, NULL);
        const treg_kernel_report *k = kernel(L.r, "spill_kernel");
        check_invariants(L.r, k);
        assert_true(k->scratch_bytes > 0);
        assert_true(k->spill_instructions > 0);
        assert_int_equal(k->nspills, k->spill_instructions);
        uint32_t stores = 0, loads = 0, per_line = 0;
        for (size_t j = 0; j < k->nspills; j++) {
            stores += k->spills[j].kind == TREG_SPILL_SCRATCH_STORE;
            loads += k->spills[j].kind == TREG_SPILL_SCRATCH_LOAD;
        }
        assert_true(stores > 0 && loads > 0);
        for (size_t j = 0; j < k->nlines; j++) per_line += k->lines[j].spills + k->lines[j].reloads;
        assert_true(per_line > 0 && per_line <= k->spill_instructions);
        printf("%s spill_kernel: %u spill instructions (%u stores, %u loads), %u on source lines\n",
               archs[i], k->spill_instructions, stores, loads, per_line);
        release(&L);
    }
}

/* Device-function calls are counted; the kernel without DWARF still gets
 * a full report, with no source lines. */
static void test_calls_and_no_dwarf(void **state)
{
    (void)state;
    loaded L = analyze("gfx90a/call_kernel.hsaco", NULL);
    assert_int_equal(kernel(L.r, "call_kernel")->calls, 2);
    release(&L);

    loaded N = analyze("gfx90a/nodebug_kernel.hsaco", NULL);
    const treg_kernel_report *k = kernel(N.r, "nodebug_kernel");
    assert_int_equal(N.r->nfiles, 0);
    assert_int_equal(k->nlines, 0);
    assert_true(k->vgpr.peak_live > 0);
    assert_int_equal(k->vgpr.peak_loc.file, -1);
    check_invariants(N.r, k);
    release(&N);
}

/* MFMA accumulators in AGPRs: AGPRs live, and the copies that initialise
 * or read them are not spills. */
static void test_mfma_agprs(void **state)
{
    (void)state;
    loaded L = analyze("gfx942/mfma_kernel.hsaco", NULL);
    const treg_kernel_report *k = kernel(L.r, "mfma_kernel");
    check_invariants(L.r, k);
    assert_int_equal(k->agpr.allocated, 32);
    assert_true(k->agpr.peak_live > 0 && k->agpr.peak_live <= 32);
    assert_int_equal(k->spill_instructions, 0);
    release(&L);
}

/* Triton allocates its shared memory at launch (.json "shared"): more
 * than a work-group may have and the kernel cannot launch at all; the
 * static figure (the compiler's "; Occupancy:") is untouched. */
static void test_launch_lds(void **state)
{
    (void)state;
    loaded L = analyze_with_json("gfx942/mfma_kernel.hsaco",
                                 "{\"name\": \"mfma_kernel\", \"arch\": \"gfx942\", "
                                 "\"num_warps\": 4, \"warp_size\": 64, \"shared\": 98304}");
    const treg_kernel_report *k = kernel(L.r, "mfma_kernel");
    assert_int_equal(k->dynamic_lds_bytes, 98304);
    assert_int_equal(k->occupancy.launch_lds_bytes, k->lds_bytes + 98304);
    assert_int_equal(k->occupancy.lds_limit_bytes, 65536);
    assert_int_equal(k->occupancy.launch_waves_per_simd, 0);
    assert_string_equal(k->occupancy.launch_limited_by, "lds");
    assert_true(k->occupancy.waves_per_simd > 0);
    char *text = summary_text(L.r);
    assert_non_null(strstr(text, "cannot launch: needs 98304 B of LDS, the target has 65536"));
    assert_non_null(strstr(text, "LDS 98304 B (0 B static, 98304 B dynamic)"));
    assert_null(strstr(text, "at launch"));
    free(text);
    release(&L);

    /* All of it is allowed: 64 KiB launches, LDS-bound. */
    loaded M =
        analyze_with_json("gfx942/mfma_kernel.hsaco",
                          "{\"name\": \"mfma_kernel\", \"num_warps\": 4, \"shared\": 65536}");
    k = kernel(M.r, "mfma_kernel");
    assert_int_equal(k->occupancy.launch_waves_per_simd, 1);
    assert_string_equal(k->occupancy.launch_limited_by, "lds");
    text = summary_text(M.r);
    assert_null(strstr(text, "cannot launch"));
    free(text);
    release(&M);

    /* A size no launch can have is an error naming it, not a wrapped sum. */
    const char *bad[] = {"{\"name\": \"mfma_kernel\", \"shared\": -1}",
                         "{\"name\": \"mfma_kernel\", \"shared\": 4294967296}"};
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/gfx942/mfma_kernel.hsaco", TREG_FIXTURES);
    uint8_t *bytes = tu_read_file(path, &len);
    assert_non_null(bytes);
    for (size_t i = 0; i < 2; i++) {
        treg_options opt = {.triton_json = bad[i], .triton_json_len = strlen(bad[i])};
        treg_report *r = NULL;
        treg_error err = {0, ""};
        assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), TREG_E_METADATA);
        assert_null(r);
        assert_non_null(strstr(err.msg, "\"shared\""));
    }
    free(bytes);
}

/* A relocatable device object (clang -save-temps) reports exactly what its
 * linked code object does: same rows, same source lines (its DWARF needs
 * relocations applied). */
static void test_relocatable_equals_linked(void **state)
{
    (void)state;
    const char *archs[] = {"gfx906", "gfx90a", "gfx942"};
    for (int i = 0; i < 3; i++) {
        char rel[256], lnk[256];
        snprintf(rel, sizeof rel, "%s/loop_kernel.o", archs[i]);
        snprintf(lnk, sizeof lnk, "%s/loop_kernel.hsaco", archs[i]);
        loaded R = analyze(rel, NULL), L = analyze(lnk, NULL);
        const treg_kernel_report *a = kernel(R.r, "loop_kernel"), *b = kernel(L.r, "loop_kernel");
        assert_int_equal(R.r->nfiles, L.r->nfiles);
        assert_string_equal(R.r->files[0], L.r->files[0]);
        assert_int_equal(a->nrows, b->nrows);
        assert_int_equal(a->nlines, b->nlines);
        for (size_t j = 0; j < a->nrows; j++) {
            assert_string_equal(a->rows[j].text, b->rows[j].text);
            assert_int_equal(a->rows[j].loc.line, b->rows[j].loc.line);
            assert_int_equal(a->rows[j].vgpr, b->rows[j].vgpr);
        }
        assert_true(a->nlines > 3);
        release(&R);
        release(&L);
    }
}

/* --kernel filtering and its error. */
static void test_kernel_regex(void **state)
{
    (void)state;
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/gfx90a/loop_kernel.hsaco", TREG_FIXTURES);
    uint8_t *bytes = tu_read_file(path, &len);
    assert_non_null(bytes);
    treg_report *r;
    treg_error err = {0, ""};
    treg_options opt = {.kernel_regex = "^loop_"};
    assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), TREG_OK);
    assert_int_equal(r->nkernels, 1);
    assert_null(r->kernels[0].rows); /* keep_rows 0 */
    treg_report_free(r);
    opt.kernel_regex = "^nothing$";
    assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), TREG_E_NOKERNEL);
    assert_non_null(strstr(err.msg, "nothing"));
    opt.kernel_regex = "(";
    assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), TREG_E_ARG);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triton_softmax), cmocka_unit_test(test_loops),
        cmocka_unit_test(test_spills),         cmocka_unit_test(test_calls_and_no_dwarf),
        cmocka_unit_test(test_mfma_agprs),     cmocka_unit_test(test_launch_lds),
        cmocka_unit_test(test_kernel_regex),   cmocka_unit_test(test_relocatable_equals_linked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
