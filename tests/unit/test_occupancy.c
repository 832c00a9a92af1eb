/* The target table and the occupancy model, checked two ways: hand-chosen
 * register counts around the allocation granules (the expected figures are
 * what llc-22 prints for kernels forced to those counts with inline-asm
 * clobbers), and a differential run over every kernel of the shared corpus,
 * where the model must reproduce the compiler's own trailer ("; Occupancy:",
 * "; TotalNumVgprs:", and TotalNumSgprs = numbered_sgpr + extra SGPRs). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "metrics/occupancy.h"
#include "targets/families.h"
#include "targets/targets.h"
#include "testutil.h"

/* ---- the table ---- */

static void test_table_rows_have_sources(void **state)
{
    (void)state;
    unsigned n = 0;
    const treg_target *rows = treg_target_table(&n);
    static const char *const required[] = {
        "gfx906",  "gfx908",  "gfx90a",  "gfx940",  "gfx941",  "gfx942",  "gfx950",  "gfx1010",
        "gfx1011", "gfx1012", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
        "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1200",
        "gfx1201", "gfx926",  "gfx928",  "gfx936",  "gfx938",  "gfx92a",  "gfx946",
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!treg_target_by_name(required[i])) fail_msg("no row for %s", required[i]);
    assert_int_equal(n, sizeof required / sizeof required[0]);
    for (unsigned i = 0; i < n; i++) {
        const treg_target *t = &rows[i];
        assert_non_null(t->name);
        assert_non_null(t->source);
        assert_true(strlen(t->source) > 0);
        /* Only Hygon figures are unpublished; each says what it rests on. */
        if (treg_target_provisional(t)) {
            assert_string_equal(t->family, "Hygon");
            for (const treg_unverified *u = t->unverified; u->figure; u++) {
                assert_non_null(u->why);
                assert_true(strlen(u->figure) > 0 && strlen(u->why) > 0);
            }
        }
        if (strcmp(t->family, "Hygon") == 0) {
            /* Hygon's Triton fork is the source, file and commit. */
            assert_non_null(strstr(t->source, "HYGON-AI/triton-das"));
            assert_non_null(strstr(t->source, "@"));
            assert_string_equal(t->decode_as[0], "gfx906");
            assert_int_equal(t->mach, 0);
            /* The budget is the waves' to share; one wave addresses 256. */
            assert_int_equal(t->addressable_vgprs, 256);
            assert_int_equal(t->addressable_agprs, 0);
            assert_int_equal(t->wave_size, 64);
            assert_int_equal(t->vgpr_granule, 4);
            assert_int_equal(t->sgpr_block, 8);
        }
        assert_true(t->vgpr_granule > 0 && t->vgpr_file >= t->vgpr_granule);
        assert_true(t->max_waves_per_simd > 0 && t->eus_per_cu > 0);
        /* Names are unique, and so are non-zero machs. */
        assert_ptr_equal(treg_target_by_name(t->name), t);
        if (t->mach) assert_ptr_equal(treg_target_by_mach(t->mach), t);
    }
}

static void test_table_lookups(void **state)
{
    (void)state;
    assert_string_equal(treg_target_by_mach(0x2f)->name, "gfx906");
    assert_string_equal(treg_target_by_mach(0x30)->name, "gfx908");
    assert_string_equal(treg_target_by_mach(0x3f)->name, "gfx90a");
    assert_string_equal(treg_target_by_mach(0x4c)->name, "gfx942");
    assert_string_equal(treg_target_by_mach(0x4f)->name, "gfx950");
    assert_null(treg_target_by_mach(0));
    assert_null(treg_target_by_mach(0xff));
    assert_null(treg_target_by_name("gfx9999"));
    assert_null(treg_target_by_name(NULL));
    assert_string_equal(treg_target_by_name("gfx926")->decode_as[0], "gfx906");
    assert_non_null(treg_target_by_name("gfx928")->decode_as[0]);
    assert_non_null(treg_target_by_name("gfx936")->decode_as[0]);
    assert_null(treg_target_by_name("gfx90a")->decode_as[0]);
    /* an LLVM without gfx942 (16) decodes it as gfx940, one without gfx940 (20+) the other way */
    assert_string_equal(treg_target_by_name("gfx942")->decode_as[0], "gfx940");
    assert_string_equal(treg_target_by_name("gfx941")->decode_as[1], "gfx940");
    /* gfx948: named by Hygon's Triton, no figures anywhere: known, refused. */
    assert_null(treg_target_by_name("gfx948"));
    assert_non_null(treg_target_without_figures("gfx948"));
    assert_null(treg_target_without_figures("gfx936"));
    assert_null(treg_target_without_figures(NULL));
}

