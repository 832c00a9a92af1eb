/* Stage 3 tests: one hand-written instruction per fact in the notes'
 * "Semantics that a naive rule gets wrong" list, each asserting the exact
 * def / use / partial-def register sets, plus a corpus sweep that models
 * every instruction llvm-objdump-22 prints for the Triton cache.  Texts are
 * as LLVM 22 prints them (round-tripped through llvm-mc-22), except the
 * Hygon rows, which upstream cannot assemble and come from DTK assembly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>

#include "model/semantics.h"
#include "testutil.h"

typedef struct effect_sets {
    treg_regset def, use, partial;
} effect_sets;

static effect_sets sets_of(const treg_insn_effect *e)
{
    effect_sets s;
    treg_regset_clear(&s.def);
    treg_regset_clear(&s.use);
    treg_regset_clear(&s.partial);
    for (unsigned i = 0; i < e->nops; i++) {
        const treg_operand *o = &e->ops[i];
        treg_regset *t = o->role == TREG_USE ? &s.use : o->role == TREG_DEF ? &s.def : &s.partial;
        for (unsigned r = o->reg; r < (unsigned)o->reg + o->count; r++)
            treg_regset_add_part(t, r, o->half);
    }
    return s;
}

/* "v0 v[2:3] a1 s[4:5] vcc exec_lo scc m0 v7.h": a set written the way
 * the disassembler names registers ("vcc"/"exec" = both halves; v7.l and
 * v7.h one 16-bit half of v7). */
static treg_regset parse_set(const char *text)
{
    treg_regset s;
    treg_regset_clear(&s);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        unsigned a, b;
        char c, h;
        if (sscanf(tok, "v%u.%c", &a, &h) == 2 && (h == 'l' || h == 'h')) {
            treg_regset_add_part(&s, TREG_REG_V0 + a, h == 'l' ? TREG_HALF_LO : TREG_HALF_HI);
            continue;
        }
        int n = sscanf(tok, "%c[%u:%u]", &c, &a, &b);
        if (n != 3 && sscanf(tok, "%c%u", &c, &a) == 2) {
            b = a;
            n = 3;
        }
        if (n == 3) {
            if (c == 'v' || c == 'a' || c == 's') {
                unsigned base = c == 'v' ? TREG_REG_V0 : c == 'a' ? TREG_REG_A0 : TREG_REG_S0;
                treg_regset_add_range(&s, base + a, b - a + 1);
                continue;
            }
        }
        if (strcmp(tok, "vcc") == 0) {
            treg_regset_add_range(&s, TREG_REG_VCC_LO, 2);
            continue;
        }
        if (strcmp(tok, "exec") == 0) {
            treg_regset_add_range(&s, TREG_REG_EXEC_LO, 2);
            continue;
        }
        bool found = false;
        for (unsigned r = TREG_REG_SPECIAL0; r < TREG_REG_COUNT; r++) {
            char name[32];
            treg_reg_name(r, name, sizeof name);
            if (strcmp(name, tok) == 0) {
                treg_regset_add(&s, r);
                found = true;
            }
        }
        if (!found) fail_msg("test bug: bad register '%s'", tok);
    }
    return s;
}

static void print_set(const char *what, const treg_regset *s)
{
    char line[1024] = "";
    for (unsigned r = 0; r < TREG_REG_COUNT; r++) {
        bool lo = treg_regset_has_part(s, r, TREG_HALF_LO),
             hi = treg_reg_has_halves(r) && treg_regset_has_part(s, r, TREG_HALF_HI);
        if (!lo && !hi) continue;
        char name[32];
        treg_reg_name(r, name, sizeof name);
        if (treg_reg_has_halves(r) && lo != hi) strncat(name, lo ? ".l" : ".h", 3);
        strncat(line, " ", sizeof line - strlen(line) - 1);
        strncat(line, name, sizeof line - strlen(line) - 1);
    }
    print_message("  %s:%s\n", what, line);
}

static treg_insn_effect model(unsigned wave, const char *text)
{
    treg_model_ctx ctx = {.wave_size = wave};
    treg_insn_effect e;
    treg_error err = {0};
    int rc = treg_model_insn(&ctx, text, &e, &err);
    if (rc != TREG_OK) fail_msg("'%s': %s", text, err.msg);
    return e;
}

/* Models text and asserts its exact def, use and partial-def sets. */
static treg_insn_effect check(unsigned wave, const char *text, const char *def, const char *use,
                              const char *partial)
{
    treg_insn_effect e = model(wave, text);
    effect_sets got = sets_of(&e);
    treg_regset want_def = parse_set(def), want_use = parse_set(use),
                want_partial = parse_set(partial);
    if (!treg_regset_equal(&got.def, &want_def) || !treg_regset_equal(&got.use, &want_use) ||
        !treg_regset_equal(&got.partial, &want_partial)) {
        print_message("'%s' (wave%u):\n", text, wave);
        print_set("def", &got.def);
        print_set("use", &got.use);
        print_set("partial", &got.partial);
        fail_msg("want def {%s} use {%s} partial {%s}", def, use, partial);
    }
    assert_false(e.flags & TREG_FX_UNKNOWN);
    return e;
}

/* ---- two destinations ---- */

static void test_vopd_dual_two_destinations(void **state)
{
    (void)state;
    check(32, "v_dual_mul_f32 v1, v2, v3 :: v_dual_add_f32 v4, v5, v6", "v1 v4", "v2 v3 v5 v6", "");
    /* fmac reads its dst; VOPD cndmask reads VCC without printing it */
    check(32, "v_dual_fmac_f32 v1, v2, v3 :: v_dual_cndmask_b32 v4, v5, v6", "v1 v4",
          "v1 v2 v3 v5 v6 vcc_lo", "");
}

static void test_swap_writes_both(void **state)
{
    (void)state;
    check(64, "v_swap_b32 v1, v2", "v1 v2", "v1 v2", "");
}

static void test_permlane_swaps_write_both_in_part(void **state)
{
    (void)state;
    check(64, "v_permlane32_swap_b32_e32 v1, v2", "", "", "v1 v2");
    check(64, "v_permlane16_swap_b32_e32 v1, v2", "", "", "v1 v2");
}

static void test_mad_u64_u32_carry_out_is_written(void **state)
{
    (void)state;
    check(64, "v_mad_u64_u32 v[0:1], s[2:3], v1, v2, v[4:5]", "v[0:1] s[2:3]", "v1 v2 v[4:5]", "");
    check(64, "v_mad_i64_i32 v[0:1], s[2:3], v1, v2, v[4:5]", "v[0:1] s[2:3]", "v1 v2 v[4:5]", "");
    /* RDNA prints null for an unused carry: nothing more is written */
    check(32, "v_mad_u64_u32 v[0:1], null, v2, v3, v[4:5]", "v[0:1]", "v2 v3 v[4:5]", "");
}

