/* The what-if stage (whatif.h): the IR compiled at each register budget. */
#include "whatif/whatif.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/TargetMachine.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/disasm.h"
#include "metrics/occupancy.h"
#include "util/error.h"

/* LLVM's diagnostics would go to stderr and an error would exit the
 * process: they are kept instead, the first error's words for the row. */
typedef struct diag {
    unsigned errors;
    char first[200];
} diag;

typedef struct whatif {
    treg_arena *a;
    treg_report *r;
    const treg_target *t;
    const treg_options *opt;
    const char *ir_name;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMTargetMachineRef tm;
    diag d;
    uint64_t start_us, budget_us;
    uint64_t longest_us; /* the longest build so far: the next may take as long */
    unsigned built;
} whatif;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The first line of an LLVM message, without "error: " noise around it. */
static void first_line(char *dst, size_t n, const char *msg)
{
    if (!msg) msg = "";
    size_t len = strcspn(msg, "\n");
    while (len && (msg[len - 1] == ' ' || msg[len - 1] == '\r')) len--;
    snprintf(dst, n, "%.*s", (int)len, msg);
}

static void on_diag(LLVMDiagnosticInfoRef di, void *ctx)
{
    diag *d = ctx;
    if (LLVMGetDiagInfoSeverity(di) != LLVMDSError) return;
    if (d->errors++ == 0) {
        char *m = LLVMGetDiagInfoDescription(di);
        first_line(d->first, sizeof d->first, m);
        LLVMDisposeMessage(m);
    }
}

