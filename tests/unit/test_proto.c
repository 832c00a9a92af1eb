/* The wire format carries the whole report: pack an analyzer report as a
 * treg.v1.Report, unpack it, and every figure, row and list is the same;
 * an UploadResponse built around the packed bytes unpacks to the same
 * report; and the JSON view of the unpacked report is the JSON view the
 * local tool prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "diff.h"
#include "proto_wire.h"
#include "render.h"
#include "testutil.h"
#include "treg.pb-c.h"
#include "treg/analyzer.h"

static void same_loc(const Treg__V1__Loc *p, treg_loc l)
{
    assert_non_null(p);
    assert_int_equal(p->file, l.file);
    assert_int_equal(p->line, l.line);
    assert_int_equal(p->column, l.column);
}

static void same_class(const Treg__V1__ClassStat *p, const treg_class_stat *c)
{
    assert_non_null(p);
    assert_int_equal(p->peak_live, c->peak_live);
    assert_int_equal(p->allocated, c->allocated);
    assert_int_equal(p->limit, c->limit);
    assert_int_equal(p->peak_address, c->peak_address);
    same_loc(p->peak_loc, c->peak_loc);
}

static void same_report(const Treg__V1__Report *p, const treg_report *r)
{
    assert_int_equal(p->schema_version, 1);
    assert_string_equal(p->target, r->target);
    assert_string_equal(p->decoded_as, r->decoded_as);
    assert_int_equal(p->provisional, r->provisional != 0);
    assert_string_equal(p->analyzer_version, r->analyzer_version);
    assert_int_equal(p->n_source_files, r->nfiles);
    for (size_t i = 0; i < r->nfiles; i++) assert_string_equal(p->source_files[i], r->files[i]);
    assert_int_equal(p->n_kernels, r->nkernels);
    for (size_t i = 0; i < r->nkernels; i++) {
        const Treg__V1__Kernel *pk = p->kernels[i];
        const treg_kernel_report *k = &r->kernels[i];
        assert_string_equal(pk->name, k->name);
        assert_int_equal(pk->instructions, k->instructions);
        same_class(pk->vgpr, &k->vgpr);
        same_class(pk->agpr, &k->agpr);
        same_class(pk->sgpr, &k->sgpr);
        assert_int_equal(pk->occupancy->waves_per_simd, k->occupancy.waves_per_simd);
        assert_string_equal(pk->occupancy->limited_by, k->occupancy.limited_by);
        assert_int_equal(pk->occupancy->vgprs_to_next, k->occupancy.vgprs_to_next);
        assert_int_equal(pk->scratch_bytes, k->scratch_bytes);
        assert_int_equal(pk->spill_instructions, k->spill_instructions);
        assert_int_equal(pk->metadata->sgpr_count, k->metadata.sgpr_count);
        assert_int_equal(pk->n_rows, k->nrows);
        for (size_t j = 0; j < k->nrows; j++) {
            assert_int_equal(pk->rows[j]->address, k->rows[j].address);
            assert_string_equal(pk->rows[j]->text, k->rows[j].text);
            same_loc(pk->rows[j]->loc, k->rows[j].loc);
            assert_int_equal(pk->rows[j]->vgpr, k->rows[j].vgpr);
            assert_int_equal(pk->rows[j]->agpr, k->rows[j].agpr);
            assert_int_equal(pk->rows[j]->sgpr, k->rows[j].sgpr);
            assert_int_equal(pk->rows[j]->flags, k->rows[j].flags);
            /* the call site travels when it is not the row's own line */
            same_loc(pk->rows[j]->call_site ? pk->rows[j]->call_site : pk->rows[j]->loc,
                     k->rows[j].call_site);
            assert_int_equal(pk->rows[j]->scope, (uint32_t)(k->rows[j].scope + 1));
        }
        assert_int_equal(pk->n_lines, k->nlines);
        for (size_t j = 0; j < k->nlines; j++) {
            same_loc(pk->lines[j]->loc, k->lines[j].loc);
            assert_int_equal(pk->lines[j]->peak_vgpr, k->lines[j].peak_vgpr);
            assert_int_equal(pk->lines[j]->spills, k->lines[j].spills);
        }
        assert_int_equal(pk->n_peak_attribution, k->nattribution);
        for (size_t j = 0; j < k->nattribution; j++)
            assert_int_equal(pk->peak_attribution[j]->vgpr, k->peak_attribution[j].vgpr);
        assert_int_equal(pk->n_loops, k->nloops);
        for (size_t j = 0; j < k->nloops; j++)
            assert_int_equal(pk->loops[j]->peak_vgpr, k->loops[j].peak_vgpr);
        assert_int_equal(pk->n_spills, k->nspills);
        assert_int_equal(pk->spill_cost, k->spill_cost);
        assert_int_equal(pk->n_peak_uniform, k->npeak_uniform);
        assert_int_equal(pk->n_categories, k->ncategories);
        for (size_t j = 0; j < k->ncategories; j++) {
            assert_string_equal(pk->categories[j]->kind,
                                treg_category_kind_name(k->categories[j].kind));
            assert_int_equal(pk->categories[j]->vgpr, k->categories[j].vgpr);
            assert_int_equal(pk->categories[j]->n_parts, k->categories[j].nparts);
        }
        assert_string_equal(pk->categories_source, k->categories_source);
    }
    assert_int_equal(p->n_inline_calls, r->ninline_calls);
}