static void test_div_scale_writes_vcc(void **state)
{
    (void)state;
    check(64, "v_div_scale_f32 v1, vcc, v2, v3, v4", "v1 vcc", "v2 v3 v4", "");
    check(64, "v_div_scale_f32 v1, s[4:5], v175, v175, v50", "v1 s[4:5]", "v175 v50", "");
}

/* ---- read-modify-write ---- */

static void test_mac_fmac_dot_read_dst(void **state)
{
    (void)state;
    check(64, "v_mac_f32_e32 v1, v2, v3", "v1", "v1 v2 v3", "");
    check(64, "v_fmac_f32_e64 v1, v2, v3", "v1", "v1 v2 v3", "");
    check(64, "v_dot2c_f32_f16_e32 v1, v2, v3", "v1", "v1 v2 v3", "");
    check(64, "v_pk_fmac_f16_e32 v1, v2, v3", "v1", "v1 v2 v3", "");
}

static void test_mfma_src2_same_range_reads_dst(void **state)
{
    (void)state;
    check(64, "v_mfma_f32_32x32x8_f16 a[0:15], v[10:11], v[0:1], a[0:15]", "a[0:15]",
          "v[10:11] v[0:1] a[0:15]", "");
}

static void test_mfma_constant_src2_does_not_read_dst(void **state)
{
    (void)state;
    check(64, "v_mfma_f32_32x32x8f16 v[34:49], v[64:65], v[102:103], 0", "v[34:49]",
          "v[64:65] v[102:103]", "");
}

static void test_mfma_other_src2_reads_src2_not_dst(void **state)
{
    (void)state;
    check(64, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[8:11] cbsz:1 abid:1 blgp:2",
          "v[0:3]", "v[4:5] v[6:7] v[8:11]", "");
}

static void test_smfmac_accumulates_into_dst(void **state)
{
    (void)state;
    check(64, "v_smfmac_f32_16x16x32_f16 v[10:13], v[2:3], v[4:7], v3", "v[10:13]",
          "v[10:13] v[2:3] v[4:7] v3", "");
}

/* MMAC reads its printed src2 (C) and writes D, as MFMA: Hygon's Triton
 * lowers it with C an operand and D a new value (DotOpToLLVM/MMAC.cpp
 * generateMFMAOp).  DTK's text always has D == C; a D apart from C is
 * written whole, its old value not read. */
static void test_hygon_mmac_reads_src2(void **state)
{
    (void)state;
    /* DTK text (AMDGPU-NOTES.md); upstream LLVM cannot assemble it */
    check(64, "v_mmac_f32_16x16x16_f16 v[0:3], v[20:21], v[16:17], v[0:3]", "v[0:3]",
          "v[0:3] v[20:21] v[16:17]", "");
    check(64, "v_mmac_f32_16x16x16_f16 v[4:7], v[20:21], v[16:17], v[0:3]", "v[4:7]",
          "v[0:3] v[20:21] v[16:17]", "");
}

static void test_writelane_partial(void **state)
{
    (void)state;
    treg_insn_effect e = check(64, "v_writelane_b32 v1, s2, 3", "", "s2", "v1");
    assert_int_equal(e.move, TREG_MOVE_SGPR_TO_LANE);
    assert_false(e.flags & TREG_FX_VECTOR); /* one lane, regardless of EXEC */
}

static void test_permlane16_reads_old_dst(void **state)
{
    (void)state;
    check(32, "v_permlanex16_b32 v1, v2, s3, s4", "v1", "v1 v2 s3 s4", "");
    check(32, "v_permlane16_b32 v1, v2, s3, s4", "v1", "v1 v2 s3 s4", "");
    /* op_sel:[fi,bound_ctrl]: fetch-inactive reads every source lane, bound_ctrl writes 0
     * where the source is inactive: no lane keeps the old value (LLVM: "undef $vgpr142") */
    check(32, "v_permlanex16_b32 v142, v89, s16, 0xfedcba98 op_sel:[1,0]", "v142", "v89 s16", "");
    check(32, "v_permlane16_b32 v1, v2, s3, s4 op_sel:[0,1]", "v1", "v2 s3 s4", "");
    check(32, "v_permlane16_b32 v1, v2, s3, s4 op_sel:[0,0]", "v1", "v1 v2 s3 s4", "");
}

static void test_salu_k_forms_read_dst(void **state)
{
    (void)state;
    check(64, "s_addk_i32 s0, 0x10", "s0 scc", "s0", "");
    check(64, "s_mulk_i32 s0, 0x10", "s0", "s0", "");
    check(64, "s_cmovk_i32 s0, 0x10", "s0", "s0 scc", "");
}

static void test_cselect_reads_scc(void **state)
{
    (void)state;
    check(64, "s_cselect_b32 s0, s22, s21", "s0", "s22 s21 scc", "");
}

/* ---- partial writes ---- */

/* d16 loads write one 16-bit half: that half's old value dies, the other
 * half is untouched (LLVM 22 on gfx11: "$vgpr25_hi16 = DS_READ_U16_t16"). */
static void test_d16_hi_loads_write_the_high_half(void **state)
{
    (void)state;
    check(64, "global_load_short_d16_hi v1, v[2:3], off", "v1.h", "v[2:3]", "");
    check(64, "ds_read_u16_d16_hi v1, v2", "v1.h", "v2", "");
    check(32, "ds_load_u16_d16_hi v1, v2", "v1.h", "v2", "");
    check(32, "global_load_d16_hi_b16 v1, v[2:3], off", "v1.h", "v[2:3]", "");
    /* AGPRs have no tracked halves: the old value stays live */
    check(64, "global_load_short_d16_hi a1, v[2:3], off", "", "v[2:3]", "a1");
}

static void test_d16_loads_write_the_low_half(void **state)
{
    (void)state;
    treg_insn_effect e = check(64, "scratch_load_short_d16 v1, off, s2", "v1.l", "s2", "");
    assert_int_equal(e.move, TREG_MOVE_SCRATCH_LOAD);
    check(32, "ds_load_u16_d16 v65, v254", "v65.l", "v254", "");
    check(32, "global_load_d16_b16 v9, v65, s[52:53]", "v9.l", "v65 s[52:53]", "");
    check(32, "scratch_load_d16_b16 v9, off, off offset:514", "v9.l", "", "");
    check(64, "buffer_load_format_d16_x v1, off, s[0:3], 0", "", "s[0:3]", "v1");
}

