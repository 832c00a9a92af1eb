/* Inlined calls and call sites (load/inlines, metrics/callsite): DWARF's
 * inlined subroutines of the inline_kernel fixture (clang-22 -g with
 * always_inline helpers from a stand-in "triton/language/lib.h") against
 * the markers in its sources, the same calls from its assembly text's
 * "@[ file:line:col ]" comments, the author's line through the whole
 * pipeline, the painting of hostile ranges, and which paths are Triton's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/inlines.h"
#include "load/lines.h"
#include "metrics/callsite.h"
#include "testutil.h"
#include "text/asm.h"
#include "treg/analyzer.h"

#define SRC TREG_SOURCE_ROOT "/tests/fixtures/src"

/* The line of path that holds marker (from 1); fails the test when none. */
static unsigned marker_line(const char *path, const char *marker)
{
    size_t len;
    char *text = (char *)tu_read_file(path, &len);
    assert_non_null(text);
    unsigned line = 1, found = 0;
    for (size_t i = 0; i < len && !found; i++) {
        if (text[i] == '\n') line++;
        if (len - i >= strlen(marker) && memcmp(text + i, marker, strlen(marker)) == 0)
            found = line;
    }
    free(text);
    if (!found) fail_msg("no %s in %s", marker, path);
    return found;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *file_of(const treg_linetab *t, int32_t f)
{
    return f >= 0 && (size_t)f < t->nfiles ? t->files[f] : "";
}

typedef struct loaded {
    treg_arena arena;
    uint8_t *bytes;
    size_t len;
    treg_linetab lines;
} loaded;

static void load(loaded *L, const char *arch)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/inline_kernel.hsaco", TREG_FIXTURES, arch);
    L->bytes = tu_read_file(path, &L->len);
    if (!L->bytes) fail_msg("fixture %s missing", path);
    treg_arena_init(&L->arena);
    treg_error err = {0, ""};
    assert_int_equal(treg_lines_load(&L->arena, L->bytes, L->len, &L->lines, &err), TREG_OK);
    assert_null(L->lines.inlines_note);
}

static void unload(loaded *L)
{
    treg_arena_free(&L->arena);
    free(L->bytes);
}

/* The calls are the ones the source marks: lib_max4 at CALL-MAX, its three
 * lib_max2 calls on the LIB-MAX4 line inside it, lib_sum_sq at CALL-SUMSQ;
 * every address of a LIB-MAX2 row sits two calls deep, under CALL-MAX. */
static void test_dwarf_calls(void **state)
{
    (void)state;
    unsigned call_max = marker_line(SRC "/inline_kernel.hip", "CALL-MAX");
    unsigned call_sumsq = marker_line(SRC "/inline_kernel.hip", "CALL-SUMSQ");
    unsigned lib_max4 = marker_line(SRC "/triton/language/lib.h", "LIB-MAX4");
    unsigned lib_max2 = marker_line(SRC "/triton/language/lib.h", "LIB-MAX2");
    static const char *const archs[] = {"gfx906", "gfx90a", "gfx942"};
    for (size_t a = 0; a < 3; a++) {
        loaded L;
        load(&L, archs[a]);
        const treg_inlines *in = &L.lines.inlines;
        assert_true(in->ncalls >= 3);
        int32_t max_call = -1, sumsq_call = -1;
        unsigned nested = 0;
        for (size_t i = 0; i < in->ncalls; i++) {
            const treg_inline_call *c = &in->calls[i];
            assert_true(c->parent < (int32_t)i); /* parents first */
            if (c->parent < 0 && c->line == call_max &&
                ends_with(file_of(&L.lines, c->file), "/inline_kernel.hip"))
                max_call = (int32_t)i;
            if (c->parent < 0 && c->line == call_sumsq) sumsq_call = (int32_t)i;
        }
        assert_true(max_call >= 0 && sumsq_call >= 0);
        for (size_t i = 0; i < in->ncalls; i++)
            if (in->calls[i].parent == max_call) {
                assert_int_equal(in->calls[i].line, lib_max4);
                assert_true(ends_with(file_of(&L.lines, in->calls[i].file), "/lib.h"));
                nested++;
            }
        assert_true(nested >= 1);
        /* ranges: sorted, disjoint, naming real calls */
        for (size_t r = 0; r < in->nranges; r++) {
            assert_true(in->ranges[r].lo < in->ranges[r].hi);
            assert_true(in->ranges[r].scope >= 0 && (size_t)in->ranges[r].scope < in->ncalls);
            if (r) assert_true(in->ranges[r - 1].hi <= in->ranges[r].lo);
        }
        uint8_t *lib = treg_library_files(&L.arena, &L.lines);
        assert_non_null(lib);
        unsigned seen = 0;
        for (size_t i = 0; i < L.lines.nrows; i++) {
            const treg_line_row *row = &L.lines.rows[i];
            if (row->end_sequence || row->line != lib_max2 ||
                !ends_with(file_of(&L.lines, row->file), "/lib.h"))
                continue;
            seen++;
            int32_t s = treg_inlines_scope(in, row->addr);
            assert_true(s >= 0);
            assert_int_equal(in->calls[s].line, lib_max4);
            assert_int_equal(in->calls[s].parent, max_call);
            treg_loc inner = {row->file, row->line, row->column};
            treg_loc site = treg_call_site(&L.lines, lib, inner, s);
            assert_int_equal(site.line, call_max);
            assert_true(ends_with(file_of(&L.lines, site.file), "/inline_kernel.hip"));
        }
        assert_true(seen > 0);
        unload(&L);
    }
}