static const char *arena_printf(treg_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *arena_printf(treg_arena *a, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return treg_arena_strdup(a, buf);
}

static bool is_spill_store(int kind)
{
    return kind == TREG_SPILL_SCRATCH_STORE || kind == TREG_SPILL_SGPR_TO_LANE ||
           kind == TREG_SPILL_VGPR_TO_AGPR;
}

static const treg_kernel_report *kernel_named(const treg_report *r, const char *name)
{
    for (size_t i = 0; r && i < r->nkernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0) return &r->kernels[i];
    return NULL;
}

/* The index of path in the shipped report's files into *index, appended
 * when new (a build's DWARF may name a file the shipped object's does
 * not): TREG_OK, or TREG_E_NOMEM. */
static int file_index(whatif *w, const char *path, int32_t *index)
{
    treg_report *r = w->r;
    for (size_t i = 0; i < r->nfiles; i++)
        if (strcmp(r->files[i], path) == 0) {
            *index = (int32_t)i;
            return TREG_OK;
        }
    const char **files =
        treg_arena_grow(w->a, (void *)r->files, r->nfiles, r->nfiles + 1, sizeof *files);
    const char *copy = treg_arena_strdup(w->a, path);
    if (!files || !copy) return TREG_E_NOMEM;
    files[r->nfiles] = copy;
    r->files = files;
    *index = (int32_t)r->nfiles++;
    return TREG_OK;
}

static int cmp_gain(const void *pa, const void *pb)
{
    const treg_what_if_line *a = pa, *b = pb;
    uint32_t ga = a->spills + a->reloads, gb = b->spills + b->reloads;
    if (ga != gb) return ga > gb ? -1 : 1;
    if (a->loc.file != b->loc.file) return a->loc.file < b->loc.file ? -1 : 1;
    return a->loc.line < b->loc.line ? -1 : a->loc.line > b->loc.line;
}

/* The lines of build v with more spill traffic than the recompiled build,
 * from the per-line figures both analyses made (treg_line_stat), matched by
 * file path and line: each build's DWARF has its own file table. */
static int gained_lines(whatif *w, treg_what_if *row, const treg_report *vr,
                        const treg_kernel_report *vk, const treg_report *br,
                        const treg_kernel_report *bk)
{
    size_t nv = 0;
    for (size_t i = 0; i < vk->nlines; i++) nv += vk->lines[i].spills + vk->lines[i].reloads > 0;
    treg_what_if_line *lines = nv ? treg_arena_calloc(w->a, nv, sizeof *lines) : NULL;
    if (nv && !lines) return -1;
    size_t n = 0;
    for (size_t i = 0; i < vk->nlines; i++) {
        const treg_line_stat *v = &vk->lines[i];
        if (v->spills + v->reloads == 0) continue;
        const char *path =
            v->loc.file >= 0 && (size_t)v->loc.file < vr->nfiles ? vr->files[v->loc.file] : NULL;
        uint32_t s = v->spills, l = v->reloads;
        for (size_t j = 0; bk && j < bk->nlines; j++) {
            const treg_line_stat *b = &bk->lines[j];
            const char *bpath = b->loc.file >= 0 && (size_t)b->loc.file < br->nfiles
                                    ? br->files[b->loc.file]
                                    : NULL;
            if (b->loc.line != v->loc.line || (path == NULL) != (bpath == NULL) ||
                (path && strcmp(path, bpath) != 0))
                continue;
            s = s > b->spills ? s - b->spills : 0;
            l = l > b->reloads ? l - b->reloads : 0;
        }
        if (s + l == 0) continue;
        int32_t f = -1;
        if (path && file_index(w, path, &f) != TREG_OK) return -1;
        lines[n++] =
            (treg_what_if_line){.loc = {.file = f, .line = v->loc.line}, .spills = s, .reloads = l};
    }
    if (n) qsort(lines, n, sizeof *lines, cmp_gain);
    row->lines = lines;
    row->nlines = n < TREG_WHAT_IF_MAX_LINES ? n : TREG_WHAT_IF_MAX_LINES;
    return 0;
}

/* A row's figures from kernel k of a build (or of the shipped object). */
static void take_figures(treg_what_if *row, const treg_kernel_report *k)
{
    row->compiled = 1;
    row->vgpr.allocated = k->vgpr.allocated;
    row->vgpr.peak_live = k->vgpr.peak_live;
    row->agpr.allocated = k->agpr.allocated;
    row->agpr.peak_live = k->agpr.peak_live;
    row->sgpr.allocated = k->sgpr.allocated;
    row->sgpr.peak_live = k->sgpr.peak_live;
    row->total_vgprs = k->total_vgprs;
    row->scratch_bytes = k->scratch_bytes;
    row->spills = row->reloads = 0;
    for (size_t i = 0; i < k->nspills; i++) {
        if (is_spill_store(k->spills[i].kind))
            row->spills++;
        else
            row->reloads++;
    }
    row->waves_per_simd = k->occupancy.waves_per_simd;
    row->limited_by = k->occupancy.limited_by;
}

/* Compiles the module (kernel's budget set to waves, or as given when
 * kernel is NULL) and analyzes the object: TREG_OK with *out, or with *out
 * NULL and the reason in why (a failed build is a row, not an error);
 * TREG_E_NOMEM. */
static int build(whatif *w, const char *kernel, unsigned waves, treg_report **out,
                 uint32_t *took_us, treg_error *why)
{
    *out = NULL;
    *took_us = 0;
    uint64_t t0 = now_us();
    LLVMModuleRef m = LLVMCloneModule(w->mod);
    if (!m) return TREG_E_NOMEM;
    if (kernel) {
        static const char key[] = "amdgpu-waves-per-eu";
        char val[32];
        int vlen = snprintf(val, sizeof val, "%u, %u", waves, waves);
        LLVMValueRef fn = LLVMGetNamedFunction(m, kernel);
        LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, sizeof key - 1);
        LLVMAddAttributeAtIndex(
            fn, LLVMAttributeFunctionIndex,
            LLVMCreateStringAttribute(w->ctx, key, sizeof key - 1, val, (unsigned)vlen));
    }
    w->d.errors = 0;
    w->d.first[0] = '\0';
    char *msg = NULL;
    LLVMMemoryBufferRef obj = NULL;
    LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(w->tm, m, LLVMObjectFile, &msg, &obj);
    LLVMDisposeModule(m);
    w->built++;
    if (failed || w->d.errors) {
        char line[200];
        first_line(line, sizeof line, w->d.errors ? w->d.first : msg);
        treg_fail(why, TREG_E_IR, "LLVM %s could not build it: %s", treg_disasm_llvm_version(),
                  line[0] ? line : "no reason given");
        LLVMDisposeMessage(msg);
        if (obj) LLVMDisposeMemoryBuffer(obj);
        return TREG_OK;
    }
    LLVMDisposeMessage(msg);
    treg_options vo = {.triton_json = w->opt->triton_json,
                       .triton_json_len = w->opt->triton_json_len,
                       .waves_per_eu = waves};
    treg_error aerr = {0, ""};
    int rc = treg_analyze((const uint8_t *)LLVMGetBufferStart(obj), LLVMGetBufferSize(obj), &vo,
                          out, &aerr);
    LLVMDisposeMemoryBuffer(obj);
    uint64_t took = now_us() - t0;
    if (took > w->longest_us) w->longest_us = took;
    *took_us = (uint32_t)(took > UINT32_MAX ? UINT32_MAX : took);
    if (rc == TREG_E_NOMEM) return TREG_E_NOMEM;
    if (rc != TREG_OK) treg_fail(why, rc, "the build does not analyze: %s", aerr.msg);
    return TREG_OK;
}