/* v_fma_mixlo/mixhi (v_mad_mix* on gfx906) write one 16-bit half and keep
 * the other: a def of that half, no read of the old value (LLVM ties
 * vdst_in, undef where nothing reads the kept half; _attn_bwd on gfx90a
 * kept 32 VGPRs live over 216 rows when the whole register was read).
 * v_fma_mix_f32 writes the whole register. */
static void test_mix_writes_one_half(void **state)
{
    (void)state;
    check(64, "v_fma_mixlo_f16 v1, s12, v34, 0", "v1.l", "s12 v34", "");
    check(64, "v_fma_mixlo_f16 v4, v5, v8, v10 op_sel_hi:[0,1,1]", "v4.l", "v5 v8 v10", "");
    check(64, "v_fma_mixhi_f16 v1, v2, v3, v4 op_sel_hi:[1,1,0]", "v1.h", "v2 v3 v4", "");
    check(64, "v_mad_mixlo_f16 v5, v2, v3, v4", "v5.l", "v2 v3 v4", "");
    check(64, "v_mad_mixhi_f16 v5, v2, v3, v4", "v5.h", "v2 v3 v4", "");
    check(64, "v_fma_mix_f32 v1, v2, v3, v4", "v1", "v2 v3 v4", "");
    check(64, "v_mad_mix_f32 v1, v2, v3, v4", "v1", "v2 v3 v4", "");
}

static void test_sdwa_preserve_partial(void **state)
{
    (void)state;
    check(64, "v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD", "",
          "v2", "v1");
    /* UNUSED_PAD zero-fills: a full write */
    check(64,
          "v_or_b32_sdwa v3, v3, v0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD "
          "src1_sel:BYTE_0",
          "v3", "v3 v0", "");
}

static void test_dpp_masks_partial(void **state)
{
    (void)state;
    check(64, "v_mov_b32_dpp v1, v2 row_shr:1 row_mask:0xf bank_mask:0x3 bound_ctrl:1", "", "v2",
          "v1");
    check(64, "v_mov_b32_dpp v1, v2 row_shr:1 row_mask:0x3 bank_mask:0xf", "", "v2", "v1");
    /* invalid lanes keep the old value without bound_ctrl */
    check(32, "v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf", "", "v2", "v1");
    /* full masks and bound_ctrl: every lane written */
    check(64, "v_mov_b32_dpp v14, v11 row_bcast:31 row_mask:0xf bank_mask:0xf bound_ctrl:1", "v14",
          "v11", "");
    check(32, "v_mov_b32_dpp v1, v2 dpp8:[7,6,5,4,3,2,1,0]", "v1", "v2", "");
}

/* GFX10+ spell the d16 format loads buffer_load_d16_format_*: x and hi_x
 * write one half, xy and xyzw whole registers, xyz keeps vdata[63:48]. */
static void test_d16_format_loads(void **state)
{
    (void)state;
    check(32, "buffer_load_d16_format_x v1, off, s[0:3], 0", "v1.l", "s[0:3]", "");
    check(32, "buffer_load_d16_hi_format_x v1, off, s[0:3], 0", "v1.h", "s[0:3]", "");
    check(32, "buffer_load_d16_format_xy v1, off, s[0:3], 0", "v1", "s[0:3]", "");
    check(32, "buffer_load_d16_format_xyzw v[1:2], off, s[0:3], 0", "v[1:2]", "s[0:3]", "");
    check(32, "buffer_load_d16_format_xyz v[1:2], off, s[0:3], 0", "", "s[0:3]", "v[1:2]");
    check(64, "tbuffer_load_format_d16_xy v1, off, s[0:3], 0", "v1", "s[0:3]", "");
    check(64, "tbuffer_load_format_d16_x v1, off, s[0:3], 0", "v1.l", "s[0:3]", "");
}

/* The long-branch constants: only a whole integer is one (a float inline
 * constant is not 0), and a tied destination's read is marked as its old
 * value for flow/defined.c. */
static void test_constants_and_old_values(void **state)
{
    (void)state;
    treg_insn_effect e = model(64, "s_add_u32 s0, s0, 0x12d0");
    assert_int_equal(e.pc, TREG_PC_ADD);
    assert_int_equal(e.imm, 0x12d0);
    e = model(64, "s_addc_u32 s1, s1, lit(0x0)");
    assert_int_equal(e.pc, TREG_PC_ADDC);
    assert_int_equal(e.imm, 0);
    e = model(64, "s_add_u32 s0, s0, 0.5");
    assert_int_equal(e.pc, TREG_PC_NONE);
    e = model(64, "s_add_u32 s0, s0, -4.0");
    assert_int_equal(e.pc, TREG_PC_NONE);
    e = model(64, "v_fmac_f32_e32 v1, v2, v3");
    unsigned old = 0;
    for (unsigned i = 0; i < e.nops; i++)
        if (e.ops[i].old) {
            old++;
            assert_int_equal(e.ops[i].role, TREG_USE);
            assert_int_equal(e.ops[i].reg, TREG_REG_V0 + 1);
        }
    assert_int_equal(old, 1);
    e = model(64, "v_add_f32_e32 v1, v1, v3"); /* a source that is also the destination */
    for (unsigned i = 0; i < e.nops; i++) assert_false(e.ops[i].old);
}

/* 16- and 8-bit stores read the half they store (LLVM 22 on gfx11:
 * "DS_WRITE_B16_t16 $vgpr251, killed $vgpr255_hi16" for the _d16_hi form). */
static void test_narrow_stores_read_one_half(void **state)
{
    (void)state;
    check(32, "ds_store_b16 v251, v255 offset:28672", "", "v251 v255.l", "");
    check(32, "ds_store_b16_d16_hi v251, v255 offset:29696", "", "v251 v255.h", "");
    check(64, "ds_write_b8_d16_hi v1, v2", "", "v1 v2.h", "");
    check(64, "ds_write_b128 v1, v[2:5]", "", "v1 v[2:5]", "");
    check(32, "global_store_b16 v[2:3], v4, off", "", "v[2:3] v4.l", "");
    check(64, "global_store_short_d16_hi v[2:3], v4, off", "", "v[2:3] v4.h", "");
    check(32, "scratch_store_d16_hi_b16 off, v255, off offset:626", "", "v255.h", "");
    treg_insn_effect e = check(32, "scratch_store_b16 off, v255, off offset:624", "", "v255.l", "");
    assert_int_equal(e.move, TREG_MOVE_SCRATCH_STORE);
    check(64, "buffer_store_short v1, off, s[0:3], 0 offset:4", "", "v1.l s[0:3]", "");
    check(64, "buffer_store_byte_d16_hi v1, off, s[0:3], 0", "", "v1.h s[0:3]", "");
    check(64, "global_store_short v[2:3], a4, off", "", "v[2:3] a4", ""); /* no halves tracked */
}

