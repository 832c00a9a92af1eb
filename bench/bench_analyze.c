/* treg-bench: throughput of the analyzer on a real corpus, in one process.
 *
 *   treg-bench [-r REPS] [--full-only] FILE|DIR...
 *
 * Every .hsaco under the arguments (and its sibling Triton .json and
 * .ttgir, which the categories of the peak's registers read) is read
 * into memory before any clock starts, so the figures are the analyzer's
 * and not the disk's.  Three measurements:
 *   1. the whole pipeline (treg_analyze) over every file, REPS times: best
 *      and median wall time, instructions per second;
 *   2. the same corpus stage by stage (load, decode, model, flow), so the
 *      share of each in the total can be read off;
 *   3. on the largest kernel, decode, model and "CFG + liveness" (CFG, EXEC,
 *      reads of nothing, liveness) each repeated for at least a second's
 *      worth of samples, per instruction.
 * --full-only stops after the first, for running under a profiler.
 * The closing "result" line is key=value pairs for bench/run.sh.  This is
 * a benchmark, not a test: it prints figures and exits 0 unless it cannot
 * run at all; CTest does not run it. */
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "decode/disasm.h"
#include "flow/cfg.h"
#include "flow/defined.h"
#include "flow/exec.h"
#include "flow/liveness.h"
#include "load/codeobj.h"
#include "load/lines.h"
#include "metrics/allocation.h"
#include "model/semantics.h"
#include "targets/targets.h"
#include "treg/analyzer.h"
#include "util/arena.h"

/* One input, held in memory for the whole run. */
typedef struct input {
    char *path;
    uint8_t *bytes;
    size_t len;
    char *json; /* sibling <kernel>.json, or NULL */
    size_t json_len;
    char *ttgir; /* sibling <kernel>.ttgir, or NULL */
    size_t ttgir_len;
} input;

static input *g_inputs;
static size_t g_ninputs, g_cap;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int add_input(const char *path)
{
    size_t plen = strlen(path);
    if (plen <= 6 || strcmp(path + plen - 6, ".hsaco") != 0) return 0;
    if (g_ninputs == g_cap) {
        size_t ncap = g_cap ? g_cap * 2 : 64;
        input *n = realloc(g_inputs, ncap * sizeof *n);
        if (!n) return -1;
        g_inputs = n;
        g_cap = ncap;
    }
    input *in = &g_inputs[g_ninputs];
    memset(in, 0, sizeof *in);
    in->path = strdup(path);
    in->bytes = (uint8_t *)bench_slurp(path, &in->len);
    if (!in->path || !in->bytes) {
        fprintf(stderr, "treg-bench: cannot read %s\n", path);
        free(in->path);
        free(in->bytes);
        return -1;
    }
    /* Triton keeps <kernel>.json next to <kernel>.hsaco; analyze with it,
     * as treg-analyze does, so the bench times what users run. */
    char *jp = malloc(plen + 1);
    if (jp) {
        memcpy(jp, path, plen - 6);
        strcpy(jp + plen - 6, ".json");
        in->json = bench_slurp(jp, &in->json_len);
        free(jp);
    }
    char *tp = malloc(plen + 2);
    if (tp) {
        memcpy(tp, path, plen - 6);
        strcpy(tp + plen - 6, ".ttgir");
        in->ttgir = bench_slurp(tp, &in->ttgir_len);
        free(tp);
    }
    g_ninputs++;
    return 0;
}

static void free_inputs(void)
{
    for (size_t f = 0; f < g_ninputs; f++) {
        free(g_inputs[f].path);
        free(g_inputs[f].bytes);
        free(g_inputs[f].json);
        free(g_inputs[f].ttgir);
    }
    free(g_inputs);
}

static int walk_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return type == FTW_F ? add_input(path) : 0;
}

