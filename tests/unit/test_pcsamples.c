/* profile/pcsamples.c on real profiler output (tests/data/rocprof,
 * SOURCES.md): rocprofv3's stochastic JSON and rocprof-compute-viewer's
 * PC-sampling code.json, summed per instruction; and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcsamples.h"
#include "testutil.h"

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/rocprof/%s", TREG_SOURCE_ROOT, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

/* tests/data/rocprof/NAME read into *s, its strings in *a (to be freed). */
static void read_file(const char *name, treg_arena *a, treg_pcs *s)
{
    size_t len;
    char *text = slurp(name, &len);
    treg_arena_init(a);
    treg_error err = {0, ""};
    if (treg_pcs_read(a, text, len, s, &err) != TREG_OK) fail_msg("%s: %s", name, err.msg);
    free(text);
}

/* rocprofv3 on MI300X: six stochastic samples, all at vcopy's
 * `s_waitcnt vmcnt(0)` (offset 8040 of code object 2), not issued, waiting
 * on WAITCNT; code object 2 loaded with load_base == load_delta, so the
 * offset is the ELF address. */
static void test_rocprofv3_stochastic(void **state)
{
    (void)state;
    treg_arena a;
    treg_pcs s;
    read_file("mi300x-vcopy-stochastic.excerpt.json", &a, &s);
    assert_int_equal(s.sources, TREG_PCS_STOCHASTIC);
    assert_int_equal(s.nsamples, 6);
    assert_int_equal(s.unknown, 0);
    assert_int_equal(s.npcs, 1);
    const treg_pcs_pc *p = &s.pcs[0];
    assert_int_equal(p->code_object_id, 2);
    assert_int_equal(p->offset, 8040);
    assert_string_equal(p->text, "s_waitcnt vmcnt(0)");
    assert_int_equal(p->issued, 0);
    assert_int_equal(p->stalled, 6);
    assert_int_equal(p->reasons[TREG_PCS_REASON_WAITCNT], 6);
    assert_int_equal(s.ncode_objects, 2);
    const treg_pcs_code_object *co = &s.code_objects[1];
    assert_int_equal(co->id, 2);
    assert_string_equal(
        co->uri, "file:///app/projects/rocprofiler-compute/tests/vcopy#offset=12288&size=34504");
    assert_int_equal(co->load_base, 140385234092032ull);
    assert_int_equal(treg_pcs_elf_address(co, 8040), 8040);
    treg_arena_free(&a);
}

/* rocprof-compute-viewer's code.json: 1,634 instructions of code object 2
 * between 44288 and 52968, 1,306 issued and 3,384 stalled samples (the
 * stall reasons summing to the stalls), the hottest an s_barrier at 44848
 * with 153 samples, all BARRIER_WAIT. */
static void test_code_json(void **state)
{
    (void)state;
    treg_arena a;
    treg_pcs s;
    read_file("viewer-pcsampling-code.json", &a, &s);
    assert_int_equal(s.sources, TREG_PCS_CODE_JSON);
    assert_int_equal(s.npcs, 1634);
    assert_int_equal(s.nsamples, 1306 + 3384);
    uint64_t issued = 0, stalled = 0, reasons[TREG_PCS_NREASONS] = {0};
    const treg_pcs_pc *hot = &s.pcs[0];
    for (size_t i = 0; i < s.npcs; i++) {
        const treg_pcs_pc *p = &s.pcs[i];
        assert_int_equal(p->code_object_id, 2);
        assert_true(p->offset >= 44288 && p->offset <= 52968);
        assert_true(i == 0 || p->offset > s.pcs[i - 1].offset);
        issued += p->issued;
        stalled += p->stalled;
        for (int k = 0; k < TREG_PCS_NREASONS; k++) reasons[k] += p->reasons[k];
        if (p->samples > hot->samples) hot = p;
    }
    assert_int_equal(issued, 1306);
    assert_int_equal(stalled, 3384);
    assert_int_equal(reasons[TREG_PCS_REASON_WAITCNT], 657);
    assert_int_equal(reasons[TREG_PCS_REASON_BARRIER_WAIT], 761);
    assert_int_equal(hot->offset, 44848);
    assert_string_equal(hot->text, "s_barrier");
    assert_int_equal(hot->samples, 153);
    assert_int_equal(hot->reasons[TREG_PCS_REASON_BARRIER_WAIT], 153);
    assert_string_equal(treg_pcs_reason_name(TREG_PCS_REASON_BARRIER_WAIT), "BARRIER_WAIT");
    treg_arena_free(&a);
}

static void refused(const char *text, size_t len, int code, const char *says)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0, ""};
    treg_pcs s;
    assert_int_equal(treg_pcs_read(&a, text, len, &s, &err), code);
    if (!strstr(err.msg, says)) fail_msg("\"%s\" does not say \"%s\"", err.msg, says);
    assert_null(strchr(err.msg, '\n'));
    treg_arena_free(&a);
}

