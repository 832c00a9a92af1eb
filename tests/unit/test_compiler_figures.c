/* Differential test against the compiler's own figures: for every kernel of
 * the shared Triton corpus and of the project's generated fixtures, the
 * allocated VGPRs, AGPRs, SGPRs and the occupancy the analyzer computes from
 * the code object must equal the trailer of the compiler's assembly
 * ("; NumVgprs:", "; NumAgprs:", "; TotalNumSgprs:", "; Occupancy:"), no
 * register may be read before it is defined, and the live peak never
 * exceeds the allocation. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "treg/analyzer.h"

typedef struct trailer {
    long vgprs, agprs, sgprs, occupancy, scratch;
} trailer;

/* The value of "; KEY: N" within [text, end), or -1. */
static long trailer_value(const char *text, const char *end, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; (p = strstr(p, key)) && p < end; p += klen)
        if (p > text && p[-1] == ' ') return strtol(p + klen, NULL, 10);
    return -1;
}

/* The "; Kernel info:" block that follows ".amdhsa_kernel NAME". */
static int read_trailer(const char *path, const char *kernel, bool function, trailer *t)
{
    size_t len;
    char *text = (char *)tu_read_file(path, &len);
    if (!text) return -1;
    /* a kernel's comes after its descriptor, a device function's after its
     * code ("; Function info:", without an occupancy) */
    char key[600];
    snprintf(key, sizeof key, function ? "\n%s:" : ".amdhsa_kernel %s\n", kernel);
    const char *start = strstr(text, key);
    const char *heading = function ? "; Function info:" : "; Kernel info:";
    start = start ? strstr(start, heading) : NULL;
    if (!start) {
        free(text);
        return -1;
    }
    const char *end = strstr(start + 1, "; Kernel info:"),
               *next_fn = strstr(start + 1, "; Function info:");
    if (!end || (next_fn && next_fn < end)) end = next_fn;
    if (!end) end = text + len;
    t->vgprs = trailer_value(start, end, "NumVgprs: ");
    t->agprs = trailer_value(start, end, "NumAgprs: ");
    t->sgprs = trailer_value(start, end, "TotalNumSgprs: ");
    if (t->sgprs < 0) t->sgprs = trailer_value(start, end, "NumSgprs: ");
    t->occupancy = trailer_value(start, end, "Occupancy: ");
    t->scratch = trailer_value(start, end, "ScratchSize: ");
    free(text);
    return 0;
}

/* A reproducer of a compiler fact, not of a treg bug: for a kernel that
 * calls a function, LLVM 22 (gfx906, gfx90a) adds the private segment wave
 * offset SGPR to the scratch base ("s_add_u32 s0, s0, s7") while the
 * descriptor enables neither scratch nor that SGPR, so the hardware never
 * writes it.  treg must report exactly that one read. */
static bool unset_wave_offset_read(const treg_kernel_report *k)
{
    return k->calls > 0 && k->undefined_reads == 1 && k->undefined_example &&
           strstr(k->undefined_example, "(s_add_u32 s0, s0, s") != NULL;
}

typedef struct tally {
    int kernels, vgpr_ok, agpr_ok, sgpr_ok, occ_ok, defined_ok, peak_ok, known_ok;
    int skipped; /* code objects the linked LLVM cannot decode (an older one) */
} tally;

static void check_entry(const char *hsaco, const char *asm_path, const char *json_path, tally *t)
{
    size_t len, jlen = 0;
    uint8_t *bytes = tu_read_file(hsaco, &len);
    assert_non_null(bytes);
    char *json = json_path ? (char *)tu_read_file(json_path, &jlen) : NULL;
    treg_options opt = {0};
    opt.triton_json = json;
    opt.triton_json_len = jlen;
    treg_report *r;
    treg_error err = {0, ""};
    int rc = treg_analyze(bytes, len, &opt, &r, &err);
    if (rc && tu_needs_newer_llvm(hsaco, TREG_LLVM_MAJOR, err.msg)) {
        t->skipped++;
        free(json);
        free(bytes);
        return;
    }
    if (rc) fail_msg("%s: %s", hsaco, err.msg);
    for (size_t i = 0; i < r->nkernels; i++) {
        const treg_kernel_report *k = &r->kernels[i];
        trailer tr = {-1, -1, -1, -1, -1};
        bool function = k->kind && strcmp(k->kind, "function") == 0;
        if (read_trailer(asm_path, k->name, function, &tr) != 0)
            fail_msg("%s: no trailer for kernel %s in %s", hsaco, k->name, asm_path);
        t->kernels++;
        long agprs = tr.agprs < 0 ? 0 : tr.agprs;
        bool v = k->vgpr.allocated == tr.vgprs, a = k->agpr.allocated == agprs,
             s = k->sgpr.allocated == tr.sgprs,
             o = function ? k->occupancy.waves_per_simd == 0 && tr.occupancy == -1
                          : k->occupancy.waves_per_simd == tr.occupancy;
        t->vgpr_ok += v;
        t->agpr_ok += a;
        t->sgpr_ok += s;
        t->occ_ok += o;
        bool defined = k->undefined_reads == 0 || unset_wave_offset_read(k);
        t->defined_ok += defined;
        t->known_ok += k->unknown_instructions == 0;
        bool peak = k->vgpr.peak_live <= k->vgpr.allocated &&
                    k->agpr.peak_live <= k->agpr.allocated &&
                    k->sgpr.peak_live <= k->sgpr.allocated;
        t->peak_ok += peak;
        printf("%-6s %-16s vgpr %3u/%3ld agpr %3u/%3ld sgpr %3u/%3ld occ %u/%ld peak v%u a%u s%u "
               "undef %u unknown %u %s\n",
               r->target, k->name, k->vgpr.allocated, tr.vgprs, k->agpr.allocated, agprs,
               k->sgpr.allocated, tr.sgprs, k->occupancy.waves_per_simd, tr.occupancy,
               k->vgpr.peak_live, k->agpr.peak_live, k->sgpr.peak_live, k->undefined_reads,
               k->unknown_instructions, (v && a && s && o && peak && defined) ? "" : "MISMATCH");
        if (k->undefined_reads) printf("    undefined: %s\n", k->undefined_example);
    }
    treg_report_free(r);
    free(json);
    free(bytes);
}