/* true16 operands name one half: a write kills only that half, a read
 * keeps only that half live. */
static void test_true16_halves(void **state)
{
    (void)state;
    check(32, "v_add_f16_e32 v1.l, v2.l, v3.h", "v1.l", "v2.l v3.h", "");
    check(32, "v_mov_b16_e32 v1.h, v2.l", "v1.h", "v2.l", "");
    check(32, "v_cvt_f16_f32_e32 v11.l, v57", "v11.l", "v57", "");
    check(32, "v_fmac_f16_e32 v5.h, v6.l, v7.l", "v5.h", "v5.h v6.l v7.l", "");
}

/* ---- no register destination ---- */

static void test_stores_write_nothing(void **state)
{
    (void)state;
    check(64, "global_store_dword v[0:1], v2, off", "", "v[0:1] v2", "");
    check(64, "ds_write_b32 v1, v2 offset:16", "", "v1 v2", "");
    check(64, "buffer_store_dword v0, v1, s[4:7], 0 offen", "", "v0 v1 s[4:7]", "");
    check(64, "s_store_dword s1, s[2:3], 0x0", "", "s1 s[2:3]", "");
}

static void test_s_cmp_writes_only_scc(void **state)
{
    (void)state;
    check(64, "s_cmp_lt_i32 s20, s0", "scc", "s20 s0", "");
    check(64, "s_cmpk_lt_i32 s11, 0x80", "scc", "s11", "");
}

static void test_vcmpx_writes_exec(void **state)
{
    (void)state;
    treg_insn_effect e = check(32, "v_cmpx_gt_i32_e32 v1, v2", "exec_lo", "v1 v2 exec_lo", "");
    assert_int_equal(e.exec_op, TREG_EXEC_OTHER);
    check(32, "v_cmpx_gt_i32_e64 v1, v2", "exec_lo", "v1 v2 exec_lo", "");
    /* GFX9 also writes (and prints) VCC / an SGPR pair */
    check(64, "v_cmpx_gt_i32_e32 vcc, v1, v2", "vcc exec", "v1 v2 exec", "");
    check(64, "v_cmpx_gt_i32_e64 s[0:1], v1, v2", "s[0:1] exec", "v1 v2 exec", "");
}

static void test_atomics_without_return(void **state)
{
    (void)state;
    check(64, "global_atomic_add v[2:3], v4, off", "", "v[2:3] v4", "");
    check(64, "global_atomic_add v0, v[2:3], v4, off glc", "v0", "v[2:3] v4", "");
    check(64, "global_atomic_add v0, v[2:3], v4, off sc0", "v0", "v[2:3] v4", "");
    check(32, "global_atomic_add_u32 v0, v1, v2, s[0:1] th:TH_ATOMIC_RETURN", "v0", "v1 v2 s[0:1]",
          "");
    check(64, "buffer_atomic_add v1, off, s[0:3], 0", "", "v1 s[0:3]", "");
    check(64, "buffer_atomic_add v1, off, s[0:3], 0 glc", "v1", "v1 s[0:3]", "");
    check(64, "ds_add_u32 v1, v2", "", "v1 v2", "");
    check(64, "ds_add_rtn_u32 v1, v2, v3", "v1", "v2 v3", "");
}

static void test_loads_to_lds_write_no_vgpr(void **state)
{
    (void)state;
    check(64, "buffer_load_dword off, s[0:3], 0 lds", "", "s[0:3] m0", "");
    check(64, "global_load_lds_dword v[2:3], off", "", "v[2:3] m0", "");
}

static void test_hints_have_no_operands(void **state)
{
    (void)state;
    static const char *const hints[] = {
        "s_waitcnt vmcnt(0) lgkmcnt(0)",
        "s_waitcnt_vscnt null, 0x0",
        "s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(SALU_CYCLE_1)",
        "s_clause 0x3",
        "s_nop 0",
        "s_barrier",
        "s_setprio 0",
        "s_dcache_wb",
        "s_code_end",
        "s_set_vgpr_size 4",
        "s_wait_loadcnt 0x0"};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) check(64, hints[i], "", "", "");
    check(64, "s_sendmsg sendmsg(MSG_INTERRUPT)", "", "m0", "");
    /* the end-of-kernel message of GFX11 carries no data in M0 */
    check(32, "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)", "", "", "");
}

/* ---- implicit operands ---- */

static void test_vopc_e32_writes_vcc(void **state)
{
    (void)state;
    check(64, "v_cmp_gt_i32_e32 vcc, s12, v2", "vcc", "s12 v2", "");
    check(32, "v_cmp_gt_i32_e32 vcc_lo, v1, v2", "vcc_lo", "v1 v2", "");
    check(64, "v_cmp_gt_i32_e64 s[0:1], s12, v0", "s[0:1]", "s12 v0", "");
}

static void test_vcc_readers(void **state)
{
    (void)state;
    check(64, "v_cndmask_b32_e32 v0, v1, v2, vcc", "v0", "v1 v2 vcc", "");
    check(32, "v_cndmask_b32_e32 v0, v1, v2, vcc_lo", "v0", "v1 v2 vcc_lo", "");
    check(64, "v_cndmask_b32_e64 v1, v1, 0, s[16:17]", "v1", "v1 s[16:17]", "");
    /* GFX11 true16 VOP3 prints its SGPR mask without _e64: no VCC read */
    check(32, "v_cndmask_b16 v1.h, v2.l, v3.l, s4", "v1.h", "v2.l v3.l s4", "");
    check(32, "v_cndmask_b16 v1.l, v2.l, v3.h, vcc_lo", "v1.l", "v2.l v3.h vcc_lo", "");
    check(64, "v_addc_co_u32_e32 v1, vcc, v2, v3, vcc", "v1 vcc", "v2 v3 vcc", "");
    check(64, "v_add_co_u32_e32 v1, vcc, v2, v3", "v1 vcc", "v2 v3", "");
    check(64, "v_add_co_u32_e64 v1, s[0:1], v2, v3", "v1 s[0:1]", "v2 v3", "");
    check(32, "v_add_co_ci_u32_e32 v1, vcc_lo, v2, v3, vcc_lo", "v1 vcc_lo", "v2 v3 vcc_lo", "");
    /* v_div_fmas reads the VCC of v_div_scale without printing it */
    check(64, "v_div_fmas_f32 v0, v1, v2, v3", "v0", "v1 v2 v3 vcc", "");
    check(32, "v_div_fmas_f32 v0, v1, v2, v3", "v0", "v1 v2 v3 vcc_lo", "");
}