/* The most waves per SIMD the kernel's launch allows whatever its
 * registers: the target, its LDS (static and Triton's dynamic) and its
 * work-group size. */
static unsigned launch_cap(const treg_target *t, const treg_kernel_report *k)
{
    treg_occ_input in = {.lds_bytes = k->occupancy.launch_lds_bytes,
                         .workgroup_size = k->workgroup_size,
                         .min_workgroup_size = k->workgroup_size,
                         .wave_size = k->wave_size};
    treg_occ_result o;
    treg_occupancy(t, &in, &o);
    return o.waves;
}

/* The VGPRs (the unified count where AGPRs share the file) a wave may hold
 * when target t is to run waves per SIMD: the occupancy step, capped by
 * what one wave can address (the target table's). */
static unsigned allowance(const treg_target *t, const treg_kernel_report *k, unsigned waves)
{
    unsigned n = k->occupancy.nvgpr_steps;
    if (!n || waves == 0) return 0;
    unsigned step = k->occupancy.vgpr_steps[(waves <= n ? waves : n) - 1];
    unsigned per_wave = t->addressable_vgprs + (t->unified_agprs ? t->addressable_agprs : 0);
    return step < per_wave ? step : per_wave;
}

/* The budget the code object was built with: the caller's, else Triton's. */
static uint32_t own_waves_per_eu(const whatif *w)
{
    if (w->opt->waves_per_eu) return w->opt->waves_per_eu;
    const treg_triton_options *t = &w->r->triton;
    if (t->present && t->llvm_waves_per_eu > 0) return (uint32_t)t->llvm_waves_per_eu;
    return t->present && t->waves_per_eu > 0 ? (uint32_t)t->waves_per_eu : 0;
}

static bool spills(const treg_what_if *row)
{
    return row->compiled && (row->scratch_bytes || row->spills || row->reloads);
}

/* The fewest waves a budget is tried at: more waves always; fewer only
 * where registers are short already (something spills). */
static unsigned first_budget(const treg_kernel_report *k, bool spilling)
{
    return spilling ? 1 : k->occupancy.waves_per_simd + 1;
}

/* Below the shipped occupancy a budget only helps when it allows more
 * registers than the next one up; past what one wave can address, fewer
 * waves give nothing (a wave32 target's 256, a Hygon gfx936's 256 of 768). */
static bool budget_helps(const treg_target *t, const treg_kernel_report *k, unsigned waves)
{
    return waves >= k->occupancy.waves_per_simd ||
           allowance(t, k, waves) != allowance(t, k, waves + 1);
}

static int already_at_most(treg_arena *a, treg_kernel_report *k, unsigned cap)
{
    k->what_if_note = arena_printf(
        a, "already at the most waves per SIMD its launch allows (%u, %s)", cap,
        cap < k->occupancy.max_waves ? "by its LDS and work-group size" : "the target's ceiling");
    return k->what_if_note ? 0 : -1;
}

/* Kernel k's rows: shipped, recompiled (from base, NULL when it failed
 * with base_why), then each budget. */
