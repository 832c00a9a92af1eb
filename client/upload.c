/* tregc upload (tregc.h): code objects, Triton cache entries and folders,
 * and the code objects inside HIP executables and bundles; each asked for
 * by its digest first and sent only when the server has no report for it;
 * and the kernel's Python sources for its page. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "report_key.h"
#include "https.h"
#include "join.h"
#include "proto_wire.h"
#include "render.h"
#include "treg.pb-c.h"
#include "treg/container.h"
#include "util/error.h"
#include "wire.h"

#include "tregc.h"

/* --- upload ------------------------------------------------------------------------ */

/* Whether this run prints per-instruction rows, so needs them from the server. */
int wants_rows(const cli *c)
{
    return (c->json && c->rows) || c->html || (c->text.options.views & TREG_VIEW_ASM);
}

/* msg packed and POSTed to path: TREGC_NET_OK and *resp (freed by the
 * caller either way), else a TREGC_NET_ code with err (out of memory:
 * TREGC_NET_PROTOCOL, nothing sent). */
static int post_pb(cli *c, const char *path, const ProtobufCMessage *msg, tregc_response *resp,
                   treg_error *err)
{
    *resp = (tregc_response){0};
    size_t len = protobuf_c_message_get_packed_size(msg);
    uint8_t *packed = malloc(len ? len : 1);
    if (!packed) {
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return TREGC_NET_PROTOCOL;
    }
    protobuf_c_message_pack(msg, packed);
    int rc = tregc_https_request(&c->https, path, packed, len, resp, err);
    free(packed);
    return rc;
}

/* The report's source files this node can read (its DWARF paths, through
 * --source-dir/--source-map), sent once for its page: POST /v1/sources.
 * Best effort: a file that cannot be read, or past the server's bounds (1
 * MiB a file, 8 MiB and 64 files a report), is left out; a refusal is one
 * line on stderr, not a failure of the upload. */
static void send_sources(cli *c, const Treg__V1__Report *r, const char *inputs, const char *path)
{
    if (c->no_source || r->hash == NULL || !*r->hash) return;
    size_t max = r->n_source_files, n = 0, total = 0;
    if (max > 64) max = 64;
    if (max == 0) return;
    treg_sources *own = NULL, *src = c->text.options.sources;
    if (src == NULL && (src = own = treg_sources_new()) == NULL) return;
    Treg__V1__SourceText *texts = calloc(max, sizeof *texts);
    Treg__V1__SourceText **ptrs = calloc(max, sizeof *ptrs);
    for (size_t i = 0; texts && ptrs && i < max; i++) {
        size_t len = 0;
        char *t = treg_sources_read(src, r->source_files[i], &len);
        if (t == NULL) continue;
        if (len > (1u << 20) || total + len > (8u << 20)) {
            free(t);
            continue;
        }
        total += len;
        treg__v1__source_text__init(&texts[n]);
        texts[n].path = r->source_files[i];
        texts[n].text.data = (uint8_t *)t;
        texts[n].text.len = len;
        ptrs[n] = &texts[n];
        n++;
    }
    treg_sources_free(own);
    if (n > 0) {
        Treg__V1__SourcesRequest req = TREG__V1__SOURCES_REQUEST__INIT;
        req.hash = r->hash;
        req.inputs = (char *)inputs;
        req.files = ptrs;
        req.n_files = n;
        tregc_response resp;
        treg_error err = {0, ""};
        if (post_pb(c, "/v1/sources", (const ProtobufCMessage *)&req, &resp, &err) != TREGC_NET_OK)
            fprintf(stderr, "tregc: %s: its source files were not sent: %s\n", path, err.msg);
        else if (resp.status != 200) {
            server_message(&resp, err.msg, sizeof err.msg);
            fprintf(stderr, "tregc: %s: the server did not keep its source files: %s (%d)\n", path,
                    err.msg, resp.status);
        } else {
            Treg__V1__SourcesResponse *sr =
                treg__v1__sources_response__unpack(NULL, resp.len, resp.body);
            /* The team's first text stays: say so when this one differs
             * (the file was edited since, and the page shows the old). */
            if (sr != NULL && sr->kept_older > 0)
                fprintf(stderr,
                        "tregc: %s: note: the server kept the source text your team sent "
                        "earlier; %u of %zu file%s differ from it now, and the page shows "
                        "the earlier text\n",
                        path, sr->kept_older, n, n == 1 ? "" : "s");
            if (sr != NULL) treg__v1__sources_response__free_unpacked(sr, NULL);
        }
        tregc_response_free(&resp);
    }
    for (size_t i = 0; i < n; i++) free(texts[i].text.data);
    free(texts);
    free(ptrs);
}

