/* The assembler's macro layer (text/asm_macro.h) on short texts written the
 * way Tensile-style Hygon kernels write them, each expanded text given in
 * full: arguments and defaults, \@, conditionals on .set symbols, .rept
 * with a .set counter, .irp/.irpc, macros calling macros (the instructions
 * of these cases are the ones llvm-mc-22 assembles from the same texts),
 * symbolic register brackets; then every bound and unterminated block as
 * one line naming the file and the line, and the line map through
 * treg_asm_parse.  The whole-kernel proof (macros and the same kernel
 * written out give one report) is tests/cli/test_asm_macros.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "text/asm.h"
#include "text/asm_macro.h"
#include "treg/analyzer.h"
#include "util/arena.h"

typedef struct expanded {
    treg_arena arena;
    treg_asm_expanded x;
    treg_error err;
    int rc;
} expanded;

static expanded *expand(const char *text)
{
    expanded *e = calloc(1, sizeof *e);
    assert_non_null(e);
    treg_arena_init(&e->arena);
    e->rc = treg_asm_macro_expand(&e->arena, text, strlen(text), "m.s", &e->x, &e->err);
    return e;
}

static void done(expanded *e)
{
    treg_arena_free(&e->arena);
    free(e);
}

/* text expands to want exactly. */
static void expands_to(const char *text, const char *want)
{
    expanded *e = expand(text);
    if (e->rc) print_message("%s\n", e->err.msg);
    assert_int_equal(e->rc, TREG_OK);
    if (strcmp(e->x.text, want) != 0) print_message("got:\n%s\nwant:\n%s\n", e->x.text, want);
    assert_string_equal(e->x.text, want);
    done(e);
}

/* text is refused with message (one line) in its error. */
static void refused(const char *text, const char *message)
{
    expanded *e = expand(text);
    if (e->rc != TREG_E_FORMAT || !strstr(e->err.msg, message))
        print_message("rc %d, '%s', want '%s'\n", e->rc, e->err.msg, message);
    assert_int_equal(e->rc, TREG_E_FORMAT);
    assert_non_null(strstr(e->err.msg, message));
    assert_null(strchr(e->err.msg, '\n'));
    done(e);
}

static void test_arguments_and_defaults(void **state)
{
    (void)state;
    /* by position, by name, defaults, blanks that join an operand
     * ("\x + 1" is one argument), strings without their quotes */
    expands_to(".macro ADD dst, src=v1, imm=0\n"
               "  v_add_u32 \\dst, \\src, \\imm\n"
               ".endm\n"
               "ADD v2\n"
               "ADD v3, v4, 5\n"
               "ADD v5 v6 7\n"
               "ADD imm=9, dst=v7\n"
               "ADD v8, , 2 + 3\n"
               ".macro NOTE text\n"
               "  .ascii \"\\text\"\n"
               ".endm\n"
               "NOTE \"a b\"\n",
               "v_add_u32 v2, v1, 0\n"
               "v_add_u32 v3, v4, 5\n"
               "v_add_u32 v5, v6, 7\n"
               "v_add_u32 v7, v1, 9\n"
               "v_add_u32 v8, v1, 2+3\n"
               ".ascii \"a b\"\n");
    /* :req, :vararg, \() to end a name */
    expands_to(".macro OP name:req, rest:vararg\n"
               "  \\name\\()_b32 \\rest\n"
               ".endm\n"
               "OP v_mov, v0, v1 ; both\n",
               "v_mov_b32 v0, v1\n");
    refused(".macro OP name:req\n\\name\n.endm\nOP\n",
            "m.s:4: macro OP needs a value for its parameter 'name'");
    refused(".macro OP a\n\\a\n.endm\nOP 1, 2\n", "m.s:4: too many arguments to macro OP");
    refused(".macro OP\n.endm\nOP 1\n", "m.s:3: macro OP takes no arguments");
    refused(".macro OP a\n.endm\nOP b=1\n", "m.s:3: macro OP has no parameter named 'b'");
    refused(".macro OP a, a\n.endm\n", "m.s:1: macro OP has two parameters named 'a'");
    refused(".macro OP a\n.endm\n.macro OP b\n.endm\n", "m.s:3: macro OP is already defined");
    /* .purgem frees the name */
    expands_to(".macro OP\ns_nop 1\n.endm\n.purgem OP\n.macro OP\ns_nop 2\n.endm\nOP\n",
               "s_nop 2\n");
}

/* \@: the count of macro expansions before this one (.rept and .irp
 * bodies are not counted), as labels use it to stay apart. */