/* The .s made by the same llc-22 run names the same calls in its comments:
 * the text front end's table equals DWARF's, call for call (the canonical
 * order), and every instruction lies in the same call. */
static void test_text_calls_equal_dwarf(void **state)
{
    (void)state;
    loaded L;
    load(&L, "gfx90a");
    char path[512];
    snprintf(path, sizeof path, "%s/gfx90a/inline_kernel.s", TREG_FIXTURES);
    size_t len;
    char *text = (char *)tu_read_file(path, &len);
    assert_non_null(text);
    treg_asm as;
    treg_error err = {0, ""};
    assert_int_equal(treg_asm_parse(&L.arena, text, len, "inline_kernel.s", &as, &err), TREG_OK);
    const treg_inlines *d = &L.lines.inlines, *t = &as.lines.inlines;
    assert_int_equal(t->ncalls, d->ncalls);
    for (size_t i = 0; i < d->ncalls; i++) {
        assert_string_equal(file_of(&as.lines, t->calls[i].file),
                            file_of(&L.lines, d->calls[i].file));
        assert_int_equal(t->calls[i].line, d->calls[i].line);
        assert_int_equal(t->calls[i].column, d->calls[i].column);
        assert_int_equal(t->calls[i].parent, d->calls[i].parent);
    }
    /* The code object's kernel starts where its symbol says; the text's at 0. */
    treg_codeobj co;
    assert_int_equal(treg_codeobj_load(&L.arena, L.bytes, L.len, &co, &err), TREG_OK);
    assert_int_equal(co.nkernels, 1);
    uint64_t base = co.kernels[0].addr, tstart;
    const treg_asm_kernel *tk = treg_asm_kernel_named(&as, "inline_kernel", &tstart);
    assert_non_null(tk);
    for (size_t i = 0; i < tk->ninsns; i++) {
        uint64_t off = tk->insns[i].addr - tstart;
        assert_int_equal(treg_inlines_scope(t, tk->insns[i].addr),
                         treg_inlines_scope(d, base + off));
    }
    free(text);
    unload(&L);
}

/* LLVM's comments as Triton's .amdgcn has them: base names, a line-0 .loc
 * without a chain between two rows of one call (inside it, as DWARF has
 * it), and one right after a row of another call (in neither). */
