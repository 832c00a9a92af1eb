/* The container reader (bundle/container.c): the code objects inside HIP executables and
 * offload bundles, on the fixtures of tests/fixtures/make-hip-fixtures.sh
 * (each entry's bytes against the object clang-offload-bundler extracts),
 * and on bundles and offload binaries built here byte by byte: entries that
 * are skipped and why, the callback stopping the walk, every limit, and
 * malformed tables that must fail cleanly without touching the input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "treg/container.h"

#define HX TREG_HIP_FIXTURES

typedef struct seen {
    size_t n;
    char ids[64][96];
    char where[64][160];
    char why[64][160];
    size_t len[64];
    const uint8_t *bytes[64];
    int stop_at; /* return 42 at this entry (1-based); 0: never */
} seen;

static int record(void *ctx, const treg_embedded *e, treg_error *err)
{
    seen *s = ctx;
    (void)err;
    if (s->n < 64) {
        snprintf(s->ids[s->n], sizeof s->ids[0], "%s", e->entry_id ? e->entry_id : "(self)");
        snprintf(s->where[s->n], sizeof s->where[0], "%s", e->where);
        snprintf(s->why[s->n], sizeof s->why[0], "%s", e->skipped ? e->skipped : "");
        s->len[s->n] = e->len;
        s->bytes[s->n] = e->bytes;
    }
    s->n++;
    return s->stop_at && (int)s->n == s->stop_at ? 42 : 0;
}

static uint8_t *fixture(const char *rel, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", HX, rel);
    uint8_t *b = tu_read_file(path, len);
    if (!b) fail_msg("HIP fixture %s missing: run tests/fixtures/make-hip-fixtures.sh", path);
    return b;
}

/* An executable with two bundles: every entry in order, each code object
 * byte for byte the one clang-offload-bundler extracts. */
static void test_executable(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = fixture("app", &len);
    seen s = {0};
    treg_error err = {0, ""};
    treg_container_stats st;
    assert_int_equal(treg_container_each(b, len, NULL, record, &s, &st, &err), TREG_OK);
    assert_string_equal(st.format, "host ELF (.hip_fatbin)");
    assert_int_equal(st.objects, 8);
    assert_int_equal(st.skipped, 2);
    assert_int_equal(s.n, 10);
    static const char *const gfx[] = {"gfx906", "gfx908", "gfx90a", "gfx942"};
    for (int bundle = 0; bundle < 2; bundle++) {
        size_t host = (size_t)bundle * 5;
        assert_string_equal(s.ids[host], "host-x86_64-unknown-linux-gnu-");
        assert_string_equal(s.why[host], "host code");
        for (int t = 0; t < 4; t++) {
            size_t i = host + 1 + (size_t)t;
            char id[96], rel[200], where[40];
            snprintf(id, sizeof id, "hipv4-amdgcn-amd-amdhsa--%s", gfx[t]);
            assert_string_equal(s.ids[i], id);
            assert_string_equal(s.why[i], "");
            snprintf(where, sizeof where, "bundle %d, entry %d", bundle + 1, t + 2);
            assert_non_null(strstr(s.where[i], where));
            snprintf(rel, sizeof rel, "unbundled/app/%d-%s.co", bundle + 1, id);
            size_t tlen;
            uint8_t *twin = fixture(rel, &tlen);
            assert_int_equal(s.len[i], tlen);
            assert_memory_equal(s.bytes[i], twin, tlen);
            /* uncompressed: the entry points into the caller's buffer */
            assert_true(s.bytes[i] > b && s.bytes[i] + s.len[i] <= b + len);
            free(twin);
        }
    }
    free(b);
}

/* A code object is its own single entry; a compressed executable's
 * entries come from decompressed memory. */