static int cmp_input(const void *a, const void *b)
{
    return strcmp(((const input *)a)->path, ((const input *)b)->path);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double minimum(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

static void die(const char *what, const treg_error *err)
{
    fprintf(stderr, "treg-bench: %s: %s\n", what, err->msg);
    exit(1);
}

/* The decoder the pipeline would pick for this code object (report/analyze.c
 * resolve_target, minus the notes): the target's own name where the linked
 * LLVM knows it, else its decode_as substitute. */
static const char *decode_cpu(const treg_codeobj *co, const treg_target **tout)
{
    const treg_target *t = treg_target_by_mach(co->mach);
    if (!t && co->target_gfx) t = treg_target_by_name(co->target_gfx);
    if (!t) return NULL;
    *tout = t;
    return treg_disasm_cpu_for(t);
}

static unsigned wave_size_of(const treg_kernel_sym *ks)
{
    return ks->kd.wave32 ? 32 : 64;
}

static void model_all(const treg_kernel_sym *ks, const treg_target *t, const treg_insn *insns,
                      size_t n, treg_insn_effect *fx)
{
    treg_model_ctx mctx = {wave_size_of(ks)};
    for (size_t i = 0; i < n; i++) {
        treg_error err = {0, ""};
        if (treg_model_insn(&mctx, insns[i].text, &fx[i], &err)) die(ks->name, &err);
    }
}

/* CFG, EXEC, reads of nothing and liveness: the part of the pipeline that
 * is ours rather than LLVM's or libelf's.  Dropping the reads no
 * definition reaches rewrites fx, but only its reads, never a definition,
 * so a second run drops nothing and leaves fx as it is: repeating it
 * measures the same work every time after the first. */
static void flow_once(const treg_insn *insns, treg_insn_effect *fx, size_t n,
                      const treg_entry *entry, size_t *arena_bytes)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0, ""};
    treg_cfg g;
    uint8_t *partial;
    unsigned dropped;
    treg_liveness lv;
    if (treg_cfg_build(&a, insns, fx, n, &g, &err) ||
        treg_exec_analyze(&a, &g, fx, n, &partial, &err) ||
        treg_drop_undefined_operands(&a, &g, fx, &entry->live, &dropped, NULL, &err) ||
        treg_liveness_run(&a, &g, fx, n, partial, &entry->live, &lv, &err))
        die("flow", &err);
    if (arena_bytes) *arena_bytes = a.bytes;
    treg_arena_free(&a);
}

typedef struct split {
    double load, decode, model, flow;
} split;

/* One pass over the corpus, stage by stage, timing each stage's sum. */
static void stage_pass(split *s)
{
    memset(s, 0, sizeof *s);
    for (size_t f = 0; f < g_ninputs; f++) {
        const input *in = &g_inputs[f];
        treg_arena a;
        treg_arena_init(&a);
        treg_error err = {0, ""};
        treg_codeobj co;
        treg_linetab lines;
        memset(&co, 0, sizeof co);
        memset(&lines, 0, sizeof lines);
        double t0 = now();
        if (treg_codeobj_load(&a, in->bytes, in->len, &co, &err)) die(in->path, &err);
        treg_error lerr = {0, ""};
        (void)treg_lines_load(&a, in->bytes, in->len, &lines, &lerr);
        const treg_target *t = NULL;
        const char *cpu = decode_cpu(&co, &t);
        treg_disasm *d = NULL;
        if (!cpu) {
            fprintf(stderr, "treg-bench: %s: no decoder for its target\n", in->path);
            exit(1);
        }
        if (treg_disasm_open(cpu, false, &d, &err)) die(in->path, &err);
        s->load += now() - t0;
        for (size_t k = 0; k < co.nkernels; k++) {
            const treg_kernel_sym *ks = &co.kernels[k];
            treg_insn *insns;
            size_t n;
            t0 = now();
            if (treg_disasm_range(d, &a, ks->code, ks->size, ks->addr, &insns, &n, &err))
                die(in->path, &err);
            double t1 = now();
            treg_insn_effect *fx = treg_arena_calloc(&a, n ? n : 1, sizeof *fx);
            if (!fx) die("arena", &err);
            model_all(ks, t, insns, n, fx);
            double t2 = now();
            treg_entry entry;
            treg_entry_live(&(ks)->kd, t, &entry);
            flow_once(insns, fx, n, &entry, NULL);
            double t3 = now();
            s->decode += t1 - t0;
            s->model += t2 - t1;
            s->flow += t3 - t2;
        }
        treg_disasm_close(d);
        treg_arena_free(&a);
    }
}

/* Repeats fn until at least min_s seconds have passed; returns seconds per
 * call.  Calls are batched so the clock is read rarely. */