/* getNumExtraSGPRs: the last rule that applies wins; nothing is summed. */
static void test_extra_sgprs(void **state)
{
    (void)state;
    const treg_target *gfx906 = treg_target_by_name("gfx906");
    const treg_target *gfx90a = treg_target_by_name("gfx90a");
    const treg_target *gfx942 = treg_target_by_name("gfx942");
    const treg_target *gfx1100 = treg_target_by_name("gfx1100");
    assert_int_equal(treg_target_extra_sgprs(gfx906, false, false, false), 0);
    assert_int_equal(treg_target_extra_sgprs(gfx906, true, false, false), 2);
    assert_int_equal(treg_target_extra_sgprs(gfx906, true, false, true), 4);
    assert_int_equal(treg_target_extra_sgprs(gfx906, false, false, true), 4);
    assert_int_equal(treg_target_extra_sgprs(gfx906, true, true, true), 6);
    assert_int_equal(treg_target_extra_sgprs(gfx90a, true, true, false), 6);
    /* Architected flat scratch reserves the pair on every gfx94x kernel. */
    assert_int_equal(treg_target_extra_sgprs(gfx942, false, false, false), 6);
    assert_int_equal(treg_target_extra_sgprs(gfx942, true, false, true), 6);
    /* GFX10+: only VCC comes out of the SGPR file. */
    assert_int_equal(treg_target_extra_sgprs(gfx1100, true, true, true), 2);
    assert_int_equal(treg_target_extra_sgprs(gfx1100, false, true, true), 0);
}

/* ---- occupancy on hand-chosen counts ---- */

static treg_occ_result occ(const char *gfx, treg_occ_input in)
{
    const treg_target *t = treg_target_by_name(gfx);
    assert_non_null(t);
    treg_occ_result r;
    memset(&r, 0xa5, sizeof r);
    treg_occupancy(t, &in, &r);
    return r;
}

/* Hygon's six targets: budgets, LDS and what stays unverified, per target,
 * as AMDGPU-NOTES.md "Hygon's six targets" reads the fork. */
static void test_hygon_rows(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        unsigned budget, lds_kib;
        bool lds_disputed;
        const char *unverified[6]; /* each figure's first words, in order */
    } rows[] = {
        {"gfx926",
         256,
         64,
         false,
         {"VGPR budget 256", "10 waves", "VGPR granule", "102 SGPRs", "4 SIMDs"}},
        {"gfx928", 512, 64, false, {"VGPR budget 512", "VGPR granule", "102 SGPRs", "16 barrier"}},
        {"gfx936", 768, 64, false, {"102 SGPRs", "4 SIMDs"}},
        {"gfx938",
         768,
         64,
         false,
         {"VGPR budget 768", "10 waves", "VGPR granule", "102 SGPRs", "4 SIMDs"}},
        {"gfx92a",
         512,
         64,
         true,
         {"VGPR budget 512", "10 waves", "VGPR granule", "102 SGPRs", "4 SIMDs"}},
        {"gfx946", 512, 128, true, {"10 waves", "VGPR granule", "102 SGPRs", "4 SIMDs"}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const treg_target *t = treg_target_by_name(rows[i].name);
        assert_non_null(t);
        assert_int_equal(t->vgpr_file, rows[i].budget);
        assert_int_equal(t->lds_per_workgroup, rows[i].lds_kib * 1024);
        assert_int_equal(t->lds_per_cu, rows[i].lds_kib * 1024);
        assert_int_equal(t->lds_note != NULL, rows[i].lds_disputed);
        if (t->lds_note) assert_non_null(strstr(t->lds_note, "160 KiB"));
        size_t n = 0;
        for (; t->unverified[n].figure; n++) {
            assert_non_null(rows[i].unverified[n]);
            if (strncmp(t->unverified[n].figure, rows[i].unverified[n],
                        strlen(rows[i].unverified[n])) != 0)
                fail_msg("%s: unverified figure %zu is '%s', expected '%s...'", rows[i].name, n,
                         t->unverified[n].figure, rows[i].unverified[n]);
        }
        assert_null(rows[i].unverified[n]);
        assert_true(treg_target_provisional(t));
    }
    assert_false(treg_target_provisional(treg_target_by_name("gfx90a")));
}

