/* The assembly text front end (text/asm.h), on short excerpts written out
 * by hand in the forms LLVM's printer and public DTK assembly use: operand
 * forms and their canonical text, encoding sizes and so addresses, labels
 * and branch targets, padding, .loc lines, the descriptor directives, the
 * metadata block, the trailer, and bad text.  The whole-kernel proof (text
 * and code object give the same report) is tests/cli/test_text_front_end.sh;
 * a Hygon kernel end to end is the last test here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "text/asm.h"
#include "text/asm_expr.h"
#include "treg/analyzer.h"
#include "util/arena.h"

/* A kernel named k around body, with a descriptor and the given target. */
static char *kernel_text(const char *target, const char *prelude, const char *body, const char *kd)
{
    static char buf[16384];
    snprintf(buf, sizeof buf,
             "\t.amdgcn_target \"amdgcn-amd-amdhsa--%s\"\n"
             "\t.amdhsa_code_object_version 5\n"
             "%s"
             "\t.text\n\t.globl k\n\t.p2align 8\n\t.type k,@function\n"
             "k:\n%s"
             ".Lfunc_end0:\n\t.size k, .Lfunc_end0-k\n"
             "\t.rodata\n\t.p2align 6\n"
             "\t.amdhsa_kernel k\n"
             "\t\t.amdhsa_next_free_vgpr 32\n\t\t.amdhsa_next_free_sgpr 16\n%s"
             "\t.end_amdhsa_kernel\n",
             target, prelude, body, kd);
    return buf;
}

typedef struct parsed {
    treg_arena arena;
    treg_asm a;
    treg_error err;
    int rc;
} parsed;

static parsed *parse(const char *text)
{
    parsed *p = calloc(1, sizeof *p);
    assert_non_null(p);
    treg_arena_init(&p->arena);
    p->rc = treg_asm_parse(&p->arena, text, strlen(text), "t.s", &p->a, &p->err);
    return p;
}

static void done(parsed *p)
{
    treg_arena_free(&p->arena);
    free(p);
}

static const treg_asm_kernel *only_kernel(parsed *p)
{
    if (p->rc) print_message("%s\n", p->err.msg);
    assert_int_equal(p->rc, TREG_OK);
    assert_int_equal(p->a.co.nkernels, 1);
    assert_string_equal(p->a.co.kernels[0].name, "k");
    return &p->a.kernels[0];
}

/* DTK's aiter-style mmac: .set symbols inside the brackets, a 4-field
 * register list, no commas, a // comment straight after the bracket. */
static void test_dtk_operand_forms(void **state)
{
    (void)state;
    parsed *p = parse(kernel_text(
        "gfx936",
        ".set vgprValuC, 0\n.set vgprValuA_X2_I0, 20\n.set vgprValuB_X0_I0, 16\n"
        "sgprSrd = 8\n",
        "  v_mmac_f32_16x16x16_f16 "
        "v[vgprValuC+0*4+0:vgprValuC+0*4+1:vgprValuC+0*4+2:vgprValuC+0*4+3] "
        "v[vgprValuA_X2_I0+0*2+0:vgprValuA_X2_I0+0*2+1] "
        "v[vgprValuB_X0_I0+0*2+0:vgprValuB_X0_I0+0*2+1] "
        "v[vgprValuC+0*4+0: vgprValuC+0*4+1: vgprValuC+0*4+2: vgprValuC+0*4+3]//\n"
        "  DS_READ_M32x16_B16 v[vgprValuA_X2_I0+ 0:vgprValuA_X2_I0+ 3], v[vgprValuB_X0_I0] "
        "offset:64\n"
        "  s_load_dwordx4 s[sgprSrd:sgprSrd+3], s[0:1], 0x0\n"
        "  s_nop (1)\n"
        "  s_endpgm\n",
        ""));
    const treg_asm_kernel *k = only_kernel(p);
    assert_int_equal(k->ninsns, 5);
    assert_string_equal(k->insns[0].text,
                        "v_mmac_f32_16x16x16_f16 v[0:3], v[20:21], v[16:17], v[0:3]");
    assert_string_equal(k->insns[1].text, "ds_read_m32x16_b16 v[20:23], v16 offset:64");
    assert_string_equal(k->insns[2].text, "s_load_dwordx4 s[8:11], s[0:1], 0x0");
    assert_string_equal(k->insns[3].text, "s_nop 1");
    /* every one of them an 8-byte encoding but the SOPP words */
    assert_int_equal(k->insns[0].size, 8);
    assert_int_equal(k->insns[1].size, 8);
    assert_int_equal(k->insns[2].size, 8);
    assert_int_equal(k->insns[3].size, 4);
    assert_int_equal(k->insns[4].addr - k->insns[0].addr, 28);
    done(p);
}