static int kernel_what_if(whatif *w, treg_kernel_report *k, const treg_report *base,
                          const char *base_why, uint32_t base_us)
{
    treg_arena *a = w->a;
    unsigned cap = launch_cap(w->t, k);
    const treg_kernel_report *bk = kernel_named(base, k->name);
    treg_what_if *rows = treg_arena_calloc(a, 2 + TREG_MAX_WAVE_STEPS, sizeof *rows);
    if (!rows) return -1;
    size_t n = 0;
    rows[n].kind = TREG_WHAT_IF_SHIPPED;
    rows[n].waves_per_eu = own_waves_per_eu(w);
    take_figures(&rows[n++], k);
    treg_what_if *rec = &rows[n++];
    rec->kind = TREG_WHAT_IF_RECOMPILED;
    rec->waves_per_eu = rows[0].waves_per_eu;
    if (bk) {
        take_figures(rec, bk);
        rec->compile_us = base_us;
    } else if (!(rec->note =
                     arena_printf(a, "%s", base_why ? base_why : "the build has no such kernel"))) {
        return -1;
    }
    k->what_if = rows;
    k->nwhat_if = n;
    if (!bk) return 0;

    if (rec->vgpr.allocated != rows[0].vgpr.allocated ||
        rec->agpr.allocated != rows[0].agpr.allocated ||
        rec->sgpr.allocated != rows[0].sgpr.allocated ||
        rec->scratch_bytes != rows[0].scratch_bytes) {
        rec->note = arena_printf(
            a,
            "LLVM %s builds this IR differently from the compiler that made the code object "
            "(%u VGPRs, %u AGPRs, %u SGPRs, %u B scratch against %u, %u, %u, %u B): the budgets "
            "are LLVM %s builds, to be compared with this one",
            treg_disasm_llvm_version(), rec->vgpr.allocated, rec->agpr.allocated,
            rec->sgpr.allocated, rec->scratch_bytes, rows[0].vgpr.allocated, rows[0].agpr.allocated,
            rows[0].sgpr.allocated, rows[0].scratch_bytes, treg_disasm_llvm_version());
        if (!rec->note) return -1;
    }
    unsigned lo = first_budget(k, spills(&rows[0]) || spills(rec));
    if (lo > cap) return already_at_most(a, k, cap);
    unsigned skipped_lo = 0, skipped_hi = 0;
    for (unsigned waves = lo; waves <= cap && n < 2 + TREG_MAX_WAVE_STEPS; waves++) {
        if (!budget_helps(w->t, k, waves)) {
            if (!skipped_lo) skipped_lo = waves;
            skipped_hi = waves;
            continue;
        }
        treg_what_if *row = &rows[n++];
        k->nwhat_if = n;
        row->kind = TREG_WHAT_IF_BUDGET;
        row->waves_per_eu = waves;
        row->vgpr_allowance = allowance(w->t, k, waves);
        /* Not started when it would likely end past the budget: a caller's
         * hard limit (tregd kills the worker at its timeout) stays unmet. */
        if (now_us() - w->start_us + w->longest_us > w->budget_us) {
            row->note = arena_printf(a,
                                     "not built: the what-if budget of %llu ms would be "
                                     "spent (%u builds done)",
                                     (unsigned long long)(w->budget_us / 1000), w->built);
            if (!row->note) return -1;
            continue;
        }
        treg_report *vr;
        treg_error why = {0, ""};
        if (build(w, k->name, waves, &vr, &row->compile_us, &why) != TREG_OK) return -1;
        const treg_kernel_report *vk = vr ? kernel_named(vr, k->name) : NULL;
        bool oom = false;
        if (vk) {
            take_figures(row, vk);
            oom = gained_lines(w, row, vr, vk, base, bk) != 0;
            if (!oom && row->waves_per_simd < waves)
                oom = !(row->note = arena_printf(a, "%u waves asked for, the build reaches %u (%s)",
                                                 waves, row->waves_per_simd, row->limited_by));
        } else {
            oom = !(row->note = vr ? arena_printf(a, "the build has no kernel %s", k->name)
                                   : arena_printf(a, "%s", why.msg));
        }
        treg_report_free(vr);
        if (oom) return -1;
    }
    if (skipped_lo &&
        !(k->what_if_note = arena_printf(
              a,
              "budgets of %u%s%u wave%s not built: they allow no more registers than "
              "%u waves do (%u VGPRs%s)",
              skipped_lo, skipped_lo == skipped_hi ? "" : " to ", skipped_hi,
              skipped_hi == 1 ? "" : "s", skipped_hi + 1, allowance(w->t, k, skipped_hi + 1),
              allowance(w->t, k, 1) == allowance(w->t, k, skipped_hi + 1)
                  ? ", the most one wave can address"
                  : "")))
        return -1;
    return 0;
}

/* Parses and verifies the IR and checks it against the report: the
 * module in w->mod, or an error. */