/* Which Hygon instruction families each target has, as Hygon's Triton
 * decides it (targets/families.c): a gfx928 text using a gfx946-only form
 * is named, a family no source places either way is "not shown". */
static void test_isa_families(void **state)
{
    (void)state;
    static const struct {
        const char *mnemonic, *gfx;
        enum treg_family_status want;
    } cases[] = {
        {"v_mmac_f32_16x16x16_f16", "gfx928", TREG_FAMILY_HAS},
        {"v_mmac_f32_16x16x16_f16", "gfx946", TREG_FAMILY_HAS},
        {"v_mmac_f32_16x16x16_f16", "gfx926", TREG_FAMILY_NOT_SHOWN},
        {"v_mmac_f32_16x16x16_f16_4interleave", "gfx936", TREG_FAMILY_HAS},
        {"v_mmac_16x16x16_f16", "gfx946", TREG_FAMILY_HAS}, /* 16-bit accumulators */
        {"v_mmac_16x16x16_f16", "gfx928", TREG_FAMILY_LACKS},
        {"v_mmac_bf16_16x16x16_f16", "gfx92a", TREG_FAMILY_LACKS},
        {"v_mmac_16x16x8_f32", "gfx936", TREG_FAMILY_HAS},
        {"v_mmac_16x16x8_f32", "gfx946", TREG_FAMILY_LACKS}, /* "no F32 K8" */
        {"v_mmac_16x16x4_f32", "gfx946", TREG_FAMILY_HAS},
        {"v_mmac_scale_f32_16x16x64_fp4", "gfx92a", TREG_FAMILY_LACKS}, /* scaled, not fp4 */
        {"v_mmac_f32_16x16x64_fp4", "gfx92a", TREG_FAMILY_HAS},
        {"v_mmac_f32_16x16x32_fp8_bf8", "gfx936", TREG_FAMILY_LACKS},
        {"v_mmac_f32_16x16x32_fp8_bf8", "gfx938", TREG_FAMILY_HAS},
        {"ds_read_m32x16_b16", "gfx936", TREG_FAMILY_HAS},
        {"ds_read_m32x16_b16", "gfx926", TREG_FAMILY_LACKS},
        {"ds_read_m32x16_b16", "gfx928", TREG_FAMILY_NOT_SHOWN},
        {"ds_read_m32x8_b32", "gfx946", TREG_FAMILY_NOT_SHOWN},
        {"ds_read_mt16x16_b32", "gfx936", TREG_FAMILY_LACKS},
        {"ds_read_matrix_format", "gfx938", TREG_FAMILY_HAS},
        {"ds_read_matrix_format", "gfx936", TREG_FAMILY_LACKS},
        {"ds_read_matrix_padbyte", "gfx938", TREG_FAMILY_LACKS}, /* MLS v2 */
        {"matrix_load_32x16_b16", "gfx946", TREG_FAMILY_HAS},
        {"matrix_store_32x16_b16", "gfx92a", TREG_FAMILY_HAS},
        {"matrix_store_32x16_b16", "gfx938", TREG_FAMILY_LACKS},
        {"s_set_vgpr_size", "gfx946", TREG_FAMILY_HAS},
        {"s_ebarrier_sync", "gfx936", TREG_FAMILY_NOT_SHOWN},
        {"s_waitcnt_vbcnt", "gfx946", TREG_FAMILY_HAS},
        {"v_mmac_f32_16x16x16_f16", "gfx90a", TREG_FAMILY_NOT_SHOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const treg_isa_family *f = treg_isa_family_of(cases[i].mnemonic, strlen(cases[i].mnemonic));
        if (!f) fail_msg("%s: no family", cases[i].mnemonic);
        enum treg_family_status got = treg_isa_family_status(f, cases[i].gfx);
        if (got != cases[i].want)
            fail_msg("%s on %s: status %d, expected %d (family %s)", cases[i].mnemonic,
                     cases[i].gfx, got, cases[i].want, f->name);
    }
    /* The rest of the instruction set belongs to no family. */
    static const char *const free_insns[] = {
        "s_waitcnt",       "ds_read_b128", "v_mfma_f32_16x16x16f16",
        "s_barrier",       "s_setprio",    "ds_read_u16_d16_hi",
        "s_sendmsg",       "v_mov_b32",    "ds_write_b64",
        "s_set_gpr_idx_on"};
    for (size_t i = 0; i < sizeof free_insns / sizeof free_insns[0]; i++)
        if (treg_isa_family_of(free_insns[i], strlen(free_insns[i])))
            fail_msg("%s has a family", free_insns[i]);
    /* Every row names its source and only Hygon targets. */
    size_t n = 0;
    const treg_isa_family *rows = treg_isa_family_table(&n);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(strstr(rows[i].source, "@"));
        for (const char *l = rows[i].has; *l; l += strcspn(l, " "), l += strspn(l, " ")) {
            char gfx[16] = "";
            size_t len = strcspn(l, " ");
            assert_true(len < sizeof gfx);
            memcpy(gfx, l, len);
            const treg_target *t = treg_target_by_name(gfx);
            assert_non_null(t);
            assert_string_equal(t->family, "Hygon");
        }
    }
}

