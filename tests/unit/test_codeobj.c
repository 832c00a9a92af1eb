/* Stage 1 (load/codeobj): every corpus code object against the compiler's
 * own figures in its .amdgcn trailer and Triton's .json, hand-made
 * corruptions with the error each must give, and a sweep of truncations
 * and seeded random mutations that must fail cleanly (the suite also runs
 * under ASan/UBSan, so "cleanly" includes no stray read). */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "load/codeobj.h"
#include "load/lines.h"
#include "testutil.h"

/* ---- Corpus helpers -------------------------------------------------- */

typedef struct corpus_entry {
    char dir[PATH_MAX];
    char stem[256]; /* "add_kernel" for add_kernel.hsaco */
} corpus_entry;

/* Every <dir>/<stem>.hsaco one level below triton-cache and gfx906-llc22. */
static size_t corpus_entries(corpus_entry *out, size_t max)
{
    static const char *const roots[] = {"triton-cache", "gfx906-llc22"};
    size_t n = 0;
    for (size_t r = 0; r < 2; r++) {
        char root[PATH_MAX];
        snprintf(root, sizeof root, "%s/%s", TREG_CORPUS, roots[r]);
        DIR *d = opendir(root);
        if (!d) continue;
        struct dirent *de;
        while ((de = readdir(d)) && n < max) {
            if (de->d_name[0] == '.') continue;
            char sub[PATH_MAX];
            if (snprintf(sub, sizeof sub, "%s/%s", root, de->d_name) >= (int)sizeof sub) continue;
            DIR *s = opendir(sub);
            if (!s) continue;
            struct dirent *fe;
            while ((fe = readdir(s)) && n < max) {
                size_t len = strlen(fe->d_name);
                if (len > 6 && strcmp(fe->d_name + len - 6, ".hsaco") == 0 && len - 6 < 256) {
                    memcpy(out[n].dir, sub, sizeof sub);
                    memcpy(out[n].stem, fe->d_name, len - 6);
                    out[n].stem[len - 6] = 0;
                    n++;
                }
            }
            closedir(s);
        }
        closedir(d);
    }
    return n;
}

static uint8_t *read_sibling(const corpus_entry *e, const char *ext, size_t *len)
{
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s%s", e->dir, e->stem, ext);
    return tu_read_file(path, len);
}

/* The integer after the first occurrence of key, or -1 when absent. */
static long text_int(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p) return -1;
    return strtol(p + strlen(key), NULL, 10);
}

static void require_corpus(void)
{
    if (!tu_exists(TREG_CORPUS "/triton-cache")) {
        print_message("shared corpus not found at %s\n", TREG_CORPUS);
        skip();
    }
}

static const char *const add_kernel_90a = TREG_CORPUS
    "/triton-cache/BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ/add_kernel.hsaco";

static uint8_t *read_or_skip(const char *path, size_t *len)
{
    require_corpus();
    uint8_t *b = tu_read_file(path, len);
    assert_non_null(b);
    return b;
}

/* A copy in a block of exactly len bytes, so ASan sees any read past it. */
static uint8_t *exact_copy(const uint8_t *b, size_t len)
{
    uint8_t *c = malloc(len ? len : 1);
    assert_non_null(c);
    if (len) memcpy(c, b, len);
    return c;
}

/* Replaces every occurrence of from (n bytes) with to; returns how many. */
static int replace_all(uint8_t *b, size_t len, const char *from, const char *to, size_t n)
{
    int count = 0;
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(b + i, from, n) == 0) {
            memcpy(b + i, to, n);
            count++;
        }
    return count;
}

/* ---- Corpus facts ---------------------------------------------------- */

static unsigned mach_of(const char *arch)
{
    /* EF_AMDGPU_MACH_AMDGCN_* in llvm/BinaryFormat/ELF.h */
    if (strcmp(arch, "gfx906") == 0) return 0x2f;
    if (strcmp(arch, "gfx90a") == 0) return 0x3f;
    if (strcmp(arch, "gfx942") == 0) return 0x4c;
    return 0;
}