static int load_ir(whatif *w, size_t *matched, treg_error *err)
{
    const treg_options *o = w->opt;
    const char *name = w->ir_name;
    if (o->llvm_ir_len > TREG_WHAT_IF_MAX_IR)
        return treg_fail(err, TREG_E_LIMIT, "%s: %zu bytes of LLVM IR, past the limit of %u MiB",
                         name, o->llvm_ir_len, TREG_WHAT_IF_MAX_IR >> 20);
    if (o->llvm_ir_len == 0) return treg_fail(err, TREG_E_IR, "%s: empty LLVM IR", name);
    /* A copy: the text parser wants a NUL after the last byte. */
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(o->llvm_ir, o->llvm_ir_len, name);
    if (!buf) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    char *msg = NULL, line[200];
    if (LLVMParseIRInContext(w->ctx, buf, &w->mod, &msg)) {
        /* "NAME:3:7: error: expected ...": the name is said once already. */
        const char *m = msg ? msg : "";
        size_t nlen = strlen(name);
        if (strncmp(m, name, nlen) == 0 && m[nlen] == ':') m += nlen + 1;
        unsigned ln = 0, col = 0;
        int used = 0;
        char where[48] = "";
        if (sscanf(m, "%u:%u: error: %n", &ln, &col, &used) == 2 && used > 0) {
            snprintf(where, sizeof where, "line %u, column %u: ", ln, col);
            m += used;
        }
        first_line(line, sizeof line, m);
        LLVMDisposeMessage(msg);
        w->mod = NULL;
        return treg_fail(err, TREG_E_IR, "%s: not LLVM IR: %s%s", name, where, line);
    }
    if (LLVMVerifyModule(w->mod, LLVMReturnStatusAction, &msg)) {
        first_line(line, sizeof line, msg);
        LLVMDisposeMessage(msg);
        return treg_fail(err, TREG_E_IR, "%s: LLVM IR that does not verify: %s", name, line);
    }
    LLVMDisposeMessage(msg);
    const char *triple = LLVMGetTarget(w->mod);
    if (triple[0] && strncmp(triple, "amdgcn-", 7) != 0)
        return treg_fail(err, TREG_E_IR, "%s: LLVM IR for %s, not for an AMDGPU (amdgcn-)", name,
                         triple);
    *matched = 0;
    for (size_t i = 0; i < w->r->nkernels; i++) {
        treg_kernel_report *k = &w->r->kernels[i];
        LLVMValueRef fn = LLVMGetNamedFunction(w->mod, k->name);
        if (!fn || LLVMIsDeclaration(fn) || LLVMGetFunctionCallConv(fn) != LLVMAMDGPUKERNELCallConv)
            continue;
        LLVMAttributeRef cpu =
            LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-cpu", 10);
        unsigned len = 0;
        const char *v = cpu ? LLVMGetStringAttributeValue(cpu, &len) : NULL;
        if (v && (len != strlen(w->t->name) || memcmp(v, w->t->name, len) != 0))
            return treg_fail(err, TREG_E_IR,
                             "%s: kernel %s is built for %.*s (its target-cpu), the code object "
                             "for %s",
                             name, k->name, (int)len, v, w->t->name);
        (*matched)++;
    }
    if (*matched == 0)
        return treg_fail(err, TREG_E_IR, "%s defines none of the code object's kernels (%s%s)",
                         name, w->r->kernels[0].name, w->r->nkernels > 1 ? ", ..." : "");
    return TREG_OK;
}

/* Every kernel: only its shipped row and why there is nothing else. */
/* No build can be made (why): the shipped row, then the budgets that
 * would be tried, not built, each with the VGPRs the target's table allows
 * a wave at it, so the occupancy cliffs are still there to read. */
static int shipped_only(whatif *w, const char *why)
{
    for (size_t i = 0; i < w->r->nkernels; i++) {
        treg_kernel_report *k = &w->r->kernels[i];
        treg_what_if *rows = treg_arena_calloc(w->a, 1 + TREG_MAX_WAVE_STEPS, sizeof *rows);
        if (!rows || !(k->what_if_note = treg_arena_strdup(w->a, why))) return -1;
        rows[0].kind = TREG_WHAT_IF_SHIPPED;
        rows[0].waves_per_eu = own_waves_per_eu(w);
        take_figures(&rows[0], k);
        size_t n = 1;
        if (!strcmp(k->kind ? k->kind : "kernel", "kernel") && !k->wave_roles.nroles) {
            unsigned cap = launch_cap(w->t, k);
            for (unsigned waves = first_budget(k, spills(&rows[0]));
                 waves <= cap && n < 1 + TREG_MAX_WAVE_STEPS; waves++) {
                if (!budget_helps(w->t, k, waves)) continue;
                treg_what_if *row = &rows[n++];
                row->kind = TREG_WHAT_IF_BUDGET;
                row->waves_per_eu = waves;
                row->vgpr_allowance = allowance(w->t, k, waves);
                if (!(row->note = treg_arena_strdup(w->a, "not built (see the what-if note)")))
                    return -1;
            }
        }
        k->what_if = rows;
        k->nwhat_if = n;
    }
    return 0;
}