/* Sizes as the assembler gives them, from LLVM-printed forms seen in the
 * corpus: literals, inline constants, VOPD, VOP3 literals (GFX10+). */
static void test_encoding_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned size;
    } cases[] = {
        {"v_or_b32_e32 v1, 0x200, v0", 8},
        {"v_or_b32_e32 v1, 63, v0", 4},
        {"v_mov_b32_e32 v1, 1.0", 4},
        {"v_mov_b32_e32 v1, -4.0", 4},
        {"v_mov_b32_e32 v1, 0x3fc00000", 8},
        {"v_mov_b32_e32 v1, lit(0x3f)", 8},
        {"s_mov_b32 s0, 0xffff", 8},
        {"s_mov_b32 s0, -16", 4},
        {"s_movk_i32 s0, 0x1000", 4},
        {"s_addk_i32 s2, 0x400", 4},
        {"s_cmpk_lg_u32 s2, 0x400", 4},
        {"s_waitcnt vmcnt(0) lgkmcnt(0)", 4},
        {"s_load_dwordx8 s[8:15], s[4:5], 0x8", 8},
        {"v_readfirstlane_b32 s23, v1", 4},
        {"v_lshlrev_b64 v[2:3], 1, v[2:3]", 8},
        {"v_add_f32_dpp v2, v2, v2 row_shr:8 row_mask:0xf bank_mask:0xf bound_ctrl:1", 8},
        {"v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], 0 cbsz:1 abid:0 blgp:0", 8},
        {"v_pk_mul_f32 v[30:31], v[6:7], v[106:107] op_sel_hi:[1,0]", 8},
        {"v_and_or_b32 v4, 0x7f, v93, v4", 12},
        {"v_dual_mul_f32 v1, 0x4f7ffffe, v1 :: v_dual_mov_b32 v32, 0", 12},
        {"v_dual_mov_b32 v8, 0 :: v_dual_mov_b32 v11, 0", 8},
        {"global_load_dword v6, v[2:3], off offset:1024", 8},
        {"buffer_load_dword v0, off, s[0:3], 0 offen offset:16", 8},
        {"ds_read_b128 v[0:3], v4 offset:65520", 8},
        {"s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x3", 8},
    };
    char body[4096] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strcat(body, "  ");
        strcat(body, cases[i].text);
        strcat(body, "\n");
    }
    parsed *p = parse(kernel_text("gfx90a", "", body, ""));
    const treg_asm_kernel *k = only_kernel(p);
    assert_int_equal(k->ninsns, sizeof cases / sizeof cases[0]);
    for (size_t i = 0; i < k->ninsns; i++) {
        if (k->insns[i].size != cases[i].size)
            print_message("'%s': %u bytes, want %u\n", cases[i].text, k->insns[i].size,
                          cases[i].size);
        assert_int_equal(k->insns[i].size, cases[i].size);
        assert_string_equal(k->insns[i].text, cases[i].text);
    }
    done(p);
}

/* Labels: forward and backward branches get the label's address; the
 * kernel's alignment padding is the assembler's s_nop words; .loc rows go
 * to the next instruction, not to padding. */