static void test_code_object_and_compressed(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = fixture("hygon/gfx906.co", &len);
    seen s = {0};
    treg_error err = {0, ""};
    treg_container_stats st;
    assert_int_equal(treg_container_each(b, len, NULL, record, &s, &st, &err), TREG_OK);
    assert_string_equal(st.format, "code object");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.ids[0], "(self)");
    assert_ptr_equal(s.bytes[0], b);
    free(b);

    b = fixture("app-compressed", &len);
    memset(&s, 0, sizeof s);
    assert_int_equal(treg_container_each(b, len, NULL, record, &s, &st, &err), TREG_OK);
    assert_int_equal(st.objects, 8);
    assert_true(st.decompressed > len);
    assert_non_null(strstr(s.where[1], "(CCOB v3, zstd)"));
    free(b);
}

/* A non-zero return from the callback ends the walk and is returned. */
static void test_callback_stops(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = fixture("app", &len);
    seen s = {.stop_at = 3};
    treg_error err = {0, ""};
    treg_container_stats st;
    assert_int_equal(treg_container_each(b, len, NULL, record, &s, &st, &err), 42);
    assert_int_equal(s.n, 3);
    free(b);
}

static void test_limits(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = fixture("app-compressed", &len);
    treg_error err = {0, ""};
    treg_container_limits one = {.max_bundle = 1000};
    assert_int_equal(treg_container_each(b, len, &one, NULL, NULL, NULL, &err), TREG_E_LIMIT);
    assert_non_null(strstr(err.msg, "past the limit of 1000 for one bundle"));
    /* a budget one byte short of both bundles: the first fits, the second does not */
    treg_container_stats st;
    assert_int_equal(treg_container_each(b, len, NULL, NULL, NULL, &st, &err), TREG_OK);
    treg_container_limits total = {.max_total = st.decompressed - 1};
    assert_int_equal(treg_container_each(b, len, &total, NULL, NULL, NULL, &err), TREG_E_LIMIT);
    assert_non_null(strstr(err.msg, "bundle 2"));
    assert_non_null(strstr(err.msg, "the file's limit of"));
    treg_container_limits entries = {.max_entries = 7};
    assert_int_equal(treg_container_each(b, len, &entries, NULL, NULL, NULL, &err), TREG_E_LIMIT);
    assert_non_null(strstr(err.msg, "limit of 7 entries"));
    free(b);
}

/* --- bundles built here -------------------------------------------------------------- */

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A 64-byte ELF64 header for EM_AMDGPU: all a container needs to see. */
static void fake_code_object(uint8_t *p)
{
    memset(p, 0, 64);
    memcpy(p, "\177ELF", 4);
    p[4] = 2; /* ELFCLASS64 */
    p[5] = 1; /* little-endian */
    p[18] = 0xE0;
}

typedef struct entry_spec {
    const char *id;
    const uint8_t *data;
    size_t len;
} entry_spec;