static void test_saveexec(void **state)
{
    (void)state;
    treg_insn_effect e =
        check(64, "s_and_saveexec_b64 s[0:1], vcc", "s[0:1] exec scc", "vcc exec", "");
    assert_true(e.flags & TREG_FX_SAVEEXEC);
    assert_int_equal(e.exec_op, TREG_EXEC_AND);
    assert_int_equal(e.exec_src, TREG_REG_VCC_LO);
    assert_int_equal(e.saveexec_dst, TREG_REG_S0 + 0);
    e = check(32, "s_and_saveexec_b32 s0, vcc_lo", "s0 exec_lo scc", "vcc_lo exec_lo", "");
    assert_int_equal(e.exec_op, TREG_EXEC_AND);
    e = check(32, "s_and_not1_saveexec_b32 s0, s1", "s0 exec_lo scc", "s1 exec_lo", "");
    assert_int_equal(e.exec_op, TREG_EXEC_OTHER);
}

static void test_salu_scc(void **state)
{
    (void)state;
    check(64, "s_add_u32 s0, s1, s2", "s0 scc", "s1 s2", "");
    check(64, "s_addc_u32 s1, s7, s1", "s1 scc", "s7 s1 scc", "");
    check(64, "s_lshl_b64 s[0:1], s[0:1], 2", "s[0:1] scc", "s[0:1]", "");
    /* moves and multiplies leave SCC alone */
    check(64, "s_movk_i32 s0, 0x1234", "s0", "", "");
    check(64, "s_mov_b32 s0, s1", "s0", "s1", "");
    check(64, "s_mul_i32 s0, s1, s2", "s0", "s1 s2", "");
}

static void test_branches_read_what_they_test(void **state)
{
    (void)state;
    treg_insn_effect e = check(64, "s_cbranch_scc1 3", "", "scc", "");
    assert_int_equal(e.ctrl, TREG_CTRL_CBRANCH);
    assert_int_equal(e.branch_words, 3);
    check(64, "s_cbranch_scc0 3", "", "scc", "");
    check(64, "s_cbranch_vccnz 3", "", "vcc", "");
    check(32, "s_cbranch_vccz 3", "", "vcc_lo", "");
    e = check(64, "\ts_cbranch_execz 65533", "", "exec", "");
    assert_int_equal(e.branch_words, -3); /* printed as an unsigned simm16 */
    check(64, "s_cbranch_execnz 8", "", "exec", "");
}

/* ---- control flow ---- */

static void test_control_flow_kinds(void **state)
{
    (void)state;
    treg_insn_effect e = check(64, "s_branch 65531", "", "", "");
    assert_int_equal(e.ctrl, TREG_CTRL_JUMP);
    assert_int_equal(e.branch_words, -5);
    e = check(64, "s_branch 56", "", "", "");
    assert_int_equal(e.branch_words, 56);
    e = check(64, "s_endpgm", "", "", "");
    assert_int_equal(e.ctrl, TREG_CTRL_END);
    e = check(64, "s_setpc_b64 s[30:31]", "", "s[30:31]", "");
    assert_int_equal(e.ctrl, TREG_CTRL_END);
    e = check(64, "s_swappc_b64 s[30:31], s[4:5]", "s[30:31]", "s[4:5]", "");
    assert_int_equal(e.ctrl, TREG_CTRL_CALL);
    e = check(64, "s_call_b64 s[30:31], 4", "s[30:31]", "", "");
    assert_int_equal(e.ctrl, TREG_CTRL_CALL);
    assert_int_equal(e.branch_words, 4);
    e = check(64, "s_trap 2", "", "", "");
    assert_int_equal(e.ctrl, TREG_CTRL_TRAP);
}

/* ---- exec ops, copies, spill moves ---- */

static void test_exec_ops_and_copies(void **state)
{
    (void)state;
    treg_insn_effect e = check(64, "s_mov_b64 exec, -1", "exec", "", "");
    assert_int_equal(e.exec_op, TREG_EXEC_COPY);
    assert_int_equal(e.exec_src, TREG_NO_REG);
    assert_true(e.exec_src_all_ones);
    e = check(64, "s_mov_b64 exec, s[0:1]", "exec", "s[0:1]", "");
    assert_int_equal(e.exec_op, TREG_EXEC_COPY);
    assert_int_equal(e.exec_src, TREG_REG_S0);
    assert_int_equal(e.copy_dst, TREG_REG_EXEC_LO);
    assert_int_equal(e.copy_src, TREG_REG_S0);
    e = check(64, "s_mov_b64 s[2:3], exec", "s[2:3]", "exec", "");
    assert_int_equal(e.exec_op, TREG_EXEC_NONE);
    assert_int_equal(e.copy_dst, TREG_REG_S0 + 2);
    assert_int_equal(e.copy_src, TREG_REG_EXEC_LO);
    e = check(64, "s_or_b64 exec, exec, s[0:1]", "exec scc", "exec s[0:1]", "");
    assert_int_equal(e.exec_op, TREG_EXEC_OR);
    assert_int_equal(e.exec_src, TREG_REG_S0);
    e = check(64, "s_and_b64 exec, s[2:3], exec", "exec scc", "exec s[2:3]", "");
    assert_int_equal(e.exec_op, TREG_EXEC_AND);
    assert_int_equal(e.exec_src, TREG_REG_S0 + 2);
    e = check(64, "s_andn2_b64 exec, exec, s[0:1]", "exec scc", "exec s[0:1]", "");
    assert_int_equal(e.exec_op, TREG_EXEC_OTHER);
    e = check(64, "s_cselect_b64 exec, s[0:1], s[2:3]", "exec", "s[0:1] s[2:3] scc", "");
    assert_int_equal(e.exec_op, TREG_EXEC_OTHER);
    e = check(64, "s_mov_b32 s0, 0", "s0", "", "");
    assert_int_equal(e.copy_dst, TREG_NO_REG);
}

