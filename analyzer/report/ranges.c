/* Row register lists and live ranges (ranges.h).  The live ranges come
 * from one backward walk over the occupied sets that the row counts are
 * made of: at each row only the bits that changed since the row after it
 * are visited, a register appearing (walking backward) opens a run that
 * ends after this row, one disappearing closes its run at the row after
 * this one.  Runs close per register in descending order, all
 * registers interleaved; a counting sort by register then lays them out
 * ascending, each register's runs in one slice of a single array. */
#include "report/ranges.h"

#include <stdbool.h>

_Static_assert((int)TREG_REG_V0 == (int)TREG_REPORT_V0 && (int)TREG_REG_A0 == (int)TREG_REPORT_A0 &&
                   (int)TREG_REG_S0 == (int)TREG_REPORT_S0 &&
                   (int)TREG_REG_VCC_LO == (int)TREG_REPORT_VCC_LO &&
                   (int)TREG_REG_VCC_HI == (int)TREG_REPORT_VCC_HI,
               "the report's register numbers are the analyzer's: treg.proto fixes them");
_Static_assert(TREG_REG_SPECIAL0 % 64 == 0 && TREG_REG_VCC_LO == TREG_REG_SPECIAL0 &&
                   TREG_REG_VCC_HI == TREG_REG_SPECIAL0 + 1,
               "VCC is the first two bits of the specials' first bitset word");

/* The registers of e's operands with a role bit in role, below the
 * specials, ascending without repeats, into out; returns how many.
 * Operands are few, so an insertion sort of their ranges is enough. */
static uint32_t operand_regs(const treg_insn_effect *e, unsigned role, uint32_t *out)
{
    unsigned first[TREG_MAX_OPERANDS], end[TREG_MAX_OPERANDS], m = 0;
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        unsigned f = op->reg, x = (unsigned)op->reg + op->count;
        if (!(op->role & role)) continue;
        /* a call's writes into its callee occupy only where they live on,
         * and the rows after it show those (flow/calls.h) */
        if (op->call && role == TREG_DEF) continue;
        if (x > TREG_REG_SPECIAL0) x = TREG_REG_SPECIAL0;
        if (f >= x) continue;
        unsigned j = m++;
        for (; j > 0 && first[j - 1] > f; j--) {
            first[j] = first[j - 1];
            end[j] = end[j - 1];
        }
        first[j] = f;
        end[j] = x;
    }
    uint32_t n = 0;
    unsigned next = 0; /* registers below it are out already */
    for (unsigned j = 0; j < m; j++) {
        for (unsigned r = first[j] > next ? first[j] : next; r < end[j]; r++) out[n++] = r;
        if (end[j] > next) next = end[j];
    }
    return n;
}

int treg_row_registers(treg_arena *a, const treg_insn_effect *fx, treg_row *rows, size_t n,
                       treg_error *err)
{
    size_t bound = 0; /* every operand register once per list it may enter */
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < fx[i].nops; k++) {
            const treg_operand *op = &fx[i].ops[k];
            bound +=
                (size_t)op->count * (((op->role & TREG_USE) != 0) + ((op->role & TREG_DEF) != 0));
        }
    uint32_t *pool = treg_arena_calloc(a, bound ? bound : 1, sizeof *pool);
    if (!pool) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        rows[i].reads = pool;
        rows[i].nreads = operand_regs(&fx[i], TREG_USE, pool);
        pool += rows[i].nreads;
        rows[i].writes = pool;
        rows[i].nwrites = operand_regs(&fx[i], TREG_DEF, pool);
        pool += rows[i].nwrites;
    }
    return TREG_OK;
}

/* The registers a live range may be of: those the row counts count. */
enum { RANGE_WORDS = TREG_REG_SPECIAL0 / 64 + 1, VCC_BITS = 3 };

typedef struct closed_run {
    uint32_t reg, start, end;
} closed_run;

typedef struct range_walk {
    treg_arena *arena;
    treg_regset after; /* occupied at the row after the one visited */
    uint32_t *run_end; /* per register in after: where its open run ends */
    closed_run *closed;
    size_t nclosed, cap;
    bool failed;
} range_walk;

static void close_run(range_walk *w, uint32_t reg, uint32_t start)
{
    if (w->nclosed == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        closed_run *c = treg_arena_grow(w->arena, w->closed, w->nclosed, cap, sizeof *c);
        if (!c) {
            w->failed = true;
            return;
        }
        w->closed = c;
        w->cap = cap;
    }
    w->closed[w->nclosed++] = (closed_run){reg, start, w->run_end[reg]};
}

static void visit_row(void *ctx, uint32_t i, const treg_regset *occupied)
{
    range_walk *w = ctx;
    for (unsigned word = 0; word < RANGE_WORDS; word++) {
        uint64_t now = occupied->w[word];
        if (word == RANGE_WORDS - 1) now &= VCC_BITS;
        uint64_t changed = now ^ w->after.w[word];
        while (changed) {
            unsigned bit = (unsigned)__builtin_ctzll(changed);
            uint32_t reg = word * 64 + bit;
            changed &= changed - 1;
            if ((now >> bit) & 1)
                w->run_end[reg] = i + 1;
            else
                close_run(w, reg, i + 1);
        }
        w->after.w[word] = now;
    }
}

int treg_live_ranges(treg_arena *a, const treg_cfg *g, const treg_liveness *lv,
                     const treg_insn_effect *fx, const uint8_t *exec_partial, size_t n,
                     treg_kernel_report *k, treg_error *err)
{
    range_walk w = {.arena = a};
    treg_regset_clear(&w.after);
    w.run_end = treg_arena_calloc(a, TREG_REPORT_REG_END, sizeof *w.run_end);
    uint32_t *count = treg_arena_calloc(a, TREG_REPORT_REG_END, sizeof *count);
    if (!w.run_end || !count) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_liveness_each_occupied(lv, g, fx, exec_partial, n, visit_row, &w);
    for (uint32_t reg = 0; reg < TREG_REPORT_REG_END; reg++)
        if (treg_regset_has(&w.after, reg)) close_run(&w, reg, 0);
    if (w.failed) return treg_fail(err, TREG_E_NOMEM, "out of memory");

    size_t nranges = 0;
    for (size_t j = 0; j < w.nclosed; j++)
        if (count[w.closed[j].reg]++ == 0) nranges++;
    k->live_ranges = treg_arena_calloc(a, nranges ? nranges : 1, sizeof *k->live_ranges);
    uint32_t *runs = treg_arena_calloc(a, w.nclosed ? 2 * w.nclosed : 1, sizeof *runs);
    uint32_t **fill = treg_arena_calloc(a, TREG_REPORT_REG_END, sizeof *fill);
    if (!k->live_ranges || !runs || !fill) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t reg = 0; reg < TREG_REPORT_REG_END; reg++) {
        if (!count[reg]) continue;
        treg_live_range *lr = &k->live_ranges[k->nlive_ranges++];
        lr->reg = reg;
        lr->nruns = count[reg];
        lr->runs = runs;
        runs += 2 * count[reg];
        fill[reg] = runs; /* filled backward: runs closed latest first */
    }
    for (size_t j = 0; j < w.nclosed; j++) {
        const closed_run *c = &w.closed[j];
        fill[c->reg] -= 2;
        fill[c->reg][0] = c->start;
        fill[c->reg][1] = c->end;
    }
    return TREG_OK;
}