static void test_text_comment_forms(void **state)
{
    (void)state;
    static const char text[] =
        "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx90a\"\n"
        "\t.amdhsa_code_object_version 5\n"
        "\t.text\n\t.globl k\n\t.p2align 8\n\t.type k,@function\n"
        "\t.file 1 \"/workspace/kernels\" \"kernels_a.py\"\n"
        "\t.file 2 \"/opt/venv/lib/python3.12/site-packages/triton/language\" "
        "\"standard.py\"\n"
        "k:\n"
        "\t.loc 1 17 5 prologue_end ; kernels_a.py:17:5\n"
        "\ts_nop 0\n"
        "\t.loc 2 170 27 ; standard.py:170:27 @[ standard.py:191:40 @[ kernels_a.py:18:19 ] ]\n"
        "\ts_nop 0\n"
        "; %bb.1:\n"
        "\t.loc 2 0 27 is_stmt 0 ; standard.py:0:27\n"
        "\ts_nop 0\n"
        "\t.loc 2 191 40 ; standard.py:191:40 @[ kernels_a.py:18:19 ]\n"
        "\ts_nop 0\n"
        "\t.loc 2 293 36 ; standard.py:293:36 @[ kernels_a.py:20:17 ]\n"
        "\ts_nop 0\n"
        ".Ltmp3:\n"
        "\t.loc 2 0 36 ; standard.py:0:36\n"
        "\ts_nop 0\n"
        ".LBB0_2:\n"
        "\t.loc 2 0 36 ; standard.py:0:36\n"
        "\ts_nop 0\n"
        "\t.loc 1 21 1 ; kernels_a.py:21:1\n"
        "\ts_nop 0\n"
        "\t.loc 1 21 4 ; kernels_a.py:21:4\n"
        "\ts_endpgm\n"
        ".Lfunc_end0:\n\t.size k, .Lfunc_end0-k\n"
        "\t.rodata\n\t.p2align 6\n"
        "\t.amdhsa_kernel k\n"
        "\t\t.amdhsa_next_free_vgpr 32\n\t\t.amdhsa_next_free_sgpr 16\n"
        "\t.end_amdhsa_kernel\n";
    treg_arena a;
    treg_arena_init(&a);
    treg_asm as;
    treg_error err = {0, ""};
    assert_int_equal(treg_asm_parse(&a, text, strlen(text), "k.amdgcn", &as, &err), TREG_OK);
    const treg_inlines *in = &as.lines.inlines;
    /* kernels_a.py:18 and :20 at the top, standard.py:191 inside :18 */
    assert_int_equal(in->ncalls, 3);
    assert_true(ends_with(file_of(&as.lines, in->calls[0].file), "/kernels_a.py"));
    assert_int_equal(in->calls[0].line, 18);
    assert_int_equal(in->calls[0].column, 19);
    assert_int_equal(in->calls[1].line, 20);
    assert_int_equal(in->calls[2].line, 191);
    assert_int_equal(in->calls[2].parent, 0);
    assert_true(ends_with(file_of(&as.lines, in->calls[2].file), "/standard.py"));
    /* per s_nop / s_endpgm, 4 bytes each: a line 0 at the top of a block
     * lies in the deepest call the rows around it share, one after a label
     * inside a block in the call of the row before it */
    const int32_t want[] = {-1, 2, 0, 0, 1, 1, -1, -1, -1};
    uint8_t *lib = treg_library_files(&a, &as.lines);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(treg_inlines_scope(in, 4 * i), want[i]);
    /* the author's line of standard.py:170 is kernels_a.py:18 */
    treg_loc site = treg_call_site(&as.lines, lib, (treg_loc){1, 170, 27}, 2);
    assert_int_equal(site.line, 18);
    treg_arena_free(&a);
}

/* A frame's file is the declared one whose path ends in the frame's name
 * at a '/' (the earliest when several do); a name no .file declares is a
 * file of its own. */
