/* CFG, EXEC and liveness on hand-written instruction sequences: each test
 * is a small program whose live registers are known by reading it.  The
 * instructions are laid out 4 bytes apart, so "s_branch N" jumps N+1
 * instructions ahead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "flow/cfg.h"
#include "flow/defined.h"
#include "flow/exec.h"
#include "flow/liveness.h"
#include "model/semantics.h"
#include "util/arena.h"

typedef struct program {
    treg_arena arena;
    treg_insn insns[64];
    treg_insn_effect fx[64];
    size_t n;
    treg_cfg g;
    uint8_t *partial;
    treg_liveness lv;
    unsigned undef_operand_reads; /* with drop_undefined: reads flow/defined.c dropped */
    treg_regset never_defined;    /* ... and the registers still read where nothing defines them */
} program;

/* Models, builds the CFG and runs both dataflows; entry live-ins are s[0:15],
 * v0 and EXEC, as for a Triton kernel.  With drop_undefined, the reads no
 * definition reaches are dropped first, as the pipeline does. */
static program *run_with(const char *const *text, size_t n, bool drop_undefined, unsigned wave)
{
    program *p = test_calloc(1, sizeof *p);
    treg_arena_init(&p->arena);
    treg_model_ctx ctx = {wave};
    treg_error err = {0, ""};
    p->n = n;
    for (size_t i = 0; i < n; i++) {
        p->insns[i].addr = 4 * i;
        p->insns[i].size = 4;
        p->insns[i].same_as = UINT32_MAX;
        p->insns[i].text = text[i];
        if (treg_model_insn(&ctx, text[i], &p->fx[i], &err)) fail_msg("%s: %s", text[i], err.msg);
    }
    assert_int_equal(treg_cfg_build(&p->arena, p->insns, p->fx, n, &p->g, &err), TREG_OK);
    assert_int_equal(treg_exec_analyze(&p->arena, &p->g, p->fx, n, &p->partial, &err), TREG_OK);
    treg_regset entry;
    treg_regset_clear(&entry);
    treg_regset_add_range(&entry, TREG_REG_S0, 16);
    treg_regset_add_range(&entry, TREG_REG_V0, 1);
    treg_regset_add(&entry, TREG_REG_EXEC_LO);
    treg_regset_add(&entry, TREG_REG_EXEC_HI);
    if (drop_undefined)
        assert_int_equal(treg_drop_undefined_operands(&p->arena, &p->g, p->fx, &entry,
                                                      &p->undef_operand_reads, &p->never_defined,
                                                      &err),
                         TREG_OK);
    assert_int_equal(
        treg_liveness_run(&p->arena, &p->g, p->fx, n, p->partial, &entry, &p->lv, &err), TREG_OK);
    return p;
}

static program *run(const char *const *text, size_t n)
{
    return run_with(text, n, false, 64);
}

static void done(program *p)
{
    treg_arena_free(&p->arena);
    test_free(p);
}

static bool occupied_has(program *p, uint32_t i, unsigned reg)
{
    treg_regset s;
    treg_liveness_occupied_at(&p->lv, &p->g, p->fx, p->partial, i, &s);
    return treg_regset_has(&s, reg);
}

/* The if-block pattern of every masked Triton load: a default written
 * under full EXEC, overwritten in some lanes inside the if, read after the
 * join.  The default must stay live through the if-block. */
static void test_partial_exec_write_keeps_old_value(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_mov_b32_e32 v8, 0",                /* 0 */
        "v_cmp_gt_i32_e32 vcc, s12, v0",      /* 1 */
        "s_and_saveexec_b64 s[0:1], vcc",     /* 2 */
        "s_cbranch_execz 2",                  /* 3 -> 6 */
        "v_mov_b32_e32 v9, s6",               /* 4: a temporary inside the if */
        "global_load_dword v8, v[9:10], off", /* 5: v10 is never written */
        "s_or_b64 exec, exec, s[0:1]",        /* 6 */
        "v_add_f32_e32 v1, v8, v8",           /* 7 */
        "s_endpgm",                           /* 8 */
    };
    program *p = run(prog, sizeof prog / sizeof *prog);
    /* EXEC: full before the saveexec, partial inside, full after the restore. */
    assert_false(p->partial[1]);
    assert_false(p->partial[2]);
    assert_true(p->partial[4]);
    assert_true(p->partial[5]);
    assert_true(p->partial[6]);
    assert_false(p->partial[7]);
    /* v8's default is live at the temporary's definition, inside the if. */
    assert_true(occupied_has(p, 4, TREG_REG_V0 + 8));
    /* The temporary v9 is not live before its partial-EXEC definition:
     * a write under partial EXEC kills active-lane-only liveness. */
    assert_false(occupied_has(p, 3, TREG_REG_V0 + 9));
    /* v10 is read (as the high half of the address) and never written. */
    assert_true(treg_regset_has(&p->lv.undefined, TREG_REG_V0 + 10));
    treg_regcount und = treg_regset_count(&p->lv.undefined);
    assert_int_equal(und.vgpr, 1);
    done(p);
}

