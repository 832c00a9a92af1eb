/* The TTGIR reader (load/ttgir) and the categories of the peak's registers
 * (metrics/categories), on the real Triton cache entries in tests/data:
 * the ops and locations the .ttgir says, the matmul's accumulator equal to
 * its tile arithmetic, every vector register at the peak in one category,
 * the same kernel without its .ttgir (machine code alone, said so) and
 * with a broken one (said so, never a failure); bad TTGIR text refused
 * with its line; a loop of location aliases that ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/ttgir.h"
#include "testutil.h"
#include "treg/analyzer.h"

#define DATA    TREG_SOURCE_ROOT "/tests/data/triton-cache"
#define MATMUL  DATA "/SUJBNLZWAZC7NO5J3T3LVKCKXAD3AMYKJH7URV2PQVD7HF6A6K6A/matmul_kernel"
#define ATTN    DATA "/LZJ667C7JP62SNK5JTV3O4L5MEBAWSBVUKRGI5OMGRI3GP2VHRMQ/attn_fwd"
#define SOFTMAX DATA "/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA/softmax_kernel"

static char *read_text(const char *stem, const char *ext, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", stem, ext);
    char *t = (char *)tu_read_file(path, len);
    if (!t) fail_msg("cannot read %s", path);
    return t;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const treg_ttgir_frame *frame(const treg_ttgir *t, const treg_ttgir_op *op, uint32_t k)
{
    assert_true(k < op->nframes);
    return &t->frames[op->first_frame + k];
}

/* The matmul's TTGIR: 4 warps of 64, one tt.dot of 128x128xf32 in the
 * #mma layout at kernels_a.py:76:29, two local_loads as dot operands. */
static void test_ttgir_matmul(void **state)
{
    (void)state;
    size_t len;
    char *text = read_text(MATMUL, ".ttgir", &len);
    treg_arena a;
    treg_arena_init(&a);
    treg_ttgir t;
    treg_error err = {0, ""};
    assert_int_equal(treg_ttgir_parse(&a, text, len, "matmul_kernel.ttgir", &t, &err), TREG_OK);
    assert_int_equal(t.num_warps, 4);
    assert_int_equal(t.threads_per_warp, 64);
    unsigned dots = 0, dot_operands = 0;
    for (size_t i = 0; i < t.nops; i++) {
        const treg_ttgir_op *op = &t.ops[i];
        if (strcmp(op->name, "tt.dot") == 0) {
            dots++;
            assert_int_equal(op->type.ndims, 2);
            assert_int_equal(op->type.dims[0], 128);
            assert_int_equal(op->type.dims[1], 128);
            assert_string_equal(op->type.elem, "f32");
            assert_true(op->type.mma_layout);
            const treg_ttgir_frame *f = frame(&t, op, 0);
            assert_true(ends_with(f->file, "/kernels_a.py"));
            assert_int_equal(f->line, 76);
            assert_int_equal(f->column, 29);
            assert_true(op->region >= 0);
            assert_string_equal(t.ops[op->region].name, "scf.for");
        }
        if (strcmp(op->name, "ttg.local_load") == 0) dot_operands += op->type.dot_operand;
        if (strcmp(op->name, "tt.load") == 0) {
            assert_string_equal(op->type.elem, "ptr");
            assert_string_equal(op->type.pointee, "f16");
        }
    }
    assert_int_equal(dots, 1);
    assert_int_equal(dot_operands, 2);
    assert_int_equal(treg_ttgir_elem_bytes("f32"), 4);
    assert_int_equal(treg_ttgir_elem_bytes("bf16"), 2);
    assert_int_equal(treg_ttgir_elem_bytes("f8E4M3FN"), 1);
    assert_int_equal(treg_ttgir_elem_bytes("ptr"), 8);
    assert_int_equal(treg_ttgir_elem_bytes("memdesc"), 0);
    treg_arena_free(&a);
    free(text);
}

/* softmax's tt.reduce: its location is tl.max's line in standard.py called
 * at kernels_a.py:18:19, and its combine region's op is inside it. */