static void check_entry(const corpus_entry *e)
{
    size_t len, alen, jlen;
    uint8_t *bytes = read_sibling(e, ".hsaco", &len);
    char *amdgcn = (char *)read_sibling(e, ".amdgcn", &alen);
    char *json = (char *)read_sibling(e, ".json", &jlen);
    assert_non_null(bytes);
    assert_non_null(amdgcn);
    assert_non_null(json);
    json_object *jo = json_tokener_parse(json);
    assert_non_null(jo);
    json_object *jname, *jarch;
    assert_true(json_object_object_get_ex(jo, "name", &jname));
    assert_true(json_object_object_get_ex(jo, "arch", &jarch));
    const char *arch = json_object_get_string(jarch);

    treg_arena a;
    treg_arena_init(&a);
    treg_codeobj co;
    treg_error err = {0};
    int rc = treg_codeobj_load(&a, bytes, len, &co, &err);
    if (rc != TREG_OK) print_message("%s/%s: %s\n", e->dir, e->stem, err.msg);
    assert_int_equal(rc, TREG_OK);

    assert_int_equal(co.mach, mach_of(arch));
    assert_int_not_equal(co.mach, 0);
    assert_int_equal(co.mach, co.e_flags & 0xff);
    /* Triton's objects are code object v5 (EI_ABIVERSION 3) with xnack and
     * sramecc left at "any" (e_flags 0x5xx). */
    assert_int_equal(co.abi_version, 3);
    assert_int_equal(co.xnack, 1);
    assert_int_equal(co.sramecc, 1);
    assert_non_null(co.target_gfx);
    assert_string_equal(co.target_gfx, arch);
    char want_id[64];
    snprintf(want_id, sizeof want_id, "amdgcn-amd-amdhsa--%s", arch);
    assert_string_equal(co.target_id, want_id);

    assert_int_equal(co.nkernels, 1);
    const treg_kernel_sym *k = &co.kernels[0];
    assert_string_equal(k->name, json_object_get_string(jname));
    assert_true(k->code >= bytes && k->code + k->size <= bytes + len);
    assert_int_equal(k->size, text_int(amdgcn, "; codeLenInByte = "));
    /* The descriptor's entry offset leads from the .kd to the code. */
    assert_int_not_equal(k->kd.entry_byte_offset, 0);

    /* Metadata note against the compiler's trailer. */
    const treg_kernel_meta *m = &k->meta;
    assert_true(m->present);
    /* The note's .vgpr_count is the trailer's TotalNumVgprs: on gfx90a and
     * gfx942 the unified count, arch VGPRs rounded up to 4 and then the
     * AGPRs; gfx906 prints no total and the count is NumVgprs. */
    long num_vgprs = text_int(amdgcn, "; NumVgprs: ");
    long num_agprs = text_int(amdgcn, "; NumAgprs: ");
    long total_vgprs = text_int(amdgcn, "; TotalNumVgprs: ");
    assert_true(num_vgprs > 0);
    assert_int_equal(m->vgpr_count, total_vgprs < 0 ? num_vgprs : total_vgprs);
    assert_int_equal(m->vgpr_count, text_int(amdgcn, "\n    .vgpr_count:"));
    if (num_agprs > 0) assert_int_equal(total_vgprs, (num_vgprs + 3) / 4 * 4 + num_agprs);
    /* gfx906 has no AGPRs: neither trailer nor note has the field. */
    assert_int_equal(m->agpr_count, num_agprs);
    /* The note's .sgpr_count is the trailer's TotalNumSgprs (VCC and the
     * other extra SGPRs included), not .amdhsa_next_free_sgpr. */
    assert_int_equal(m->sgpr_count, text_int(amdgcn, "; TotalNumSgprs: "));
    assert_int_equal(m->sgpr_count, text_int(amdgcn, "\n    .sgpr_count:"));
    assert_int_equal(m->vgpr_spill_count, text_int(amdgcn, "\n    .vgpr_spill_count:"));
    assert_int_equal(m->sgpr_spill_count, text_int(amdgcn, "\n    .sgpr_spill_count:"));
    assert_int_equal(m->wavefront_size, 64);
    assert_int_equal(m->uses_dynamic_stack, 0);
    assert_int_equal(m->max_flat_workgroup_size, text_int(amdgcn, ".max_flat_workgroup_size:"));

    /* Kernel descriptor against the trailer. */
    const treg_kd *kd = &k->kd;
    assert_int_equal(kd->user_sgpr_count, text_int(amdgcn, "; COMPUTE_PGM_RSRC2:USER_SGPR: "));
    long accum = text_int(amdgcn, "; AccumOffset: ");
    assert_int_equal(kd->accum_offset, accum < 0 ? 0 : accum);
    assert_int_equal(kd->private_segment_fixed_size, text_int(amdgcn, "; ScratchSize: "));
    assert_int_equal(kd->private_segment_fixed_size, m->private_segment_fixed_size);
    assert_int_equal(kd->group_segment_fixed_size, m->group_segment_fixed_size);
    assert_int_equal(kd->kernarg_size, m->kernarg_segment_size);
    assert_int_equal(kd->vgpr_blocks, text_int(amdgcn, "; VGPRBlocks: "));
    assert_int_equal(kd->sgpr_blocks, text_int(amdgcn, "; SGPRBlocks: "));
    assert_int_equal(kd->private_segment_wave_offset,
                     text_int(amdgcn, "; COMPUTE_PGM_RSRC2:SCRATCH_EN: "));
    assert_int_equal(kd->wg_id_x, text_int(amdgcn, "; COMPUTE_PGM_RSRC2:TGID_X_EN: "));
    assert_int_equal(kd->wg_id_y, text_int(amdgcn, "; COMPUTE_PGM_RSRC2:TGID_Y_EN: "));
    assert_int_equal(kd->workitem_id_vgprs,
                     text_int(amdgcn, "; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: ") + 1);
    /* gfx942 (architected flat scratch) has no private segment buffer and
     * its assembly leaves the directive out. */
    long psb = text_int(amdgcn, ".amdhsa_user_sgpr_private_segment_buffer ");
    assert_int_equal(kd->private_segment_buffer, psb < 0 ? 0 : psb);
    assert_true(co.mach != 0x4c || psb < 0);
    assert_int_equal(kd->kernarg_segment_ptr,
                     text_int(amdgcn, ".amdhsa_user_sgpr_kernarg_segment_ptr "));
    long preload = text_int(amdgcn, ".amdhsa_user_sgpr_kernarg_preload_length ");
    assert_int_equal(kd->kernarg_preload_length, preload < 0 ? 0 : preload);
    assert_false(kd->wave32);

    json_object_put(jo);
    treg_arena_free(&a);
    free(bytes);
    free(amdgcn);
    free(json);
}