/* A bundle of n entries into buf; returns its length. */
static size_t make_bundle(uint8_t *buf, const entry_spec *e, size_t n)
{
    memcpy(buf, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put64(buf + 24, n);
    size_t pos = 32, data = 32;
    for (size_t i = 0; i < n; i++) data += 24 + strlen(e[i].id);
    for (size_t i = 0; i < n; i++) {
        put64(buf + pos, e[i].len ? data : 0);
        put64(buf + pos + 8, e[i].len);
        put64(buf + pos + 16, strlen(e[i].id));
        memcpy(buf + pos + 24, e[i].id, strlen(e[i].id));
        pos += 24 + strlen(e[i].id);
        if (e[i].len) memcpy(buf + data, e[i].data, e[i].len), data += e[i].len;
    }
    return data;
}

static void test_built_bundles(void **state)
{
    (void)state;
    uint8_t co[64], bc[16] = {'B', 'C', 0xC0, 0xDE}, buf[4096], copy[4096];
    fake_code_object(co);
    entry_spec ok[] = {{"host-x86_64-unknown-linux-gnu-", NULL, 0},
                       {"hipv4-amdgcn-amd-amdhsa--gfx926", co, sizeof co},
                       {"hipv4-amdgcn-amd-amdhsa--gfx906:xnack-", bc, sizeof bc}};
    size_t n = make_bundle(buf, ok, 3);
    memcpy(copy, buf, n);
    seen s = {0};
    treg_error err = {0, ""};
    treg_container_stats st;
    assert_int_equal(treg_container_each(buf, n, NULL, record, &s, &st, &err), TREG_OK);
    assert_int_equal(st.objects, 1);
    assert_int_equal(st.skipped, 2);
    assert_string_equal(s.ids[1], "hipv4-amdgcn-amd-amdhsa--gfx926");
    assert_non_null(strstr(s.why[2], "LLVM bitcode"));
    assert_memory_equal(buf, copy, n); /* read, never written */

    /* only skipped entries: no object, the message names them */
    entry_spec none[] = {{"host-x86_64-unknown-linux-gnu-", NULL, 0},
                         {"hipv4-amdgcn-amd-amdhsa--gfx906", bc, sizeof bc}};
    n = make_bundle(buf, none, 2);
    assert_int_equal(treg_container_each(buf, n, NULL, NULL, NULL, NULL, &err), TREG_E_NOKERNEL);
    assert_non_null(strstr(err.msg, "host-x86_64-unknown-linux-gnu- (host code)"));
    assert_non_null(strstr(err.msg, "hipv4-amdgcn-amd-amdhsa--gfx906 (LLVM bitcode"));

    /* an entry whose data overlaps the table */
    n = make_bundle(buf, ok, 3);
    put64(buf + 32 + 24 + strlen(ok[0].id), 8);
    assert_int_equal(treg_container_each(buf, n, NULL, NULL, NULL, NULL, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "lies outside the bundle's data"));
    /* two entries of one code object (and the bytes for one): overlapping data, the
     * amplification a hostile bundle would use to have one object analyzed again and again */
    entry_spec twice[] = {{"hipv4-amdgcn-amd-amdhsa--gfx906", co, sizeof co},
                          {"hipv4-amdgcn-amd-amdhsa--gfx90a", co, sizeof co}};
    n = make_bundle(buf, twice, 2);
    put64(buf + 32 + 24 + strlen(twice[0].id),
          32 + 2 * 24 + strlen(twice[0].id) + strlen(twice[1].id));
    assert_int_equal(treg_container_each(buf, n - sizeof co, NULL, NULL, NULL, NULL, &err),
                     TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "entries overlap"));
    /* an id of length 0, no entries, and every truncation */
    n = make_bundle(buf, ok, 3);
    put64(buf + 32 + 16, 0);
    assert_int_equal(treg_container_each(buf, n, NULL, NULL, NULL, NULL, &err), TREG_E_FORMAT);
    n = make_bundle(buf, ok, 3);
    put64(buf + 24, 0);
    assert_int_equal(treg_container_each(buf, n, NULL, NULL, NULL, NULL, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "no entries"));
    n = make_bundle(buf, ok, 3);
    for (size_t cut = 1; cut < n; cut++) {
        int rc = treg_container_each(buf, cut, NULL, NULL, NULL, NULL, &err);
        assert_true(rc == TREG_E_FORMAT || rc == TREG_E_NOKERNEL);
        assert_true(strlen(err.msg) > 0 && !strchr(err.msg, '\n'));
    }
}

/* An offload binary (LLVM's OffloadBinary v1) holding a code object, and
 * one of "fatbinary" kind holding a bundle. */
static size_t make_offload_binary(uint8_t *buf, unsigned image_kind, const uint8_t *img,
                                  size_t ilen)
{
    memset(buf, 0, 512);
    static const char strings[] = "triple\0amdgcn-amd-amdhsa\0arch\0gfx90a:xnack-";
    size_t soff = 72, str = 104, ioff = (str + sizeof strings + 7) / 8 * 8;
    buf[0] = 0x10, buf[1] = 0xFF, buf[2] = 0x10, buf[3] = 0xAD, buf[4] = 1;
    put64(buf + 8, ioff + ilen);
    put64(buf + 16, 32);
    put64(buf + 24, 40);
    buf[32] = (uint8_t)image_kind;
    buf[34] = 4; /* HIP */
    put64(buf + 40, soff);
    put64(buf + 48, 2);
    put64(buf + 56, ioff);
    put64(buf + 64, ilen);
    put64(buf + soff, str);
    put64(buf + soff + 8, str + 7);
    put64(buf + soff + 16, str + 25);
    put64(buf + soff + 24, str + 30);
    memcpy(buf + str, strings, sizeof strings);
    memcpy(buf + ioff, img, ilen);
    return ioff + ilen;
}