static void test_spill_moves(void **state)
{
    (void)state;
    treg_insn_effect e =
        check(64, "buffer_store_dword v0, off, s[24:27], 0 offset:4", "", "v0 s[24:27]", "");
    assert_int_equal(e.move, TREG_MOVE_SCRATCH_STORE);
    e = check(64, "buffer_load_dword v0, off, s[24:27], 0 offset:256", "v0", "s[24:27]", "");
    assert_int_equal(e.move, TREG_MOVE_SCRATCH_LOAD);
    assert_true(e.flags & TREG_FX_VECTOR);
    e = check(64, "buffer_load_dword v1, v2, s[4:7], 0 offen offset:4", "v1", "v2 s[4:7]", "");
    assert_int_equal(e.move, TREG_MOVE_NONE);
    e = check(64, "scratch_store_dword off, v0, off offset:100", "", "v0", "");
    assert_int_equal(e.move, TREG_MOVE_SCRATCH_STORE);
    e = check(64, "scratch_load_dwordx2 v[64:65], off, off offset:8", "v[64:65]", "", "");
    assert_int_equal(e.move, TREG_MOVE_SCRATCH_LOAD);
    e = check(64, "v_readlane_b32 s10, v1, 63", "s10", "v1", "");
    assert_int_equal(e.move, TREG_MOVE_LANE_TO_SGPR);
    assert_false(e.flags & TREG_FX_VECTOR);
    e = check(64, "v_accvgpr_write_b32 a1, v2", "a1", "v2", "");
    assert_int_equal(e.move, TREG_MOVE_VGPR_TO_AGPR);
    assert_true(e.flags & TREG_FX_VECTOR);
    e = check(64, "v_accvgpr_write_b32 a0, 0", "a0", "", "");
    assert_int_equal(e.move, TREG_MOVE_NONE);
    e = check(64, "v_accvgpr_read_b32 v1, a2", "v1", "a2", "");
    assert_int_equal(e.move, TREG_MOVE_AGPR_TO_VGPR);
}

/* ---- Hygon matrix memory, operand syntax, errors ---- */

/* Hygon's matrix loads and stores in their public DTK text forms
 * (FlagGems' Triton inline assembly; flash-attention3's instr headers for
 * gfx946; AMDGPU-NOTES.md "Hygon code"): upstream cannot assemble them. */
static void test_hygon_matrix_memory(void **state)
{
    (void)state;
    check(64, "ds_read_m32x16_b16 v[20:23], v40 offset:0", "v[20:23]", "v40", "");
    check(64, "ds_read_m32x16_b16 v[20:23], v40", "v[20:23]", "v40", "");
    check(64, "ds_read_m32x8_b32 v[0:3], v8 offset:0", "v[0:3]", "v8", "");
    /* the address is an SGPR */
    check(64, "ds_read_matrix_format v[24:27], s12 offset:0 element:0x2 row:0x2 col:0x1 alt:0x0",
          "v[24:27]", "s12", "");
    check(64, "ds_read_matrix_trans_format v[24:27], s12 offset:64 element:0x2 row:0x2 col:0x1",
          "v[24:27]", "s12", "");
    check(64, "ds_write_matrix_format v[1:4], s8 offset:16 element:3 row:1 col:1", "", "v[1:4] s8",
          "");
    /* global to LDS: a descriptor and an LDS address read, no register written */
    check(64, "matrix_load_32x16_b16 s[16:19], m0 moffset:0 bps lds", "", "s[16:19] m0", "");
    check(64, "matrix_load_32x32_b16 s[16:19], s13 moffset:256 t bps lds", "", "s[16:19] s13", "");
    check(64, "s_waitcnt_vbcnt 0", "", "", "");
    /* a part of vdst: the old value stays live */
    check(64, "ds_read_pack_h_b16 v5, v6", "", "v6", "v5");
}

/* Hygon's scalar additions (gfx946): WDRA's resize and the two barrier
 * families, in the operand forms composable_kernel-das's hcu_abarrier.hpp /
 * hcu_ebarrier.hpp constrain ("=s" written, "s" read) and flash-attention3
 * writes with constants. */
static void test_hygon_scalar(void **state)
{
    (void)state;
    /* the wave's VGPR count from here: a count, in imm (-1 when not a constant) */
    treg_insn_effect e = check(64, "s_set_vgpr_size 128", "", "", "");
    assert_true(e.flags & TREG_FX_VGPR_SIZE);
    assert_int_equal(e.imm, 128);
    e = check(64, "s_set_vgpr_size_prsv 96", "", "", "");
    assert_true(e.flags & TREG_FX_VGPR_SIZE);
    assert_int_equal(e.imm, 96);
    e = check(64, "s_set_vgpr_size quota", "", "", "");
    assert_int_equal(e.imm, -1);
    assert_false(check(64, "s_setprio 3", "", "", "").flags & TREG_FX_VGPR_SIZE);
    check(64, "s_trap 0xff", "", "", "");
    check(64, "s_waitcnt_vwcnt 0", "", "", "");
    check(64, "s_abarrier_try_wait s0, 1, s1", "s0", "s1", "");
    check(64, "s_abarrier_try_wait s0, s2, s1", "s0", "s1 s2", "");
    check(64, "s_abarrier_test_wait s0, s2, s1", "s0", "s1 s2", "");
    check(64, "s_abarrier_arrive s2, 1, 4", "s2", "", "");
    check(64, "s_abarrier_arrive s2, s3, s4", "s2", "s3 s4", "");
    check(64, "s_abarrier_arrive_nocomplete s2, s3, s4", "s2", "s3 s4", "");
    check(64, "s_abarrier_arrive_drop s2, s3, s4", "s2", "s3 s4", "");
    check(64, "s_abarrier_arrive_drop_nocomplete s2, s3, s4", "s2", "s3 s4", "");
    check(64, "s_abarrier_seq 1", "", "", "");
    check(64, "s_abarrier_seq s5", "", "s5", "");
    check(64, "s_abarrier_init s5, s6", "", "s5 s6", "");
    check(64, "s_abarrier_inv s5", "", "s5", "");
    check(64, "s_abarrier_expect_tx s5, s6", "", "s5 s6", "");
    check(64, "s_abarrier_complete_tx s5, s6", "", "s5 s6", "");
    check(64, "s_abarrier_slot_rd s[8:9], s5", "s[8:9]", "s5", "");
    check(64, "s_ebarrier_sync s5, s6", "", "s5 s6", "");
    check(64, "s_ebarrier_arrive s5, s6", "", "s5 s6", "");
    check(64, "s_ebarrier_slot_rd s7, s5", "s7", "s5", "");
    check(64, "s_ebarrier_and s7, s5, s6", "s7", "s5 s6", "");
    check(64, "s_ebarrier_or s7, s5, s6", "s7", "s5 s6", "");
    check(64, "s_ebarrier_popc s7, s5, s6", "s7", "s5 s6", "");
}

/* Every v_mmac shape public DTK assembly and Hygon's Triton show: D and C
 * 4 VGPRs (2 with a 16-bit accumulator, 8 for f64), A and B 1 VGPR
 * (16x16x4_f32) or 2 (the others); no SGPR operand. */