static void roundtrip(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TREG_FIXTURES, rel);
    size_t len;
    uint8_t *bytes = tu_read_file(path, &len);
    if (!bytes) fail_msg("fixture %s missing", path);
    treg_report *r;
    treg_error err = {0, ""};
    treg_options opt = {.keep_rows = 1};
    if (treg_analyze(bytes, len, &opt, &r, &err)) fail_msg("%s: %s", rel, err.msg);

    treg_pb_info info = {.hash = "00ff",
                         .file_name = rel,
                         .client_host = "node7",
                         .created_unix = 1700000000,
                         .bundle_entry = "hipv4-amdgcn-amd-amdhsa--gfx906",
                         .triton_json_sha256 = "11aa",
                         .amdgcn_sha256 = "22bb",
                         .team = "team-x"};
    uint8_t *packed;
    size_t plen;
    assert_int_equal(treg_pb_pack_report(r, &info, &packed, &plen), 0);
    Treg__V1__Report *p = treg__v1__report__unpack(NULL, plen, packed);
    assert_non_null(p);
    assert_string_equal(p->hash, "00ff");
    assert_string_equal(p->file_name, rel);
    assert_string_equal(p->client_host, "node7");
    assert_int_equal(p->created_unix, 1700000000);
    assert_string_equal(p->bundle_entry, "hipv4-amdgcn-amd-amdhsa--gfx906");
    assert_string_equal(p->triton_json_sha256, "11aa");
    assert_string_equal(p->amdgcn_sha256, "22bb");
    assert_string_equal(p->team, "team-x");
    same_report(p, r);

    /* What unpacking it costs, from the wire: a real report a few times its
     * bytes (tregc refuses past 16x + 64 MiB) */
    uint64_t cost;
    assert_int_equal(treg_pb_report_cost(packed, plen, &cost), 0);
    assert_true(cost > plen / 2 && cost < 8 * (uint64_t)plen + 4096);

    /* UploadResponse around the packed bytes, without unpacking them. */
    for (int stored = 0; stored < 2; stored++) {
        uint8_t *resp;
        size_t rlen;
        assert_int_equal(treg_pb_pack_upload_response(packed, plen, stored, stored ? "/r/x" : NULL,
                                                      &resp, &rlen),
                         0);
        Treg__V1__UploadResponse *u = treg__v1__upload_response__unpack(NULL, rlen, resp);
        assert_non_null(u);
        assert_int_equal(u->stored_before, stored);
        assert_string_equal(u->link, stored ? "/r/x" : "");
        same_report(u->report, r);
        treg__v1__upload_response__free_unpacked(u, NULL);
        free(resp);
    }

    /* The JSON view names every kernel with its figures. */
    json_object *j = treg_render_json(p, 0);
    json_object *ks, *k0, *v, *peak;
    assert_true(json_object_object_get_ex(j, "kernels", &ks));
    assert_int_equal(json_object_array_length(ks), r->nkernels);
    k0 = json_object_array_get_idx(ks, 0);
    assert_true(json_object_object_get_ex(k0, "vgpr", &v));
    assert_true(json_object_object_get_ex(v, "peak_live", &peak));
    assert_int_equal(json_object_get_int(peak), r->kernels[0].vgpr.peak_live);
    assert_false(json_object_object_get_ex(k0, "rows", &v)); /* with_rows 0 */
    assert_true(json_object_object_get_ex(j, "bundle_entry", &v));
    assert_string_equal(json_object_get_string(v), "hipv4-amdgcn-amd-amdhsa--gfx906");
    json_object_put(j);

    treg__v1__report__free_unpacked(p, NULL);
    free(packed);
    treg_report_free(r);
    free(bytes);
}