typedef void (*bench_fn)(void *ctx);
static double time_per_call(bench_fn fn, void *ctx, double min_s, unsigned long *calls)
{
    fn(ctx); /* warm caches and the allocator */
    unsigned long total = 0, batch = 1;
    double t0 = now(), el;
    for (;;) {
        for (unsigned long i = 0; i < batch; i++) fn(ctx);
        total += batch;
        el = now() - t0;
        if (el >= min_s) break;
        if (batch < (1ul << 20)) batch *= 2;
    }
    *calls = total;
    return el / (double)total;
}

/* The largest kernel, decoded and modelled once, for the per-stage loops. */
typedef struct big {
    const input *in;
    treg_codeobj co;
    const treg_target *t;
    const treg_kernel_sym *ks;
    treg_disasm *d;
    treg_insn *insns;
    size_t n;
    treg_insn_effect *fx, *fx_scratch;
    treg_entry entry;
} big;

static void run_decode(void *ctx)
{
    big *b = ctx;
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0, ""};
    treg_insn *insns;
    size_t n;
    if (treg_disasm_range(b->d, &a, b->ks->code, b->ks->size, b->ks->addr, &insns, &n, &err))
        die("decode", &err);
    treg_arena_free(&a);
}

static void run_model(void *ctx)
{
    big *b = ctx;
    model_all(b->ks, b->t, b->insns, b->n, b->fx_scratch);
}

static void run_flow(void *ctx)
{
    big *b = ctx;
    flow_once(b->insns, b->fx, b->n, &b->entry, NULL);
}

/* The corpus on a pool of threads, as the server's workers analyze
 * uploads: each thread takes the next file until none is left. */
typedef struct pool_run {
    atomic_size_t next;
} pool_run;

static void *pool_worker(void *arg)
{
    pool_run *run = arg;
    for (size_t f; (f = atomic_fetch_add(&run->next, 1)) < g_ninputs;) {
        const input *in = &g_inputs[f];
        treg_options opt = {.triton_json = in->json,
                            .triton_json_len = in->json_len,
                            .keep_rows = 1,
                            .ttgir = in->ttgir,
                            .ttgir_len = in->ttgir_len};
        treg_report *rep;
        treg_error err = {0, ""};
        if (treg_analyze(in->bytes, in->len, &opt, &rep, &err)) die(in->path, &err);
        treg_report_free(rep);
    }
    return NULL;
}

static double pool_pass(unsigned threads)
{
    pthread_t tid[64];
    pool_run run;
    atomic_init(&run.next, 0);
    double t0 = now();
    for (unsigned t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, pool_worker, &run) != 0) {
            fprintf(stderr, "treg-bench: cannot start a thread\n");
            exit(1);
        }
    for (unsigned t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    return now() - t0;
}

static void usage(void)
{
    fprintf(stderr, "usage: treg-bench [-r REPS] [-j THREADS] [--full-only] FILE|DIR...\n"
                    "  Analyzes every .hsaco under the arguments REPS times (default 5), on\n"
                    "  one thread and then on THREADS (default: the cores);\n"
                    "  --full-only skips the stage timings (for profilers).\n");
}