static void test_labels_padding_lines(void **state)
{
    (void)state;
    parsed *p = parse(kernel_text("gfx90a", "",
                                  "\t.file\t1 \"/workspace/kernels\" \"kernels_a.py\"\n"
                                  "\t.loc\t1 24 0 prologue_end\n"
                                  "\ts_load_dwordx2 s[6:7], s[4:5], 0x0\n"
                                  "\ts_branch .LBB0_0\n"
                                  "\t.loc\t1 0 0 is_stmt 0\n"
                                  ".Ltmp0:\n\t.p2align\t8\n"
                                  ".LBB0_0:\n"
                                  "\t.loc\t1 31 34 is_stmt 1\n"
                                  "\tv_mov_b32_e32 v1, 0\n"
                                  ".LBB0_1:\n"
                                  "\t.file\t2 \"/opt/triton/language\" \"standard.py\"\n"
                                  "\t.loc\t2 263 15\n"
                                  "\ts_sub_u32 s2, s2, 1\n"
                                  "\ts_cbranch_scc1 .LBB0_1\n"
                                  "\ts_endpgm\n",
                                  ""));
    const treg_asm_kernel *k = only_kernel(p);
    /* 8 + 4, padding to 0x100, then 4 + 4 + 4 + 4 */
    assert_int_equal(k->ninsns, 2 + (256 - 12) / 4 + 4);
    assert_string_equal(k->insns[2].text, "s_nop 0");
    const treg_insn *mov = &k->insns[2 + (256 - 12) / 4];
    assert_int_equal(mov->addr, 0x100);
    assert_true(k->insns[1].has_target);
    assert_int_equal(k->insns[1].target, 0x100);
    const treg_insn *back = &k->insns[k->ninsns - 2];
    assert_string_equal(back->text, "s_cbranch_scc1 .LBB0_1");
    assert_true(back->has_target);
    assert_int_equal(back->target, 0x104);
    /* lines: padding keeps line 24; the mov gets 31; the loop standard.py:263 */
    const treg_linetab *lt = &p->a.lines;
    assert_int_equal(lt->nfiles, 2);
    assert_string_equal(lt->files[0], "/workspace/kernels/kernels_a.py");
    assert_string_equal(lt->files[1], "/opt/triton/language/standard.py");
    assert_int_equal(treg_lines_lookup(lt, 0x80)->line, 24);
    assert_int_equal(treg_lines_lookup(lt, 0x100)->line, 31);
    assert_int_equal(treg_lines_lookup(lt, 0x104)->line, 263);
    assert_int_equal(treg_lines_lookup(lt, 0x104)->file, 1);
    done(p);
}

/* A call's relocation against a function in the same text is the linker's
 * S + A - P; a long branch's label arithmetic becomes its value. */
static void test_relocations_and_label_arithmetic(void **state)
{
    (void)state;
    parsed *p = parse(
        kernel_text("gfx90a",
                    "\t.text\n\t.type f,@function\nf:\n\ts_setpc_b64 s[30:31]\n.Lfunc_end_f:\n"
                    "\t.size f, .Lfunc_end_f-f\n",
                    "\ts_getpc_b64 s[12:13]\n"
                    "\ts_add_u32 s12, s12, f@rel32@lo+4\n"
                    "\ts_addc_u32 s13, s13, f@rel32@hi+12\n"
                    "\ts_swappc_b64 s[30:31], s[12:13]\n"
                    "\ts_getpc_b64 s[0:1]\n"
                    ".Lpost_getpc0:\n"
                    "\ts_add_u32 s0, s0, (.Lfar-.Lpost_getpc0)&4294967295\n"
                    "\ts_addc_u32 s1, s1, (.Lfar-.Lpost_getpc0)>>32\n"
                    "\ts_setpc_b64 s[0:1]\n"
                    ".Lfar:\n"
                    "\ts_endpgm\n",
                    ""));
    const treg_asm_kernel *k = only_kernel(p);
    uint64_t kstart = p->a.co.kernels[0].addr; /* f is laid out first */
    assert_true(kstart >= 4);
    char want[64];
    /* S = 0, P = kstart + 4 + 4 (after s_getpc's 4 bytes and the SOP2 word) */
    snprintf(want, sizeof want, "s_add_u32 s12, s12, 0x%llx",
             (unsigned long long)((0 + 4 - (kstart + 8)) & 0xffffffffu));
    assert_string_equal(k->insns[1].text, want);
    assert_string_equal(k->insns[2].text, "s_addc_u32 s13, s13, lit(0xffffffff)");
    assert_int_equal(k->insns[1].size, 8);
    /* .Lfar - .Lpost_getpc0: two 8-byte adds and s_setpc */
    assert_string_equal(k->insns[5].text, "s_add_u32 s0, s0, lit(0x14)");
    assert_string_equal(k->insns[6].text, "s_addc_u32 s1, s1, lit(0x0)");
    done(p);
}

/* The descriptor's directives and the metadata block as the loader reads
 * them from a code object; the target id's features; the trailer. */