/* A million empty kernels in 2 MB cost hundreds of MB to unpack: seen from
 * the wire, never unpacked; and what is not a Report is said to be. */
static void test_report_cost(void **state)
{
    (void)state;
    size_t n = 1000000, len = 2 * n;
    uint8_t *b = malloc(len);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) b[2 * i] = 0x62, b[2 * i + 1] = 0;
    uint64_t cost;
    assert_int_equal(treg_pb_report_cost(b, len, &cost), 0);
    assert_true(cost >= n * sizeof(Treg__V1__Kernel));
    assert_true(cost > 16 * (uint64_t)len + (64u << 20));
    b[len - 1] = 5; /* the last kernel claims 5 bytes that are not there */
    assert_int_equal(treg_pb_report_cost(b, len, &cost), -1);
    free(b);
    const uint8_t *rep;
    size_t rlen;
    static const uint8_t resp[] = {0x0a, 0x02, 0x08, 0x01, 0x10, 0x01};
    assert_int_equal(treg_pb_upload_response_report(resp, sizeof resp, &rep, &rlen), 0);
    assert_ptr_equal(rep, resp + 2);
    assert_int_equal(rlen, 2);
    assert_int_equal(treg_pb_upload_response_report(resp, 3, &rep, &rlen), -1);
}

/* A report as analyzer 0.2 stored it (no call sites, inlined calls,
 * categories, uniform values or spill costs): every view still reads it,
 * the JSON's call sites are the rows' own lines, --why says what it lacks,
 * and a diff against it leaves the spill cost it lacks unknown. */