/* Under a full EXEC the same write kills: nothing of v8 is live before it. */
static void test_full_exec_write_kills(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_mov_b32_e32 v8, 0",      /* 0 */
        "v_mov_b32_e32 v2, 1",      /* 1 */
        "v_mov_b32_e32 v8, v2",     /* 2: kills the first v8 */
        "v_add_f32_e32 v1, v8, v8", /* 3 */
        "s_endpgm",
    };
    program *p = run(prog, sizeof prog / sizeof *prog);
    assert_false(occupied_has(p, 1, TREG_REG_V0 + 8));
    assert_true(occupied_has(p, 2, TREG_REG_V0 + 8));
    assert_true(treg_regset_empty(&p->lv.undefined));
    done(p);
}

/* A value defined before a loop and read in it is live across the whole
 * loop, the back edge included; nested loops have depth 2. */
static void test_loops_and_loop_carried_liveness(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_mov_b32_e32 v3, 7",      /* 0 */
        "s_mov_b32 s20, 0",         /* 1 */
        "s_mov_b32 s21, 0",         /* 2: outer header */
        "v_add_f32_e32 v4, v3, v3", /* 3: inner header */
        "s_add_i32 s21, s21, 1",    /* 4 */
        "s_cmp_lt_i32 s21, 8",      /* 5 */
        "s_cbranch_scc1 -4",        /* 6 -> 3 */
        "s_add_i32 s20, s20, 1",    /* 7 */
        "s_cmp_lt_i32 s20, 4",      /* 8 */
        "s_cbranch_scc1 -8",        /* 9 -> 2 */
        "s_endpgm",                 /* 10 */
    };
    program *p = run(prog, sizeof prog / sizeof *prog);
    assert_int_equal(p->g.nloops, 2);
    assert_int_equal(p->g.blocks[p->g.block_of[3]].loop_depth, 2);
    assert_int_equal(p->g.blocks[p->g.block_of[7]].loop_depth, 1);
    assert_int_equal(p->g.blocks[p->g.block_of[10]].loop_depth, 0);
    /* v3 is live on the outer back edge even where nothing reads it. */
    assert_true(occupied_has(p, 8, TREG_REG_V0 + 3));
    assert_false(occupied_has(p, 10, TREG_REG_V0 + 3));
    /* SCC is read by the branch: s_cmp defines it, nothing before needs it. */
    assert_true(treg_regset_empty(&p->lv.undefined));
    done(p);
}

/* Both sides of a divergent if/else read a value; a register only the
 * else side defines is not live in the then side. */