static void test_expansion_counter(void **state)
{
    (void)state;
    expands_to(".macro LOOP\n"
               "L\\@: s_nop \\@\n"
               ".endm\n"
               ".macro TWO\n"
               "  LOOP\n"
               "  LOOP\n"
               ".endm\n"
               "LOOP\n"
               "TWO\n"
               ".rept 2\n"
               "LOOP\n"
               ".endr\n",
               "L0: s_nop 0\n"
               "L2: s_nop 2\n"
               "L3: s_nop 3\n"
               "L4: s_nop 4\n"
               "L5: s_nop 5\n");
}

/* Conditionals on the .set symbols of that point, nested, with .elseif,
 * .else, .ifdef/.ifndef, .ifb/.ifnb, .ifc, && and ||; a branch not taken
 * is not even read (its .if tests nothing, its macros are not called). */
static void test_conditionals(void **state)
{
    (void)state;
    expands_to(".set debug, 0\n"
               ".set MT0, 64\n"
               ".if debug\n"
               "  v_mov_b32 v0, 1\n"
               "  .if nosuch\n"
               "  .endif\n"
               ".elseif MT0 == 32\n"
               "  v_mov_b32 v0, 2\n"
               ".elseif MT0 >= 64 && !debug\n"
               "  .if MT0 > 100 || MT0 == 64\n"
               "    v_mov_b32 v0, 3\n"
               "  .else\n"
               "    v_mov_b32 v0, 4\n"
               "  .endif\n"
               ".else\n"
               "  v_mov_b32 v0, 5\n"
               ".endif\n"
               ".ifdef MT0\n"
               "  s_nop 1\n"
               ".endif\n"
               ".ifndef MT1\n"
               "  s_nop 2\n"
               ".endif\n"
               ".macro OPT a, b\n"
               ".ifb \\b\n"
               "  s_nop 3\n"
               ".else\n"
               "  s_nop \\b\n"
               ".endif\n"
               ".ifc \\a, x\n"
               "  s_nop 5\n"
               ".endif\n"
               ".endm\n"
               "OPT x\n"
               "OPT y, 4\n"
               ".ifeq MT0 - 64\n"
               "  s_nop 6\n"
               ".endif\n",
               ".set debug, 0\n"
               ".set MT0, 64\n"
               "v_mov_b32 v0, 3\n"
               "s_nop 1\n"
               "s_nop 2\n"
               "s_nop 3\n"
               "s_nop 5\n"
               "s_nop 4\n"
               "s_nop 6\n");
    refused(".if later\n.endif\n.set later, 1\n",
            "m.s:1: .if 'later' is not a constant expression");
    refused(".if 0\n.elseif nosuch\n.endif\n",
            "m.s:2: .elseif 'nosuch' is not a constant expression");
    refused(".else\n", "m.s:1: .else without .if");
    refused(".endif\n", "m.s:1: .endif without .if");
    /* .exitm leaves the macro and the conditionals it opened */
    expands_to(".macro UPTO n\n"
               ".if \\n > 1\n"
               "  s_nop 1\n"
               "  .exitm\n"
               ".endif\n"
               "s_nop 0\n"
               ".endm\n"
               "UPTO 2\n"
               "UPTO 1\n",
               "s_nop 1\n"
               "s_nop 0\n");
}

/* .rept with a .set counter: each repetition sees the value the one before
 * left, in its .if and in its register brackets. */
static void test_rept_counter(void **state)
{
    (void)state;
    expands_to(".set vgprValuC, 8\n"
               ".set i, 0\n"
               ".rept 3\n"
               "  v_mov_b32 v[vgprValuC+i], i\n"
               "  .if i == 1\n"
               "    s_nop 1\n"
               "  .endif\n"
               "  .set i, i+1\n"
               ".endr\n"
               "v_mov_b32 v[vgprValuC+i], 0\n",
               ".set vgprValuC, 8\n"
               ".set i, 0\n"
               "v_mov_b32 v8, i\n"
               ".set i, i+1\n"
               "v_mov_b32 v9, i\n"
               "s_nop 1\n"
               ".set i, i+1\n"
               "v_mov_b32 v10, i\n"
               ".set i, i+1\n"
               "v_mov_b32 v11, 0\n");
    /* nested, with .rep, and a count from a symbol */
    expands_to(".set N, 2\n.rep N\n.rept N-1\ns_nop 0\n.endr\n.endr\n.rept 0\ns_nop 9\n.endr\n",
               ".set N, 2\ns_nop 0\ns_nop 0\n");
    refused(".rept -1\n.endr\n", "m.s:1: the .rept count -1 is negative");
    refused(".rept n\n.endr\n", "m.s:1: the .rept count 'n' is not a constant");
}