static void test_older_report(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes =
        tu_read_file(TREG_FIXTURES "/triton/softmax_kernel/softmax_kernel.hsaco", &len);
    assert_non_null(bytes);
    treg_report *r;
    treg_error err = {0, ""};
    treg_options opt = {.keep_rows = 1};
    assert_int_equal(treg_analyze(bytes, len, &opt, &r, &err), TREG_OK);
    /* what 0.2 did not write, taken out before packing */
    assert_true(r->ninline_calls > 0); /* softmax inlines tl.max and tl.sum */
    r->ninline_calls = 0;
    for (size_t i = 0; i < r->nkernels; i++) {
        treg_kernel_report *k = &r->kernels[i];
        k->vgpr.peak_call_site = k->vgpr.peak_loc;
        for (size_t j = 0; j < k->nrows; j++) k->rows[j].call_site = k->rows[j].loc;
        for (size_t j = 0; j < k->nrows; j++) k->rows[j].scope = -1;
        for (size_t j = 0; j < k->nattribution; j++)
            k->peak_attribution[j].call_site = k->peak_attribution[j].loc;
        k->ncategories = 0;
        k->categories_source = k->categories_note = NULL;
        k->npeak_uniform = 0;
        k->spill_cost = 0;
        k->assumed_trips = 0;
    }
    uint8_t *packed;
    size_t plen;
    assert_int_equal(treg_pb_pack_report(r, NULL, &packed, &plen), 0);
    Treg__V1__Report *p = treg__v1__report__unpack(NULL, plen, packed);
    assert_non_null(p);
    assert_int_equal(p->n_inline_calls, 0);
    assert_null(p->kernels[0]->rows[0]->call_site);
    char *text = NULL;
    size_t tlen = 0;
    FILE *out = open_memstream(&text, &tlen);
    assert_non_null(out);
    treg_text_options o = {.views = TREG_VIEW_SUMMARY | TREG_VIEW_LINES | TREG_VIEW_PEAK |
                                    TREG_VIEW_WHY | TREG_VIEW_ASM,
                           .frames = 1};
    treg_render_views(out, p, &o);
    assert_int_equal(fclose(out), 0);
    assert_non_null(strstr(text, "no categories in this report (made before treg 0.3)"));
    free(text);
    json_object *j = treg_render_json(p, 1), *ks, *rows, *site, *line, *own;
    assert_non_null(j);
    assert_true(json_object_object_get_ex(j, "kernels", &ks));
    assert_true(json_object_object_get_ex(json_object_array_get_idx(ks, 0), "rows", &rows));
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        json_object *row = json_object_array_get_idx(rows, i);
        assert_true(json_object_object_get_ex(row, "call_site", &site));
        assert_true(json_object_object_get_ex(site, "line", &line));
        assert_true(json_object_object_get_ex(row, "line", &own));
        assert_int_equal(json_object_get_int(line), json_object_get_int(own));
    }
    json_object_put(j);
    char *html = NULL;
    size_t hlen = 0;
    out = open_memstream(&html, &hlen);
    const Treg__V1__Report *one = p;
    assert_int_equal(treg_render_html(out, &one, 1, NULL, "old"), 0);
    assert_int_equal(fclose(out), 0);
    assert_true(hlen > 1000);
    free(html);
    /* a diff against a newer report: the old spill cost is unknown, so it
     * is null in the JSON, its delta too, and spill-cost+0 does not fire */
    treg_kernel_report *k0 = &r->kernels[0];
    k0->spill_cost = 100;
    k0->assumed_trips = 32;
    uint8_t *packed_new;
    size_t nlen;
    assert_int_equal(treg_pb_pack_report(r, NULL, &packed_new, &nlen), 0);
    Treg__V1__Report *pn = treg__v1__report__unpack(NULL, nlen, packed_new);
    assert_non_null(pn);
    treg_diff *d = treg_diff_new();
    assert_non_null(d);
    assert_int_equal(treg_diff_add(d, TREG_DIFF_OLD, p), 0);
    assert_int_equal(treg_diff_add(d, TREG_DIFF_NEW, pn), 0);
    assert_int_equal(treg_diff_match(d), 0);
    treg_gate gate;
    treg_error why = {0, ""};
    assert_int_equal(treg_gate_parse("spill-cost+0", &gate, &why), 0);
    assert_int_equal(treg_diff_broken(d, &gate), 0);
    json_object *dj = treg_diff_json(d, &gate), *dk, *side, *cost;
    assert_true(json_object_object_get_ex(dj, "kernels", &dk));
    dk = json_object_array_get_idx(dk, 0);
    assert_true(json_object_object_get_ex(dk, "old", &side));
    assert_true(json_object_object_get_ex(side, "spill_cost", &cost));
    assert_null(cost);
    assert_true(json_object_object_get_ex(dk, "delta", &side));
    assert_true(json_object_object_get_ex(side, "spill_cost", &cost));
    assert_null(cost);
    assert_true(json_object_object_get_ex(dk, "new", &side));
    assert_true(json_object_object_get_ex(side, "spill_cost", &cost));
    assert_int_equal(json_object_get_int64(cost), 100);
    json_object_put(dj);
    treg_diff_free(d);
    treg__v1__report__free_unpacked(pn, NULL);
    free(packed_new);
    treg__v1__report__free_unpacked(p, NULL);
    free(packed);
    treg_report_free(r);
    free(bytes);
}

/* treg_pb_check reads the fields and their wire types from the generated
 * descriptor: a real UploadRequest passes, and each kind of bad body is
 * refused with a line naming the field. */