int main(int argc, char **argv)
{
    unsigned reps = 5;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = ncpu > 0 && ncpu <= 64 ? (unsigned)ncpu : 2;
    bool full_only = false;
    int argi = 1;
    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        if (strcmp(argv[argi], "-r") == 0 && argi + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++argi], &end, 10);
            if (*end || v == 0 || v > 1000) {
                usage();
                return 2;
            }
            reps = (unsigned)v;
        } else if (strcmp(argv[argi], "-j") == 0 && argi + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++argi], &end, 10);
            if (*end || v == 0 || v > 64) {
                usage();
                return 2;
            }
            threads = (unsigned)v;
        } else if (strcmp(argv[argi], "--full-only") == 0) {
            full_only = true;
        } else {
            usage();
            return 2;
        }
    }
    if (argi == argc) {
        usage();
        return 2;
    }
    for (; argi < argc; argi++)
        if (nftw(argv[argi], walk_cb, 16, FTW_PHYS) != 0) {
            fprintf(stderr, "treg-bench: cannot read %s\n", argv[argi]);
            return 1;
        }
    if (g_ninputs == 0) {
        fprintf(stderr, "treg-bench: no .hsaco files found\n");
        return 1;
    }
    qsort(g_inputs, g_ninputs, sizeof *g_inputs, cmp_input);
    size_t total_bytes = 0;
    for (size_t f = 0; f < g_ninputs; f++) total_bytes += g_inputs[f].len;

    /* 1. The whole pipeline, REPS times over the corpus. */
    double *times = calloc(reps, sizeof *times);
    if (!times) return 1;
    unsigned long long insns_total = 0;
    size_t kernels = 0, peak_arena = 0, big_file = 0;
    uint32_t big_n = 0;
    char *big_name_copy = NULL;
    for (unsigned r = 0; r < reps; r++) {
        unsigned long long count = 0;
        size_t nk = 0;
        double t0 = now();
        for (size_t f = 0; f < g_ninputs; f++) {
            const input *in = &g_inputs[f];
            treg_options opt = {.triton_json = in->json,
                                .triton_json_len = in->json_len,
                                .keep_rows = 1,
                                .ttgir = in->ttgir,
                                .ttgir_len = in->ttgir_len};
            treg_report *rep;
            treg_error err = {0, ""};
            if (treg_analyze(in->bytes, in->len, &opt, &rep, &err)) die(in->path, &err);
            for (size_t k = 0; k < rep->nkernels; k++) {
                count += rep->kernels[k].instructions;
                /* Bookkeeping off the clock would need a second pass;
                 * this is a compare per kernel, noise at this scale. */
                if (r == 0 && rep->kernels[k].instructions > big_n) {
                    big_n = rep->kernels[k].instructions;
                    big_file = f;
                    free(big_name_copy);
                    big_name_copy = strdup(rep->kernels[k].name);
                }
            }
            nk += rep->nkernels;
            size_t ab = ((const treg_arena *)rep->priv)->bytes;
            if (ab > peak_arena) peak_arena = ab;
            treg_report_free(rep);
        }
        times[r] = now() - t0;
        insns_total = count;
        kernels = nk;
    }
    double full_best = minimum(times, reps), full_median = median(times, reps);
    double full_ips = (double)insns_total / full_best;
    /* Sustained: every pass's instructions over all passes' time, as a
     * server's throughput over many uploads is measured. */
    double full_sum = 0;
    for (unsigned r = 0; r < reps; r++) full_sum += times[r];
    double sustained_ips = (double)insns_total * reps / full_sum;
    double *ptimes = calloc(reps, sizeof *ptimes);
    if (!ptimes) return 1;
    for (unsigned r = 0; r < reps; r++) ptimes[r] = pool_pass(threads);
    double pool_best = minimum(ptimes, reps);
    free(ptimes);

    printf("corpus: %zu code objects, %zu kernels, %llu instructions, %.1f KiB of .hsaco\n",
           g_ninputs, kernels, insns_total, (double)total_bytes / 1024);
    printf("\nfull analysis (treg_analyze, all files in memory, %u runs)\n", reps);
    printf("  best   %9.4f s   %12.0f instr/s\n", full_best, full_ips);
    printf("  median %9.4f s   %12.0f instr/s\n", full_median, (double)insns_total / full_median);
    printf("  all %u runs: %12.0f instr/s sustained\n", reps, sustained_ips);
    printf("  peak arena (one code object): %.2f MiB\n", (double)peak_arena / (1024.0 * 1024.0));
    printf("  on %u threads: best %9.4f s   %12.0f instr/s\n", threads, pool_best,
           (double)insns_total / pool_best);
    if (full_only) {
        printf("\nresult full_best_s=%.6f full_median_s=%.6f instructions=%llu full_ips=%.0f "
               "sustained_ips=%.0f peak_arena=%zu threads=%u pool_best_s=%.6f\n",
               full_best, full_median, insns_total, full_ips, sustained_ips, peak_arena, threads,
               pool_best);
        free(big_name_copy);
        free(times);
        free_inputs();
        return 0;
    }

    /* 2. Stage split over the whole corpus, best of REPS per stage. */
    split best = {1e30, 1e30, 1e30, 1e30};
    for (unsigned r = 0; r < reps; r++) {
        split s;
        stage_pass(&s);
        if (s.load < best.load) best.load = s.load;
        if (s.decode < best.decode) best.decode = s.decode;
        if (s.model < best.model) best.model = s.model;
        if (s.flow < best.flow) best.flow = s.flow;
    }
    double staged = best.load + best.decode + best.model + best.flow;
    double rest = full_best > staged ? full_best - staged : 0;
    double per = 1e9 / (double)insns_total;
    printf("\nstage split, whole corpus (best of %u per stage; share of the full best)\n", reps);
    printf("  %-38s %9.4f s %6.1f%% %8.1f ns/instr\n", "load (ELF, note, DWARF) + LLVM open",
           best.load, 100 * best.load / full_best, best.load * per);
    printf("  %-38s %9.4f s %6.1f%% %8.1f ns/instr\n", "decode (LLVM disassembler)", best.decode,
           100 * best.decode / full_best, best.decode * per);
    printf("  %-38s %9.4f s %6.1f%% %8.1f ns/instr\n", "model (semantics table)", best.model,
           100 * best.model / full_best, best.model * per);
    printf("  %-38s %9.4f s %6.1f%% %8.1f ns/instr\n", "CFG + EXEC + defined + liveness", best.flow,
           100 * best.flow / full_best, best.flow * per);
    printf("  %-38s %9.4f s %6.1f%% %8.1f ns/instr\n", "metrics + report (the rest)", rest,
           100 * rest / full_best, rest * per);

    /* 3. The largest kernel, stage by stage, each for at least a second. */
    big b;
    memset(&b, 0, sizeof b);
    b.in = &g_inputs[big_file];
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0, ""};
    if (treg_codeobj_load(&a, b.in->bytes, b.in->len, &b.co, &err)) die(b.in->path, &err);
    for (size_t k = 0; k < b.co.nkernels && !b.ks && big_name_copy; k++)
        if (strcmp(b.co.kernels[k].name, big_name_copy) == 0) b.ks = &b.co.kernels[k];
    const char *cpu = decode_cpu(&b.co, &b.t);
    if (!b.ks || !cpu) {
        fprintf(stderr, "treg-bench: lost the largest kernel\n");
        return 1;
    }
    if (treg_disasm_open(cpu, false, &b.d, &err)) die(b.in->path, &err);
    if (treg_disasm_range(b.d, &a, b.ks->code, b.ks->size, b.ks->addr, &b.insns, &b.n, &err))
        die("decode", &err);
    b.fx = treg_arena_calloc(&a, b.n, sizeof *b.fx);
    b.fx_scratch = treg_arena_calloc(&a, b.n, sizeof *b.fx);
    if (!b.fx || !b.fx_scratch) die("arena", &err);
    model_all(b.ks, b.t, b.insns, b.n, b.fx);
    treg_entry_live(&(b.ks)->kd, b.t, &b.entry);

    unsigned long dcalls, mcalls, fcalls;
    double dec = time_per_call(run_decode, &b, 1.0, &dcalls);
    double mod = time_per_call(run_model, &b, 1.0, &mcalls);
    double flw = time_per_call(run_flow, &b, 1.0, &fcalls);
    size_t flow_arena;
    flow_once(b.insns, b.fx, b.n, &b.entry, &flow_arena);
    double nn = (double)b.n;
    double flow_ips = nn / flw;
    printf("\nlargest kernel: %s, %zu instructions (%s)\n", b.ks->name, b.n, b.in->path);
    printf("  %-24s %8.1f ns/instr %12.0f instr/s  (%lu runs)\n", "decode", dec * 1e9 / nn,
           nn / dec, dcalls);
    printf("  %-24s %8.1f ns/instr %12.0f instr/s  (%lu runs)\n", "model", mod * 1e9 / nn, nn / mod,
           mcalls);
    printf("  %-24s %8.1f ns/instr %12.0f instr/s  (%lu runs)\n", "CFG + liveness", flw * 1e9 / nn,
           flow_ips, fcalls);
    printf("  CFG + liveness arena: %.2f MiB; target 1000000 instr/s: %s\n",
           (double)flow_arena / (1024.0 * 1024.0), flow_ips >= 1e6 ? "met" : "MISSED");

    printf("\nresult full_best_s=%.6f full_median_s=%.6f instructions=%llu full_ips=%.0f "
           "flow_ips=%.0f decode_ns=%.1f model_ns=%.1f flow_ns=%.1f peak_arena=%zu threads=%u "
           "pool_best_s=%.6f\n",
           full_best, full_median, insns_total, full_ips, flow_ips, dec * 1e9 / nn, mod * 1e9 / nn,
           flw * 1e9 / nn, peak_arena, threads, pool_best);

    treg_disasm_close(b.d);
    treg_arena_free(&a);
    free(big_name_copy);
    free(times);
    free_inputs();
    return 0;
}