static void test_irp(void **state)
{
    (void)state;
    expands_to(".irp r, 0, 2 4\n"
               "  v_mov_b32 v\\r, \\r\n"
               ".endr\n"
               ".irpc c, 135\n"
               "  s_mov_b32 s\\c, 0\n"
               ".endr\n"
               ".irp x,\n"
               "  s_nop 9\n"
               ".endr\n",
               "v_mov_b32 v0, 0\n"
               "v_mov_b32 v2, 2\n"
               "v_mov_b32 v4, 4\n"
               "s_mov_b32 s1, 0\n"
               "s_mov_b32 s3, 0\n"
               "s_mov_b32 s5, 0\n");
}

/* A macro calling a macro, with arguments passed on and a label before an
 * invocation (it keeps a line of its own). */
static void test_macro_calls_macro(void **state)
{
    (void)state;
    expands_to(".macro MMAC acc, a, b\n"
               "  v_mmac_f32_16x16x16_f16 v[\\acc:\\acc+3], v[\\a:\\a+1], v[\\b:\\b+1], "
               "v[\\acc:\\acc+3]\n"
               ".endm\n"
               ".macro TILE acc, a, b\n"
               "  MMAC \\acc, \\a, \\b\n"
               "  MMAC \\acc+4, \\a+2, \\b\n"
               ".endm\n"
               "loop: TILE 0, 16, 20\n",
               "loop:\n"
               "v_mmac_f32_16x16x16_f16 v[0:3], v[16:17], v[20:21], v[0:3]\n"
               "v_mmac_f32_16x16x16_f16 v[4:7], v[18:19], v[20:21], v[4:7]\n");
}

/* Register brackets in instruction lines: values of that point; plain ones,
 * directives and what is not a constant left as written. */
static void test_register_brackets(void **state)
{
    (void)state;
    expands_to(".set vgprValuC, 8\n"
               ".set vgprA, 20\n"
               "sgprK = 4\n"
               ".if 1\n"
               ".endif\n"
               "v_mmac_f32_16x16x16_f16 v[vgprValuC+0:vgprValuC+3], v[vgprA:vgprA+1], "
               "v[vgprA+2:vgprA+3], v[vgprValuC+0:vgprValuC+3]\n"
               "s_load_dwordx2 s[sgprK:sgprK+1], s[0:1], 0x0 // a comment\n"
               "v_mov_b32 v[vgprA], s[sgprK]\n"
               "v_accvgpr_write_b32 acc[vgprA:vgprA+1], v[8:8]\n"
               "v_accvgpr_read_b32 v0, a[vgprA]\n"
               "v_mov_b32 v[nosuch], v[0:3:1]\n"
               "v_mov_b32 v[vgprValuC+0:vgprValuC+1:vgprValuC+2:vgprValuC+3], abs[0]\n"
               ".set vgprValuC, 0\n"
               "v_mov_b32 v[vgprValuC], 0 ; again\n",
               ".set vgprValuC, 8\n"
               ".set vgprA, 20\n"
               "sgprK = 4\n"
               "v_mmac_f32_16x16x16_f16 v[8:11], v[20:21], v[22:23], v[8:11]\n"
               "s_load_dwordx2 s[4:5], s[0:1], 0x0\n"
               "v_mov_b32 v20, s4\n"
               "v_accvgpr_write_b32 a[20:21], v[8:8]\n"
               "v_accvgpr_read_b32 v0, a20\n"
               "v_mov_b32 v[nosuch], v[0:3:1]\n"
               "v_mov_b32 v[8:9:10:11], abs[0]\n"
               ".set vgprValuC, 0\n"
               "v_mov_b32 v0, 0; again\n");
}

