/* Uniformity (metrics/uniform) and value provenance (metrics/provenance) on
 * hand-written programs whose answers can be read off them, then a
 * differential check on whole kernels: an independent taint from the
 * work-item id (v0) through every register an instruction reads must never
 * reach a register the analysis calls uniform.  The kernels are the
 * fixtures' assembly (every clone has them) and, where it is present, the
 * shared corpus's .amdgcn. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics/provenance.h"
#include "metrics/uniform.h"
#include "model/semantics.h"
#include "program.h"
#include "testutil.h"
#include "text/asm.h"
#include "util/arena.h"

/* Whether name may vary just after instruction i. */
static bool varies_after(program *p, uint32_t i, const char *name)
{
    treg_regset after;
    treg_uniform_at(&p->u, i, NULL, &after);
    return treg_regset_has(&after, tp_reg(name));
}

static void test_straight_line(void **state)
{
    (void)state;
    static const char *const text[] = {
        "v_mov_b32_e32 v1, s0",                 /* 0 uniform: from an SGPR */
        "v_add_u32_e32 v2, 4, v1",              /* 1 uniform */
        "v_add_u32_e32 v3, v0, v1",             /* 2 varying: the work-item id */
        "v_readfirstlane_b32 s2, v3",           /* 3 one lane's value: uniform */
        "v_mov_b32_e32 v4, s2",                 /* 4 uniform */
        "v_cmp_gt_u32_e32 vcc, 5, v0",          /* 5 a varying mask */
        "v_cndmask_b32_e32 v5, v1, v2, vcc",    /* 6 varying: picks by lane */
        "v_cmp_gt_u32_e64 s[4:5], s0, v1",      /* 7 a uniform mask */
        "v_cndmask_b32_e64 v6, v1, v2, s[4:5]", /* 8 uniform */
        "v_mbcnt_lo_u32_b32 v7, -1, 0",         /* 9 the lane id: varying */
        "v_mov_b32_dpp v8, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", /* 10 varying */
        "global_load_dword v9, v1, s[0:1]",      /* 11 one address: uniform */
        "global_load_dword v10, v3, s[0:1]",     /* 12 an address per lane: varying */
        "ds_read_b32 v11, v1",                   /* 13 uniform */
        "scratch_load_dword v12, off, s0",       /* 14 private per lane: varying */
        "v_mfma_f32_4x4x1f32 a[0:3], v1, v1, 0", /* 15 a fragment per lane: varying */
        "v_accvgpr_read_b32 v13, a0",            /* 16 varying */
        "s_endpgm",
    };
    program *p = tp_run(text, sizeof text / sizeof *text);
    assert_false(varies_after(p, 0, "v1"));
    assert_false(varies_after(p, 1, "v2"));
    assert_true(varies_after(p, 2, "v3"));
    assert_false(varies_after(p, 3, "s2"));
    assert_false(varies_after(p, 4, "v4"));
    assert_true(varies_after(p, 5, "vcc"));
    assert_true(varies_after(p, 6, "v5"));
    assert_false(varies_after(p, 7, "s4"));
    assert_false(varies_after(p, 8, "v6"));
    assert_true(varies_after(p, 9, "v7"));
    assert_true(varies_after(p, 10, "v8"));
    assert_false(varies_after(p, 11, "v9"));
    assert_true(varies_after(p, 12, "v10"));
    assert_false(varies_after(p, 13, "v11"));
    assert_true(varies_after(p, 14, "v12"));
    assert_true(varies_after(p, 15, "a0"));
    assert_true(varies_after(p, 16, "v13"));
    /* a uniform value written again from a varying one varies from then on */
    assert_false(varies_after(p, 16, "v1"));
    tp_done(p);
}

/* A write while EXEC may be partial keeps the skipped lanes' old values:
 * varying after the join, even from an SGPR; the same write after the join
 * (full EXEC) is uniform again. */
static void test_divergence(void **state)
{
    (void)state;
    static const char *const text[] = {
        "v_mov_b32_e32 v1, s1",           /* 0 uniform */
        "v_cmp_gt_u32_e32 vcc, 5, v0",    /* 1 */
        "s_and_saveexec_b64 s[6:7], vcc", /* 2 */
        "s_cbranch_execz 1",              /* 3 -> 5 */
        "v_mov_b32_e32 v1, s0",           /* 4 partial EXEC */
        "s_or_b64 exec, exec, s[6:7]",    /* 5 join */
        "v_add_u32_e32 v2, 1, v1",        /* 6 varying: v1 is a mix */
        "v_mov_b32_e32 v3, s0",           /* 7 full EXEC: uniform */
        "s_endpgm",
    };
    program *p = tp_run(text, sizeof text / sizeof *text);
    assert_false(varies_after(p, 0, "v1"));
    assert_true(varies_after(p, 4, "v1"));
    assert_true(varies_after(p, 6, "v2"));
    assert_false(varies_after(p, 7, "v3"));
    tp_done(p);
}

