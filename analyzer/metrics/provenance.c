/* Value provenance: reaching definitions one register at a time, and the
 * moves (copies, cross-file moves, spills and reloads) they are looked
 * through.  Walks are breadth-first over the CFG, nearest first, with an
 * epoch-stamped visited mark so a query costs what it visits; a block's
 * last write of a register is a binary search in the register's sorted
 * list of writers, so a long block costs no more than a short one. */
#include "metrics/provenance.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/hash.h"

struct treg_prov {
    const treg_cfg *g;
    const treg_liveness *lv;
    const treg_insn_effect *fx;
    const treg_insn *insns;
    size_t n;
    uint32_t *mark; /* per block: the epoch of the walk that queued it */
    uint32_t epoch;
    uint32_t *queue;
    uint64_t *slot;       /* per scratch move: its slot's key (1: none); computed at first need */
    uint32_t *writers_of; /* per register: its first entry in writers; one more at the end */
    uint32_t *writers;    /* the instructions writing each register, in order */
    bool slots_done;
    uint64_t work;   /* steps taken (TREG_PROV_BUDGET), all walks together */
    uint64_t budget; /* the most work before a stage is spent */
    bool spent;      /* work passed TREG_PROV_BUDGET: every walk since found nothing */
};

/* Charges a walk for looking at instructions first..last of a block (or,
 * with last < first, for one step): false once the budget is spent. */
static bool charge(treg_prov *p, uint32_t first, uint32_t last)
{
    if (p->spent) return false;
    p->work += last >= first ? (uint64_t)(last - first) + 1 : 1;
    if (p->work > p->budget) p->spent = true;
    return !p->spent;
}

bool treg_prov_spent(const treg_prov *p)
{
    return p->spent;
}

uint64_t treg_prov_work(const treg_prov *p)
{
    return p->work;
}

void treg_prov_set_budget(treg_prov *p, uint64_t budget)
{
    p->budget = budget ? budget : TREG_PROV_BUDGET;
}

void treg_prov_refill(treg_prov *p)
{
    p->work = 0;
    p->spent = false;
}

int treg_prov_new(treg_arena *a, const treg_cfg *g, const treg_liveness *lv,
                  const treg_insn_effect *fx, const treg_insn *insns, size_t n, treg_prov **out,
                  treg_error *err)
{
    treg_prov *p = treg_arena_calloc(a, 1, sizeof *p);
    if (!p) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    p->g = g;
    p->lv = lv;
    p->fx = fx;
    p->insns = insns;
    p->n = n;
    p->budget = TREG_PROV_BUDGET;
    p->mark = treg_arena_calloc(a, g->nblocks ? g->nblocks : 1, sizeof *p->mark);
    p->queue = treg_arena_calloc(a, g->nblocks ? g->nblocks : 1, sizeof *p->queue);
    p->slot = treg_arena_calloc(a, n ? n : 1, sizeof *p->slot);
    p->writers_of = treg_arena_calloc(a, TREG_REG_COUNT + 1, sizeof *p->writers_of);
    uint32_t *last = treg_arena_calloc(a, TREG_REG_COUNT, sizeof *last); /* i + 1 */
    if (!p->mark || !p->queue || !p->slot || !p->writers_of || !last)
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    /* each register's writers: counted, placed by prefix sums, filled in order */
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        memset(last, 0, TREG_REG_COUNT * sizeof *last);
        for (uint32_t i = 0; i < n; i++)
            for (unsigned k = 0; k < fx[i].nops; k++) {
                const treg_operand *op = &fx[i].ops[k];
                if (!(op->role & TREG_DEF)) continue;
                for (unsigned r = op->reg; r < (unsigned)op->reg + op->count && r < TREG_REG_COUNT;
                     r++) {
                    if (last[r] == i + 1) continue; /* two operands writing one register */
                    last[r] = i + 1;
                    if (pass == 0)
                        p->writers_of[r + 1]++, total++;
                    else
                        p->writers[p->writers_of[r]++] = i;
                }
            }
        if (pass == 0) {
            for (unsigned r = 0; r < TREG_REG_COUNT; r++) p->writers_of[r + 1] += p->writers_of[r];
            p->writers = treg_arena_calloc(a, total ? total : 1, sizeof *p->writers);
            if (!p->writers) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        }
    }
    /* the fill advanced each start to the next register's: step them back */
    for (unsigned r = TREG_REG_COUNT; r > 0; r--) p->writers_of[r] = p->writers_of[r - 1];
    p->writers_of[0] = 0;
    *out = p;
    return TREG_OK;
}