static void test_divergent_if_else(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_mov_b32_e32 v5, 1",              /* 0 */
        "v_cmp_gt_i32_e32 vcc, 4, v0",      /* 1 */
        "s_and_saveexec_b64 s[2:3], vcc",   /* 2 */
        "s_xor_b64 s[2:3], exec, s[2:3]",   /* 3 */
        "s_cbranch_execz 1",                /* 4 -> 6 */
        "v_mov_b32_e32 v6, v5",             /* 5: then */
        "s_or_saveexec_b64 s[2:3], s[2:3]", /* 6 */
        "s_xor_b64 exec, exec, s[2:3]",     /* 7 */
        "s_cbranch_execz 1",                /* 8 -> 10 */
        "v_mov_b32_e32 v6, 2",              /* 9: else */
        "s_or_b64 exec, exec, s[2:3]",      /* 10 */
        "v_add_f32_e32 v1, v6, v5",         /* 11 */
        "s_endpgm",
    };
    program *p = run(prog, sizeof prog / sizeof *prog);
    assert_true(p->partial[5]);
    assert_true(p->partial[9]);
    assert_true(occupied_has(p, 9, TREG_REG_V0 + 5));
    /* After an if/else the analysis cannot prove EXEC full again (the
     * else mask is an xor), so the read of v6 is an active-lane read.  The
     * model has no lane masks: the path that skips both halves (no lane
     * takes it) looks feasible, so v6 stays live from the entry through
     * both skip edges and is reported as read before definition: the
     * compiler's own view too, where that edge carries an IMPLICIT_DEF. */
    assert_true(p->partial[11]);
    assert_true(occupied_has(p, 11, TREG_REG_V0 + 6));
    assert_true(occupied_has(p, 4, TREG_REG_V0 + 6));
    assert_true(treg_regset_has(&p->lv.undefined, TREG_REG_V0 + 6));
    assert_int_equal(treg_regset_count(&p->lv.undefined).vgpr, 1);
    done(p);
    /* A definition reaches that read on one path: it is the compiler's
     * undefined value (LLVM's IMPLICIT_DEF), not a read of nothing: it is
     * kept, and it is not among the registers no definition reaches. */
    p = run_with(prog, sizeof prog / sizeof *prog, true, 64);
    assert_int_equal(p->undef_operand_reads, 0);
    assert_true(treg_regset_has(&p->lv.undefined, TREG_REG_V0 + 6));
    assert_true(treg_regset_empty(&p->never_defined));
    done(p);
}

/* A branch outside the kernel is an error that names the address. */
static void test_branch_out_of_range(void **state)
{
    (void)state;
    treg_arena a;
    treg_arena_init(&a);
    treg_insn insns[2] = {{.addr = 0, .size = 4, .text = "s_branch 100", .same_as = UINT32_MAX},
                          {.addr = 4, .size = 4, .text = "s_endpgm", .same_as = UINT32_MAX}};
    treg_insn_effect fx[2];
    treg_model_ctx ctx = {64};
    treg_error err = {0, ""};
    assert_int_equal(treg_model_insn(&ctx, insns[0].text, &fx[0], &err), TREG_OK);
    assert_int_equal(treg_model_insn(&ctx, insns[1].text, &fx[1], &err), TREG_OK);
    treg_cfg g;
    assert_int_not_equal(treg_cfg_build(&a, insns, fx, 2, &g, &err), TREG_OK);
    assert_non_null(strstr(err.msg, "0x0"));
    treg_arena_free(&a);
}

/* Reads of registers no path has written read nothing (flow/defined.h):
 * the kept lanes of the first writelane into a fresh spill VGPR, the
 * never-written high half of a 64-bit source, the high half of a register
 * only a d16 load wrote.  None of them makes its register live at the
 * entry, none is an undefined read; each is counted. */
static void test_reads_of_nothing_are_dropped(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_writelane_b32 v40, s4, 0",                     /* 0: old lanes of v40: nothing */
        "v_mov_b32_e32 v6, 5",                            /* 1: v7 stays unwritten */
        "v_mad_u64_u32 v[2:3], s[20:21], v0, v0, v[6:7]", /* 2: v7 reads nothing */
        "ds_read_u16_d16 v8, v0",                         /* 3: v8's high half: nothing */
        "v_pk_add_f16 v9, v8, v8",                        /* 4 */
        "v_readlane_b32 s5, v40, 0",                      /* 5 */
        "v_add_f32_e32 v1, v2, v9",                       /* 6 */
        "s_endpgm",
    };
    program *p = run_with(prog, sizeof prog / sizeof *prog, true, 64);
    assert_true(treg_regset_empty(&p->lv.undefined));
    assert_int_equal(p->undef_operand_reads, 4); /* v40, v7, v8 twice (two operands) */
    assert_false(occupied_has(p, 1, TREG_REG_V0 + 7));
    assert_true(occupied_has(p, 2, TREG_REG_V0 + 6)); /* the defined half of the pair is read */
    done(p);
    /* Without the rule each of them is read before any definition. */
    p = run_with(prog, sizeof prog / sizeof *prog, false, 64);
    assert_true(treg_regset_has(&p->lv.undefined, TREG_REG_V0 + 40));
    assert_true(treg_regset_has(&p->lv.undefined, TREG_REG_V0 + 7));
    assert_true(treg_regset_has(&p->lv.undefined, TREG_REG_V0 + 8));
    done(p);
}