/* A loop that adds the work-item id to a uniform value: varying at the
 * header once the back edge brings it round (the fixpoint). */
static void test_loop(void **state)
{
    (void)state;
    static const char *const text[] = {
        "v_mov_b32_e32 v1, s0",     /* 0 uniform */
        "s_mov_b32 s4, 0",          /* 1 */
        "v_add_u32_e32 v2, 1, v1",  /* 2 loop header: v1 varies from the back edge */
        "v_add_u32_e32 v1, v0, v1", /* 3 */
        "s_add_i32 s4, s4, 1",      /* 4 */
        "s_cmp_lt_i32 s4, 8",       /* 5 */
        "s_cbranch_scc1 -5",        /* 6 -> 2 */
        "s_endpgm",
    };
    program *p = tp_run(text, sizeof text / sizeof *text);
    assert_true(p->g.nloops == 1);
    assert_true(varies_after(p, 2, "v2"));
    assert_false(varies_after(p, 4, "s4"));
    tp_done(p);
}

/* Provenance: through a copy, a VGPR->AGPR move and back, a scratch spill
 * and reload and an SGPR lane spill, to the instruction that computed the
 * value; the next use of a value the entry gives. */
static void test_provenance(void **state)
{
    (void)state;
    static const char *const text[] = {
        "v_add_f32_e32 v1, s0, v0",                   /* 0 computes */
        "v_mov_b32_e32 v2, v1",                       /* 1 copy */
        "v_accvgpr_write_b32 a3, v2",                 /* 2 to an AGPR */
        "v_accvgpr_read_b32 v4, a3",                  /* 3 and back */
        "scratch_store_dword off, v4, s33 offset:16", /* 4 spilled */
        "v_mov_b32_e32 v4, 0",                        /* 5 the register reused */
        "scratch_store_dword off, v4, s33 offset:20", /* 6 another slot */
        "scratch_load_dword v5, off, s33 offset:16",  /* 7 reloaded */
        "s_mul_i32 s9, s1, s2",                       /* 8 computes */
        "v_writelane_b32 v20, s9, 3",                 /* 9 SGPR spilled to lane 3 */
        "s_mov_b32 s9, 0",                            /* 10 */
        "v_readlane_b32 s10, v20, 3",                 /* 11 reloaded */
        "v_add_u32_e32 v6, v0, v5",                   /* 12 uses v0 */
        "s_endpgm",
    };
    program *p = tp_run(text, sizeof text / sizeof *text);
    treg_error err = {0, ""};
    treg_prov *prov;
    assert_int_equal(treg_prov_new(&p->arena, &p->g, &p->lv, p->fx, p->insns, p->n, &prov, &err),
                     TREG_OK);
    unsigned r, moves;
    assert_int_equal(treg_prov_origin(prov, 12, tp_reg("v5"), &r, &moves), 0);
    assert_int_equal(r, tp_reg("v1"));
    assert_int_equal(moves, 4); /* reload, read from AGPR, write to AGPR, copy */
    assert_int_equal(treg_prov_origin(prov, 12, tp_reg("s10"), &r, &moves), 8);
    assert_int_equal(r, tp_reg("s9"));
    assert_int_equal(treg_prov_def(prov, 12, tp_reg("v4"), true), 5);
    assert_int_equal(treg_prov_def(prov, 0, tp_reg("v0"), true), TREG_NONE);
    assert_int_equal(treg_prov_next_use(prov, 0, tp_reg("v0")), 12);
    assert_int_equal(treg_prov_next_use(prov, 12, tp_reg("v6")), TREG_NONE);
    tp_done(p);
}

/* --- the differential check ------------------------------------------------------- */

/* An independent may-reach from v0: a register is tainted after an
 * instruction that reads a tainted register (EXEC aside) or writes a VGPR
 * while EXEC may be partial; one lane's value read out (v_readfirstlane,
 * v_readlane) is where a lane's value stops being a lane's.  Union at
 * joins, to a fixpoint.  Every tainted VGPR/AGPR must be one the analysis
 * calls varying. */
static void taint_step(const treg_insn_effect *e, bool partial, treg_regset *t)
{
    bool in = false;
    for (unsigned k = 0; k < e->nops; k++)
        if (e->ops[k].role & TREG_USE)
            for (unsigned r = e->ops[k].reg; r < (unsigned)e->ops[k].reg + e->ops[k].count; r++)
                if (r != TREG_REG_EXEC_LO && r != TREG_REG_EXEC_HI && treg_regset_has(t, r))
                    in = true;
    bool one_lane = e->mnemonic_len >= 10 && (memcmp(e->mnemonic, "v_readfirstlane", 15) == 0 ||
                                              memcmp(e->mnemonic, "v_readlane", 10) == 0);
    for (unsigned k = 0; k < e->nops; k++) {
        if (!(e->ops[k].role & TREG_DEF)) continue;
        for (unsigned r = e->ops[k].reg; r < (unsigned)e->ops[k].reg + e->ops[k].count; r++) {
            bool vec = treg_reg_class(r) == TREG_CLASS_V || treg_reg_class(r) == TREG_CLASS_A;
            if (r == TREG_REG_EXEC_LO || r == TREG_REG_EXEC_HI) continue;
            if (!one_lane && (in || (vec && partial)))
                treg_regset_add(t, r);
            else
                treg_regset_del(t, r);
        }
    }
}

