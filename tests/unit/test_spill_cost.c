/* Spill cost (metrics/spill_cost): loop trip counts the code shows, on
 * hand-written loops in the forms LLVM writes them (counting up to a
 * constant, down to zero, by s_addk, to a bound in an SGPR set before the
 * loop), the loops that show none (a bound from a kernel argument, two
 * exits), instruction weights in nested loops, and the spill_kernel
 * fixture's report: every spill weighted, the totals adding up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics/provenance.h"
#include "metrics/spill_cost.h"
#include "program.h"
#include "testutil.h"
#include "treg/analyzer.h"

/* The trip counts of text's loops, in the CFG's loop order. */
static void trips_of(const char *const *text, size_t n, uint32_t *out, uint32_t nloops)
{
    program *p = tp_run(text, n);
    treg_error err = {0, ""};
    treg_prov *prov;
    assert_int_equal(treg_prov_new(&p->arena, &p->g, &p->lv, p->fx, p->insns, p->n, &prov, &err),
                     TREG_OK);
    uint32_t *trips;
    assert_int_equal(treg_loop_trips(&p->arena, &p->g, p->insns, p->fx, prov, &trips, &err),
                     TREG_OK);
    assert_int_equal(p->g.nloops, nloops);
    memcpy(out, trips, nloops * sizeof *out);
    tp_done(p);
}

static uint32_t one_loop(const char *const *text, size_t n)
{
    uint32_t t;
    trips_of(text, n, &t, 1);
    return t;
}

#define ONE_LOOP(text) one_loop(text, sizeof text / sizeof *text)

static void test_count_up(void **state)
{
    (void)state;
    static const char *const text[] = {
        "s_mov_b32 s4, 0",     "v_add_f32_e32 v1, v1, v0", /* header */
        "s_add_i32 s4, s4, 1", "s_cmp_lt_i32 s4, 8",       "s_cbranch_scc1 -4", "s_endpgm",
    };
    assert_int_equal(ONE_LOOP(text), 8);
}

/* LLVM's favourite: count down to zero, "continue while not equal". */
static void test_count_down(void **state)
{
    (void)state;
    static const char *const text[] = {
        "s_movk_i32 s5, 0x40", "v_add_f32_e32 v1, v1, v0", "s_add_i32 s5, s5, -1",
        "s_cmp_lg_u32 s5, 0",  "s_cbranch_scc1 -4",        "s_endpgm",
    };
    assert_int_equal(ONE_LOOP(text), 64);
}

/* The attention backward's form: step 16 until 64, compare after the
 * update; the exit branch taken when the compare fails (scc0 out). */
static void test_exit_branch(void **state)
{
    (void)state;
    static const char *const text[] = {
        "s_mov_b32 s26, 0",
        "v_add_f32_e32 v1, v1, v0",
        "s_add_i32 s26, s26, 16",
        "s_cmp_eq_u32 s26, 64",
        "s_cbranch_scc1 1",
        "s_branch -5",
        "s_endpgm",
    };
    assert_int_equal(ONE_LOOP(text), 4);
}

/* s_addk's 16-bit immediate and a bound in an SGPR the loop leaves alone
 * (layernorm's loop, with a constant where Triton has N). */
static void test_addk_sgpr_bound(void **state)
{
    (void)state;
    static const char *const text[] = {
        "s_movk_i32 s7, 0x1000",
        "s_mov_b32 s2, 0",
        "v_add_f32_e32 v1, v1, v0",
        "s_addk_i32 s2, 0x400",
        "s_cmp_lt_i32 s2, s7",
        "s_cbranch_scc1 -4",
        "s_endpgm",
    };
    /* compares 1024, 2048, 3072 (true), 4096 (false): four passes */
    assert_int_equal(ONE_LOOP(text), 4);
}

/* No constant: the bound is a kernel argument (s8, set at entry), or the
 * loop has a second way out. */
static void test_unknown(void **state)
{
    (void)state;
    static const char *const runtime[] = {
        "s_mov_b32 s4, 0",     "v_add_f32_e32 v1, v1, v0", "s_add_i32 s4, s4, 1",
        "s_cmp_lt_i32 s4, s8", "s_cbranch_scc1 -4",        "s_endpgm",
    };
    assert_int_equal(ONE_LOOP(runtime), 0);
    static const char *const two_exits[] = {
        "s_mov_b32 s4, 0",     "v_add_f32_e32 v1, v1, v0", "s_cmp_eq_u32 s9, 0", "s_cbranch_scc1 3",
        "s_add_i32 s4, s4, 1", "s_cmp_lt_i32 s4, 8",       "s_cbranch_scc1 -6",  "s_endpgm",
    };
    assert_int_equal(ONE_LOOP(two_exits), 0);
}