/* The last instruction in [lo, hi) that writes r, or TREG_NONE. */
static uint32_t last_writer(const treg_prov *p, unsigned r, uint32_t lo, uint32_t hi)
{
    if (r >= TREG_REG_COUNT) return TREG_NONE;
    const uint32_t *w = p->writers + p->writers_of[r];
    size_t a = 0, b = p->writers_of[r + 1] - p->writers_of[r]; /* first >= hi in [a, b) */
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (w[m] < hi)
            a = m + 1;
        else
            b = m;
    }
    return a > 0 && w[a - 1] >= lo ? w[a - 1] : TREG_NONE;
}

static void new_walk(treg_prov *p)
{
    if (++p->epoch == 0) { /* wrapped: every mark is stale */
        memset(p->mark, 0, p->g->nblocks * sizeof *p->mark);
        p->epoch = 1;
    }
}

/* Backward, nearest first: the last instruction i before `before` in at's
 * block, else in the blocks that reach it, with match(p, i, ctx). */
typedef bool (*match_fn)(const treg_prov *p, uint32_t i, const void *ctx);

static uint32_t find_back(treg_prov *p, uint32_t before, uint32_t home, match_fn match,
                          const void *ctx)
{
    const treg_cfg *g = p->g;
    if (!charge(p, g->blocks[home].first, before)) return TREG_NONE;
    for (uint32_t i = before; i-- > g->blocks[home].first;)
        if (match(p, i, ctx)) return i;
    new_walk(p);
    uint32_t head = 0, tail = 0;
    for (uint32_t k = 0; k < g->blocks[home].npreds; k++) {
        uint32_t b = g->blocks[home].preds[k];
        if (p->mark[b] != p->epoch) p->mark[b] = p->epoch, p->queue[tail++] = b;
    }
    while (head < tail) {
        uint32_t b = p->queue[head++];
        const treg_block *B = &g->blocks[b];
        if (!charge(p, B->first, B->last)) return TREG_NONE;
        for (uint32_t i = B->last + 1; i-- > B->first;)
            if (match(p, i, ctx)) return i;
        for (uint32_t k = 0; k < B->npreds; k++) {
            uint32_t q = B->preds[k];
            if (p->mark[q] != p->epoch) p->mark[q] = p->epoch, p->queue[tail++] = q;
        }
    }
    return TREG_NONE;
}

/* The nearest write of r before `before` in block home, else in the blocks
 * that reach it (only those with inside[b], when inside is given). */
static uint32_t def_back(treg_prov *p, uint32_t before, uint32_t home, unsigned r,
                         const uint8_t *inside)
{
    const treg_cfg *g = p->g;
    if (!charge(p, 1, 0)) return TREG_NONE;
    uint32_t d = last_writer(p, r, g->blocks[home].first, before);
    if (d != TREG_NONE) return d;
    new_walk(p);
    uint32_t head = 0, tail = 0;
    for (uint32_t k = 0; k < g->blocks[home].npreds; k++) {
        uint32_t b = g->blocks[home].preds[k];
        if (inside && !inside[b]) continue;
        if (p->mark[b] != p->epoch) p->mark[b] = p->epoch, p->queue[tail++] = b;
    }
    while (head < tail) {
        uint32_t b = p->queue[head++];
        const treg_block *B = &g->blocks[b];
        if (!charge(p, 1, 0)) return TREG_NONE;
        if (treg_regset_has(&p->lv->defs[b], r) &&
            (d = last_writer(p, r, B->first, B->last + 1)) != TREG_NONE)
            return d;
        for (uint32_t k = 0; k < B->npreds; k++) {
            uint32_t q = B->preds[k];
            if (inside && !inside[q]) continue;
            if (p->mark[q] != p->epoch) p->mark[q] = p->epoch, p->queue[tail++] = q;
        }
    }
    return TREG_NONE;
}