/* Every bound: one line naming the file, the line and the bound. */
static void test_bounds(void **state)
{
    (void)state;
    /* a macro calling itself */
    refused("s_nop 0\n.macro R\nR\n.endm\nR\n",
            "m.s:5: macro, .rept and .irp expansions nested more than 20 levels deep "
            "(in the expansion of R)");
    /* 100000 lines of 40 bytes from 70 bytes of text: past the 1 MiB floor */
    refused(".rept 100000\nv_mov_b32 v0, v1 ; forty bytes or so....\n.endr\n",
            "m.s:1: the macro expansion grows past 1048576 bytes (the bound: 16 times the text, "
            "at least 1 MiB, at most 64 MiB)");
    /* empty macros: nothing is written, but every expansion made counts */
    refused(".macro D0\n.endm\n"
            ".macro D1\nD0\nD0\n.endm\n"
            ".macro D2\nD1\nD1\n.endm\n"
            ".rept 300000\nD2\n.endr\n",
            "m.s:11: the macro expansion grows past 1048576 bytes");
    refused(".rept 2000000\n.endr\n", "m.s:1: the .rept count 2000000 is more than 1048576");
    size_t cap = 200000;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = 0;
    for (int i = 0; i <= TREG_ASM_MACRO_MAX_MACROS; i++)
        n += (size_t)snprintf(text + n, cap - n, ".macro m%d\n.endm\n", i);
    refused(text, "m.s:8193: more than 4096 macros");
    n = (size_t)snprintf(text, cap, ".macro many");
    for (int i = 0; i <= TREG_ASM_MACRO_MAX_PARAMS; i++)
        n += (size_t)snprintf(text + n, cap - n, " p%d", i);
    snprintf(text + n, cap - n, "\n.endm\n");
    refused(text, "m.s:1: macro many has more than 128 parameters");
    n = 0;
    for (int i = 0; i <= TREG_ASM_MACRO_MAX_IF_DEPTH; i++)
        n += (size_t)snprintf(text + n, cap - n, ".if 1\n");
    refused(text, "m.s:1025: conditionals nested more than 1024 levels deep");
    free(text);
}

/* Blocks the text ends inside: the line that opened them. */
static void test_unterminated(void **state)
{
    (void)state;
    refused("s_nop 0\n.macro open a\ns_nop \\a\n", "m.s:2: .macro open has no .endm");
    refused("s_nop 0\n\n.rept 2\ns_nop 0\n", "m.s:3: .rept has no .endr");
    refused(".irp r, 1, 2\ns_nop \\r\n", "m.s:1: .irp has no .endr");
    refused(".if 1\n.if 0\n.endif\ns_nop 0\n", "m.s:1: .if has no .endif");
    /* a .endm in a comment ends nothing */
    refused(".macro c\n// .endm\n/* .endm\n*/\n", "m.s:1: .macro c has no .endm");
    refused(".endm\n", "m.s:1: .endm without .macro");
    refused(".endr\n", "m.s:1: .endr without .rept or .irp");
    refused(".macro x\n.endm", "m.s:2: the last line has no newline: truncated?");
}

/* LLVM's own output takes the old path; a macro directive anywhere on a
 * statement (after a label too) the new one. */
static void test_needed(void **state)
{
    (void)state;
    static const char *const plain[] = {
        "\t.text\n\t.globl k\nk:\n\ts_load_dword s0, s[4:5], 0x0\n",
        "\t.set k.num_vgpr, 32\n.Lfunc_end0:\n\t.ident \"clang\"\n\t.loc 1 2 3\n",
        "\t.rodata\n\t.amdhsa_kernel k\n\t.end_amdhsa_kernel\n.Lif_end:\n.L.rept:\n"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        assert_false(treg_asm_macro_needed(plain[i], strlen(plain[i])));
    static const char *const macro[] = {".macro m\n", "\t.REPT 2\n", "x: .if 1\n",
                                        "  .irpc c, 12\n", ".ifndef X\n"};
    for (size_t i = 0; i < sizeof macro / sizeof macro[0]; i++)
        assert_true(treg_asm_macro_needed(macro[i], strlen(macro[i])));
}

/* Through the text front end: a kernel with macros, its instructions as the
 * model reads them, and messages naming the lines as written. */
static const char *kernel(const char *body)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx936\"\n"         /* 1 */
             "\t.text\n\t.globl k\n\t.p2align 8\n\t.type k,@function\n" /* 2-5 */
             ".macro ZERO first, n=2\n"                                 /* 6 */
             "  .set i, 0\n"                                            /* 7 */
             "  .rept \\n\n"                                            /* 8 */
             "    v_mov_b32 v[\\first+i], 0\n"                          /* 9 */
             "    .set i, i+1\n"                                        /* 10 */
             "  .endr\n"                                                /* 11 */
             ".endm\n"                                                  /* 12 */
             "k:\n%s"                                                   /* 13 */
             ".Lfunc_end0:\n\t.size k, .Lfunc_end0-k\n"
             "\t.rodata\n\t.p2align 6\n"
             "\t.amdhsa_kernel k\n"
             "\t\t.amdhsa_next_free_vgpr 32\n\t\t.amdhsa_next_free_sgpr 16\n"
             "\t.end_amdhsa_kernel\n",
             body);
    return buf;
}