static void test_corpus_matches_compiler_figures(void **state)
{
    (void)state;
    require_corpus();
    static corpus_entry entries[256];
    size_t n = corpus_entries(entries, 256);
    /* INDEX.md lists 37: 34 Triton cache entries and 3 gfx906 builds. */
    assert_true(n >= 37);
    unsigned gfx906 = 0;
    for (size_t i = 0; i < n; i++) {
        check_entry(&entries[i]);
        gfx906 += strstr(entries[i].dir, "gfx906-llc22") != NULL;
    }
    assert_int_equal(gfx906, 3);
}

/* ---- Hand-made bad input --------------------------------------------- */

static int load(const uint8_t *b, size_t len, treg_codeobj *co, treg_error *err)
{
    treg_arena a;
    treg_arena_init(&a);
    memset(err, 0, sizeof *err);
    int rc = treg_codeobj_load(&a, b, len, co, err);
    treg_arena_free(&a);
    if (rc != TREG_OK) {
        assert_int_equal(err->code, rc);
        assert_true(err->msg[0] != 0);
        assert_null(strchr(err->msg, '\n'));
    }
    return rc;
}

static void test_not_elf(void **state)
{
    (void)state;
    treg_codeobj co;
    treg_error err;
    const uint8_t empty[1] = {0};
    assert_int_equal(load(empty, 0, &co, &err), TREG_E_FORMAT);
    assert_string_equal(err.msg, "not an ELF file");
    assert_int_equal(load(NULL, 0, &co, &err), TREG_E_FORMAT);
    assert_int_equal(load((const uint8_t *)"\x7f"
                                           "EL",
                          3, &co, &err),
                     TREG_E_FORMAT);
    const char *text = "not an elf, just some text that is long enough to be a header.......";
    assert_int_equal(load((const uint8_t *)text, strlen(text), &co, &err), TREG_E_FORMAT);
    assert_string_equal(err.msg, "not an ELF file");

    /* A 32-bit and a big-endian identification. */
    uint8_t hdr[64] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
    assert_int_equal(load(hdr, sizeof hdr, &co, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "ELF64"));
    hdr[4] = 2;
    hdr[5] = 2;
    assert_int_equal(load(hdr, sizeof hdr, &co, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "little-endian"));
    /* A right identification with the header cut short. */
    hdr[5] = 1;
    assert_int_equal(load(hdr, 40, &co, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "truncated"));

    treg_arena a;
    treg_arena_init(&a);
    assert_int_equal(treg_codeobj_load(&a, NULL, 5, &co, &err), TREG_E_ARG);
    assert_int_equal(treg_codeobj_load(NULL, hdr, 5, &co, &err), TREG_E_ARG);
    assert_int_equal(treg_codeobj_load(&a, hdr, 5, NULL, &err), TREG_E_ARG);
    treg_arena_free(&a);
}