/* waves = min(10, floor(budget / roundup(VGPRs, 4))), which the compiler's
 * "; Occupancy:" trailers in the fork's gfx936 test inputs show (NumVgprs
 * 179 -> 4, 191 -> 4, 218 -> 3, 65 -> 10); a budget of 768 never lets one
 * wave hold more than 256. */
static void test_hygon_budget_occupancy(void **state)
{
    (void)state;
    static const struct {
        const char *gfx;
        unsigned vgprs, waves;
        int to_next;
    } cases[] = {
        {"gfx936", 179, 4, 27},                         /* one more wave needs 768 / 5 -> 152 */
        {"gfx936", 191, 4, 39}, {"gfx936", 218, 3, 26}, /* 4 waves: 192 */
        {"gfx936", 65, 10, -1}, {"gfx936", 256, 3, 64},
        {"gfx928", 128, 4, 28}, /* 512 / 5 = 102 -> 100 */
        {"gfx946", 256, 2, 88}, /* 512 / 3 = 170 -> 168 */
        {"gfx926", 128, 2, 44}, /* GCN5's 256: 3 waves at 84 */
        {"gfx938", 100, 7, 4},  /* 768 / 8 = 96 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        treg_occ_result r =
            occ(cases[i].gfx,
                (treg_occ_input){.arch_vgprs = cases[i].vgprs, .sgprs = 20, .workgroup_size = 256});
        if (r.waves != cases[i].waves || r.vgprs_to_next != cases[i].to_next)
            fail_msg("%s at %u VGPRs: %u waves, %d to the next; expected %u, %d", cases[i].gfx,
                     cases[i].vgprs, r.waves, r.vgprs_to_next, cases[i].waves, cases[i].to_next);
    }
    /* The steps never offer one wave more than it can address. */
    treg_occ_result r = occ("gfx936", (treg_occ_input){.arch_vgprs = 179, .workgroup_size = 256});
    static const unsigned steps[] = {256, 256, 256, 192, 152, 128, 108, 96, 84, 76};
    assert_int_equal(r.nvgpr_steps, 10);
    for (unsigned w = 0; w < 10; w++) assert_int_equal(r.vgpr_steps[w], steps[w]);
}

/* gfx906: 10 waves, 256 VGPRs, granule 4. */
static void test_gfx906_vgpr_granules(void **state)
{
    (void)state;
    struct {
        unsigned vgprs, waves;
        int to_next;
    } cases[] = {
        {1, 10, -1},              /* below one granule: free */
        {24, 10, -1},             /* 256 / 24 = 10, the ceiling */
        {25, 9, 1},               /* rounds to 28; 10 waves need <= 24 */
        {28, 9, 4},   {29, 8, 1}, /* rounds to 32; 9 waves need <= 28 */
        {32, 8, 4},   {33, 7, 1},  {36, 7, 4},
        {37, 6, 1},   {84, 3, 20}, {85, 2, 1}, /* rounds to 88; 3 waves need <= 84 */
        {128, 2, 44}, {129, 1, 1}, {256, 1, 128},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        treg_occ_result r = occ("gfx906", (treg_occ_input){.arch_vgprs = cases[i].vgprs,
                                                           .sgprs = 18,
                                                           .workgroup_size = 256,
                                                           .wave_size = 64});
        assert_int_equal(r.total_vgprs, cases[i].vgprs);
        assert_int_equal(r.waves, cases[i].waves);
        assert_int_equal(r.vgpr_waves, cases[i].waves);
        assert_int_equal(r.max_waves, 10);
        assert_int_equal(r.vgprs_to_next, cases[i].to_next);
        assert_string_equal(r.limited_by, cases[i].waves < 10 ? "vgpr" : "target");
        assert_int_equal(r.sgprs_to_next, -1);
    }
}

/* gfx906 SGPRs: LLVM's step table, not 800 / rounded count. */
static void test_gfx906_sgpr_steps(void **state)
{
    (void)state;
    struct {
        unsigned sgprs, waves;
        int to_next;
    } cases[] = {{80, 10, -1}, {81, 9, 1}, {88, 9, 8}, {89, 8, 1}, {100, 8, 12}, {102, 7, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        treg_occ_result r = occ("gfx906", (treg_occ_input){.arch_vgprs = 16,
                                                           .sgprs = cases[i].sgprs,
                                                           .workgroup_size = 256,
                                                           .wave_size = 64});
        assert_int_equal(r.waves, cases[i].waves);
        assert_int_equal(r.sgpr_waves, cases[i].waves);
        assert_int_equal(r.sgprs_to_next, cases[i].to_next);
        assert_int_equal(r.vgprs_to_next, -1); /* 16 VGPRs allow 10: not binding */
        if (cases[i].waves < 10) assert_string_equal(r.limited_by, "sgpr");
    }
}

/* gfx90a: 8 waves, unified 512-entry file, granule 8, AGPRs after a
 * 4-aligned accum_offset. */
static void test_gfx90a_unified_file(void **state)
{
    (void)state;
    struct {
        unsigned arch, agprs, total, waves;
        int to_next;
    } cases[] = {
        {14, 0, 14, 8, -1},                       /* no AGPRs: no alignment (corpus add_kernel) */
        {64, 0, 64, 8, -1},    {65, 0, 65, 7, 1}, /* rounds to 72; 8 waves need <= 64 */
        {13, 1, 17, 8, -1},    /* align(13, 4) + 1 = 17 -> 24 -> 21, capped at 8 */
        {161, 64, 228, 2, 60}, /* corpus matmul: 232 -> 2; 3 waves need <= 168 */
        {189, 48, 240, 2, 72}, {212, 64, 276, 1, 20}, /* 2 waves need <= 256 */
        {256, 99, 355, 1, 99}, {256, 256, 512, 1, 256},
        {256, 0, 256, 2, 88}, /* 3 waves need <= 168 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        treg_occ_result r = occ("gfx90a", (treg_occ_input){.arch_vgprs = cases[i].arch,
                                                           .agprs = cases[i].agprs,
                                                           .sgprs = 30,
                                                           .workgroup_size = 256,
                                                           .wave_size = 64});
        assert_int_equal(r.total_vgprs, cases[i].total);
        assert_int_equal(r.waves, cases[i].waves);
        assert_int_equal(r.max_waves, 8);
        assert_int_equal(r.vgprs_to_next, cases[i].to_next);
    }
    /* gfx908 keeps AGPRs in their own file: the larger count counts. */
    treg_occ_result r =
        occ("gfx908", (treg_occ_input){.arch_vgprs = 100, .agprs = 128, .wave_size = 64});
    assert_int_equal(r.total_vgprs, 128);
    assert_int_equal(r.waves, 2);
}

/* RDNA: wave32 by default; wave64 halves the file and the granule. */
static void test_rdna_granules(void **state)
{
    (void)state;
    /* gfx1100: Feature1_5xVGPRs, 1536 / granule 24 in wave32. */
    treg_occ_result r = occ("gfx1100", (treg_occ_input){.arch_vgprs = 96, .wave_size = 32});
    assert_int_equal(r.waves, 16);
    assert_string_equal(r.limited_by, "target");
    r = occ("gfx1100", (treg_occ_input){.arch_vgprs = 97, .wave_size = 32});
    assert_int_equal(r.waves, 12); /* 120 -> 1536 / 120 */
    assert_int_equal(r.vgprs_to_next, 1);
    /* wave64: 768 / granule 12. */
    r = occ("gfx1100", (treg_occ_input){.arch_vgprs = 48, .wave_size = 64});
    assert_int_equal(r.waves, 16);
    r = occ("gfx1100", (treg_occ_input){.arch_vgprs = 49, .wave_size = 64});
    assert_int_equal(r.waves, 12);
    /* gfx1030: 1024 / granule 16; SGPRs never bind on GFX10+. */
    r = occ("gfx1030", (treg_occ_input){.arch_vgprs = 65, .sgprs = 106, .wave_size = 32});
    assert_int_equal(r.waves, 12);
    assert_int_equal(r.sgpr_waves, 16);
    assert_int_equal(r.sgprs_to_next, -1);
    assert_int_equal(r.vgprs_to_next, 1);
    /* gfx1010: 20 waves before GFX10.3. */
    r = occ("gfx1010", (treg_occ_input){.arch_vgprs = 8, .wave_size = 32});
    assert_int_equal(r.waves, 20);
}

/* LDS and work-group size (getOccupancyWithWorkGroupSizes). */
static void test_lds_and_workgroup(void **state)
{
    (void)state;
    /* 32 KiB per group of up to 256 items: 2 groups per CU, 8 waves over 4 SIMDs. */
    treg_occ_result r =
        occ("gfx906",
            (treg_occ_input){
                .arch_vgprs = 16, .lds_bytes = 32768, .workgroup_size = 256, .wave_size = 64});
    assert_int_equal(r.waves, 2);
    assert_int_equal(r.lds_waves, 2);
    assert_string_equal(r.limited_by, "lds");
    assert_int_equal(r.vgprs_to_next, -1);
    /* LDS 0: no LDS limit. */
    r = occ("gfx906", (treg_occ_input){.arch_vgprs = 16, .workgroup_size = 256, .wave_size = 64});
    assert_int_equal(r.waves, 10);
    /* More than the CU has: one wave. */
    r = occ("gfx906", (treg_occ_input){.arch_vgprs = 16, .lds_bytes = 70000, .wave_size = 64});
    assert_int_equal(r.waves, 1);
    /* gfx950 has 160 KiB: 40000 bytes leave room for 4 groups of 4 waves. */
    r = occ("gfx950",
            (treg_occ_input){
                .arch_vgprs = 16, .lds_bytes = 40000, .workgroup_size = 256, .wave_size = 64});
    assert_int_equal(r.waves, 4);
    /* Exactly 128 items: 16 barriers cap the CU at 16 groups of 2 waves = 8
     * per SIMD; the "1,128" range Triton declares lets LLVM assume 10. */
    r = occ("gfx906", (treg_occ_input){.arch_vgprs = 16,
                                       .workgroup_size = 128,
                                       .min_workgroup_size = 128,
                                       .wave_size = 64});
    assert_int_equal(r.waves, 8);
    assert_string_equal(r.limited_by, "workgroup");
    r = occ("gfx906", (treg_occ_input){.arch_vgprs = 16, .workgroup_size = 128, .wave_size = 64});
    assert_int_equal(r.waves, 10);
}

/* "amdgpu-waves-per-eu"="N, N": registers are padded to what N waves allow. */
static void test_waves_per_eu(void **state)
{
    (void)state;
    treg_occ_result r = occ("gfx90a", (treg_occ_input){.arch_vgprs = 32,
                                                       .sgprs = 20,
                                                       .workgroup_size = 256,
                                                       .waves_per_eu = 4,
                                                       .wave_size = 64});
    assert_int_equal(r.waves, 4);
    assert_int_equal(r.vgpr_waves, 8);
    assert_string_equal(r.limited_by, "waves_per_eu");
    /* Below what one 512-item group needs on 4 SIMDs (2): ignored. */
    r = occ("gfx90a",
            (treg_occ_input){
                .arch_vgprs = 32, .workgroup_size = 512, .waves_per_eu = 1, .wave_size = 64});
    assert_int_equal(r.waves, 8);
    /* "N" alone (older Triton): the maximum stays the target's. */
    r = occ("gfx90a", (treg_occ_input){.arch_vgprs = 32,
                                       .workgroup_size = 256,
                                       .waves_per_eu = 4,
                                       .waves_per_eu_max = 8,
                                       .wave_size = 64});
    assert_int_equal(r.waves, 8);
}

/* ---- the corpus ---- */

typedef struct trailer {
    long vgprs, agprs, total_vgprs, sgprs, occupancy, accum_offset, lds;
    long numbered_sgpr, uses_vcc, uses_flat_scratch, reserve_xnack;
    char target_id[128];
} trailer;

/* The number after the first "KEY" at the start of a line (after leading
 * blanks) in [from, end), or -1. */
static long line_value(const char *from, const char *end, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = from; p && p < end; p = strchr(p, '\n')) {
        if (*p == '\n') p++;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, key, klen) == 0) return strtol(p + klen, NULL, 10);
    }
    return -1;
}