uint32_t treg_prov_def(treg_prov *p, uint32_t at, unsigned r, bool with_at)
{
    if (at >= p->n) return TREG_NONE;
    return def_back(p, with_at ? at + 1 : at, p->g->block_of[at], r, NULL);
}

unsigned treg_prov_defs(treg_prov *p, uint32_t at, unsigned r, bool with_at, uint32_t *out,
                        unsigned max)
{
    if (at >= p->n || !max) return 0;
    const treg_cfg *g = p->g;
    uint32_t home = g->block_of[at];
    if (!charge(p, 1, 0)) return 0;
    uint32_t d = last_writer(p, r, g->blocks[home].first, with_at ? at + 1 : at);
    if (d != TREG_NONE) {
        out[0] = d;
        return 1;
    }
    /* each path back stops at its first definition; others go on */
    unsigned n = 0;
    new_walk(p);
    uint32_t head = 0, tail = 0;
    for (uint32_t k = 0; k < g->blocks[home].npreds; k++) {
        uint32_t b = g->blocks[home].preds[k];
        if (p->mark[b] != p->epoch) p->mark[b] = p->epoch, p->queue[tail++] = b;
    }
    while (head < tail && n < max) {
        uint32_t b = p->queue[head++];
        const treg_block *B = &g->blocks[b];
        if (!charge(p, 1, 0)) return 0;
        if (treg_regset_has(&p->lv->defs[b], r) &&
            (d = last_writer(p, r, B->first, B->last + 1)) != TREG_NONE) {
            out[n++] = d;
            continue;
        }
        for (uint32_t k = 0; k < B->npreds; k++) {
            uint32_t q = B->preds[k];
            if (p->mark[q] != p->epoch) p->mark[q] = p->epoch, p->queue[tail++] = q;
        }
    }
    return n;
}

uint32_t treg_prov_def_within(treg_prov *p, uint32_t at, unsigned r, const uint8_t *inside)
{
    if (at >= p->n) return TREG_NONE;
    return def_back(p, at, p->g->block_of[at], r, inside);
}

/* --- operands as printed ----------------------------------------------------------- */

/* The operand of e that writes r (its first register, count), or NULL. */
static const treg_operand *def_of(const treg_insn_effect *e, unsigned r)
{
    for (unsigned k = 0; k < e->nops; k++)
        if ((e->ops[k].role & TREG_DEF) && r >= e->ops[k].reg &&
            r < (unsigned)e->ops[k].reg + e->ops[k].count)
            return &e->ops[k];
    return NULL;
}

/* The one register operand e reads outside the specials (EXEC, VCC, M0,
 * SCC): a copy's source; NULL when there is none or several. */
static const treg_operand *sole_source(const treg_insn_effect *e)
{
    const treg_operand *src = NULL;
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (op->role != TREG_USE || op->reg >= TREG_REG_SPECIAL0 || op->old) continue;
        if (src) return NULL;
        src = op;
    }
    return src;
}

static bool mnemonic_is(const treg_insn_effect *e, const char *base)
{
    size_t n = strlen(base);
    if (e->mnemonic_len < n || memcmp(e->mnemonic, base, n) != 0) return false;
    size_t rest = e->mnemonic_len - n;
    const char *tail = e->mnemonic + n;
    return rest == 0 ||
           (rest == 4 && (memcmp(tail, "_e32", 4) == 0 || memcmp(tail, "_e64", 4) == 0));
}

/* Whole-register copies: what they write is what they read. */
static bool is_copy(const treg_insn_effect *e)
{
    static const char *const copies[] = {
        "v_mov_b32",           "v_mov_b64",          "s_mov_b32",       "s_mov_b64",
        "v_accvgpr_write_b32", "v_accvgpr_read_b32", "v_accvgpr_write", "v_accvgpr_read",
        "v_accvgpr_mov_b32",   "v_readfirstlane_b32"};
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
        if (mnemonic_is(e, copies[i])) return true;
    return false;
}

/* --- spill slots ------------------------------------------------------------------- */