static void test_ttgir_call_sites(void **state)
{
    (void)state;
    size_t len;
    char *text = read_text(SOFTMAX, ".ttgir", &len);
    treg_arena a;
    treg_arena_init(&a);
    treg_ttgir t;
    treg_error err = {0, ""};
    assert_int_equal(treg_ttgir_parse(&a, text, len, "softmax_kernel.ttgir", &t, &err), TREG_OK);
    assert_int_equal(t.num_warps, 8);
    int32_t reduce = -1;
    for (size_t i = 0; i < t.nops && reduce < 0; i++)
        if (strcmp(t.ops[i].name, "tt.reduce") == 0) reduce = (int32_t)i;
    assert_true(reduce >= 0);
    const treg_ttgir_op *op = &t.ops[reduce];
    assert_int_equal(op->nframes, 2);
    assert_true(ends_with(frame(&t, op, 0)->file, "triton/language/standard.py"));
    assert_int_equal(frame(&t, op, 0)->line, 191);
    assert_true(ends_with(frame(&t, op, 1)->file, "/kernels_a.py"));
    assert_int_equal(frame(&t, op, 1)->line, 18);
    assert_int_equal(frame(&t, op, 1)->column, 19);
    /* arith.maxnumf inside the region, three frames deep */
    bool inner = false;
    for (size_t i = 0; i < t.nops; i++)
        if (t.ops[i].region == reduce && strcmp(t.ops[i].name, "arith.maxnumf") == 0) {
            inner = true;
            assert_int_equal(t.ops[i].nframes, 3);
            assert_int_equal(frame(&t, &t.ops[i], 0)->line, 170);
        }
    assert_true(inner);
    treg_arena_free(&a);
    free(text);
}

/* Bad text: one error naming the line; a loop of aliases ends. */
static void test_ttgir_bad(void **state)
{
    (void)state;
    treg_arena a;
    treg_arena_init(&a);
    treg_ttgir t;
    treg_error err = {0, ""};
    static const char extra[] = "module {\n  tt.return loc(#loc)\n}\n}\n";
    assert_int_equal(treg_ttgir_parse(&a, extra, strlen(extra), "x.ttgir", &t, &err),
                     TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "x.ttgir:4"));
    static const char open[] = "module {\n  tt.func @k() {\n    tt.return loc(#loc)\n";
    assert_int_equal(treg_ttgir_parse(&a, open, strlen(open), "x.ttgir", &t, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "truncated"));
    static const char prose[] = "hello, world\n";
    assert_int_equal(treg_ttgir_parse(&a, prose, strlen(prose), "x.ttgir", &t, &err),
                     TREG_E_FORMAT);
    assert_int_equal(treg_ttgir_parse(&a, "", 0, "x.ttgir", &t, &err), TREG_E_FORMAT);
    /* the size is checked before a byte is read */
    assert_int_equal(
        treg_ttgir_parse(&a, prose, (size_t)TREG_TTGIR_MAX_BYTES + 1, "x.ttgir", &t, &err),
        TREG_E_LIMIT);
    /* fuzz_ttgir's find: a loc( before the op's name (the type span ran
     * backwards, ASan saw the read past the text) */
    static const char early_loc[] = "module {\n  %b loc(#loc1), %B = tt.addptr %a, %c : i32\n}\n";
    assert_int_equal(treg_ttgir_parse(&a, early_loc, strlen(early_loc), "x.ttgir", &t, &err),
                     TREG_OK);
    assert_int_equal(t.nops, 1);
    assert_string_equal(t.ops[0].name, "tt.addptr");
    static const char loop[] = "#loc1 = loc(#loc2)\n#loc2 = loc(callsite(#loc1 at #loc3))\n"
                               "#loc3 = loc(\"k.py\":3:4)\n"
                               "module {\n  %0 = arith.addi %a, %b : i32 loc(#loc1)\n}\n";
    assert_int_equal(treg_ttgir_parse(&a, loop, strlen(loop), "x.ttgir", &t, &err), TREG_OK);
    assert_int_equal(t.nops, 1);
    assert_string_equal(t.ops[0].name, "arith.addi");
    assert_string_equal(t.ops[0].type.elem, "i32");
    treg_arena_free(&a);
}

typedef struct analysis {
    uint8_t *bytes;
    size_t len;
    char *json, *ttgir;
    size_t json_len, ttgir_len;
    treg_report *r;
} analysis;

/* stem's .hsaco with its .json, and ttgir (NULL: none; "-": its own
 * .ttgir), each stage allowed budget instructions (0: the default). */