static int read_trailer(const char *path, const char *kernel, trailer *tr)
{
    size_t len;
    char *text = (char *)tu_read_file(path, &len);
    if (!text) return -1;
    const char *end = text + len;
    const char *info = strstr(text, "; Kernel info:");
    if (!info) {
        free(text);
        return -1;
    }
    tr->sgprs = line_value(info, end, "; TotalNumSgprs: ");
    if (tr->sgprs < 0) tr->sgprs = line_value(info, end, "; NumSgprs: ");
    tr->vgprs = line_value(info, end, "; NumVgprs: ");
    tr->agprs = line_value(info, end, "; NumAgprs: ");
    tr->total_vgprs = line_value(info, end, "; TotalNumVgprs: ");
    tr->occupancy = line_value(info, end, "; Occupancy: ");
    tr->accum_offset = line_value(info, end, "; AccumOffset: ");
    tr->lds = line_value(info, end, "; LDSByteSize: ");

    char key[300];
    snprintf(key, sizeof key, ".set %s.numbered_sgpr, ", kernel);
    tr->numbered_sgpr = line_value(text, end, key);
    snprintf(key, sizeof key, ".set %s.uses_vcc, ", kernel);
    tr->uses_vcc = line_value(text, end, key);
    snprintf(key, sizeof key, ".set %s.uses_flat_scratch, ", kernel);
    tr->uses_flat_scratch = line_value(text, end, key);
    tr->reserve_xnack = line_value(text, end, ".amdhsa_reserve_xnack_mask ");

    tr->target_id[0] = 0;
    const char *tgt = strstr(text, ".amdgcn_target \"");
    if (tgt) {
        tgt += strlen(".amdgcn_target \"");
        size_t n = strcspn(tgt, "\"\n");
        if (n >= sizeof tr->target_id) n = sizeof tr->target_id - 1;
        memcpy(tr->target_id, tgt, n);
        tr->target_id[n] = 0;
    }
    free(text);
    return 0;
}