static unsigned differential(program *p, const char *what)
{
    treg_regset *in = test_calloc(p->g.nblocks ? p->g.nblocks : 1, sizeof *in);
    uint32_t entry = p->g.rpo[0];
    treg_regset_add(&in[entry], TREG_REG_V0);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < p->g.nreachable; k++) {
            const treg_block *B = &p->g.blocks[p->g.rpo[k]];
            treg_regset t = in[p->g.rpo[k]];
            for (uint32_t i = B->first; i <= B->last; i++) taint_step(&p->fx[i], p->partial[i], &t);
            for (unsigned s = 0; s < B->nsucc; s++) {
                treg_regset m = in[B->succ[s]];
                treg_regset_union(&m, &t);
                if (!treg_regset_equal(&m, &in[B->succ[s]])) in[B->succ[s]] = m, changed = true;
            }
        }
    }
    unsigned uniform_seen = 0;
    for (uint32_t k = 0; k < p->g.nreachable; k++) {
        const treg_block *B = &p->g.blocks[p->g.rpo[k]];
        treg_regset t = in[p->g.rpo[k]];
        for (uint32_t i = B->first; i <= B->last; i++) {
            treg_regset vary;
            treg_uniform_at(&p->u, i, &vary, NULL);
            for (unsigned r = TREG_REG_V0; r < TREG_REG_S0; r++) {
                if (treg_regset_has(&t, r) && !treg_regset_has(&vary, r))
                    fail_msg("%s: +0x%llx (%s): register %u is reached from v0 but called uniform",
                             what, (unsigned long long)p->insns[i].addr, p->insns[i].text, r);
                uniform_seen += !treg_regset_has(&vary, r) && !treg_regset_has(&t, r) &&
                                treg_regset_has(&p->lv.defs[p->g.rpo[k]], r);
            }
            taint_step(&p->fx[i], p->partial[i], &t);
        }
    }
    test_free(in);
    return uniform_seen;
}

/* Every kernel of an assembly file, through the text front end. */
static unsigned check_text_file(const char *path)
{
    size_t len;
    char *text = (char *)tu_read_file(path, &len);
    if (!text) fail_msg("cannot read %s", path);
    treg_arena a;
    treg_arena_init(&a);
    treg_asm as;
    treg_error err = {0, ""};
    if (treg_asm_parse(&a, text, len, path, &as, &err)) fail_msg("%s", err.msg);
    unsigned seen = 0;
    for (size_t k = 0; k < as.co.nkernels; k++) {
        program *p = test_calloc(1, sizeof *p);
        treg_arena_init(&p->arena);
        tp_build(p, as.kernels[k].insns, as.kernels[k].ninsns,
                 as.co.kernels[k].kd.wave32 ? 32 : 64);
        seen += differential(p, path);
        tp_done(p);
    }
    treg_arena_free(&a);
    free(text);
    return seen;
}

static void test_differential_fixtures(void **state)
{
    (void)state;
    static const char *const kernels[] = {"loop_kernel", "branch_kernel", "spill_kernel",
                                          "call_kernel", "inline_kernel", "scratch_kernel"};
    static const char *const archs[] = {"gfx906", "gfx90a", "gfx942"};
    unsigned seen = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s/%s.s", TREG_FIXTURES, archs[a], kernels[k]);
            seen += check_text_file(path);
        }
    char path[512];
    snprintf(path, sizeof path, "%s/gfx942/mfma_kernel.s", TREG_FIXTURES);
    seen += check_text_file(path);
    /* the check has something to check: some vector registers are uniform */
    assert_true(seen > 0);
}

static void test_differential_corpus(void **state)
{
    (void)state;
    const char *top = TREG_CORPUS "/triton-cache";
    DIR *d = opendir(top);
    if (!d) {
        print_message("shared corpus not found at %s\n", TREG_CORPUS);
        skip();
    }
    struct dirent *e;
    unsigned files = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", top, e->d_name);
        DIR *sub = opendir(dir);
        if (!sub) continue;
        struct dirent *f;
        while ((f = readdir(sub))) {
            size_t n = strlen(f->d_name);
            if (n < 8 || strcmp(f->d_name + n - 7, ".amdgcn") != 0) continue;
            char path[900];
            snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
            check_text_file(path);
            files++;
        }
        closedir(sub);
    }
    closedir(d);
    assert_true(files > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straight_line),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_provenance),
        cmocka_unit_test(test_differential_fixtures),
        cmocka_unit_test(test_differential_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