static uint64_t mix(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* A scratch store's or load's slot: its address fields as printed (the
 * data field left out), an SGPR address by the constant its definition
 * puts there, and the offset: modifier.  1 when it has no such form. */
static uint64_t slot_key(treg_prov *p, uint32_t i)
{
    const treg_insn_effect *e = &p->fx[i];
    const char *text = p->insns[i].text;
    bool store = e->move == TREG_MOVE_SCRATCH_STORE;
    /* scratch_store: vaddr, vdata, saddr; buffer_store: vdata, vaddr, rsrc, soffset;
     * loads: vdst first, then the address fields */
    bool scratch = strncmp(text, "scratch_", 8) == 0;
    unsigned data = store ? (scratch ? 1u : 0u) : 0u;
    uint64_t h = 0xcbf29ce484222325ull;
    const char *s;
    size_t len;
    for (unsigned k = 0; k < 5 && treg_insn_field(text, k, &s, &len); k++) {
        if (k == data) continue;
        /* the field's first word is the operand; offset:N may follow it */
        size_t w = 0;
        while (w < len && s[w] != ' ') w++;
        const char *mod = strstr(s, "offset:");
        if (mod && mod < s + len) {
            size_t m = 7;
            while (mod + m < s + len && mod[m] != ' ') m++;
            h = mix(h, mod, m);
        }
        h = mix(h, ",", 1);
        if (s[0] == 's' && w > 1 && s[1] >= '0' && s[1] <= '9') {
            /* s0: the constant its definition gives it, when that is one */
            unsigned r = TREG_REG_S0 + (unsigned)strtoul(s + 1, NULL, 10);
            uint32_t d = r < TREG_REG_SPECIAL0 ? treg_prov_def(p, i, r, false) : TREG_NONE;
            const char *ds;
            size_t dl;
            if (d != TREG_NONE && treg_insn_field(p->insns[d].text, 1, &ds, &dl)) {
                const char *dm = p->insns[d].text;
                size_t ml = 0;
                while (dm[ml] && dm[ml] != ' ') ml++;
                h = mix(h, dm, ml);
                h = mix(h, ds, dl);
                continue;
            }
        }
        h = mix(h, s, w);
    }
    return h < 2 ? h + 2 : h;
}

/* Every scratch move's slot, once (each costs a walk for its address
 * SGPR's definition, which may not run inside another walk). */
static void ensure_slots(treg_prov *p)
{
    if (p->slots_done) return;
    p->slots_done = true;
    for (uint32_t i = 0; i < p->n; i++)
        if (p->fx[i].move == TREG_MOVE_SCRATCH_STORE || p->fx[i].move == TREG_MOVE_SCRATCH_LOAD)
            p->slot[i] = slot_key(p, i);
}

static bool stores_slot(const treg_prov *p, uint32_t i, const void *ctx)
{
    return p->fx[i].move == TREG_MOVE_SCRATCH_STORE && p->slot[i] == *(const uint64_t *)ctx;
}

typedef struct lane_query {
    unsigned vgpr;
    const char *lane;
    size_t lane_len;
} lane_query;

static bool writes_lane(const treg_prov *p, uint32_t i, const void *ctx)
{
    const lane_query *q = ctx;
    if (p->fx[i].move != TREG_MOVE_SGPR_TO_LANE || !treg_insn_writes(&p->fx[i], q->vgpr))
        return false;
    const char *s;
    size_t len;
    return treg_insn_field(p->insns[i].text, 2, &s, &len) && len == q->lane_len &&
           memcmp(s, q->lane, len) == 0;
}

/* The register operand of a move that carries its data (a store's vdata,
 * a writelane's SGPR). */
static const treg_operand *data_source(const treg_insn_effect *e, treg_regclass cls)
{
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (op->role == TREG_USE && !op->old && treg_reg_class(op->reg) == cls) return op;
    }
    return NULL;
}