static void test_hygon_mmac_shapes(void **state)
{
    (void)state;
    check(64, "v_mmac_16x16x4_f32 v[0:3], v4, v5, v[0:3] vstep:0", "v[0:3]", "v[0:3] v4 v5", "");
    check(64, "v_mmac_16x16x8_f32 v[3:6], v[7:8], v[7:8], v[3:6]", "v[3:6]", "v[3:6] v[7:8]", "");
    check(64, "v_mmac_f32_16x16x8_f32 v[3:6], v[7:8], v[9:10], v[3:6]", "v[3:6]", "v[3:6] v[7:10]",
          "");
    check(64, "v_mmac_f32_16x16x16_bf16 v[0:3], v[128:129], v[192:193], v[0:3]", "v[0:3]",
          "v[0:3] v[128:129] v[192:193]", "");
    check(64, "v_mmac_i32_16x16x32_i8 v[0:3], v[4:5], v[6:7], v[0:3]", "v[0:3]", "v[0:7]", "");
    check(64, "v_mmac_f32_16x16x8_tf32 v[8:11], v[0:1], v[2:3], v[8:11]", "v[8:11]",
          "v[8:11] v[0:3]", "");
    const char *fp8[] = {"fp8_fp8", "fp8_bf8", "bf8_fp8", "bf8_bf8"};
    for (int i = 0; i < 4; i++) {
        char text[128];
        snprintf(text, sizeof text, "v_mmac_f32_16x16x32_%s v[12:15], v[0:1], v[2:3], v[12:15]",
                 fp8[i]);
        check(64, text, "v[12:15]", "v[12:15] v[0:3]", "");
    }
    check(64, "v_mmac_f32_16x16x16_f16_4interleave v[0:3], v[20:21], v[16:17], v[0:3]", "v[0:3]",
          "v[0:3] v[20:21] v[16:17]", "");
    /* gfx946: 16-bit accumulators (<4 x half>, 2 VGPRs) and f64 (8 VGPRs),
     * mnemonics from Hygon's test_mmac_instructions.py */
    check(64, "v_mmac_16x16x16_f16 v[0:1], v[2:3], v[4:5], v[0:1]", "v[0:1]", "v[0:5]", "");
    check(64, "v_mmac_bf16_16x16x16_f16 v[0:1], v[2:3], v[4:5], v[0:1]", "v[0:1]", "v[0:5]", "");
    check(64, "v_mmac_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]", "v[0:7]", "v[0:11]", "");
}

static void test_operand_modifiers_and_specials(void **state)
{
    (void)state;
    check(64, "v_fma_f32 v1, -v2, |v3|, s4 clamp", "v1", "v2 v3 s4", "");
    check(64, "v_cndmask_b32_e64 v1, v2, v3, src_scc", "v1", "v2 v3 scc", "");
    check(64, "v_mov_b32_e32 v1, 1.0", "v1", "", "");
    check(64, "s_mov_b32 s0, lit(0x11)", "s0", "", "");
    check(64, "s_getreg_b32 s0, hwreg(HW_REG_MODE)", "s0", "", "");
    check(64, "s_setreg_b32 hwreg(HW_REG_MODE), s0", "", "s0", "");
    check(64, "s_mov_b32 m0, s3", "m0", "s3", "");
    check(64, "s_mov_b64 s[0:1], flat_scratch", "s[0:1]", "flat_scratch_lo flat_scratch_hi", "");
    check(64, "s_mov_b32 s0, ttmp4", "s0", "", "");
    /* the objdump comment is not operands */
    check(64,
          "\tv_mfma_f32_32x32x2f32 a[0:15], v0, v19, a[0:15]            // 000000002DC4: "
          "D3C48000 04022700",
          "a[0:15]", "v0 v19 a[0:15]", "");
    treg_insn_effect e =
        check(64, "global_load_dword v8, v[4:5], off offset:1024", "v8", "v[4:5]", "");
    assert_true(e.flags & TREG_FX_VECTOR);
    assert_int_equal(e.mnemonic_len, strlen("global_load_dword"));
    assert_memory_equal(e.mnemonic, "global_load_dword", e.mnemonic_len);
}

static void test_unknown_mnemonic_uses_generic_rule(void **state)
{
    (void)state;
    treg_insn_effect e = model(64, "v_frobnicate_b32 v1, v2, s3");
    assert_true(e.flags & TREG_FX_UNKNOWN);
    effect_sets s = sets_of(&e);
    treg_regset d = parse_set("v1"), u = parse_set("v2 s3");
    assert_true(treg_regset_equal(&s.def, &d));
    assert_true(treg_regset_equal(&s.use, &u));
}

static void test_out_of_range_register_is_decode_error(void **state)
{
    (void)state;
    treg_model_ctx ctx = {.wave_size = 64};
    treg_insn_effect e;
    treg_error err = {0};
    static const char *const bad[] = {
        "v_mov_b32_e32 v1024, v1", "s_mov_b32 s128, 0", "v_accvgpr_write_b32 a256, v0",
        "v_mov_b64_e32 v[3:2], v[0:1]", "s_load_dwordx2 s[0:, s[4:5], 0x0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = 0;
        assert_int_equal(treg_model_insn(&ctx, bad[i], &e, &err), TREG_E_DECODE);
        assert_true(err.msg[0] != 0);
    }
}

static void test_table_is_well_formed(void **state)
{
    (void)state;
    treg_model_table_info info;
    treg_error err = {0};
    if (treg_model_table_check(&info, &err) != TREG_OK) fail_msg("%s", err.msg);
    print_message("semantics table: %u exact rows, %u pattern rows\n", info.exact_rows,
                  info.pattern_rows);
    assert_true(info.exact_rows > 100);
    assert_non_null(treg_model_explain("v_mad_u64_u32", strlen("v_mad_u64_u32")));
    assert_null(treg_model_explain("v_frobnicate", strlen("v_frobnicate")));
}

/* ---- corpus ---- */

enum { MAX_MNEMONICS = 4096 };

typedef struct corpus_stats {
    unsigned long insns, decode_errors, unknown, mfma_const_reads_dst;
    char *mnemonics[MAX_MNEMONICS];
    unsigned nmnemonics;
} corpus_stats;

static void note_mnemonic(corpus_stats *st, const char *m, size_t len)
{
    for (unsigned i = 0; i < st->nmnemonics; i++)
        if (strlen(st->mnemonics[i]) == len && memcmp(st->mnemonics[i], m, len) == 0) return;
    if (st->nmnemonics < MAX_MNEMONICS) st->mnemonics[st->nmnemonics++] = strndup(m, len);
}

/* An MFMA whose last source operand (src2) prints as a constant must not
 * read any register of its destination. */