static void test_descriptor_metadata_trailer(void **state)
{
    (void)state;
    char text[16384];
    snprintf(text, sizeof text, "%s",
             kernel_text("gfx942:sramecc+:xnack-", "", "\tv_mov_b32_e32 v1, 0\n\ts_endpgm\n",
                         "\t\t.amdhsa_group_segment_fixed_size 1024\n"
                         "\t\t.amdhsa_private_segment_fixed_size 16\n"
                         "\t\t.amdhsa_kernarg_size 48\n"
                         "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
                         "\t\t.amdhsa_user_sgpr_dispatch_ptr 1\n"
                         "\t\t.amdhsa_user_sgpr_kernarg_preload_length 2\n"
                         "\t\t.amdhsa_enable_private_segment 1\n"
                         "\t\t.amdhsa_system_sgpr_workgroup_id_y 1\n"
                         "\t\t.amdhsa_system_vgpr_workitem_id 2\n"
                         "\t\t.amdhsa_accum_offset 12\n"
                         "\t\t.amdhsa_ieee_mode 1\n"));
    strcat(text, "\t.text\n; Kernel info:\n; NumVgprs: 2\n; NumAgprs: 0\n; TotalNumVgprs: 2\n"
                 "; ScratchSize: 16\n; Occupancy: 8\n"
                 "\t.amdgpu_metadata\n---\namdhsa.kernels:\n"
                 "  - .agpr_count:     0\n"
                 "    .args:\n      - .offset: 0\n        .size: 8\n"
                 "    .max_flat_workgroup_size: 256\n"
                 "    .name:           k\n"
                 "    .sgpr_count:     14\n"
                 "    .symbol:         k.kd\n"
                 "    .uses_dynamic_stack: false\n"
                 "    .vgpr_count:     2\n"
                 "amdhsa.target:   amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-\n"
                 "amdhsa.version:\n  - 1\n  - 2\n...\n\n\t.end_amdgpu_metadata\n");
    parsed *p = parse(text);
    const treg_asm_kernel *k = only_kernel(p);
    const treg_kernel_sym *ks = &p->a.co.kernels[0];
    assert_string_equal(p->a.co.target_gfx, "gfx942");
    assert_int_equal(p->a.co.xnack, 2);
    assert_int_equal(p->a.co.sramecc, 3);
    assert_int_equal(p->a.code_object_version, 5);
    assert_int_equal(ks->kd.group_segment_fixed_size, 1024);
    assert_int_equal(ks->kd.private_segment_fixed_size, 16);
    assert_int_equal(ks->kd.kernarg_size, 48);
    /* no .amdhsa_user_sgpr_count: dispatch ptr 2 + kernarg ptr 2 + preload 2 */
    assert_int_equal(ks->kd.user_sgpr_count, 6);
    assert_true(ks->kd.private_segment_wave_offset);
    assert_true(ks->kd.wg_id_x); /* the assembler's default */
    assert_true(ks->kd.wg_id_y);
    assert_false(ks->kd.wg_id_z);
    assert_int_equal(ks->kd.workitem_id_vgprs, 3);
    assert_int_equal(ks->kd.accum_offset, 12);
    assert_true(ks->meta.present);
    assert_int_equal(ks->meta.vgpr_count, 2);
    assert_int_equal(ks->meta.sgpr_count, 14);
    assert_int_equal(ks->meta.max_flat_workgroup_size, 256);
    assert_int_equal(ks->meta.uses_dynamic_stack, 0);
    assert_int_equal(k->trailer.num_vgprs, 2);
    assert_int_equal(k->trailer.occupancy, 8);
    assert_int_equal(k->trailer.scratch_size, 16);
    assert_int_equal(k->trailer.num_sgprs, -1);
    done(p);
}

/* Hygon's WDRA backend comments after a kernel: per role, in wave-id
 * order, in the format Hygon's Triton parses them (backend/wasp.py
 * read_partition_registers: 2 to 4 items, booleans for the spill line); a
 * tuple not of that form is not taken. */