/* XNACK as the assembler saw it: the reserve directive when printed, else
 * the target id's setting, "any" (no suffix) counting as on. */
static bool xnack_of(const trailer *tr, const treg_target *t)
{
    if (tr->reserve_xnack >= 0) return tr->reserve_xnack != 0;
    if (strstr(tr->target_id, ":xnack-")) return false;
    return t->supports_xnack;
}

typedef struct tally {
    unsigned kernels, occupancy_ok, vgprs_ok, sgprs_ok;
} tally;

static void check_kernel(const char *dir, const char *stem, tally *tl)
{
    char path[1600];
    snprintf(path, sizeof path, "%s/%s.json", dir, stem);
    json_object *meta = json_object_from_file(path);
    assert_non_null(meta);
    json_object *v;
    const char *arch = json_object_object_get_ex(meta, "arch", &v) ? json_object_get_string(v) : "";
    int warps = json_object_object_get_ex(meta, "num_warps", &v) ? json_object_get_int(v) : 0;
    int warp_size = json_object_object_get_ex(meta, "warp_size", &v) ? json_object_get_int(v) : 64;
    int waves_per_eu =
        json_object_object_get_ex(meta, "waves_per_eu", &v) ? json_object_get_int(v) : 0;
    const char *name =
        json_object_object_get_ex(meta, "name", &v) ? json_object_get_string(v) : stem;

    const treg_target *t = treg_target_by_name(arch);
    if (!t) fail_msg("%s: arch %s is not in the target table", dir, arch);

    trailer tr;
    memset(&tr, 0, sizeof tr);
    snprintf(path, sizeof path, "%s/%s.amdgcn", dir, stem);
    assert_int_equal(read_trailer(path, name, &tr), 0);
    assert_true(tr.vgprs >= 0 && tr.sgprs >= 0 && tr.occupancy > 0);

    /* LLVM's occupancy saw the LDS it could size at compile time (the
     * trailer's LDSByteSize, 0 for Triton, whose shared memory is dynamic),
     * and the flat work-group size range "1,num_warps*warp_size". */
    treg_occ_input in = {
        .arch_vgprs = (unsigned)tr.vgprs,
        .agprs = tr.agprs > 0 ? (unsigned)tr.agprs : 0,
        .sgprs = (unsigned)tr.sgprs,
        .lds_bytes = tr.lds > 0 ? (unsigned)tr.lds : 0,
        .workgroup_size = (unsigned)(warps * warp_size),
        .waves_per_eu = (unsigned)waves_per_eu,
        .wave_size = (unsigned)warp_size,
    };
    treg_occ_result r;
    treg_occupancy(t, &in, &r);
    long want_total = tr.total_vgprs >= 0 ? tr.total_vgprs : tr.vgprs;

    tl->kernels++;
    if (r.waves == (unsigned)tr.occupancy)
        tl->occupancy_ok++;
    else
        print_message("MISMATCH %s %s: occupancy %u, trailer %ld\n", dir, name, r.waves,
                      tr.occupancy);
    if (r.total_vgprs == (unsigned)want_total)
        tl->vgprs_ok++;
    else
        print_message("MISMATCH %s %s: total VGPRs %u, trailer %ld\n", dir, name, r.total_vgprs,
                      want_total);

    assert_true(tr.numbered_sgpr >= 0 && tr.uses_vcc >= 0 && tr.uses_flat_scratch >= 0);
    unsigned extra =
        treg_target_extra_sgprs(t, tr.uses_vcc != 0, tr.uses_flat_scratch != 0, xnack_of(&tr, t));
    if ((long)(tr.numbered_sgpr + extra) == tr.sgprs)
        tl->sgprs_ok++;
    else
        print_message("MISMATCH %s %s: %ld numbered + %u extra SGPRs, trailer %ld\n", dir, name,
                      tr.numbered_sgpr, extra, tr.sgprs);

    /* accum_offset is the arch count rounded to 4 (SIProgramInfo AccumOffset). */
    if (tr.accum_offset >= 0)
        assert_int_equal(tr.accum_offset, ((tr.vgprs > 0 ? tr.vgprs : 1) + 3) / 4 * 4);
    json_object_put(meta);
}