/* --samples: the profile's samples of the code objects that fall in r's
 * kernels, placed by the server on the stored report (POST /v1/samples):
 * its answer, with the report, or NULL (said on stderr: a profile without
 * samples here is a note, one of another build a failure). */
static Treg__V1__SamplesResponse *send_samples(cli *c, const Treg__V1__Report *r,
                                               const char *inputs, const char *path)
{
    uint64_t *ids = NULL;
    size_t nids = 0;
    if (treg_pcs_candidates(r, &c->samples, &ids, &nids) != TREG_OK) {
        item_failed(c, "file", path, "out of memory");
        return NULL;
    }
    if (c->samples_co) { /* the one named, when it has samples here */
        size_t k = 0;
        for (size_t i = 0; i < nids; i++)
            if (ids[i] == c->samples_co) ids[k++] = ids[i];
        nids = k;
    }
    if (nids == 0) {
        fprintf(stderr,
                "tregc: %s: note: --samples %s: none of the profile's samples%s is in this code "
                "object's kernels; shown without samples\n",
                path, c->samples_path, c->samples_co ? " of that code object" : "");
        free(ids);
        return NULL;
    }
    Treg__V1__SamplesRequest req = TREG__V1__SAMPLES_REQUEST__INIT;
    Treg__V1__PcSampleSet set;
    treg_error err = {0, ""};
    if (treg_pcs_to_pb(&c->samples, ids, nids, &set, &err) != TREG_OK) {
        free(ids);
        item_failed(c, "file", path, err.msg);
        return NULL;
    }
    free(ids);
    const char *base = strrchr(c->samples_path, '/');
    set.file_name = (char *)(base ? base + 1 : c->samples_path);
    req.hash = r->hash;
    req.inputs = (char *)inputs;
    req.samples = &set;
    req.code_object_id = c->samples_co;
    Treg__V1__SamplesResponse *sr = NULL;
    tregc_response resp;
    if (post_pb(c, "/v1/samples", (const ProtobufCMessage *)&req, &resp, &err) != TREGC_NET_OK) {
        server_failed(c, "file", path, err.msg);
    } else if (resp.status != 200) {
        char msg[512], line[600];
        server_message(&resp, msg, sizeof msg);
        snprintf(line, sizeof line, "--samples %s: %s%s", c->samples_path, msg,
                 resp.status == 413 ? " (larger than the server accepts)" : "");
        item_failed(c, "file", path, line);
    } else if (!(sr = treg__v1__samples_response__unpack(NULL, resp.len, resp.body)) ||
               !sr->report) {
        item_failed(c, "file", path, "the server's answer to the samples is not readable");
        if (sr) treg__v1__samples_response__free_unpacked(sr, NULL);
        sr = NULL;
    } else {
        c->samples_placed++;
        fprintf(stderr,
                "tregc: %s: %llu PC samples placed (the profile's code object %llu; %llu "
                "outside its kernels, %llu elsewhere)\n",
                path, (unsigned long long)sr->placed, (unsigned long long)sr->code_object_id,
                (unsigned long long)sr->outside, (unsigned long long)sr->elsewhere);
        if (sr->unchecked)
            fprintf(stderr,
                    "tregc: %s: note: %llu of them where the profile has no instruction "
                    "text, placed by address alone\n",
                    path, (unsigned long long)sr->unchecked);
    }
    tregc_response_free(&resp);
    set.file_name = NULL;
    treg_pcs_pb_free(&set);
    return sr;
}