static void test_offload_binaries(void **state)
{
    (void)state;
    uint8_t co[64], buf[8192], inner[1024];
    fake_code_object(co);
    size_t n = make_offload_binary(buf, 1, co, sizeof co);
    seen s = {0};
    treg_error err = {0, ""};
    treg_container_stats st;
    assert_int_equal(treg_container_each(buf, n, NULL, record, &s, &st, &err), TREG_OK);
    assert_string_equal(st.format, "offload binary");
    assert_string_equal(s.ids[0], "hip-amdgcn-amd-amdhsa--gfx90a:xnack-");
    /* a fat binary inside: its bundle's entries */
    entry_spec e[] = {{"hipv4-amdgcn-amd-amdhsa--gfx942", co, sizeof co}};
    size_t blen = make_bundle(inner, e, 1);
    n = make_offload_binary(buf, 4, inner, blen);
    memset(&s, 0, sizeof s);
    assert_int_equal(treg_container_each(buf, n, NULL, record, &s, &st, &err), TREG_OK);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.ids[0], "hipv4-amdgcn-amd-amdhsa--gfx942");
    /* a fat binary that is not a bundle (CUDA's magic): skipped, named */
    uint8_t cuda[16] = {0x50, 0xED, 0x55, 0xBA};
    n = make_offload_binary(buf, 4, cuda, sizeof cuda);
    assert_int_equal(treg_container_each(buf, n, NULL, NULL, NULL, NULL, &err), TREG_E_NOKERNEL);
    assert_non_null(strstr(err.msg, "a fat binary that is not an offload bundle"));
    /* more strings than LLVM ever writes */
    n = make_offload_binary(buf, 1, co, sizeof co);
    put64(buf + 48, 65);
    assert_int_equal(treg_container_each(buf, n, NULL, NULL, NULL, NULL, &err), TREG_E_FORMAT);
    /* a string offset past the end */
    n = make_offload_binary(buf, 1, co, sizeof co);
    put64(buf + 72, 1 << 20);
    assert_int_equal(treg_container_each(buf, n, NULL, NULL, NULL, NULL, &err), TREG_E_FORMAT);
    assert_non_null(strstr(err.msg, "string 1 lies outside"));
}

/* A bundled assembly listing (clang's offload bundler's text format): its
 * sections in order with their ids and texts, the host's skipped, and
 * every malformed shape one line naming the line. */
typedef struct listing_seen {
    char ids[4][64], targets[4][16], texts[4][64];
    int skipped[4];
    unsigned lines[4];
    size_t n;
} listing_seen;

static int note_section(void *ctx, const treg_embedded *e, treg_error *err)
{
    (void)err;
    listing_seen *s = ctx;
    if (s->n == 4) return TREG_OK;
    snprintf(s->ids[s->n], sizeof s->ids[0], "%s", e->entry_id);
    snprintf(s->targets[s->n], sizeof s->targets[0], "%s", e->target ? e->target : "");
    snprintf(s->texts[s->n], sizeof s->texts[0], "%.*s", (int)e->len, (const char *)e->bytes);
    s->skipped[s->n] = e->skipped != NULL;
    s->lines[s->n] = e->line;
    assert_true(e->text);
    s->n++;
    return TREG_OK;
}