/* A whole operand that nothing defines is not a compiler idiom: it stays
 * an undefined read, for the report to flag. */
static void test_wholly_undefined_operand_is_reported(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_add_f32_e32 v1, v9, v0", /* 0: v9 never written */
        "s_endpgm",
    };
    program *p = run_with(prog, sizeof prog / sizeof *prog, true, 64);
    assert_int_equal(p->undef_operand_reads, 0);
    assert_true(treg_regset_has(&p->lv.undefined, TREG_REG_V0 + 9));
    assert_true(treg_regset_has(&p->never_defined, TREG_REG_V0 + 9));
    done(p);
    /* Nor is a source that happens to be the destination, nor a spill
     * store's offset SGPR (only its stored data can be an IMPLICIT_DEF). */
    static const char *const prog2[] = {
        "v_add_f32_e32 v7, v7, v0",                         /* 0: v7 never written */
        "v_mov_b32_e32 v8, 1",                              /* 1 */
        "buffer_store_dword v8, off, s[0:3], s30 offset:4", /* 2: s30 never written */
        "s_endpgm",
    };
    p = run_with(prog2, sizeof prog2 / sizeof *prog2, true, 64);
    assert_int_equal(p->undef_operand_reads, 0);
    assert_true(treg_regset_has(&p->never_defined, TREG_REG_V0 + 7));
    assert_true(treg_regset_has(&p->never_defined, TREG_REG_S0 + 30));
    assert_int_equal(treg_regset_count(&p->lv.undefined).vgpr, 1);
    done(p);
}

/* true16: a loop that rewrites v1.l and reads it keeps v1 live only where
 * a half of it holds a value; the high half, written once before the loop
 * and read after it, keeps v1 occupied through the loop, but the low half
 * written in the loop does not make v1 live before its first write. */
static void test_true16_half_writes_do_not_read(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_mov_b32_e32 v2, 0",        /* 0 */
        "s_mov_b32 s20, 0",           /* 1 */
        "v_mov_b16_e32 v1.l, s20",    /* 2: loop header; v1.l written */
        "v_cvt_f32_f16_e32 v3, v1.l", /* 3 */
        "v_add_f32_e32 v2, v2, v3",   /* 4 */
        "s_add_i32 s20, s20, 1",      /* 5 */
        "s_cmp_lt_i32 s20, 8",        /* 6 */
        "s_cbranch_scc1 -6",          /* 7 -> 2 */
        "v_mov_b16_e32 v5.h, 1",      /* 8 */
        "v_mov_b16_e32 v5.l, 2",      /* 9 */
        "v_pk_add_f16 v6, v5, v2",    /* 10 */
        "s_endpgm",                   /* 11 */
    };
    program *p = run_with(prog, sizeof prog / sizeof *prog, true, 32);
    assert_true(treg_regset_empty(&p->lv.undefined));
    assert_false(occupied_has(p, 1, TREG_REG_V0 + 1)); /* before the loop */
    assert_false(occupied_has(p, 7, TREG_REG_V0 + 1)); /* on the back edge */
    assert_true(occupied_has(p, 3, TREG_REG_V0 + 1));
    assert_false(occupied_has(p, 7, TREG_REG_V0 + 5));
    assert_true(occupied_has(p, 9, TREG_REG_V0 + 5)); /* v5.h holds a value */
    assert_int_equal(p->lv.occupied[9][0], 2);        /* v2 and v5; v6 not yet */
    done(p);
}

/* Long branches (LLVM's branch relaxation) are followed: forward over a
 * block, and backward as a loop's back edge, whose offset is negative
 * (the high word -1).  A value read after the jump is live across it. */