static void test_text_comment_files(void **state)
{
    (void)state;
    static const char text[] =
        "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx90a\"\n"
        "\t.amdhsa_code_object_version 5\n"
        "\t.text\n\t.globl k\n\t.p2align 8\n\t.type k,@function\n"
        "\t.file 1 \"/w\" \"k.py\"\n"
        "\t.file 2 \"/b/other\" \"standard.py\"\n"
        "\t.file 3 \"/a/triton/language\" \"standard.py\"\n"
        "k:\n"
        "\t.loc 3 5 1 ; standard.py:5:1 @[ language/standard.py:7:2 @[ k.py:3:4 ] ]\n"
        "\ts_nop 0\n"
        "\t.loc 3 5 1 ; standard.py:5:1 @[ ther/standard.py:8:2 @[ k.py:3:4 ] ]\n"
        "\ts_nop 0\n"
        "\t.loc 1 9 1 ; k.py:9:1 @[ nowhere.py:11:2 ]\n"
        "\ts_nop 0\n"
        "\t.loc 1 9 1 ; k.py:9:1 @[ standard.py:12:2 ]\n"
        "\ts_endpgm\n"
        ".Lfunc_end0:\n\t.size k, .Lfunc_end0-k\n"
        "\t.rodata\n\t.p2align 6\n"
        "\t.amdhsa_kernel k\n"
        "\t\t.amdhsa_next_free_vgpr 32\n\t\t.amdhsa_next_free_sgpr 16\n"
        "\t.end_amdhsa_kernel\n";
    treg_arena a;
    treg_arena_init(&a);
    treg_asm as;
    treg_error err = {0, ""};
    assert_int_equal(treg_asm_parse(&a, text, strlen(text), "k.amdgcn", &as, &err), TREG_OK);
    const treg_inlines *in = &as.lines.inlines;
    /* k.py:3, language/standard.py:7 in it, ther/standard.py:8 in it,
     * nowhere.py:11, standard.py:12 (found by line: the order is the table's) */
    assert_int_equal(in->ncalls, 5);
    const treg_inline_call *by_line[13] = {0};
    for (size_t i = 0; i < in->ncalls; i++)
        if (in->calls[i].line < 13) by_line[in->calls[i].line] = &in->calls[i];
    const uint32_t lines[] = {3, 7, 8, 11, 12};
    const char *const files[] = {"/w/k.py", "/a/triton/language/standard.py",
                                 /* ends /b/other/standard.py, but not at a '/' */
                                 "ther/standard.py", "nowhere.py", "/b/other/standard.py"};
    for (size_t i = 0; i < 5; i++) {
        assert_non_null(by_line[lines[i]]);
        assert_string_equal(file_of(&as.lines, by_line[lines[i]]->file), files[i]);
    }
    const int32_t top = (int32_t)(by_line[3] - in->calls);
    assert_int_equal(by_line[7]->parent, top);
    assert_int_equal(by_line[8]->parent, top);
    assert_int_equal(by_line[11]->parent, -1);
    assert_int_equal(by_line[12]->parent, -1);
    treg_arena_free(&a);
}

/* The whole pipeline: rows inside lib.h carry the kernel's calling line as
 * their call site, and the per-line figures name the author's lines only. */
static void test_report_call_sites(void **state)
{
    (void)state;
    unsigned call_max = marker_line(SRC "/inline_kernel.hip", "CALL-MAX");
    unsigned call_sumsq = marker_line(SRC "/inline_kernel.hip", "CALL-SUMSQ");
    loaded L;
    load(&L, "gfx942");
    treg_options opt = {.keep_rows = 1};
    treg_report *r;
    treg_error err = {0, ""};
    assert_int_equal(treg_analyze(L.bytes, L.len, &opt, &r, &err), TREG_OK);
    assert_true(r->ninline_calls >= 3);
    const treg_kernel_report *k = &r->kernels[0];
    unsigned inlined = 0;
    for (size_t i = 0; i < k->nrows; i++) {
        const treg_row *w = &k->rows[i];
        if (w->loc.file < 0 || !ends_with(r->files[w->loc.file], "/lib.h")) continue;
        if (!w->loc.line) continue;
        inlined++;
        assert_true(w->scope >= 0);
        assert_true(w->call_site.line == call_max || w->call_site.line == call_sumsq);
        assert_true(ends_with(r->files[w->call_site.file], "/inline_kernel.hip"));
    }
    assert_true(inlined > 0);
    for (size_t i = 0; i < k->nlines; i++)
        assert_false(ends_with(r->files[k->lines[i].loc.file], "/lib.h"));
    unsigned v = 0;
    for (size_t i = 0; i < k->nattribution; i++) {
        const treg_attribution *at = &k->peak_attribution[i];
        v += at->vgpr;
        if (at->loc.file >= 0 && ends_with(r->files[at->loc.file], "/lib.h"))
            assert_true(ends_with(r->files[at->call_site.file], "/inline_kernel.hip"));
    }
    assert_int_equal(v, k->vgpr.peak_live);
    treg_report_free(r);
    unload(&L);
}

