/* The what-if stage (analyzer/whatif) through treg_analyze: the rows it
 * makes, the errors it gives, and that it never prints (LLVM's diagnostics
 * are caught, an LLVM build error is a row).  Builds against llc itself:
 * tests/cli/test_what_if.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "treg/analyzer.h"

#define ADD   TREG_FIXTURES "/triton/add_kernel/add_kernel"
#define SPILL TREG_FIXTURES "/triton-like/spill_kernel-gfx90a/spill_kernel"

typedef struct input {
    uint8_t *obj, *json, *ir;
    size_t obj_len, json_len, ir_len;
} input;

static void load(input *in, const char *stem)
{
    char p[512];
    snprintf(p, sizeof p, "%s.hsaco", stem);
    in->obj = tu_read_file(p, &in->obj_len);
    snprintf(p, sizeof p, "%s.json", stem);
    in->json = tu_read_file(p, &in->json_len);
    snprintf(p, sizeof p, "%s.llir", stem);
    in->ir = tu_read_file(p, &in->ir_len);
    if (!in->obj || !in->json || !in->ir) {
        printf("test_what_if: SKIP: fixture %s.{hsaco,json,llir} missing\n", stem);
        exit(77);
    }
}

static void unload(input *in)
{
    free(in->obj);
    free(in->json);
    free(in->ir);
}

/* treg_analyze with IR text ir (len), stderr captured: what it wrote is
 * returned in *said (must stay empty: the library never prints). */