static void test_wdra_branch_comments(void **state)
{
    (void)state;
    static const struct {
        const char *comments;
        unsigned spill, needs, available;
        int available0, needs2, spill1;
    } cases[] = {
        {"; BranchSpillInfo: (false, true, true)\n; BranchRealOrSuggestedVgprs: (2, 228, 228)\n"
         "; BranchAvailableVgprs: (16, 124, 124)\n",
         3, 3, 3, 16, 228, 1},
        {"  ;  BranchAvailableVgprs:(88,208)\n", 0, 0, 2, 88, -1, -1},
        {"; BranchAvailableVgprs: (4, 4, 248, 256, 8)\n", 0, 0, 0, -1, -1, -1}, /* 5 items */
        {"; BranchAvailableVgprs: (16)\n", 0, 0, 0, -1, -1, -1},                /* 1 item */
        {"; BranchSpillInfo: (false, 1)\n; BranchAvailableVgprs: (16, x)\n", 0, 0, 0, -1, -1, -1},
        {"; BranchRealOrSuggestedVgprs: 2, 228\n", 0, 0, 0, -1, -1, -1}, /* no brackets */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[16384];
        snprintf(text, sizeof text, "%s",
                 kernel_text("gfx946:xnack-", "", "\ts_set_vgpr_size 16\n\ts_endpgm\n", ""));
        strcat(text, "\t.text\n; Kernel info:\n; NumVgprs: 2\n");
        strcat(text, cases[i].comments);
        parsed *p = parse(text);
        const treg_asm_trailer *t = &only_kernel(p)->trailer;
        assert_int_equal(t->nbranch_spill, cases[i].spill);
        assert_int_equal(t->nbranch_needs, cases[i].needs);
        assert_int_equal(t->nbranch_available, cases[i].available);
        if (cases[i].available0 >= 0) assert_int_equal(t->branch_available[0], cases[i].available0);
        if (cases[i].needs2 >= 0) assert_int_equal(t->branch_needs[2], cases[i].needs2);
        if (cases[i].spill1 >= 0) assert_int_equal(t->branch_spill[1], cases[i].spill1);
        assert_int_equal(t->num_vgprs, 2);
        done(p);
    }
}

/* Bad text: one message naming the file and the line. */
static void test_bad_text(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        const char *message;
    } cases[] = {
        {"\t.frobnicate 1\n", "t.s:8: unknown directive '.frobnicate'"},
        {"\txyzzy_b32 v0, v1\n", "t.s:8: unknown mnemonic 'xyzzy_b32'"},
        {"\tv_mov_b32_e32 v[0:2:4:6], v1\n",
         "t.s:8: register list 'v[0:2:4:6]' is not 4 consecutive registers"},
        {"\tv_mov_b32_e32 v[nosuch], v1\n", "t.s:8: register 'v[nosuch]' is not a constant"},
        {"\tv_mov_b32_e32 v[0:3\n", "t.s:8: unbalanced register bracket"},
        {"\t.p2align 3, , 2, 7\n\t.p2align 40\n", "t.s:9: bad alignment in .p2align"},
        {"\t.fill 100000000, 4, 0\n", "t.s:8: code section larger than"},
        /* 4 MB of padding inside a kernel from 30 bytes of text */
        {"\t.fill 1000000, 4, 0xbf800000\n", "t.s: kernels of 1000000 instructions from so little"},
        {"1:\n", "t.s:8: numeric local label '1' is not supported"},
        {"\t.macro m\n", "t.s:8: .macro m has no .endm"},
        {"\t.amdhsa_kernel\n", "t.s:8: malformed .amdhsa_kernel"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        parsed *p = parse(kernel_text("gfx90a", "", cases[i].body, ""));
        if (p->rc == TREG_OK || !strstr(p->err.msg, cases[i].message))
            print_message("case %zu: rc %d, '%s', want '%s'\n", i, p->rc, p->err.msg,
                          cases[i].message);
        assert_int_not_equal(p->rc, TREG_OK);
        assert_non_null(strstr(p->err.msg, cases[i].message));
        assert_null(strchr(p->err.msg, '\n'));
        done(p);
    }
    /* truncated: the block never ends; the last line has no newline */
    const char *whole = kernel_text("gfx90a", "", "\ts_endpgm\n", "");
    char cut[16384];
    size_t n = strlen(whole);
    memcpy(cut, whole, n - 20);
    cut[n - 20] = '\0';
    parsed *p = parse(cut);
    assert_int_equal(p->rc, TREG_E_FORMAT);
    assert_non_null(strstr(p->err.msg, "truncated?"));
    done(p);
    memcpy(cut, whole, n);
    strcpy(cut + n, "\t.amdgpu_metadata\n---\namdhsa.kernels: [\n");
    p = parse(cut);
    assert_int_not_equal(p->rc, TREG_OK);
    assert_non_null(strstr(p->err.msg, "truncated?"));
    done(p);
    strcpy(cut + n, "\t.amdgpu_metadata\n---\namdhsa.kernels: [ {\n\t.end_amdgpu_metadata\n");
    p = parse(cut);
    assert_int_equal(p->rc, TREG_E_METADATA);
    assert_non_null(strstr(p->err.msg, "t.s:"));
    done(p);
    /* no kernel at all */
    p = parse("\t.text\n\ts_endpgm\n");
    assert_int_equal(p->rc, TREG_E_NOKERNEL);
    done(p);
    /* a descriptor without code */
    p = parse("\t.rodata\n\t.amdhsa_kernel k\n\t.end_amdhsa_kernel\n");
    assert_int_equal(p->rc, TREG_E_NOKERNEL);
    assert_non_null(strstr(p->err.msg, "kernel k has a descriptor but no code"));
    done(p);
}