/* Ranges given in any order, nested or overlapping: the deepest call
 * covering an address wins (against a brute-force answer); parents after
 * their calls and overlaps past the work bound are refused. */
static void test_painting(void **state)
{
    (void)state;
    treg_arena a;
    treg_arena_init(&a);
    treg_inline_call calls[6] = {{0, 1, 0, -1}, {0, 2, 0, 0}, {0, 3, 0, 1},
                                 {0, 4, 0, -1}, {0, 5, 0, 3}, {0, 6, 0, 2}};
    const uint32_t depth[6] = {0, 1, 2, 0, 1, 3};
    srand(7);
    for (int round = 0; round < 200; round++) {
        uint64_t ranges[12][2];
        int32_t scope[12];
        size_t n = 1 + (size_t)(rand() % 12);
        for (size_t i = 0; i < n; i++) {
            ranges[i][0] = (uint64_t)(rand() % 64);
            ranges[i][1] = ranges[i][0] + (uint64_t)(rand() % 16);
            scope[i] = rand() % 6;
        }
        treg_inlines in = {calls, 6, NULL, 0};
        treg_error err = {0, ""};
        assert_int_equal(treg_inlines_index(&a, (const uint64_t(*)[2])ranges, scope, n, &in, &err),
                         TREG_OK);
        for (uint64_t x = 0; x < 96; x++) {
            int32_t best = -1;
            for (size_t i = 0; i < n; i++) /* deepest wins; equal depth: the later */
                if (ranges[i][0] <= x && x < ranges[i][1] &&
                    (best < 0 || depth[scope[i]] >= depth[best]))
                    best = scope[i];
            assert_int_equal(treg_inlines_scope(&in, x), best);
        }
    }
    treg_inline_call loop[2] = {{0, 1, 0, 1}, {0, 2, 0, 0}};
    uint64_t r1[1][2] = {{0, 4}};
    int32_t s1[1] = {0};
    treg_inlines bad = {loop, 2, NULL, 0};
    treg_error err = {0, ""};
    assert_int_equal(treg_inlines_index(&a, (const uint64_t(*)[2])r1, s1, 1, &bad, &err),
                     TREG_E_FORMAT);
    /* 8192 ranges each over 8192 segments: past the work bound */
    size_t n = 8192 + 1;
    uint64_t(*many)[2] = calloc(n, sizeof *many);
    int32_t *sc = calloc(n, sizeof *sc);
    assert_true(many && sc);
    for (size_t i = 0; i + 1 < n; i++) many[i][0] = i, many[i][1] = 16384 + i;
    many[n - 1][0] = 0, many[n - 1][1] = 1;
    treg_inlines flat = {calls, 6, NULL, 0};
    assert_int_equal(treg_inlines_index(&a, (const uint64_t(*)[2])many, sc, n, &flat, &err),
                     TREG_E_LIMIT);
    assert_non_null(strstr(err.msg, "overlap"));
    free(many);
    free(sc);
    treg_arena_free(&a);
}

static void test_library_paths(void **state)
{
    (void)state;
    assert_true(treg_is_library_path(
        "/opt/torch/.venv/lib/python3.12/site-packages/triton/language/standard.py"));
    assert_true(treg_is_library_path("/usr/lib/python3/dist-packages/triton/language/core.py"));
    assert_true(treg_is_library_path("/src/triton/python/triton/language/standard.py"));
    assert_false(treg_is_library_path("/workspace/kernels/kernels_a.py"));
    assert_false(
        treg_is_library_path("/home/me/triton/python/tutorials/03-matrix-multiplication.py"));
    assert_false(treg_is_library_path("/home/me/triton-kernels/attention.py"));
    assert_false(treg_is_library_path(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dwarf_calls),        cmocka_unit_test(test_text_calls_equal_dwarf),
        cmocka_unit_test(test_text_comment_forms), cmocka_unit_test(test_text_comment_files),
        cmocka_unit_test(test_report_call_sites),  cmocka_unit_test(test_painting),
        cmocka_unit_test(test_library_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