static void test_host_binary_is_wrong_machine(void **state)
{
    (void)state;
    size_t len;
    uint8_t *self = tu_read_file("/proc/self/exe", &len);
    assert_non_null(self);
    treg_codeobj co;
    treg_error err;
    assert_int_equal(load(self, len, &co, &err), TREG_E_MACHINE);
#if defined(__x86_64__)
    assert_string_equal(err.msg, "ELF machine 62 (x86-64) is not AMDGPU (0xE0)");
#endif
    free(self);
}

static void test_section_table_past_end(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = read_or_skip(add_kernel_90a, &len);
    /* The section header table is the last thing in an lld output. */
    treg_codeobj co;
    treg_error err;
    uint8_t *cut = exact_copy(b, len - 1);
    assert_int_equal(load(cut, len - 1, &co, &err), TREG_E_FORMAT);
    assert_string_equal(err.msg, "truncated: section header table past end of file");
    free(cut);
    free(b);
}

static void test_no_kernel_symbols(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = read_or_skip(add_kernel_90a, &len);
    /* .dynstr, .strtab and the note's .symbol all spell it. */
    assert_true(replace_all(b, len, "add_kernel.kd", "add_kernel.kx", 13) >= 2);
    treg_codeobj co;
    treg_error err;
    assert_int_equal(load(b, len, &co, &err), TREG_E_NOKERNEL);
    assert_string_equal(err.msg, "no kernel symbols");
    free(b);
}

/* Offset of the kernel descriptor in the file: where its raw fields sit. */
static size_t find_kd(const uint8_t *b, size_t len, const treg_kd *kd)
{
    for (size_t i = 0; i + 64 <= len; i += 4) {
        int64_t entry;
        uint32_t r1, r2;
        memcpy(&entry, b + i + 16, 8);
        memcpy(&r1, b + i + 48, 4);
        memcpy(&r2, b + i + 52, 4);
        if (entry == kd->entry_byte_offset && r1 == kd->rsrc1 && r2 == kd->rsrc2) return i;
    }
    fail_msg("kernel descriptor not found");
    return 0;
}

static void test_descriptor_entry_mismatch(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = read_or_skip(add_kernel_90a, &len);
    treg_arena a;
    treg_arena_init(&a);
    treg_codeobj co;
    treg_error err;
    assert_int_equal(treg_codeobj_load(&a, b, len, &co, &err), TREG_OK);
    size_t at = find_kd(b, len, &co.kernels[0].kd);
    int64_t entry = co.kernels[0].kd.entry_byte_offset + 0x100;
    memcpy(b + at + 16, &entry, 8);
    assert_int_equal(load(b, len, &co, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "add_kernel"));
    assert_non_null(strstr(err.msg, "entry"));
    treg_arena_free(&a);
    free(b);
}