/* A Triton cache folder: every <entry>/<kernel>.hsaco with .amdgcn and .json. */
static void walk_cache(const char *root, tally *t)
{
    DIR *d = opendir(root);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char entry[1024];
        snprintf(entry, sizeof entry, "%s/%s", root, e->d_name);
        DIR *d2 = opendir(entry);
        if (!d2) continue;
        struct dirent *f;
        while ((f = readdir(d2))) {
            size_t n = strlen(f->d_name);
            if (n <= 6 || strcmp(f->d_name + n - 6, ".hsaco") != 0) continue;
            char hsaco[1400], as[1400], js[1400];
            snprintf(hsaco, sizeof hsaco, "%s/%s", entry, f->d_name);
            snprintf(as, sizeof as, "%s/%.*s.amdgcn", entry, (int)(n - 6), f->d_name);
            snprintf(js, sizeof js, "%s/%.*s.json", entry, (int)(n - 6), f->d_name);
            check_entry(hsaco, as, tu_exists(js) ? js : NULL, t);
        }
        closedir(d2);
    }
    closedir(d);
}

static void assert_all(const char *what, const tally *t)
{
    if (t->skipped)
        printf("%s: %d code objects skipped: the linked LLVM cannot decode them\n", what,
               t->skipped);
    printf("%s: %d kernels; allocated VGPR %d, AGPR %d, SGPR %d, occupancy %d match; "
           "no undefined reads %d; peak<=allocated %d; all mnemonics known %d\n",
           what, t->kernels, t->vgpr_ok, t->agpr_ok, t->sgpr_ok, t->occ_ok, t->defined_ok,
           t->peak_ok, t->known_ok);
    assert_true(t->kernels > 0);
    assert_int_equal(t->vgpr_ok, t->kernels);
    assert_int_equal(t->agpr_ok, t->kernels);
    assert_int_equal(t->sgpr_ok, t->kernels);
    assert_int_equal(t->occ_ok, t->kernels);
    assert_int_equal(t->defined_ok, t->kernels);
    assert_int_equal(t->peak_ok, t->kernels);
    assert_int_equal(t->known_ok, t->kernels);
}

static void test_corpus(void **state)
{
    (void)state;
    if (!tu_exists(TREG_CORPUS "/triton-cache")) skip();
    tally t = {0};
    walk_cache(TREG_CORPUS "/triton-cache", &t);
    walk_cache(TREG_CORPUS "/gfx906-llc22", &t);
    walk_cache(TREG_CORPUS "/triton-cache-targets", &t); /* gfx908, gfx950, gfx1100 */
    assert_all("shared corpus", &t);
}

/* The project's own fixtures: OUT/MANIFEST.tsv rows "arch kernel path ..."
 * with the assembly next to each code object as NAME.s. */
static void test_fixtures(void **state)
{
    (void)state;
    char manifest[1024];
    snprintf(manifest, sizeof manifest, "%s/MANIFEST.tsv", TREG_FIXTURES);
    size_t len;
    char *text = (char *)tu_read_file(manifest, &len);
    if (!text)
        fail_msg("fixtures manifest %s missing: run tests/fixtures/make-fixtures.sh", manifest);
    tally t = {0};
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char arch[64], kernel[256], path[1024];
        if (sscanf(line, "%63s %255s %1023s", arch, kernel, path) != 3 || strcmp(arch, "arch") == 0)
            continue;
        char hsaco[1100], as[1100];
        snprintf(hsaco, sizeof hsaco, "%s%s%s", path[0] == '/' ? "" : TREG_FIXTURES,
                 path[0] == '/' ? "" : "/", path);
        snprintf(as, sizeof as, "%s", hsaco);
        char *dot = strrchr(as, '.');
        if (!dot) continue;
        strcpy(dot, ".s");
        check_entry(hsaco, as, NULL, &t);
    }
    free(text);
    /* The bundled Triton kernels, compiled by the fixture script. */
    walk_cache(TREG_FIXTURES "/triton", &t);
    assert_all("generated fixtures", &t);
}

int main(void)
{
    if (!tu_exists(TREG_CORPUS "/triton-cache"))
        printf("SKIP (corpus part): shared corpus not found at %s\n", TREG_CORPUS);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