/* add_report with this upload's names on r; with --samples, the report
 * the server placed them on when it did. */
static void show(cli *c, Treg__V1__Report *r, int stored_before, const char *link,
                 const char *inputs, const char *path, const char *entry)
{
    Treg__V1__SamplesResponse *sr = c->samples_path ? send_samples(c, r, inputs, path) : NULL;
    Treg__V1__Report *shown = sr ? sr->report : r;
    /* A stored report keeps its first uploader's names; show this
     * upload's, as treg-analyze would. */
    char *stored_name = shown->file_name, *stored_entry = shown->bundle_entry;
    shown->file_name = (char *)path;
    shown->bundle_entry = (char *)(entry ? entry : "");
    add_report(c, shown, stored_before, link);
    shown->file_name = stored_name;
    shown->bundle_entry = stored_entry;
    if (sr) treg__v1__samples_response__free_unpacked(sr, NULL);
}

/* Asks whether the server has the report for hash and these inputs: GO_ON
 * (shown as stored before), NOT_STORED (send the blob) or STOP (the server
 * cannot take requests). */
static int try_stored(cli *c, const char *path, const char *entry, const char *hash,
                      const char *inputs)
{
    char url[200];
    treg_error err = {0, ""};
    snprintf(url, sizeof url, "/v1/reports/%s?inputs=%s%s", hash, inputs,
             wants_rows(c) ? "" : "&rows=0");
    tregc_response resp;
    if (tregc_https_request(&c->https, url, NULL, 0, &resp, &err) != TREGC_NET_OK) {
        server_failed(c, "file", path, err.msg);
        return STOP;
    }
    int outcome = NOT_STORED;
    if (resp.status == 200) {
        treg_error why = {0, ""};
        Treg__V1__Report *r = unpack_report(resp.body, resp.len, &why);
        if (!r) {
            item_failed(c, "file", path, why.msg);
            outcome = GO_ON;
        } else {
            char link[200];
            snprintf(link, sizeof link, "/r/%s?inputs=%s", hash, inputs);
            show(c, r, 1, link, inputs, path, entry);
            send_sources(c, r, inputs, path);
            treg__v1__report__free_unpacked(r, NULL);
            outcome = GO_ON;
        }
    } else if (server_refused(c, &resp, "file", path)) {
        outcome = STOP;
    }
    /* 404, or anything else: the upload itself will say what is wrong. */
    tregc_response_free(&resp);
    return outcome;
}

/* Sends one code object (from path, or from its bundle entry) with
 * Triton's siblings when it has them.  Returns STOP when the server cannot
 * take more. */