static void test_descriptor_without_function_symbol(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = read_or_skip(add_kernel_90a, &len);
    treg_arena a;
    treg_arena_init(&a);
    treg_codeobj orig, co;
    treg_error err;
    assert_int_equal(treg_codeobj_load(&a, b, len, &orig, &err), TREG_OK);
    /* Renames the FUNC symbol (in .dynstr and .strtab; the note's strings
     * are msgpack, not NUL-terminated) so only add_kernel.kd is left. */
    assert_int_equal(replace_all(b, len, "add_kernel\0", "Xdd_kernel\0", 11), 2);
    assert_int_equal(treg_codeobj_load(&a, b, len, &co, &err), TREG_OK);
    assert_int_equal(co.nkernels, 1);
    assert_string_equal(co.kernels[0].name, "add_kernel");
    assert_int_equal(co.kernels[0].addr, orig.kernels[0].addr);
    assert_true(co.kernels[0].code == orig.kernels[0].code);
    /* No size without a symbol: up to the end of .text (0x740 bytes from
     * the kernel, which is the first and only thing in it). */
    assert_int_equal(co.kernels[0].size, 0x740);
    assert_true(co.kernels[0].meta.present); /* matched by .symbol */
    treg_arena_free(&a);
    free(b);
}

/* Offset of the metadata note's header (namesz, descsz, type, then the
 * name "AMDGPU\0" padded to 8 and the msgpack payload). */
static size_t find_note(const uint8_t *b, size_t len)
{
    for (size_t i = 0; i + 20 <= len; i += 4) {
        uint32_t namesz, type;
        memcpy(&namesz, b + i, 4);
        memcpy(&type, b + i + 8, 4);
        if (namesz == 7 && type == 32 && memcmp(b + i + 12, "AMDGPU\0", 7) == 0) return i;
    }
    fail_msg("metadata note not found");
    return 0;
}

static void test_metadata_note(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = read_or_skip(add_kernel_90a, &len);
    size_t note = find_note(b, len), desc = note + 20;
    treg_codeobj co;
    treg_error err;
    treg_arena a;
    treg_arena_init(&a);

    uint8_t *m = exact_copy(b, len);
    m[desc] = 0xc1; /* a byte msgpack never uses */
    assert_int_equal(load(m, len, &co, &err), TREG_E_METADATA);
    /* A map claiming 2^32-1 entries: refused before msgpack-c would
     * allocate for them. */
    memcpy(m, b, len);
    memcpy(m + desc, "\xdf\xff\xff\xff\xff", 5);
    assert_int_equal(load(m, len, &co, &err), TREG_E_METADATA);
    /* The root is not a map. */
    memcpy(m, b, len);
    m[desc] = 0x90 | (m[desc] & 0x0f);
    assert_int_equal(load(m, len, &co, &err), TREG_E_METADATA);
    /* A field of the wrong type. */
    memcpy(m, b, len);
    assert_int_equal(replace_all(m, len, "\xab.vgpr_count\x0e", "\xab.vgpr_count\xc0", 13), 1);
    assert_int_equal(load(m, len, &co, &err), TREG_E_METADATA);
    assert_non_null(strstr(err.msg, ".vgpr_count"));

    /* Another note type: no metadata, which is not an error. */
    memcpy(m, b, len);
    m[note + 8] = 33;
    assert_int_equal(treg_codeobj_load(&a, m, len, &co, &err), TREG_OK);
    assert_false(co.kernels[0].meta.present);
    assert_int_equal(co.kernels[0].meta.vgpr_count, -1);
    assert_int_equal(co.kernels[0].meta.uses_dynamic_stack, -1);
    assert_null(co.target_id);
    assert_null(co.target_gfx);
    assert_int_equal(co.kernels[0].kd.user_sgpr_count, 16);

    treg_arena_free(&a);
    free(m);
    free(b);
}

/* ---- Truncations and mutations --------------------------------------- */

/* A result, success or failure, must be self-consistent: code inside the
 * buffer, rows sorted with valid file indexes; a failure has a message. */