static void test_text_listing(void **state)
{
    (void)state;
    const char *good =
        "\n# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906:xnack-\n"
        "\t.text\nk:\n\ts_endpgm\n"
        "\n# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906:xnack-\n"
        "\n# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa-gfx926\n"
        "\ts_nop 0\n"
        "\n# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa-gfx926\n"
        "\n# __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\n"
        "main:\n"
        "\n# __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n";
    assert_true(treg_text_bundle_is(good, strlen(good)));
    listing_seen s = {0};
    treg_container_stats st;
    treg_error err = {0, ""};
    assert_int_equal(treg_text_bundle_each(good, strlen(good), NULL, note_section, &s, &st, &err),
                     TREG_OK);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.ids[0], "hip-amdgcn-amd-amdhsa--gfx906:xnack-");
    assert_string_equal(s.targets[0], "gfx906");
    assert_string_equal(s.texts[0], "\t.text\nk:\n\ts_endpgm\n");
    assert_int_equal(s.lines[0], 3);
    assert_string_equal(s.targets[1], "gfx926");
    assert_string_equal(s.texts[1], "\ts_nop 0\n");
    assert_true(s.skipped[2]);
    assert_int_equal(st.objects, 2);
    assert_int_equal(st.skipped, 1);
    assert_string_equal(st.format, "bundled assembly listing");

    static const struct {
        const char *text, *message;
        int code;
    } bad[] = {
        {"# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906\n\ts_endpgm\n",
         "section hip-amdgcn-amd-amdhsa--gfx906 (from line 1) has no END line", TREG_E_FORMAT},
        {"# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906\n"
         "# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n",
         "line 2: the END of hip-amdgcn-amd-amdhsa--gfx90a inside another section", TREG_E_FORMAT},
        {"# __CLANG_OFFLOAD_BUNDLE____START__ a\n# __CLANG_OFFLOAD_BUNDLE____START__ b\n",
         "line 2: a section starts inside section a (from line 1)", TREG_E_FORMAT},
        {"# __CLANG_OFFLOAD_BUNDLE____START__ a\n# __CLANG_OFFLOAD_BUNDLE____END__ a\nstray\n",
         "line 3: text outside any bundle section", TREG_E_FORMAT},
        {"# __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu\nmain:\n"
         "# __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu\n",
         "no AMDGPU section in the listing, only host-x86_64-unknown-linux-gnu", TREG_E_NOKERNEL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        listing_seen none = {0};
        treg_error e = {0, ""};
        assert_int_equal(treg_text_bundle_each(bad[i].text, strlen(bad[i].text), NULL, note_section,
                                               &none, NULL, &e),
                         bad[i].code);
        assert_string_equal(e.msg, bad[i].message);
    }
    /* sections past the limit */
    char many[4096] = "";
    for (int i = 0; i < 5; i++) {
        size_t at = strlen(many);
        snprintf(many + at, sizeof many - at,
                 "# __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906\nx\n"
                 "# __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906\n");
    }
    treg_container_limits lim = {.max_entries = 4};
    listing_seen some = {0};
    assert_int_equal(
        treg_text_bundle_each(many, strlen(many), &lim, note_section, &some, NULL, &err),
        TREG_E_LIMIT);
    assert_false(treg_text_bundle_is("\t.text\n# __CLANG_OFFLOAD_BUNDLE____START__ x\n", 40));
}

static void test_arguments(void **state)
{
    (void)state;
    treg_error err = {0, ""};
    assert_int_equal(treg_container_each(NULL, 5, NULL, NULL, NULL, NULL, &err), TREG_E_ARG);
    assert_int_equal(treg_container_each((const uint8_t *)"", 0, NULL, NULL, NULL, NULL, &err),
                     TREG_E_FORMAT);
    assert_string_equal(err.msg, "empty file");
    assert_true(treg_target_matches("gfx906:sramecc+:xnack-", "gfx906"));
    assert_true(treg_target_matches("gfx90a", "gfx90a"));
    assert_false(treg_target_matches("gfx90a", "gfx90"));
    assert_false(treg_target_matches(NULL, "gfx90a"));
}

int main(void)
{
    if (!tu_exists(HX "/ENTRIES.tsv")) {
        printf("HIP fixtures not found at %s: run tests/fixtures/make-hip-fixtures.sh\n", HX);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_executable),     cmocka_unit_test(test_code_object_and_compressed),
        cmocka_unit_test(test_callback_stops), cmocka_unit_test(test_limits),
        cmocka_unit_test(test_built_bundles),  cmocka_unit_test(test_offload_binaries),
        cmocka_unit_test(test_arguments),      cmocka_unit_test(test_text_listing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