static void check_mfma_constant_src2(corpus_stats *st, const char *line, const treg_insn_effect *e)
{
    if (e->mnemonic_len < 7 || memcmp(e->mnemonic, "v_mfma_", 7) != 0) return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line);
    char *cut = strstr(buf, "//");
    if (cut) *cut = 0;
    char *last = strrchr(buf, ',');
    if (!last) return;
    last++;
    while (*last == ' ') last++;
    if (!((*last >= '0' && *last <= '9') || *last == '-')) return;
    /* reading the destination = a source operand naming the same range
     * (src0/src1 may legitimately overlap part of it) */
    bool reads_dst = false;
    for (unsigned i = 0; i < e->nops; i++) {
        if (e->ops[i].role == TREG_USE) continue;
        for (unsigned j = 0; j < e->nops; j++)
            if (e->ops[j].role == TREG_USE && e->ops[j].reg == e->ops[i].reg &&
                e->ops[j].count == e->ops[i].count)
                reads_dst = true;
        if (e->ops[i].role == TREG_DEF_PARTIAL) reads_dst = true;
    }
    if (reads_dst) {
        st->mfma_const_reads_dst++;
        print_message("MFMA with constant src2 reads its dst: %s", line);
    }
}

static void model_file(corpus_stats *st, const char *path)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd,
             "llvm-objdump-22 -d --no-show-raw-insn --no-leading-addr '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    /* wave size from the code object is the loader's business; every
     * corpus kernel is wave64 */
    treg_model_ctx ctx = {.wave_size = 64};
    char line[1024];
    while (fgets(line, sizeof line, p)) {
        if (line[0] != '\t') continue;
        if (line[1] < 'a' || line[1] > 'z') continue;
        treg_insn_effect e;
        treg_error err = {0};
        st->insns++;
        if (treg_model_insn(&ctx, line, &e, &err) != TREG_OK) {
            st->decode_errors++;
            print_message("decode error: %s: %s", err.msg, line);
            continue;
        }
        note_mnemonic(st, e.mnemonic, e.mnemonic_len);
        if (e.flags & TREG_FX_UNKNOWN) {
            st->unknown++;
            print_message("unknown mnemonic: %s", line);
        }
        check_mfma_constant_src2(st, line, &e);
    }
    pclose(p);
}

static void walk(corpus_stats *st, const char *dir, unsigned *files)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        size_t n = strlen(ent->d_name);
        if (n > 6 && strcmp(ent->d_name + n - 6, ".hsaco") == 0) {
            model_file(st, path);
            (*files)++;
        } else if (ent->d_type == DT_DIR || ent->d_type == DT_UNKNOWN) {
            walk(st, path, files);
        }
    }
    closedir(d);
}

static void test_corpus_every_instruction_modelled(void **state)
{
    (void)state;
    if (!tu_exists(TREG_CORPUS)) skip();
    if (system("llvm-objdump-22 --version >/dev/null 2>&1") != 0) {
        print_message("SKIP: llvm-objdump-22 not found\n");
        skip();
    }
    corpus_stats *st = calloc(1, sizeof *st);
    assert_non_null(st);
    unsigned files = 0;
    walk(st, TREG_CORPUS, &files);
    print_message("corpus: %u code objects, %lu instructions, %u distinct mnemonics, "
                  "%lu decode errors, %lu unknown, %lu MFMA constant-src2 dst reads\n",
                  files, st->insns, st->nmnemonics, st->decode_errors, st->unknown,
                  st->mfma_const_reads_dst);
    assert_true(files > 0);
    assert_true(st->insns > 0);
    assert_int_equal(st->decode_errors, 0);
    assert_int_equal(st->unknown, 0);
    assert_int_equal(st->mfma_const_reads_dst, 0);
    for (unsigned i = 0; i < st->nmnemonics; i++) free(st->mnemonics[i]);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vopd_dual_two_destinations),
        cmocka_unit_test(test_swap_writes_both),
        cmocka_unit_test(test_permlane_swaps_write_both_in_part),
        cmocka_unit_test(test_mad_u64_u32_carry_out_is_written),
        cmocka_unit_test(test_div_scale_writes_vcc),
        cmocka_unit_test(test_mac_fmac_dot_read_dst),
        cmocka_unit_test(test_mfma_src2_same_range_reads_dst),
        cmocka_unit_test(test_mfma_constant_src2_does_not_read_dst),
        cmocka_unit_test(test_mfma_other_src2_reads_src2_not_dst),
        cmocka_unit_test(test_smfmac_accumulates_into_dst),
        cmocka_unit_test(test_hygon_mmac_reads_src2),
        cmocka_unit_test(test_writelane_partial),
        cmocka_unit_test(test_permlane16_reads_old_dst),
        cmocka_unit_test(test_salu_k_forms_read_dst),
        cmocka_unit_test(test_cselect_reads_scc),
        cmocka_unit_test(test_d16_hi_loads_write_the_high_half),
        cmocka_unit_test(test_d16_loads_write_the_low_half),
        cmocka_unit_test(test_mix_writes_one_half),
        cmocka_unit_test(test_sdwa_preserve_partial),
        cmocka_unit_test(test_dpp_masks_partial),
        cmocka_unit_test(test_true16_halves),
        cmocka_unit_test(test_narrow_stores_read_one_half),
        cmocka_unit_test(test_d16_format_loads),
        cmocka_unit_test(test_constants_and_old_values),
        cmocka_unit_test(test_stores_write_nothing),
        cmocka_unit_test(test_s_cmp_writes_only_scc),
        cmocka_unit_test(test_vcmpx_writes_exec),
        cmocka_unit_test(test_atomics_without_return),
        cmocka_unit_test(test_loads_to_lds_write_no_vgpr),
        cmocka_unit_test(test_hints_have_no_operands),
        cmocka_unit_test(test_vopc_e32_writes_vcc),
        cmocka_unit_test(test_vcc_readers),
        cmocka_unit_test(test_saveexec),
        cmocka_unit_test(test_salu_scc),
        cmocka_unit_test(test_branches_read_what_they_test),
        cmocka_unit_test(test_control_flow_kinds),
        cmocka_unit_test(test_exec_ops_and_copies),
        cmocka_unit_test(test_spill_moves),
        cmocka_unit_test(test_hygon_matrix_memory),
        cmocka_unit_test(test_hygon_scalar),
        cmocka_unit_test(test_hygon_mmac_shapes),
        cmocka_unit_test(test_operand_modifiers_and_specials),
        cmocka_unit_test(test_unknown_mnemonic_uses_generic_rule),
        cmocka_unit_test(test_out_of_range_register_is_decode_error),
        cmocka_unit_test(test_table_is_well_formed),
        cmocka_unit_test(test_corpus_every_instruction_modelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