/* Every <stem>.amdgcn with a <stem>.json in each folder under root. */
static void walk_corpus(const char *root, tally *tl)
{
    DIR *d = opendir(root);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
        DIR *kd = opendir(dir);
        if (!kd) continue;
        struct dirent *f;
        while ((f = readdir(kd))) {
            size_t n = strlen(f->d_name);
            if (n <= 7 || strcmp(f->d_name + n - 7, ".amdgcn") != 0) continue;
            char stem[256];
            snprintf(stem, sizeof stem, "%.*s", (int)(n - 7), f->d_name);
            char json[1400];
            snprintf(json, sizeof json, "%s/%s.json", dir, stem);
            if (tu_exists(json)) check_kernel(dir, stem, tl);
        }
        closedir(kd);
    }
    closedir(d);
}

static void test_corpus_trailers(void **state)
{
    (void)state;
    tally tl = {0};
    walk_corpus(TREG_CORPUS "/triton-cache", &tl);
    walk_corpus(TREG_CORPUS "/gfx906-llc22", &tl);
    print_message("corpus: %u kernels; occupancy %u/%u, total VGPRs %u/%u, "
                  "numbered+extra SGPRs %u/%u\n",
                  tl.kernels, tl.occupancy_ok, tl.kernels, tl.vgprs_ok, tl.kernels, tl.sgprs_ok,
                  tl.kernels);
    assert_true(tl.kernels > 0);
    assert_int_equal(tl.occupancy_ok, tl.kernels);
    assert_int_equal(tl.vgprs_ok, tl.kernels);
    assert_int_equal(tl.sgprs_ok, tl.kernels);
}