static analysis analyze_within(const char *stem, const char *ttgir, uint64_t budget)
{
    analysis x = {0};
    char path[512];
    snprintf(path, sizeof path, "%s.hsaco", stem);
    x.bytes = tu_read_file(path, &x.len);
    if (!x.bytes) fail_msg("cannot read %s", path);
    x.json = read_text(stem, ".json", &x.json_len);
    treg_options opt = {.triton_json = x.json, .triton_json_len = x.json_len, .keep_rows = 1};
    if (ttgir && strcmp(ttgir, "-") == 0) {
        x.ttgir = read_text(stem, ".ttgir", &x.ttgir_len);
        opt.ttgir = x.ttgir;
        opt.ttgir_len = x.ttgir_len;
    } else if (ttgir) {
        opt.ttgir = ttgir;
        opt.ttgir_len = strlen(ttgir);
    }
    opt.ttgir_name = "k.ttgir";
    opt.work_budget = budget;
    treg_error err = {0, ""};
    if (treg_analyze(x.bytes, x.len, &opt, &x.r, &err) != TREG_OK) fail_msg("%s", err.msg);
    return x;
}

static analysis analyze(const char *stem, const char *ttgir)
{
    return analyze_within(stem, ttgir, 0);
}

static void release(analysis *x)
{
    treg_report_free(x->r);
    free(x->bytes);
    free(x->json);
    free(x->ttgir);
}

/* Every vector register at the peak is in exactly one category. */
static void check_cover(const treg_kernel_report *k)
{
    const treg_row *peak = NULL;
    for (size_t i = 0; i < k->nrows && !peak; i++)
        if (k->rows[i].flags & TREG_ROW_VGPR_PEAK) peak = &k->rows[i];
    assert_non_null(peak);
    unsigned v = 0, a = 0, u = 0;
    for (size_t i = 0; i < k->ncategories; i++) {
        const treg_category *c = &k->categories[i];
        unsigned pv = 0, pa = 0;
        for (size_t j = 0; j < c->nparts; j++) pv += c->parts[j].vgpr, pa += c->parts[j].agpr;
        assert_int_equal(pv, c->vgpr);
        assert_int_equal(pa, c->agpr);
        if (i)
            assert_true(c->vgpr + c->agpr <= k->categories[i - 1].vgpr + k->categories[i - 1].agpr);
        v += c->vgpr, a += c->agpr, u += c->uniform;
    }
    assert_int_equal(v, peak->vgpr);
    assert_int_equal(a, peak->agpr);
    assert_int_equal(u, k->npeak_uniform);
}

static const treg_category *category(const treg_kernel_report *k, int kind)
{
    for (size_t i = 0; i < k->ncategories; i++)
        if (k->categories[i].kind == kind) return &k->categories[i];
    return NULL;
}

/* 128 x 128 fp32 over 4 warps of 64 lanes: 64 registers a lane, all of
 * them the accumulator at the peak; the operands from LDS, the loads. */
static void test_matmul_accumulator(void **state)
{
    (void)state;
    analysis x = analyze(MATMUL, "-");
    const treg_kernel_report *k = &x.r->kernels[0];
    assert_string_equal(k->categories_source, "ttgir");
    assert_null(k->categories_note);
    check_cover(k);
    const treg_category *acc = category(k, TREG_CAT_ACCUMULATOR);
    assert_non_null(acc);
    assert_int_equal(acc->nparts, 1);
    assert_string_equal(acc->parts[0].op, "tt.dot");
    assert_string_equal(acc->parts[0].shape, "128x128xf32");
    assert_int_equal(acc->parts[0].tile_registers, 128 * 128 * 4 / (64 * 4 * 4));
    assert_int_equal(acc->parts[0].vgpr + acc->parts[0].agpr, acc->parts[0].tile_registers);
    assert_int_equal(acc->parts[0].loc.line, 76);
    assert_non_null(acc->hint);
    assert_non_null(strstr(acc->hint, "64 registers a lane"));
    const treg_category *lds = category(k, TREG_CAT_LDS);
    assert_non_null(lds);
    assert_string_equal(lds->parts[0].op, "ttg.local_load");
    assert_true(lds->parts[0].dot_operand);
    assert_non_null(category(k, TREG_CAT_LOADED));
    /* the loop carries the accumulator round */
    assert_int_equal(k->nloops, 1);
    assert_int_equal(k->loops[0].live_across[TREG_CAT_ACCUMULATOR], 64);
    release(&x);
}

/* Without the .ttgir: the machine code alone (the MFMA destinations are
 * still the accumulator), and the report says so; a broken .ttgir is the
 * same, and the note names the fault. */