void treg_on_llvm_fatal(void (*fn)(const char *reason))
{
    LLVMInstallFatalErrorHandler(fn);
}

/* Fills what_if[] of every kernel of r (of target t) from opt->llvm_ir,
 * allocating in a: treg_analyze_what_if's work. */
static int what_if_run(treg_arena *a, treg_report *r, const treg_target *t, const treg_options *opt,
                       treg_error *err)
{
    whatif w = {.a = a,
                .r = r,
                .t = t,
                .opt = opt,
                .ir_name = opt->llvm_ir_name ? opt->llvm_ir_name : "the LLVM IR",
                .start_us = now_us()};
    w.budget_us = 1000ull * (opt->what_if_budget_ms ? opt->what_if_budget_ms
                                                    : TREG_WHAT_IF_DEFAULT_BUDGET_MS);
    treg_llvm_register(); /* before any IR is read: see llvm_init */
    w.ctx = LLVMContextCreate();
    if (!w.ctx) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    LLVMContextSetDiagnosticHandler(w.ctx, on_diag, &w.d);
    size_t matched;
    int rc = TREG_OK;
    char why[400];
    /* Never a substitute ISA: a gfx926 build is not a gfx906 one.  The IR
     * is then not read at all: the budgets need only the target's table,
     * and IR from a newer or a vendor's LLVM need not parse in this one. */
    if (!treg_disasm_knows(t->name)) {
        snprintf(why, sizeof why,
                 "not available with this LLVM: LLVM %s cannot compile for %s (an LLVM that "
                 "knows %s, such as DTK's, can)",
                 treg_disasm_llvm_version(), t->name, t->name);
        if (shipped_only(&w, why)) rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = load_ir(&w, &matched, err)) != TREG_OK) goto done;
    const char *triple = LLVMGetTarget(w.mod)[0] ? LLVMGetTarget(w.mod) : "amdgcn-amd-amdhsa";
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
        char line[200];
        first_line(line, sizeof line, msg);
        LLVMDisposeMessage(msg);
        snprintf(why, sizeof why, "not available with this LLVM: %s", line);
        if (shipped_only(&w, why)) rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    /* llc -O3, as Triton compiles its .llir. */
    w.tm = LLVMCreateTargetMachine(target, triple, t->name, "", LLVMCodeGenLevelAggressive,
                                   LLVMRelocDefault, LLVMCodeModelDefault);
    if (!w.tm) {
        snprintf(why, sizeof why, "not available with this LLVM: no target machine for %s",
                 t->name);
        if (shipped_only(&w, why)) rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    treg_report *base = NULL;
    uint32_t base_us = 0;
    treg_error base_why = {0, ""};
    if (build(&w, NULL, opt->waves_per_eu, &base, &base_us, &base_why) != TREG_OK) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < r->nkernels && rc == TREG_OK; i++) {
        treg_kernel_report *k = &r->kernels[i];
        LLVMValueRef fn = LLVMGetNamedFunction(w.mod, k->name);
        if (!fn || LLVMIsDeclaration(fn)) {
            if (!(k->what_if_note = arena_printf(a, "%s has no kernel %s", w.ir_name, k->name)))
                rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
            continue;
        }
        if (kernel_what_if(&w, k, base, base ? NULL : base_why.msg, base_us) != 0)
            rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
    }
    treg_report_free(base);
done:
    if (w.tm) LLVMDisposeTargetMachine(w.tm);
    if (w.mod) LLVMDisposeModule(w.mod);
    LLVMContextDispose(w.ctx);
    return rc;
}

int treg_analyze_what_if(treg_report *r, const treg_options *opt, treg_error *err)
{
    if (!r || !opt) return treg_fail(err, TREG_E_ARG, "treg_analyze_what_if: missing argument");
    if (!opt->llvm_ir) return TREG_OK;
    const treg_target *t = r->target ? treg_target_by_name(r->target) : NULL;
    if (!t)
        return treg_fail(err, TREG_E_TARGET,
                         "treg_analyze_what_if: the report names no known target");
    return what_if_run(r->priv, r, t, opt, err);
}