static int upload_blob(cli *c, const char *path, const char *entry, const uint8_t *bytes,
                       size_t len, const char *triton_json, const char *amdgcn, const char *llvm_ir,
                       const char *ttgir)
{
    char hash[TREG_DIGEST_HEX + 1], json_sha[TREG_DIGEST_HEX + 1];
    char asm_sha[TREG_DIGEST_HEX + 1], ir_sha[TREG_DIGEST_HEX + 1], inputs[TREG_DIGEST_HEX + 1];
    char ttgir_sha[TREG_DIGEST_HEX + 1];
    if (treg_sha256_hex(bytes, len, hash) != 0 ||
        treg_text_sha256(triton_json, triton_json ? strlen(triton_json) : 0, json_sha) != 0 ||
        treg_text_sha256(amdgcn, amdgcn ? strlen(amdgcn) : 0, asm_sha) != 0 ||
        treg_text_sha256(llvm_ir, llvm_ir ? strlen(llvm_ir) : 0, ir_sha) != 0 ||
        treg_text_sha256(ttgir, ttgir ? strlen(ttgir) : 0, ttgir_sha) != 0 ||
        treg_inputs_digest(entry ? entry : "", json_sha, asm_sha, ir_sha, ttgir_sha, inputs) != 0) {
        item_failed(c, "file", path, "out of memory");
        return GO_ON;
    }
    if (!c->reanalyze) {
        int asked = try_stored(c, path, entry, hash, inputs);
        if (asked != NOT_STORED) return asked;
    }
    Treg__V1__UploadRequest req = TREG__V1__UPLOAD_REQUEST__INIT;
    req.code_object.data = (uint8_t *)bytes;
    req.code_object.len = len;
    req.file_name = (char *)path;
    req.bundle_entry = (char *)(entry ? entry : "");
    req.triton_json = (char *)(triton_json ? triton_json : "");
    req.amdgcn = (char *)(amdgcn ? amdgcn : "");
    req.llvm_ir = (char *)(llvm_ir ? llvm_ir : "");
    req.ttgir = (char *)(ttgir ? ttgir : "");
    req.client_host = c->host_name;
    req.reanalyze = c->reanalyze;
    req.omit_rows = !wants_rows(c);
    size_t packed_len = treg__v1__upload_request__get_packed_size(&req);
    uint8_t *packed = malloc(packed_len ? packed_len : 1);
    if (!packed) {
        item_failed(c, "file", path, "out of memory");
        return GO_ON;
    }
    treg__v1__upload_request__pack(&req, packed);

    int outcome = GO_ON;
    tregc_response resp;
    treg_error err = {0, ""};
    if (tregc_https_request(&c->https, "/v1/analyze", packed, packed_len, &resp, &err) !=
        TREGC_NET_OK) {
        server_failed(c, "file", path, err.msg);
        free(packed);
        return STOP;
    }
    if (resp.status == 200) {
        treg_error why = {0, ""};
        Treg__V1__UploadResponse *up = unpack_upload_response(resp.body, resp.len, &why);
        if (up) {
            show(c, up->report, up->stored_before, up->link, inputs, path, entry);
            if (!c->reanalyze) send_sources(c, up->report, inputs, path);
            treg__v1__upload_response__free_unpacked(up, NULL);
        } else {
            item_failed(c, "file", path, why.msg);
        }
    } else if (server_refused(c, &resp, "file", path)) {
        outcome = STOP;
    } else {
        char msg[512], line[600];
        server_message(&resp, msg, sizeof msg);
        if (resp.status == 413)
            snprintf(line, sizeof line, "larger than the server accepts (413)");
        else if (resp.status == 422)
            snprintf(line, sizeof line, "%s", msg);
        else if (resp.status == 504)
            snprintf(line, sizeof line, "the analysis took longer than the server allows (504)");
        else
            snprintf(line, sizeof line, "%s (%d)", msg, resp.status);
        item_failed(c, "file", path, line);
    }
    tregc_response_free(&resp);
    free(packed);
    return outcome;
}

/* A container's walk: each code object inside is sent as it is met (its
 * bytes live only as long as its bundle is being read). */
typedef struct container_upload {
    cli *c;
    const char *path;
    int outcome;
    int sent, dropped;
    char held[200];         /* targets --target left out */
    char skipped_text[300]; /* entries that are not AMDGPU code objects */
    json_object *objects, *skipped;
} container_upload;

static int upload_entry(void *ctx, const treg_embedded *e, treg_error *err)
{
    container_upload *u = ctx;
    cli *c = u->c;
    (void)err;
    if (e->skipped) {
        size_t at = strlen(u->skipped_text);
        if (at + 1 < sizeof u->skipped_text)
            snprintf(u->skipped_text + at, sizeof u->skipped_text - at, "%s%s (%s)", at ? ", " : "",
                     e->entry_id, e->skipped);
        if (u->skipped) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
            json_object_object_add(o, "where", json_object_new_string(e->where));
            json_object_object_add(o, "reason", json_object_new_string(e->skipped));
            json_object_array_add(u->skipped, o);
        }
        return 0;
    }
    if (c->target && e->target && !treg_target_matches(e->target, c->target)) {
        u->dropped++;
        size_t at = strlen(u->held);
        if (!strstr(u->held, e->target) && at + strlen(e->target) + 3 < sizeof u->held)
            snprintf(u->held + at, sizeof u->held - at, "%s%s", at ? ", " : "", e->target);
        return 0;
    }
    char hash[65];
    treg_sha256_hex(e->bytes, e->len, hash);
    if (u->objects) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
        json_object_object_add(o, "where", json_object_new_string(e->where));
        json_object_object_add(o, "hash", json_object_new_string(hash));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t)e->len));
        json_object_array_add(u->objects, o);
    }
    u->sent++;
    c->entry = e->entry_id;
    u->outcome = upload_blob(c, u->path, e->entry_id, e->bytes, e->len, NULL, NULL, NULL, NULL);
    c->entry = NULL;
    fflush(stdout);
    return u->outcome == STOP ? TREG_E_ARG : 0; /* stop the walk; the server said why */
}