/* A constant inner loop in an outer loop of unknown count: an inner
 * instruction runs 3 x 32 (LLVM's guess for the outer) times. */
static void test_nested_weight(void **state)
{
    (void)state;
    static const char *const text[] = {
        "s_mov_b32 s4, 0",          /* 0 */
        "s_mov_b32 s5, 0",          /* 1 outer header */
        "v_add_f32_e32 v1, v1, v0", /* 2 inner header */
        "s_add_i32 s5, s5, 1",      /* 3 */
        "s_cmp_lt_u32 s5, 3",       /* 4 */
        "s_cbranch_scc1 -4",        /* 5 -> 2 */
        "s_add_i32 s4, s4, 1",      /* 6 */
        "s_cmp_lt_u32 s4, s8",      /* 7 */
        "s_cbranch_scc1 -8",        /* 8 -> 1 */
        "s_endpgm",
    };
    program *p = tp_run(text, sizeof text / sizeof *text);
    treg_error err = {0, ""};
    treg_prov *prov;
    assert_int_equal(treg_prov_new(&p->arena, &p->g, &p->lv, p->fx, p->insns, p->n, &prov, &err),
                     TREG_OK);
    uint32_t *trips;
    assert_int_equal(treg_loop_trips(&p->arena, &p->g, p->insns, p->fx, prov, &trips, &err),
                     TREG_OK);
    assert_int_equal(p->g.nloops, 2);
    assert_int_equal(treg_insn_weight(&p->g, trips, 2), 3 * TREG_LOOP_ASSUMED_TRIPS);
    assert_int_equal(treg_insn_weight(&p->g, trips, 6), TREG_LOOP_ASSUMED_TRIPS);
    assert_int_equal(treg_insn_weight(&p->g, trips, 9), 1);
    tp_done(p);
}

/* The spill fixture: a weight per spill, at least 1, more inside loops;
 * the kernel's, the lines' and the loops' costs all add up. */
static void test_spill_kernel_report(void **state)
{
    (void)state;
    static const char *const archs[] = {"gfx906", "gfx90a", "gfx942"};
    for (size_t a = 0; a < 3; a++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s/spill_kernel.hsaco", TREG_FIXTURES, archs[a]);
        size_t len;
        uint8_t *bytes = tu_read_file(path, &len);
        if (!bytes) fail_msg("fixture %s missing", path);
        treg_options opt = {.keep_rows = 1};
        treg_report *r;
        treg_error err = {0, ""};
        assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), TREG_OK);
        const treg_kernel_report *k = &r->kernels[0];
        assert_true(k->nspills > 0);
        assert_int_equal(k->assumed_trips, TREG_LOOP_ASSUMED_TRIPS);
        uint64_t total = 0, in_loops = 0, on_lines = 0, weighted_up = 0;
        for (size_t i = 0; i < k->nspills; i++) {
            const treg_spill *s = &k->spills[i];
            assert_true(s->weight >= 1);
            total += s->weight;
            size_t row = 0;
            while (row < k->nrows && k->rows[row].address != s->address) row++;
            assert_true(row < k->nrows);
            /* a spill outside every loop runs once, inside one more often */
            assert_true(k->rows[row].loop_depth ? s->weight >= 2 : s->weight == 1);
            weighted_up += s->weight > 1;
        }
        assert_int_equal(total, k->spill_cost);
        assert_true(weighted_up > 0); /* the fixture spills inside its loop */
        for (size_t i = 0; i < k->nlines; i++) on_lines += k->lines[i].spill_cost;
        assert_true(on_lines <= total);
        for (size_t i = 0; i < k->nloops; i++)
            if (k->loops[i].depth == 1) in_loops += k->loops[i].spill_cost;
        assert_true(in_loops <= total && in_loops > 0);
        treg_report_free(r);
        free(bytes);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_up),
        cmocka_unit_test(test_count_down),
        cmocka_unit_test(test_exit_branch),
        cmocka_unit_test(test_addk_sgpr_bound),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_nested_weight),
        cmocka_unit_test(test_spill_kernel_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