static void test_pb_check(void **state)
{
    (void)state;
    static const treg_pb_limit limits[] = {{"file_name", 8}};
    const ProtobufCMessageDescriptor *d = &treg__v1__upload_request__descriptor;
    treg_error why = {0, ""};
    Treg__V1__UploadRequest up = TREG__V1__UPLOAD_REQUEST__INIT;
    uint8_t blob[4] = {1, 2, 3, 4};
    up.code_object.data = blob;
    up.code_object.len = sizeof blob;
    up.file_name = "a.hsaco";
    up.reanalyze = 1;
    uint8_t packed[64];
    size_t n = treg__v1__upload_request__pack(&up, packed);
    assert_int_equal(treg_pb_check(packed, n, d, limits, 1, &why), 0);

    up.file_name = "too-long.hsaco";
    n = treg__v1__upload_request__pack(&up, packed);
    assert_int_equal(treg_pb_check(packed, n, d, limits, 1, &why), -1);
    assert_string_equal(why.msg, "UploadRequest.file_name is 14 bytes; at most 8");

    static const uint8_t unknown[] = {0x98, 0x06, 1}; /* field 99, a varint */
    assert_int_equal(treg_pb_check(unknown, sizeof unknown, d, limits, 1, &why), -1);
    assert_string_equal(why.msg, "field 99 is not part of UploadRequest");

    static const uint8_t wrong_type[] = {2 << 3, 1}; /* file_name as a varint (wire type 0) */
    assert_int_equal(treg_pb_check(wrong_type, sizeof wrong_type, d, limits, 1, &why), -1);
    assert_string_equal(why.msg, "UploadRequest.file_name has wire type 0, not 2");

    static const uint8_t twice[] = {6 << 3, 1, 6 << 3, 0}; /* reanalyze twice */
    assert_int_equal(treg_pb_check(twice, sizeof twice, d, limits, 1, &why), -1);
    assert_string_equal(why.msg, "UploadRequest.reanalyze appears twice");

    static const uint8_t cut[] = {2 << 3 | 2, 5, 'a'};
    assert_int_equal(treg_pb_check(cut, sizeof cut, d, limits, 1, &why), -1);
    assert_string_equal(why.msg, "malformed UploadRequest: a field is cut off");
}

/* Every presentation rule of the JSON view names a field treg.proto has. */
static void test_json_rules(void **state)
{
    (void)state;
    assert_null(treg_render_json_unknown_rule());
}

/* treg_pb_report_set_upload restamps the upload's fields and keeps the rest. */
static void test_set_upload(void **state)
{
    (void)state;
    Treg__V1__Report r = TREG__V1__REPORT__INIT;
    r.file_name = "old.hsaco";
    r.target = "gfx90a";
    r.team = "red";
    r.created_unix = 7;
    uint8_t packed[128], *out = NULL;
    size_t n = treg__v1__report__pack(&r, packed), out_len = 0;
    assert_int_equal(treg_pb_report_set_upload(packed, n, "new.hsaco", 1700000000, "node1", NULL,
                                               &out, &out_len),
                     0);
    Treg__V1__Report *got = treg__v1__report__unpack(NULL, out_len, out);
    assert_non_null(got);
    assert_string_equal(got->file_name, "new.hsaco");
    assert_string_equal(got->target, "gfx90a");
    assert_string_equal(got->client_host, "node1");
    assert_string_equal(got->team, "");
    assert_int_equal(got->created_unix, 1700000000);
    treg__v1__report__free_unpacked(got, NULL);
    free(out);
    static const uint8_t cut[] = {3 << 3 | 2, 9, 'x'};
    assert_int_equal(treg_pb_report_set_upload(cut, sizeof cut, "a", 0, NULL, NULL, &out, &out_len),
                     -1);
}

static void test_roundtrip_fixtures(void **state)
{
    (void)state;
    const char *files[] = {"gfx906/loop_kernel.hsaco", "gfx90a/spill_kernel.hsaco",
                           "gfx942/mfma_kernel.hsaco", "gfx90a/nodebug_kernel.hsaco",
                           "triton/softmax_kernel/softmax_kernel.hsaco"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) roundtrip(files[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_fixtures), cmocka_unit_test(test_report_cost),
        cmocka_unit_test(test_older_report),       cmocka_unit_test(test_pb_check),
        cmocka_unit_test(test_set_upload),         cmocka_unit_test(test_json_rules)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