static void check_outcome(const uint8_t *b, size_t len)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_codeobj co;
    treg_error err = {0};
    int rc = treg_codeobj_load(&a, b, len, &co, &err);
    if (rc != TREG_OK) {
        assert_true(err.msg[0] != 0);
        assert_int_equal(err.code, rc);
    } else {
        assert_true(co.nkernels > 0);
        for (size_t i = 0; i < co.nkernels; i++) {
            const treg_kernel_sym *k = &co.kernels[i];
            assert_non_null(k->name);
            assert_true(k->code >= b && k->size <= len &&
                        k->code - b <= (ptrdiff_t)(len - k->size));
        }
    }
    treg_linetab t;
    memset(&err, 0, sizeof err);
    rc = treg_lines_load(&a, b, len, &t, &err);
    if (rc != TREG_OK) {
        assert_true(err.msg[0] != 0);
    } else {
        for (size_t i = 0; i < t.nrows; i++) {
            assert_true(t.rows[i].file >= 0 && (size_t)t.rows[i].file < t.nfiles);
            if (i) assert_true(t.rows[i - 1].addr <= t.rows[i].addr);
        }
    }
    treg_arena_free(&a);
}

static void test_every_truncation_fails_cleanly(void **state)
{
    (void)state;
    require_corpus();
    static const char *const files[] = {
        TREG_CORPUS "/triton-cache/BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ/"
                    "add_kernel.hsaco",
        TREG_CORPUS "/triton-cache/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA/"
                    "softmax_kernel.hsaco",
        TREG_CORPUS "/gfx906-llc22/HVKXC3PYDYVOCW6Z46BQF7TKO33TL3IBD2BI7GRRE6BXFKM6JI4A-906/"
                    "layernorm_fwd.hsaco",
    };
    for (size_t f = 0; f < 3; f++) {
        size_t len;
        uint8_t *b = tu_read_file(files[f], &len);
        assert_non_null(b);
        for (size_t step = 0; step < 97; step++) {
            size_t cut = len * step / 97;
            uint8_t *c = exact_copy(b, cut);
            treg_codeobj co;
            treg_error err;
            treg_arena a;
            treg_arena_init(&a);
            /* Every proper prefix loses the section header table at the end. */
            int rc = treg_codeobj_load(&a, c, cut, &co, &err);
            assert_int_not_equal(rc, TREG_OK);
            assert_true(err.msg[0] != 0);
            treg_arena_free(&a);
            check_outcome(c, cut);
            free(c);
        }
        free(b);
    }
}

/* xorshift64*: the same mutations on every run. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void test_random_mutations_fail_cleanly(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = read_or_skip(add_kernel_90a, &len);
    uint8_t *m = malloc(len);
    assert_non_null(m);
    uint64_t seed = 0x7265670a5eedull;
    int failures = 0;
    for (int round = 0; round < 2000; round++) {
        memcpy(m, b, len);
        unsigned flips = 1 + next_random(&seed) % 8;
        for (unsigned i = 0; i < flips; i++) {
            uint64_t r = next_random(&seed);
            /* Half the flips land in the first 4 KiB (headers, note,
             * symbols, descriptor) where most of the structure is. */
            size_t at = (r & 1) ? (r >> 8) % (len < 4096 ? len : 4096) : (r >> 8) % len;
            m[at] = (uint8_t)(r >> 1);
        }
        treg_arena a;
        treg_arena_init(&a);
        treg_codeobj co;
        treg_error err = {0};
        failures += treg_codeobj_load(&a, m, len, &co, &err) != TREG_OK;
        treg_arena_free(&a);
        check_outcome(m, len);
    }
    /* Most mutations land in code or padding and still load. */
    print_message("%d of 2000 mutations rejected\n", failures);
    assert_true(failures < 2000);
    free(m);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_matches_compiler_figures),
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_host_binary_is_wrong_machine),
        cmocka_unit_test(test_section_table_past_end),
        cmocka_unit_test(test_no_kernel_symbols),
        cmocka_unit_test(test_descriptor_entry_mismatch),
        cmocka_unit_test(test_descriptor_without_function_symbol),
        cmocka_unit_test(test_metadata_note),
        cmocka_unit_test(test_every_truncation_fails_cleanly),
        cmocka_unit_test(test_random_mutations_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