static int upload_container(cli *c, const char *path, const uint8_t *bytes, size_t len)
{
    container_upload u = {.c = c, .path = path, .outcome = GO_ON};
    if (c->json) {
        u.objects = json_object_new_array();
        u.skipped = json_object_new_array();
    }
    treg_error err = {0, ""};
    treg_container_stats st;
    int rc = treg_container_each(bytes, len, NULL, upload_entry, &u, &st, &err);
    if (rc != TREG_OK && u.outcome != STOP) item_failed(c, "file", path, err.msg);
    if (rc == TREG_OK && u.sent == 0 && u.dropped) {
        char msg[400];
        snprintf(msg, sizeof msg, "no code object for --target %s (it holds %s)", c->target,
                 u.held);
        item_failed(c, "file", path, msg);
    }
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "file", json_object_new_string(path));
        json_object_object_add(o, "format", st.format ? json_object_new_string(st.format) : NULL);
        json_object_object_add(o, "code_objects", u.objects);
        json_object_object_add(o, "skipped", u.skipped);
        json_object_object_add(o, "decompressed_bytes",
                               json_object_new_int64((int64_t)st.decompressed));
        json_object_array_add(c->containers, o);
    } else if (!c->html && !c->diffing && rc == TREG_OK) {
        printf("%s: %s with %zu AMDGPU code object%s", path, st.format, st.objects,
               st.objects == 1 ? "" : "s");
        if (u.dropped) printf(" (%d not for --target)", u.dropped);
        if (u.skipped_text[0]) printf("; skipped %s", u.skipped_text);
        fputs("\n\n", stdout);
    }
    return u.outcome;
}

/* Sends one file: a code object with its Triton siblings, or every code
 * object inside a container.  Returns STOP when the server cannot take more. */
int upload_one(cli *c, const char *path)
{
    /* A container is mapped, not read: a ROCm library runs to gigabytes,
     * of which only the offload sections are touched. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    unsigned char head[20];
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof head &&
        pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
        !tregc_is_amdgpu_elf(head, sizeof head)) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (map != MAP_FAILED) {
            int outcome = upload_container(c, path, map, (size_t)st.st_size);
            munmap(map, (size_t)st.st_size);
            return outcome;
        }
    } else if (fd >= 0) {
        close(fd);
    }
    size_t len;
    char *bytes = tregc_slurp(path, &len);
    if (!bytes) {
        item_failed(c, "file", path, strerror(errno));
        return GO_ON;
    }
    int outcome;
    if (!tregc_is_amdgpu_elf((const unsigned char *)bytes, len)) {
        outcome = upload_container(c, path, (const uint8_t *)bytes, len);
    } else {
        /* Triton's siblings travel with the blob; a missing one is normal. */
        char *json_path = tregc_sibling(path, "json"), *asm_path = tregc_sibling(path, "amdgcn");
        size_t sibling_len;
        char *triton_json = json_path ? tregc_slurp(json_path, &sibling_len) : NULL;
        char *amdgcn = asm_path ? tregc_slurp(asm_path, &sibling_len) : NULL;
        char *ttgir_path = tregc_sibling(path, "ttgir");
        char *ttgir = ttgir_path ? tregc_slurp(ttgir_path, &sibling_len) : NULL;
        if (ttgir &&
            sibling_len > TREG_UPLOAD_MAX_TTGIR_BYTES) { /* the server would refuse it all */
            fprintf(stderr,
                    "tregc: %s: %zu bytes, more than the %u a TTGIR may have: sent without it\n",
                    ttgir_path, sibling_len, (unsigned)TREG_UPLOAD_MAX_TTGIR_BYTES);
            free(ttgir);
            ttgir = NULL;
        }
        /* --what-if: the .llir is asked for, so its absence is this file's error. */
        char *ir_path = c->what_if ? tregc_sibling(path, "llir") : NULL;
        char *llvm_ir = ir_path ? tregc_slurp(ir_path, &sibling_len) : NULL;
        if (c->what_if && !llvm_ir) {
            char why[600];
            snprintf(why, sizeof why, "--what-if needs the kernel's LLVM IR: %s: %s",
                     ir_path ? ir_path : "<kernel>.llir",
                     ir_path ? strerror(errno) : "no .hsaco name");
            item_failed(c, "file", path, why);
            outcome = GO_ON;
        } else {
            outcome = upload_blob(c, path, NULL, (const uint8_t *)bytes, len, triton_json, amdgcn,
                                  llvm_ir, ttgir);
        }
        free(ttgir);
        free(ttgir_path);
        free(llvm_ir);
        free(ir_path);
        free(triton_json);
        free(amdgcn);
        free(json_path);
        free(asm_path);
    }
    free(bytes);
    return outcome;
}

