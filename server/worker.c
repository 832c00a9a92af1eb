/* Worker process main loop (see worker.h).  Blocking I/O is fine here: the
 * process does one job at a time and nothing else.  It writes no files: the
 * server's store writers do (writer.c), so the next analysis starts while
 * the last one's fsyncs run. */
#include "worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "child.h"
#include "frame.h"
#include "proto_wire.h"
#include "store.h"
#include "treg/container.h"
#include "treg/analyzer.h"

static char *field_str(const frame_field *f)
{
    char *s = malloc(f->len + 1);
    if (s == NULL) return NULL;
    memcpy(s, f->data, f->len);
    s[f->len] = '\0';
    return s;
}

static int reply(int fd, enum frame_status status, const void *body, size_t body_len,
                 const void *summary, size_t summary_len)
{
    uint8_t st = (uint8_t)status;
    frame_field f[FRAME_REPLY_FIELDS] = {{&st, 1}, {body, body_len}, {summary, summary_len}};
    return frame_write(fd, f, FRAME_REPLY_FIELDS);
}

static int reply_text(int fd, enum frame_status status, const char *msg)
{
    return reply(fd, status, msg, strlen(msg), NULL, 0);
}

/* LLVM gives up on this upload (child.h): the job is answered with its
 * reason before the process ends, which the pool replaces. */
static void on_llvm_fatal(int fd, const char *reason)
{
    char msg[400];
    snprintf(msg, sizeof msg, "LLVM failed on this upload and ended its worker: %s", reason);
    reply_text(fd, FRAME_ENDING, msg);
}

static int run_job(int fd, const frame_field *f)
{
    char *hash = field_str(&f[0]), *file_name = field_str(&f[1]), *client_host = field_str(&f[2]);
    char *json = f[5].len ? field_str(&f[5]) : NULL;
    char *entry = f[7].len ? field_str(&f[7]) : NULL;
    char *team = field_str(&f[8]), *json_sha = field_str(&f[9]), *asm_sha = field_str(&f[10]);
    char *ir_sha = field_str(&f[12]);
    char *ttgir_sha = field_str(&f[15]);
    uint32_t what_if_ms = 0;
    if (f[13].len == sizeof what_if_ms) memcpy(&what_if_ms, f[13].data, sizeof what_if_ms);
    int64_t created = 0;
    if (f[3].len == sizeof created) memcpy(&created, f[3].data, sizeof created);
    int rc;
    if (hash == NULL || file_name == NULL || client_host == NULL || (f[5].len && json == NULL) ||
        (f[7].len && entry == NULL) || team == NULL || json_sha == NULL || asm_sha == NULL ||
        ir_sha == NULL || ttgir_sha == NULL) {
        rc = reply_text(fd, FRAME_FAILED, "worker: out of memory");
        goto out;
    }
    /* The .amdgcn supplies what the linked LLVM cannot decode (a Hygon
     * target's own instructions).  Its messages name it by a fixed name,
     * not the upload's: a stored report is a function of its inputs
     * (report_key.h), and the file name is not one of them. */
    const char *asm_name = "kernel.amdgcn";
    treg_options opt = {.triton_json = json,
                        .triton_json_len = f[5].len,
                        .keep_rows = 1,
                        .asm_text = f[6].len ? (const char *)f[6].data : NULL,
                        .asm_text_len = f[6].len,
                        .asm_name = asm_name,
                        .llvm_ir = f[11].len ? (const char *)f[11].data : NULL,
                        .llvm_ir_len = f[11].len,
                        .llvm_ir_name = "kernel.llir",
                        .what_if_budget_ms = what_if_ms,
                        .ttgir = f[14].len ? (const char *)f[14].data : NULL,
                        .ttgir_len = f[14].len,
                        .ttgir_name = "kernel.ttgir"};
    treg_report *report = NULL;
    treg_error err = {0};
    int analyzed = treg_child_analyze(f[4].data, f[4].len, &opt, &report, &err);
    if (analyzed != TREG_OK) {
        /* The store holds code objects, never the programs around them:
         * say what to do with a HIP executable or bundle sent as it is. */
        treg_container_stats st;
        treg_error cerr = {0, ""};
        if ((err.code == TREG_E_MACHINE || err.code == TREG_E_FORMAT) &&
            treg_container_each(f[4].data, f[4].len, NULL, NULL, NULL, &st, &cerr) == TREG_OK)
            snprintf(err.msg, sizeof err.msg,
                     "a %s with %zu AMDGPU code objects inside, not a code object: tregc upload "
                     "extracts and sends each one",
                     st.format, st.objects);
        rc = reply_text(fd, FRAME_REJECTED, err.msg[0] ? err.msg : treg_status_name(err.code));
        goto out;
    }
    treg_pb_info info = {.hash = hash,
                         .file_name = file_name,
                         .client_host = client_host,
                         .created_unix = created,
                         .bundle_entry = entry,
                         .triton_json_sha256 = json_sha,
                         .amdgcn_sha256 = asm_sha,
                         .llvm_ir_sha256 = ir_sha,
                         .ttgir_sha256 = ttgir_sha,
                         .team = team};
    uint8_t *packed = NULL, *summary = NULL;
    size_t packed_len = 0, summary_len = 0;
    if (treg_pb_pack_report(report, &info, &packed, &packed_len) != 0 ||
        treg_pb_strip_rows(packed, packed_len, &summary, &summary_len) != 0) {
        rc = reply_text(fd, FRAME_FAILED, "worker: out of memory packing the report");
    } else {
        rc = reply(fd, FRAME_OK, packed, packed_len, summary, summary_len);
    }
    free(summary);
    free(packed);
    treg_report_free(report);
out:
    free(team);
    free(json_sha);
    free(asm_sha);
    free(ir_sha);
    free(ttgir_sha);
    free(hash);
    free(file_name);
    free(client_host);
    free(json);
    free(entry);
    return rc;
}

_Noreturn void worker_main(int fd)
{
    treg_child_begin(fd, on_llvm_fatal);
    for (;;) {
        uint8_t *payload;
        size_t len;
        if (frame_read(fd, &payload, &len) != 0) break; /* the server closed: done */
        frame_field f[FRAME_REQUEST_FIELDS];
        int rc = frame_split(payload, len, f, FRAME_REQUEST_FIELDS) == 0
                     ? run_job(fd, f)
                     : reply_text(fd, FRAME_FAILED, "worker: malformed job frame");
        free(payload);
        if (rc != 0) break;
    }
    /* _exit: the parent's state copied at fork is not ours to tear down. */
    _exit(0);
}