static void test_without_ttgir(void **state)
{
    (void)state;
    analysis x = analyze(MATMUL, NULL);
    const treg_kernel_report *k = &x.r->kernels[0];
    assert_string_equal(k->categories_source, "machine code");
    assert_non_null(strstr(k->categories_note, "no .ttgir"));
    check_cover(k);
    const treg_category *acc = category(k, TREG_CAT_ACCUMULATOR);
    assert_non_null(acc);
    assert_int_equal(acc->agpr, 64);
    assert_string_equal(acc->parts[0].op, "v_mfma");
    release(&x);

    x = analyze(MATMUL, "module {\n}\n}\n");
    k = &x.r->kernels[0];
    assert_string_equal(k->categories_source, "machine code");
    assert_non_null(strstr(k->categories_note, "k.ttgir:3"));
    check_cover(k);
    release(&x);
}

/* softmax: the row's maximum, shared through LDS, is one value for the
 * wave held in VGPRs; the reduction is tl.max's at the author's line. */
static void test_softmax_uniform(void **state)
{
    (void)state;
    analysis x = analyze(SOFTMAX, "-");
    const treg_kernel_report *k = &x.r->kernels[0];
    check_cover(k);
    assert_true(k->npeak_uniform >= 1);
    const treg_category *red = category(k, TREG_CAT_REDUCTION);
    assert_non_null(red);
    assert_string_equal(red->parts[0].op, "tt.reduce");
    assert_int_equal(red->parts[0].loc.line, 18);
    assert_true(red->uniform >= 1);
    release(&x);
}

/* attn_fwd spills inside its loop: every spill there weighs the loop's
 * assumed trips, so the cost is more than the count. */
static void test_attn_spill_cost(void **state)
{
    (void)state;
    analysis x = analyze(ATTN, "-");
    const treg_kernel_report *k = &x.r->kernels[0];
    check_cover(k);
    assert_int_equal(k->spill_instructions, 254);
    assert_true(k->spill_cost > k->spill_instructions);
    assert_int_equal(k->nloops, 1);
    assert_int_equal(k->loops[0].trip_count, 0);
    assert_true(k->loops[0].spill_cost > 0);
    uint64_t in_loop = 0, outside = 0;
    for (size_t i = 0; i < k->nspills; i++) {
        if (k->spills[i].weight == k->assumed_trips)
            in_loop += k->spills[i].weight;
        else
            outside += k->spills[i].weight;
    }
    assert_int_equal(in_loop, k->loops[0].spill_cost);
    assert_int_equal(in_loop + outside, k->spill_cost);
    release(&x);
}

/* A work budget stops the analysis where it runs out and the note says
 * so: no register is ever counted in a category it was not followed to.
 * Budgets doubling from 1 classify more and more of the matmul's peak,
 * some only part of it, until one covers it all with no note. */
static void test_work_budget(void **state)
{
    (void)state;
    unsigned last = 0, partial = 0;
    bool attribution_cut = false;
    for (uint64_t budget = 1;; budget *= 2) {
        assert_true(budget < (1u << 30));
        analysis x = analyze_within(MATMUL, "-", budget);
        const treg_kernel_report *k = &x.r->kernels[0];
        const char *note = k->categories_note;
        if (!note) {
            check_cover(k);
            release(&x);
            break;
        }
        assert_non_null(strstr(note, "work budget"));
        attribution_cut |= strstr(note, "the peak's lines are partial") != NULL;
        unsigned regs = 0, peak = 0;
        for (size_t i = 0; i < k->ncategories; i++)
            regs += k->categories[i].vgpr + k->categories[i].agpr;
        for (size_t i = 0; i < k->nrows; i++)
            if (k->rows[i].flags & TREG_ROW_VGPR_PEAK) peak = k->rows[i].vgpr + k->rows[i].agpr;
        assert_true(regs >= last);
        if (regs < peak) {
            assert_non_null(strstr(note, "of the peak's"));
            partial += regs > 0;
        }
        last = regs;
        release(&x);
    }
    assert_true(attribution_cut);
    assert_true(partial > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ttgir_matmul),    cmocka_unit_test(test_ttgir_call_sites),
        cmocka_unit_test(test_ttgir_bad),       cmocka_unit_test(test_matmul_accumulator),
        cmocka_unit_test(test_without_ttgir),   cmocka_unit_test(test_softmax_uniform),
        cmocka_unit_test(test_attn_spill_cost), cmocka_unit_test(test_work_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