static void test_through_the_front_end(void **state)
{
    (void)state;
    treg_arena a;
    treg_arena_init(&a);
    treg_asm out;
    treg_error err = {0};
    /* a forward label's instruction is read again once the layout is final:
     * with r set again in between, its register must keep r's value of
     * that point (s4), not the last one (s8) */
    const char *text = kernel("  ZERO 4\n"                           /* 14 */
                              "  ZERO 6, 1\n"                        /* 15 */
                              "  .set r, 4\n"                        /* 16 */
                              "  s_getpc_b64 s[0:1]\n"               /* 17 */
                              ".Lpc:\n"                              /* 18 */
                              "  s_add_u32 s[r], s[r], .Lend-.Lpc\n" /* 19 */
                              "  .set r, 8\n"                        /* 20 */
                              ".Lend:\n"                             /* 21 */
                              "  s_endpgm\n");                       /* 22 */
    int rc = treg_asm_parse(&a, text, strlen(text), "k.s", &out, &err);
    if (rc) print_message("%s\n", err.msg);
    assert_int_equal(rc, TREG_OK);
    assert_int_equal(out.co.nkernels, 1);
    const treg_asm_kernel *k = &out.kernels[0];
    assert_int_equal(k->ninsns, 6);
    assert_string_equal(k->insns[0].text, "v_mov_b32_e32 v4, 0");
    assert_string_equal(k->insns[1].text, "v_mov_b32_e32 v5, 0");
    assert_string_equal(k->insns[2].text, "v_mov_b32_e32 v6, 0");
    assert_int_equal(strncmp(k->insns[4].text, "s_add_u32 s4, s4, ", 18), 0);
    assert_int_equal(k->line, 13);
    treg_arena_free(&a);

    /* an error inside an expansion names the invocation's line; one after
     * it, its own */
    static const struct {
        const char *body, *message;
    } cases[] = {
        {"  s_nop 0\n  ZERO nosuch\n", "k.s:15: register 'v[nosuch+i]' is not a constant"},
        {"  ZERO 0, 3\n  s_nop 0\n  xyzzy_b32 v0\n", "k.s:16: unknown mnemonic 'xyzzy_b32'"},
        {"  ZERO 0\n  .rept 1\n  .frob\n  .endr\n", "k.s:15: unknown directive '.frob'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        treg_arena_init(&a);
        text = kernel(cases[i].body);
        rc = treg_asm_parse(&a, text, strlen(text), "k.s", &out, &err);
        if (rc == TREG_OK || !strstr(err.msg, cases[i].message))
            print_message("case %zu: rc %d, '%s', want '%s'\n", i, rc, err.msg, cases[i].message);
        assert_int_equal(rc, TREG_E_FORMAT);
        assert_non_null(strstr(err.msg, cases[i].message));
        treg_arena_free(&a);
    }
}

/* The line map: lines of the text step, an expansion's lines all map to
 * its invocation. */
static void test_line_map(void **state)
{
    (void)state;
    expanded *e = expand("s_nop 0\n"   /* 1 -> out 1 */
                         ".macro M\n"  /* 2 */
                         "s_nop 1\n"   /* 3 */
                         "s_nop 2\n"   /* 4 */
                         ".endm\n"     /* 5 */
                         "M\n"         /* 6 -> out 2, 3 */
                         "\n"          /* 7 */
                         "s_nop 3\n"   /* 8 -> out 4 */
                         "s_nop 4\n"); /* 9 -> out 5 */
    assert_int_equal(e->rc, TREG_OK);
    static const uint32_t want[] = {0, 1, 6, 6, 8, 9};
    for (uint32_t line = 1; line <= 5; line++)
        assert_int_equal(treg_asm_macro_origin(&e->x, line), want[line]);
    done(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments_and_defaults),
        cmocka_unit_test(test_expansion_counter),
        cmocka_unit_test(test_conditionals),
        cmocka_unit_test(test_rept_counter),
        cmocka_unit_test(test_irp),
        cmocka_unit_test(test_macro_calls_macro),
        cmocka_unit_test(test_register_brackets),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_unterminated),
        cmocka_unit_test(test_needed),
        cmocka_unit_test(test_through_the_front_end),
        cmocka_unit_test(test_line_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