static void test_refused(void **state)
{
    (void)state;
    const char *t;
    refused("{}", 2, TREG_E_FORMAT, "neither rocprofv3's JSON");
    refused("[", 1, TREG_E_FORMAT, "not JSON: it ends too soon");
    t = "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {}}]}";
    refused(t, strlen(t), TREG_E_FORMAT, "holds no PC samples");
    t = "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"pc_sample_host_trap\": [{\"record\": "
        "{}}]}}]}";
    refused(t, strlen(t), TREG_E_FORMAT, "pc_sample_host_trap[0]: no record.pc");
    t = "{\"code\": 3}";
    refused(t, strlen(t), TREG_E_FORMAT, "\"code\" is not a list of rows");
    t = "{\"code\": [[\"s_nop 0\", 0, 0, \"\", 1, 16, 2]], \"header\": [\"Vaddr\"]}";
    refused(t, strlen(t), TREG_E_FORMAT, "names no ISA, Codeobj, Vaddr or Hit column");
    /* a size past the bound is refused before a byte is read */
    refused("", (size_t)TREG_PCS_MAX_TEXT + 1, TREG_E_LIMIT, "past the limit of 512 MiB");
    /* 40 levels of nesting: past the parser's depth */
    char deep[100] = "";
    for (int i = 0; i < 40; i++) strcat(deep, "[");
    refused(deep, strlen(deep), TREG_E_FORMAT, "not JSON");
}

/* The one-pass reader (rocprof_json.c) on what real files may do that the
 * excerpt does not: buffer_records before strings (a text by its
 * inst_index all the same), escapes in a text, a negative load_delta,
 * numbers with exponents and nulls in fields not read, a blit sample. */
static void test_stream_order(void **state)
{
    (void)state;
    const char *t =
        "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"kernel_dispatch\": [{\"x\": 1.5e3}], "
        "\"pc_sample_stochastic\": ["
        "{\"record\": {\"pc\": {\"code_object_id\": 2, \"code_object_offset\": 256}, "
        "\"wave_issued\": 0, "
        "\"snapshot\": {\"stall_reason\": "
        "\"ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_BARRIER_WAIT\", "
        "\"lck_err\": null}}, \"inst_index\": 1},"
        "{\"inst_index\": 1, \"record\": {\"wave_issued\": 1, \"pc\": {\"code_object_offset\": "
        "256, "
        "\"code_object_id\": 2}}},"
        "{\"record\": {\"pc\": {\"code_object_id\": 0, \"code_object_offset\": 99}}, "
        "\"inst_index\": -1}]}, "
        "\"strings\": {\"pc_sample_instructions\": [\"s_nop 0\", \"v_mov_b32 v0, \\\"\\u00e9\\\" "
        "\\/\"]}, "
        "\"code_objects\": [{\"code_object_id\": 0}, {\"code_object_id\": 2, \"uri\": "
        "\"file:///a\", "
        "\"load_base\": 4096, \"load_size\": 8192, \"load_delta\": -4096}]}]}";
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0, ""};
    treg_pcs s;
    if (treg_pcs_read(&a, t, strlen(t), &s, &err) != TREG_OK) fail_msg("%s", err.msg);
    assert_int_equal(s.npcs, 1);
    assert_int_equal(s.nsamples, 2);
    assert_int_equal(s.unknown, 1);
    assert_int_equal(s.pcs[0].issued, 1);
    assert_int_equal(s.pcs[0].stalled, 1);
    assert_int_equal(s.pcs[0].reasons[TREG_PCS_REASON_BARRIER_WAIT], 1);
    assert_string_equal(s.pcs[0].text, "v_mov_b32 v0, \"\xc3\xa9\" /");
    assert_int_equal(s.ncode_objects, 1);
    assert_int_equal(s.code_objects[0].load_delta, -4096);
    assert_int_equal(treg_pcs_elf_address(&s.code_objects[0], 256), 4096 + 256 + 4096);
    treg_arena_free(&a);
    /* the grammar, where the document is rocprofv3's: text after it, a bad
     * escape, a lone minus, a string cut at its escape */
    t = "{\"rocprofiler-sdk-tool\": []} {}";
    refused(t, strlen(t), TREG_E_FORMAT, "not JSON: text after the document at byte 29");
    t = "{\"rocprofiler-sdk-tool\": [{\"a\": \"\\x\"}]}";
    refused(t, strlen(t), TREG_E_FORMAT, "not JSON: a bad escape in a string at byte 33");
    t = "{\"rocprofiler-sdk-tool\": -}";
    refused(t, strlen(t), TREG_E_FORMAT, "not JSON: a value expected");
    t = "{\"rocprofiler-sdk-tool\": [\"\\";
    refused(t, strlen(t), TREG_E_FORMAT, "not JSON: it ends too soon at byte 28");
    t = "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"pc_sample_host_trap\": 3}}]}";
    refused(t, strlen(t), TREG_E_FORMAT, "\"pc_sample_host_trap\" is not a list");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rocprofv3_stochastic),
        cmocka_unit_test(test_code_json),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_stream_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