unsigned treg_prov_move_source(treg_prov *p, uint32_t d, unsigned r, uint32_t *via)
{
    *via = TREG_NONE;
    if (d >= p->n) return TREG_NO_REG;
    const treg_insn_effect *e = &p->fx[d];
    const treg_operand *dst = def_of(e, r);
    if (!dst) return TREG_NO_REG;
    unsigned k = r - dst->reg;
    if (e->move == TREG_MOVE_SCRATCH_LOAD) {
        ensure_slots(p);
        uint64_t q = p->slot[d];
        uint32_t st = find_back(p, d, p->g->block_of[d], stores_slot, &q);
        if (st == TREG_NONE) return TREG_NO_REG;
        const treg_operand *data = data_source(&p->fx[st], treg_reg_class(r));
        if (!data) data = data_source(&p->fx[st], TREG_CLASS_V);
        if (!data || k >= data->count) return TREG_NO_REG;
        *via = st;
        return data->reg + k;
    }
    if (e->move == TREG_MOVE_LANE_TO_SGPR) {
        const char *vs, *lane;
        size_t vl, ll;
        if (!treg_insn_field(p->insns[d].text, 1, &vs, &vl) ||
            !treg_insn_field(p->insns[d].text, 2, &lane, &ll))
            return TREG_NO_REG;
        const treg_operand *from = data_source(e, TREG_CLASS_V);
        if (!from) return TREG_NO_REG;
        lane_query q = {from->reg, lane, ll};
        uint32_t w = find_back(p, d, p->g->block_of[d], writes_lane, &q);
        if (w == TREG_NONE) return TREG_NO_REG;
        const treg_operand *data = data_source(&p->fx[w], TREG_CLASS_S);
        if (!data) return TREG_NO_REG;
        *via = w;
        return data->reg;
    }
    if (!is_copy(e)) return TREG_NO_REG;
    const treg_operand *src = sole_source(e);
    if (!src || k >= src->count) return TREG_NO_REG;
    return src->reg + k;
}

uint32_t treg_prov_origin(treg_prov *p, uint32_t at, unsigned r, unsigned *reg, unsigned *moves)
{
    uint32_t d = treg_prov_def(p, at, r, true);
    unsigned m = 0;
    while (d != TREG_NONE && m < TREG_PROV_MAX_MOVES) {
        uint32_t via;
        unsigned s = treg_prov_move_source(p, d, r, &via);
        if (s == TREG_NO_REG) break;
        m++;
        r = s;
        d = treg_prov_def(p, via != TREG_NONE ? via : d, s, false);
    }
    if (reg) *reg = r;
    if (moves) *moves = m;
    return d;
}

static bool reads_reg(const treg_insn_effect *e, unsigned r)
{
    for (unsigned k = 0; k < e->nops; k++)
        if ((e->ops[k].role & TREG_USE) && r >= e->ops[k].reg &&
            r < (unsigned)e->ops[k].reg + e->ops[k].count)
            return true;
    return false;
}

/* A write of all of r (not a partial one): the value ends there. */
static bool kills_reg(const treg_insn_effect *e, unsigned r)
{
    const treg_operand *d = def_of(e, r);
    return d && d->role == TREG_DEF && d->half == TREG_HALF_BOTH;
}

uint32_t treg_prov_next_use(treg_prov *p, uint32_t at, unsigned r)
{
    if (at >= p->n) return TREG_NONE;
    const treg_cfg *g = p->g;
    uint32_t home = g->block_of[at];
    if (!charge(p, at, g->blocks[home].last)) return TREG_NONE;
    for (uint32_t i = at + 1; i <= g->blocks[home].last; i++) {
        if (reads_reg(&p->fx[i], r)) return i;
        if (kills_reg(&p->fx[i], r)) return TREG_NONE;
    }
    new_walk(p);
    uint32_t head = 0, tail = 0;
    for (uint32_t k = 0; k < g->blocks[home].nsucc; k++) {
        uint32_t b = g->blocks[home].succ[k];
        if (p->mark[b] != p->epoch) p->mark[b] = p->epoch, p->queue[tail++] = b;
    }
    while (head < tail) {
        const treg_block *B = &g->blocks[p->queue[head++]];
        if (!charge(p, B->first, B->last)) return TREG_NONE;
        bool killed = false;
        for (uint32_t i = B->first; i <= B->last && !killed; i++) {
            if (reads_reg(&p->fx[i], r)) return i;
            killed = kills_reg(&p->fx[i], r);
        }
        if (killed) continue;
        for (uint32_t k = 0; k < B->nsucc; k++) {
            uint32_t b = B->succ[k];
            if (p->mark[b] != p->epoch) p->mark[b] = p->epoch, p->queue[tail++] = b;
        }
    }
    return TREG_NONE;
}