static int eval(const treg_symtab *t, const char *s, int64_t *v)
{
    return treg_expr_eval(t, s, strlen(s), false, v);
}

/* Expressions as LLVM's MC evaluates them (GNU precedence). */
static void test_expressions(void **state)
{
    (void)state;
    treg_arena a;
    treg_arena_init(&a);
    treg_symtab t;
    treg_symtab_init(&t, &a);
    treg_sym *s = treg_symtab_get(&t, "k.num_vgpr", 10);
    s->value = 42;
    s->defined = true;
    int64_t v;
    assert_int_equal(eval(&t, "1+2*3", &v), TREG_EXPR_OK);
    assert_int_equal(v, 7);
    assert_int_equal(eval(&t, "1+2|4", &v), TREG_EXPR_OK);
    assert_int_equal(v, 7); /* | binds tighter than + */
    assert_int_equal(eval(&t, "max(k.num_vgpr, 64, 1)", &v), TREG_EXPR_OK);
    assert_int_equal(v, 64);
    assert_int_equal(eval(&t, "alignto(k.num_vgpr, 8)", &v), TREG_EXPR_OK);
    assert_int_equal(v, 48);
    assert_int_equal(eval(&t, "-1>>1", &v), TREG_EXPR_OK);
    assert_int_equal(v, -1);
    assert_int_equal(eval(&t, "0x10 + 010 + 0b11", &v), TREG_EXPR_OK);
    assert_int_equal(v, 27);
    /* || below &&, below the comparisons, below | and & (the macro layer's .if) */
    assert_int_equal(eval(&t, "1 == 2 || 3 > 2 && 2", &v), TREG_EXPR_OK);
    assert_int_equal(v, 1);
    assert_int_equal(eval(&t, "2 && 0 || 0", &v), TREG_EXPR_OK);
    assert_int_equal(v, 0);
    assert_int_equal(eval(&t, "4 | 1 && 6 & 1", &v), TREG_EXPR_OK);
    assert_int_equal(v, 0);
    assert_int_equal(eval(&t, "1/0", &v), TREG_EXPR_RANGE);
    assert_int_equal(eval(&t, "1<<64", &v), TREG_EXPR_RANGE);
    assert_int_equal(eval(&t, "nosuch+1", &v), TREG_EXPR_UNDEFINED);
    assert_int_equal(eval(&t, "f@rel32@lo+4", &v), TREG_EXPR_UNDEFINED);
    assert_int_equal(eval(&t, "totalnumvgprs(1, 2)", &v), TREG_EXPR_UNDEFINED);
    assert_int_equal(eval(&t, "(1", &v), TREG_EXPR_SYNTAX);
    assert_int_equal(eval(&t, "1.5", &v), TREG_EXPR_SYNTAX);
    char deep[400];
    memset(deep, '(', 200);
    deep[200] = '1';
    memset(deep + 201, ')', 199);
    assert_int_equal(treg_expr_eval(&t, deep, 400, false, &v), TREG_EXPR_SYNTAX);
    treg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtk_operand_forms),
        cmocka_unit_test(test_encoding_sizes),
        cmocka_unit_test(test_labels_padding_lines),
        cmocka_unit_test(test_relocations_and_label_arithmetic),
        cmocka_unit_test(test_descriptor_metadata_trailer),
        cmocka_unit_test(test_wdra_branch_comments),
        cmocka_unit_test(test_bad_text),
        cmocka_unit_test(test_expressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