static void test_long_branch_forward(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "v_mov_b32_e32 v3, 1",         /* 0 */
        "s_getpc_b64 s[0:1]",          /* 1: s[0:1] := 8 */
        "s_add_u32 s0, s0, 12",        /* 2 */
        "s_addc_u32 s1, s1, lit(0x0)", /* 3: a 32-bit literal, as LLVM 22 prints it */
        "s_setpc_b64 s[0:1]",          /* 4 -> 20: instruction 5 */
        "v_add_f32_e32 v1, v3, v3",    /* 5 */
        "s_endpgm",                    /* 6 */
    };
    program *p = run_with(prog, sizeof prog / sizeof *prog, true, 64);
    assert_int_equal(p->g.long_branches, 1);
    assert_int_equal(p->g.unresolved_jumps, 0);
    const treg_block *B = &p->g.blocks[p->g.block_of[4]];
    assert_int_equal(B->nsucc, 1);
    assert_int_equal(B->succ[0], p->g.block_of[5]);
    assert_true(occupied_has(p, 4, TREG_REG_V0 + 3));
    assert_true(treg_regset_empty(&p->lv.undefined));
    done(p);
}

static void test_long_branch_back_edge_is_a_loop(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "s_mov_b32 s20, 0",             /* 0 */
        "v_mov_b32_e32 v3, 1",          /* 1 */
        "v_add_f32_e32 v4, v3, v3",     /* 2: loop header, address 8 */
        "s_add_i32 s20, s20, 1",        /* 3 */
        "s_cmp_lt_i32 s20, 8",          /* 4 */
        "s_cbranch_scc0 5",             /* 5 -> 11 */
        "s_getpc_b64 s[2:3]",           /* 6: s[2:3] := 28 */
        "s_add_u32 s2, s2, 0xffffffec", /* 7: -20 */
        "s_addc_u32 s3, s3, -1",        /* 8 */
        "s_setpc_b64 s[2:3]",           /* 9 -> 8: instruction 2 */
        "s_nop 0",                      /* 10: unreachable */
        "v_add_f32_e32 v1, v4, v4",     /* 11 */
        "s_endpgm",                     /* 12 */
    };
    program *p = run_with(prog, sizeof prog / sizeof *prog, true, 64);
    assert_int_equal(p->g.long_branches, 1);
    assert_int_equal(p->g.nloops, 1);
    assert_int_equal(p->g.blocks[p->g.block_of[9]].loop_depth, 1);
    assert_int_equal(p->g.blocks[p->g.block_of[10]].rpo, TREG_NONE);
    assert_true(occupied_has(p, 9, TREG_REG_V0 + 3)); /* live around the back edge */
    assert_true(treg_regset_empty(&p->lv.undefined));
    done(p);
}

/* A jump whose target is not computed in its block (a return address, a
 * pair something else wrote between) is not guessed: no successor. */
static void test_setpc_not_computed_has_no_successor(void **state)
{
    (void)state;
    static const char *const prog[] = {
        "s_getpc_b64 s[0:1]",   /* 0 */
        "s_add_u32 s0, s0, 8",  /* 1 */
        "s_addc_u32 s1, s1, 0", /* 2 */
        "s_mov_b32 s0, s7",     /* 3: the low word is no longer computed */
        "s_setpc_b64 s[0:1]",   /* 4 */
        "s_endpgm",             /* 5 */
    };
    program *p = run_with(prog, sizeof prog / sizeof *prog, true, 64);
    assert_int_equal(p->g.long_branches, 0);
    assert_int_equal(p->g.unresolved_jumps, 1);
    assert_int_equal(p->g.blocks[p->g.block_of[4]].nsucc, 0);
    done(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partial_exec_write_keeps_old_value),
        cmocka_unit_test(test_full_exec_write_kills),
        cmocka_unit_test(test_loops_and_loop_carried_liveness),
        cmocka_unit_test(test_divergent_if_else),
        cmocka_unit_test(test_branch_out_of_range),
        cmocka_unit_test(test_reads_of_nothing_are_dropped),
        cmocka_unit_test(test_wholly_undefined_operand_is_reported),
        cmocka_unit_test(test_true16_half_writes_do_not_read),
        cmocka_unit_test(test_long_branch_forward),
        cmocka_unit_test(test_long_branch_back_edge_is_a_loop),
        cmocka_unit_test(test_setpc_not_computed_has_no_successor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