int main(void)
{
    const struct CMUnitTest unit[] = {
        cmocka_unit_test(test_table_rows_have_sources),
        cmocka_unit_test(test_table_lookups),
        cmocka_unit_test(test_hygon_rows),
        cmocka_unit_test(test_hygon_budget_occupancy),
        cmocka_unit_test(test_isa_families),
        cmocka_unit_test(test_extra_sgprs),
        cmocka_unit_test(test_gfx906_vgpr_granules),
        cmocka_unit_test(test_gfx906_sgpr_steps),
        cmocka_unit_test(test_gfx90a_unified_file),
        cmocka_unit_test(test_rdna_granules),
        cmocka_unit_test(test_lds_and_workgroup),
        cmocka_unit_test(test_waves_per_eu),
    };
    int failed = cmocka_run_group_tests_name("occupancy", unit, NULL, NULL);
    if (failed) return failed;

    /* The corpus is optional: skip (77) with a message where it is absent,
     * after the unit tests above have run. */
    tu_require_dir(TREG_CORPUS "/triton-cache", "Triton corpus (shared/corpus/triton-cache)");
    tu_require_dir(TREG_CORPUS "/gfx906-llc22", "gfx906 corpus (shared/corpus/gfx906-llc22)");
    const struct CMUnitTest corpus[] = {
        cmocka_unit_test(test_corpus_trailers),
    };
    return cmocka_run_group_tests_name("occupancy-corpus", corpus, NULL, NULL);
}