static int analyze(const input *in, const char *ir, size_t len, unsigned budget_ms,
                   treg_report **out, treg_error *err, char *said, size_t said_len)
{
    treg_options o = {.triton_json = (const char *)in->json,
                      .triton_json_len = in->json_len,
                      .llvm_ir = ir,
                      .llvm_ir_len = len,
                      .llvm_ir_name = "kernel.llir",
                      .what_if_budget_ms = budget_ms};
    fflush(stderr);
    FILE *cap = tmpfile();
    assert_non_null(cap);
    int saved = dup(2);
    dup2(fileno(cap), 2);
    int rc = treg_analyze(in->obj, in->obj_len, &o, out, err);
    if (rc == TREG_OK && (rc = treg_analyze_what_if(*out, &o, err)) != TREG_OK) {
        treg_report_free(*out);
        *out = NULL;
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    size_t n = fread(said, 1, said_len - 1, cap);
    said[n] = '\0';
    fclose(cap);
    return rc;
}

/* The fixture at stem analyzed with its own .llir, which must succeed
 * silently. */
static treg_report *analyze_own(input *in, const char *stem)
{
    if (TREG_LLVM_MAJOR < TU_REFERENCE_LLVM) {
        /* The fixtures' IR is LLVM 22's: an older LLVM cannot read it (the
         * error it gives is checked by test_what_if.sh). */
        printf("test_what_if: note: LLVM %d cannot read LLVM %d's IR: skipped\n", TREG_LLVM_MAJOR,
               TU_REFERENCE_LLVM);
        skip();
    }
    load(in, stem);
    treg_report *r = NULL;
    treg_error err = {0, ""};
    char said[512];
    int rc = analyze(in, (const char *)in->ir, in->ir_len, 0, &r, &err, said, sizeof said);
    if (rc != TREG_OK) fail_msg("%s: %s", stem, err.msg);
    assert_string_equal(said, "");
    return r;
}

static void recompiled_equals_shipped(void **state)
{
    (void)state;
    input in;
    treg_report *r = analyze_own(&in, ADD);
    const treg_kernel_report *k = &r->kernels[0];
    assert_int_equal(k->nwhat_if, 2); /* 8 waves on gfx90a already: no budget */
    assert_non_null(k->what_if_note);
    assert_non_null(strstr(k->what_if_note, "already at the most waves"));
    const treg_what_if *s = &k->what_if[0], *b = &k->what_if[1];
    assert_int_equal(s->kind, TREG_WHAT_IF_SHIPPED);
    assert_int_equal(b->kind, TREG_WHAT_IF_RECOMPILED);
    assert_true(s->compiled && b->compiled);
    /* llc-22 -O3 made the fixture from this IR: the same build. */
    assert_int_equal(b->vgpr.allocated, k->vgpr.allocated);
    assert_int_equal(b->sgpr.allocated, k->sgpr.allocated);
    assert_int_equal(b->vgpr.peak_live, k->vgpr.peak_live);
    assert_int_equal(b->scratch_bytes, k->scratch_bytes);
    assert_int_equal(b->waves_per_simd, k->occupancy.waves_per_simd);
    assert_null(b->note);
    assert_int_equal(s->vgpr.allocated, k->vgpr.allocated);
    treg_report_free(r);
    unload(&in);
}

static void budgets_ascend_and_say_where(void **state)
{
    (void)state;
    input in;
    treg_report *r = analyze_own(&in, SPILL);
    const treg_kernel_report *k = &r->kernels[0];
    assert_true(k->nwhat_if > 3);
    unsigned last = 0;
    for (size_t i = 2; i < k->nwhat_if; i++) {
        const treg_what_if *b = &k->what_if[i];
        assert_int_equal(b->kind, TREG_WHAT_IF_BUDGET);
        assert_true(b->compiled);
        assert_true(b->waves_per_eu > last);
        last = b->waves_per_eu;
        /* A build that reaches fewer waves than asked for says so. */
        if (b->waves_per_simd < b->waves_per_eu) assert_non_null(b->note);
        for (size_t j = 0; j < b->nlines; j++) {
            assert_true(b->lines[j].spills + b->lines[j].reloads > 0);
            if (j)
                assert_true(b->lines[j].spills + b->lines[j].reloads <=
                            b->lines[j - 1].spills + b->lines[j - 1].reloads);
            assert_true(b->lines[j].loc.file < (int32_t)r->nfiles);
        }
    }
    /* It spills as shipped: the budgets start at one wave, where it does not. */
    assert_int_equal(k->what_if[2].waves_per_eu, 1);
    assert_int_equal(k->what_if[2].scratch_bytes, 0);
    assert_true(k->what_if[1].scratch_bytes > 0);
    treg_report_free(r);
    unload(&in);
}

static void bad_ir_is_one_error(void **state)
{
    (void)state;
    input in;
    load(&in, ADD);
    treg_report *r = NULL;
    treg_error err = {0, ""};
    char said[512];
    static const char junk[] = "define void @\n";
    assert_int_equal(analyze(&in, junk, sizeof junk - 1, 0, &r, &err, said, sizeof said),
                     TREG_E_IR);
    assert_null(r);
    assert_string_equal(said, "");
    assert_non_null(strstr(err.msg, "kernel.llir: not LLVM IR: line 1, column"));
    assert_null(strchr(err.msg, '\n'));

    assert_int_equal(analyze(&in, "", 0, 0, &r, &err, said, sizeof said), TREG_E_IR);
    assert_string_equal(err.msg, "kernel.llir: empty LLVM IR");

    /* Past the limit: refused before a byte of it is read. */
    assert_int_equal(
        analyze(&in, junk, (size_t)TREG_WHAT_IF_MAX_IR_BYTES + 1, 0, &r, &err, said, sizeof said),
        TREG_E_LIMIT);
    assert_non_null(strstr(err.msg, "past the limit of 64 MiB"));

    /* IR that verifies but names another kernel. */
    static const char other[] = "target triple = \"amdgcn-amd-amdhsa\"\n"
                                "define amdgpu_kernel void @other() {\n  ret void\n}\n";
    assert_int_equal(analyze(&in, other, sizeof other - 1, 0, &r, &err, said, sizeof said),
                     TREG_E_IR);
    assert_string_equal(err.msg,
                        "kernel.llir defines none of the code object's kernels (add_kernel)");
    unload(&in);
}

/* IR whose code generation fails (an inline-asm constraint no register can
 * meet): LLVM reports errors and would exit; the row says why instead. */
static void llvm_build_error_is_a_row(void **state)
{
    (void)state;
    input in;
    load(&in, ADD);
    static const char bad[] =
        "target triple = \"amdgcn-amd-amdhsa\"\n"
        "define amdgpu_kernel void @add_kernel(ptr addrspace(1) %p) {\n"
        "  %w = call <64 x i32> asm sideeffect \"; $0\", \"=v\"()\n"
        "  %x = call <64 x i32> asm sideeffect \"; $0\", \"=v\"()\n"
        "  %y = call <64 x i32> asm sideeffect \"; $0\", \"=v\"()\n"
        "  %z = call <64 x i32> asm sideeffect \"; $0\", \"=v\"()\n"
        "  %q = call <64 x i32> asm sideeffect \"; $0\", \"=v\"()\n"
        "  call void asm sideeffect \"; $0 $1 $2 $3 $4\", \"v,v,v,v,v\"(<64 x i32> %w, <64 x i32> "
        "%x, <64 x i32> %y, <64 x i32> %z, <64 x i32> %q)\n"
        "  ret void\n}\n";
    treg_report *r;
    treg_error err = {0, ""};
    char said[512];
    assert_int_equal(analyze(&in, bad, sizeof bad - 1, 0, &r, &err, said, sizeof said), TREG_OK);
    assert_string_equal(said, "");
    const treg_kernel_report *k = &r->kernels[0];
    assert_int_equal(k->nwhat_if, 2);
    assert_false(k->what_if[1].compiled);
    assert_non_null(strstr(k->what_if[1].note, "could not build it: couldn't allocate"));
    treg_report_free(r);
    unload(&in);
}

int main(void)
{
    tu_require_dir(TREG_FIXTURES "/triton", "the generated fixtures (fixtures_build)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recompiled_equals_shipped),
        cmocka_unit_test(budgets_ascend_and_say_where),
        cmocka_unit_test(bad_ir_is_one_error),
        cmocka_unit_test(llvm_build_error_is_a_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