/* Sends every file named or found in the folders named; STOP when the
 * server cannot take more, else GO_ON. */
int upload_paths(cli *c, int argc, char **argv)
{
    tregc_items items = {0};
    int from_dir = 0;
    for (int i = 0; i < argc; i++) {
        if (tregc_collect(&items, argv[i]) != 0) {
            fprintf(stderr, "tregc: out of memory\n");
            tregc_items_free(&items);
            return -1;
        }
    }
    for (size_t i = 0; i < items.n; i++) from_dir |= items.items[i].from_dir;
    int progress = from_dir && isatty(STDERR_FILENO);
    c->https.chatty = isatty(STDERR_FILENO);
    for (size_t i = 0; i < items.n; i++) {
        const tregc_item *it = &items.items[i];
        if (progress) fprintf(stderr, "[%zu/%zu] %s\n", i + 1, items.n, it->path);
        if (it->skipped) {
            fprintf(stderr, "tregc: %s: skipped: %s\n", it->path, it->skipped);
        } else if (it->problem) {
            item_failed(c, "file", it->path, it->problem);
        } else if (upload_one(c, it->path) == STOP) {
            tregc_items_free(&items);
            return STOP;
        }
        fflush(stdout);
    }
    tregc_items_free(&items);
    return GO_ON;
}

int cmd_upload(cli *c, int argc, char **argv)
{
    /* A folder in text mode: a tally, not a summary per code object, unless
     * a view (--summary, --lines ...) asks for them. */
    struct stat st;
    for (int i = 0; i < argc && !c->json && !c->html && !c->text.explicit_views; i++)
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) c->tally = 1;
    int failures = c->failures;
    if (upload_paths(c, argc, argv) < 0) return 1;
    if (c->json) {
        print_document(c);
    } else if (!c->html) {
        if (c->tally && c->n_analyzed + c->n_stored > 0) { /* else the errors say it all */
            int failed = c->failures - failures;
            printf("%zu code object%s: %zu analyzed, %zu already stored, %d failed%s\n",
                   c->n_analyzed + c->n_stored + (size_t)failed,
                   c->n_analyzed + c->n_stored + (size_t)failed == 1 ? "" : "s", c->n_analyzed,
                   c->n_stored, failed,
                   failed ? " (above)" : "; tregc list shows them, --summary prints each");
        }
        treg_cross_text(stdout, c->cross, &c->text.options);
    }
    if (c->samples_path && !c->samples_placed && c->failures == failures) {
        fprintf(stderr, "tregc: --samples %s: no code object given has this profile's samples\n",
                c->samples_path);
        return 1;
    }
    return c->failures ? 1 : 0;
}
