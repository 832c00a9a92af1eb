/* Categories of the peak's registers; see categories.h. */
#include "metrics/categories.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/hash.h"

static const char *const category_names[TREG_CAT_COUNT] = {
    "accumulator", "loaded_tile",  "lds_read",  "address",
    "mask",        "loop_carried", "reduction", "other",
};

const char *treg_category_kind_name(int kind)
{
    return kind >= 0 && kind < TREG_CAT_COUNT ? category_names[kind] : "other";
}

/* --- the machine instruction's own kind -------------------------------------------- */

enum mclass {
    M_MATRIX,
    M_GLOBAL_LOAD,
    M_LDS_LOAD,
    M_CROSS_LANE,
    M_COMPARE,
    M_INT,
    M_PACK,
    M_OTHER
};

/* Mnemonic prefixes per class (the ISA manuals' instruction families). */
static const struct {
    const char *prefix;
    enum mclass cls;
} families[] = {
    {"v_mfma", M_MATRIX},
    {"v_smfmac", M_MATRIX},
    {"v_wmma", M_MATRIX},
    {"v_swmmac", M_MATRIX},
    {"v_mmac", M_MATRIX},
    {"global_load", M_GLOBAL_LOAD},
    {"buffer_load", M_GLOBAL_LOAD},
    {"flat_load", M_GLOBAL_LOAD},
    {"ds_read_addtid", M_OTHER},
    {"ds_load_addtid", M_OTHER},
    {"ds_read", M_LDS_LOAD},
    {"ds_load", M_LDS_LOAD},
    {"v_permlane", M_CROSS_LANE},
    {"ds_swizzle", M_CROSS_LANE},
    {"ds_bpermute", M_CROSS_LANE},
    {"ds_permute", M_CROSS_LANE},
    {"v_readlane", M_CROSS_LANE},
    {"v_readfirstlane", M_CROSS_LANE},
    {"v_cmp", M_COMPARE},
    {"v_perm_b32", M_PACK},
    {"v_pack_b32", M_PACK},
    {"v_cvt_pk", M_PACK},
    {"v_alignbyte", M_PACK},
    {"v_add_u32", M_INT},
    {"v_add_co_u32", M_INT},
    {"v_addc_co_u32", M_INT},
    {"v_add_nc_u32", M_INT},
    {"v_add_i32", M_INT},
    {"v_sub_u32", M_INT},
    {"v_sub_co_u32", M_INT},
    {"v_subb_co_u32", M_INT},
    {"v_subrev_u32", M_INT},
    {"v_subrev_co_u32", M_INT},
    {"v_sub_nc_u32", M_INT},
    {"v_mul_lo_u32", M_INT},
    {"v_mul_hi_u32", M_INT},
    {"v_mul_hi_i32", M_INT},
    {"v_mul_u32_u24", M_INT},
    {"v_mul_i32_i24", M_INT},
    {"v_mad_u32_u24", M_INT},
    {"v_mad_i32_i24", M_INT},
    {"v_mad_u64_u32", M_INT},
    {"v_mad_i64_i32", M_INT},
    {"v_mad_co_u64_u32", M_INT},
    {"v_lshlrev", M_INT},
    {"v_lshrrev", M_INT},
    {"v_ashrrev", M_INT},
    {"v_lshl_", M_INT},
    {"v_add_lshl", M_INT},
    {"v_and_or", M_INT},
    {"v_or3", M_INT},
    {"v_add3", M_INT},
    {"v_and_b32", M_INT},
    {"v_or_b32", M_INT},
    {"v_xor_b32", M_INT},
    {"v_bfe_", M_INT},
    {"v_alignbit", M_INT},
    {"s_", M_INT},
};

static enum mclass mclass_of(const treg_insn_effect *e)
{
    if (treg_mnemonic_dpp(e)) return M_CROSS_LANE;
    if (e->move == TREG_MOVE_SCRATCH_LOAD) return M_OTHER;
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (treg_mnemonic_starts(e, families[i].prefix)) return families[i].cls;
    return M_OTHER;
}

/* --- the TTGIR operation at an instruction's location ------------------------------ */

enum opkind {
    OPK_NONE,
    OPK_DOT,
    OPK_LOAD,
    OPK_LDS,
    OPK_REDUCE,
    OPK_MASK,
    OPK_ADDRESS,
    OPK_LOOP,
    OPK_OTHER
};

static bool name_has(const char *name, const char *part)
{
    return strstr(name, part) != NULL;
}

static bool int_or_ptr(const treg_ttgir_type *t)
{
    return strcmp(t->elem, "ptr") == 0 || (t->elem[0] == 'i' && strcmp(t->elem, "i1") != 0) ||
           strcmp(t->elem, "index") == 0;
}

static enum opkind op_kind(const treg_ttgir *t, int32_t k)
{
    if (k < 0) return OPK_NONE;
    const treg_ttgir_op *op = &t->ops[k];
    for (int32_t r = op->region; r >= 0; r = t->ops[r].region)
        if (strcmp(t->ops[r].name, "tt.reduce") == 0 || strcmp(t->ops[r].name, "tt.scan") == 0)
            return OPK_REDUCE;
    const char *n = op->name;
    if (strncmp(n, "tt.dot", 6) == 0 || name_has(n, "mfma") || name_has(n, "wmma")) return OPK_DOT;
    if (strcmp(n, "tt.load") == 0 || strcmp(n, "tt.descriptor_load") == 0 ||
        name_has(n, "buffer_load") || name_has(n, "async_copy"))
        return OPK_LOAD;
    if (strcmp(n, "ttg.local_load") == 0) return OPK_LDS;
    if (strncmp(n, "tt.reduce", 9) == 0 || strncmp(n, "tt.scan", 7) == 0) return OPK_REDUCE;
    if (strcmp(n, "arith.cmpi") == 0 || strcmp(n, "arith.cmpf") == 0 ||
        strcmp(op->type.elem, "i1") == 0)
        return OPK_MASK;
    if (strncmp(n, "scf.", 4) == 0) return OPK_LOOP;
    if (strcmp(n, "tt.addptr") == 0 || strcmp(n, "tt.make_range") == 0 ||
        strcmp(n, "tt.get_program_id") == 0 || int_or_ptr(&op->type))
        return OPK_ADDRESS;
    return OPK_OTHER;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

typedef struct frame_key {
    const char *base;
    uint32_t line, column;
} frame_key;

static uint64_t key_hash(const frame_key *k)
{
    uint64_t h = treg_fnv1a(k->base, strlen(k->base));
    return (h ^ k->line * 0x9e3779b97f4a7c15ull) ^ (uint64_t)k->column * 0xc2b2ae3d27d4eb4full;
}

/* The operations by their innermost frame, chained. */
struct treg_cat_index {
    const treg_ttgir *ttgir;
    int32_t *slots; /* first op with the key's hash bucket */
    int32_t *next;  /* the next op in the same bucket */
    size_t nslots;
};

/* Most operations one instruction's location is compared with (its
 * bucket's chain): a line holds a few ops, a hostile .ttgir could put
 * thousands at one place or in one bucket. */
enum { MAX_OPS_AT_LOC = 256 };

int treg_cat_index_new(treg_arena *a, const treg_ttgir *t, treg_cat_index **out, treg_error *err)
{
    treg_cat_index *x = treg_arena_calloc(a, 1, sizeof *x);
    if (!x) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    x->ttgir = t;
    size_t n = 64;
    while (n < t->nops * 2) n *= 2;
    x->slots = treg_arena_calloc(a, n, sizeof *x->slots);
    x->next = treg_arena_calloc(a, t->nops ? t->nops : 1, sizeof *x->next);
    if (!x->slots || !x->next) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    x->nslots = n;
    for (size_t i = 0; i < n; i++) x->slots[i] = -1;
    for (size_t k = t->nops; k-- > 0;) { /* chains in program order */
        const treg_ttgir_op *op = &t->ops[k];
        x->next[k] = -1;
        if (!op->nframes) continue;
        const treg_ttgir_frame *f = &t->frames[op->first_frame];
        frame_key key = {base_name(f->file), f->line, f->column};
        size_t b = key_hash(&key) & (n - 1);
        x->next[k] = x->slots[b];
        x->slots[b] = (int32_t)k;
    }
    *out = x;
    return TREG_OK;
}

static bool frame_is(const treg_ttgir_frame *f, const char *path, uint32_t line, uint32_t col)
{
    return f->line == line && f->column == col && strcmp(base_name(f->file), base_name(path)) == 0;
}

/* How far elementwise math is followed back to the tile it computes on. */
enum { DERIVED_DEPTH = 3 };

typedef struct ctx {
    const treg_cat_input *in;
    const treg_cat_index *index;
    uint8_t *in_loop;    /* per block: in the loop being looked at */
    uint8_t *mclass;     /* per instruction: its enum mclass + 1, 0 until asked */
    uint8_t *derived;    /* per instruction and depth: derived_from + 1, 0 until asked */
    unsigned classified; /* peak registers given a category */
} ctx;

/* Instruction i's class, found once. */
static enum mclass mclass_at(const ctx *c, uint32_t i)
{
    if (!c->mclass[i]) c->mclass[i] = (uint8_t)(mclass_of(&c->in->fx[i]) + 1);
    return (enum mclass)(c->mclass[i] - 1);
}

static const char *file_of(const ctx *c, int32_t f)
{
    return f >= 0 && (size_t)f < c->in->lines->nfiles ? c->in->lines->files[f] : "";
}

/* Whether op's frames are instruction i's whole inlined chain. */
static bool chain_matches(const ctx *c, const treg_ttgir_op *op, uint32_t i)
{
    const treg_ttgir *t = c->in->ttgir;
    const treg_row *row = &c->in->rows[i];
    uint32_t k = 1;
    for (int32_t s = row->scope; s >= 0 && (size_t)s < c->in->lines->inlines.ncalls; k++) {
        const treg_inline_call *call = &c->in->lines->inlines.calls[s];
        if (k >= op->nframes || !frame_is(&t->frames[op->first_frame + k], file_of(c, call->file),
                                          call->line, call->column))
            return false;
        if (call->parent >= s) break;
        s = call->parent;
    }
    return k == op->nframes;
}

/* How well op suits what instruction class cls computes. */
static int suits(const treg_ttgir *t, int32_t k, enum mclass cls)
{
    enum opkind ok = op_kind(t, k);
    const char *n = t->ops[k].name;
    if (cls == M_MATRIX) return ok == OPK_DOT ? 3 : 0;
    if (cls == M_GLOBAL_LOAD) return ok == OPK_LOAD ? 3 : 0;
    if (cls == M_LDS_LOAD) return ok == OPK_LDS ? 3 : 0;
    if (cls == M_COMPARE) return ok == OPK_MASK ? 3 : 0;
    /* a constant or an allocation says little when something else is there */
    if (strcmp(n, "arith.constant") == 0 || strncmp(n, "ttg.local_", 10) == 0 ||
        strncmp(n, "ttg.memdesc", 11) == 0 || strcmp(n, "scf.yield") == 0)
        return 1;
    return 2;
}

/* The TTGIR op instruction i came from, -1 when none is at its location. */
static int32_t op_of(const ctx *c, uint32_t i, enum mclass cls)
{
    const treg_ttgir *t = c->in->ttgir;
    const treg_row *row = &c->in->rows[i];
    if (!t || !c->index || !row->loc.line) return -1;
    frame_key key = {base_name(file_of(c, row->loc.file)), row->loc.line, row->loc.column};
    int32_t best = -1;
    int best_score = -1;
    unsigned seen = 0;
    for (int32_t k = c->index->slots[key_hash(&key) & (c->index->nslots - 1)];
         k >= 0 && seen < MAX_OPS_AT_LOC; k = c->index->next[k]) {
        const treg_ttgir_op *op = &t->ops[k];
        seen++;
        if (!frame_is(&t->frames[op->first_frame], key.base, key.line, key.column)) continue;
        int score = suits(t, k, cls) * 2 + (chain_matches(c, op, i) ? 1 : 0);
        if (score > best_score) best = k, best_score = score;
    }
    return best;
}

/* --- one register --------------------------------------------------------------------- */

typedef struct verdict {
    int kind;
    int32_t op;    /* TTGIR op, -1 */
    uint32_t insn; /* the origin instruction, TREG_NONE: the entry */
} verdict;

static int combine(enum mclass mc, enum opkind ok)
{
    switch (mc) {
    case M_MATRIX:
        return TREG_CAT_ACCUMULATOR;
    case M_GLOBAL_LOAD:
        return TREG_CAT_LOADED;
    case M_LDS_LOAD: /* a reduction's result shared through LDS is the reduction's */
        return ok == OPK_REDUCE ? TREG_CAT_REDUCTION : TREG_CAT_LDS;
    case M_CROSS_LANE:
        return TREG_CAT_REDUCTION;
    default:
        break;
    }
    switch (ok) {
    case OPK_LOAD:
        return TREG_CAT_LOADED;
    case OPK_LDS:
        return TREG_CAT_LDS;
    case OPK_REDUCE:
        return TREG_CAT_REDUCTION;
    case OPK_MASK:
        return TREG_CAT_MASK;
    case OPK_ADDRESS:
        return TREG_CAT_ADDRESS;
    case OPK_LOOP:
        return mc == M_INT ? TREG_CAT_ADDRESS : TREG_CAT_LOOP_CARRIED;
    case OPK_DOT: /* a dot without matrix instructions (gfx906): its FMAs */
        return mc == M_COMPARE ? TREG_CAT_MASK : TREG_CAT_ACCUMULATOR;
    case OPK_OTHER:
        return mc == M_COMPARE ? TREG_CAT_MASK : TREG_CAT_OTHER;
    case OPK_NONE:
        break;
    }
    return mc == M_COMPARE ? TREG_CAT_MASK : mc == M_INT ? TREG_CAT_ADDRESS : TREG_CAT_OTHER;
}

/* Back through moves from definition d of r; packing looked through to the
 * first register it packs. */
static uint32_t origin_from(const ctx *c, uint32_t d, unsigned r)
{
    treg_prov *prov = c->in->prov;
    for (unsigned steps = 0; d != TREG_NONE && steps < TREG_PROV_MAX_MOVES; steps++) {
        uint32_t via;
        unsigned s = treg_prov_move_source(prov, d, r, &via);
        if (s == TREG_NO_REG) {
            if (mclass_at(c, d) != M_PACK) return d;
            const treg_insn_effect *e = &c->in->fx[d];
            for (unsigned k = 0; k < e->nops && s == TREG_NO_REG; k++)
                if (e->ops[k].role == TREG_USE && !e->ops[k].old &&
                    treg_reg_class(e->ops[k].reg) == TREG_CLASS_V)
                    s = e->ops[k].reg;
            if (s == TREG_NO_REG) return d;
        }
        r = s;
        d = treg_prov_def(prov, via != TREG_NONE ? via : d, s, false);
    }
    return d;
}

/* What elementwise math at o computes from: the strongest tile among the
 * origins of its vector operands, looking up to depth steps back through
 * more math (a matrix result, then a global load, then an LDS read);
 * TREG_CAT_OTHER when none.  exp2(qk) is the score tile's, x - max(x) the
 * loaded row's. */
static int derived_uncached(const ctx *c, uint32_t o, unsigned depth);

static int derived_from(const ctx *c, uint32_t o, unsigned depth)
{
    /* many registers share their math's operands: each (o, depth) once */
    uint8_t *memo = &c->derived[(size_t)o * (DERIVED_DEPTH + 1) + depth];
    if (!*memo) *memo = (uint8_t)(derived_uncached(c, o, depth) + 1);
    return *memo - 1;
}

static int derived_uncached(const ctx *c, uint32_t o, unsigned depth)
{
    const treg_insn_effect *e = &c->in->fx[o];
    int found = TREG_CAT_OTHER;
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        treg_regclass cls = treg_reg_class(op->reg);
        if (op->role != TREG_USE || op->old || (cls != TREG_CLASS_V && cls != TREG_CLASS_A))
            continue;
        uint32_t d = treg_prov_def(c->in->prov, o, op->reg, false);
        uint32_t src = d == TREG_NONE ? TREG_NONE : origin_from(c, d, op->reg);
        if (src == TREG_NONE) continue;
        int here = TREG_CAT_OTHER;
        switch (mclass_at(c, src)) {
        case M_MATRIX:
            return TREG_CAT_ACCUMULATOR; /* the strongest: no need to look on */
        case M_GLOBAL_LOAD:
            here = TREG_CAT_LOADED;
            break;
        case M_LDS_LOAD:
            here = TREG_CAT_LDS;
            break;
        case M_OTHER:
        case M_PACK:
            if (depth) here = derived_from(c, src, depth - 1);
            break;
        default:
            break;
        }
        if (here == TREG_CAT_ACCUMULATOR) return here;
        if ((here == TREG_CAT_LOADED) || (here == TREG_CAT_LDS && found == TREG_CAT_OTHER))
            found = here;
    }
    return found;
}

/* Which kinds say more when a value may come from several definitions
 * (an accumulator's zero start and its MFMA round the loop): the larger. */
static const int priority[TREG_CAT_COUNT] = {
    [TREG_CAT_ACCUMULATOR] = 7,  [TREG_CAT_LOADED] = 6, [TREG_CAT_LDS] = 5,
    [TREG_CAT_REDUCTION] = 4,    [TREG_CAT_MASK] = 3,   [TREG_CAT_ADDRESS] = 2,
    [TREG_CAT_LOOP_CARRIED] = 1, [TREG_CAT_OTHER] = 0,
};

/* Multiply-adds of values: v_fma_f32, v_fmac_f32, v_pk_fma_f32, v_mac_f32,
 * v_mad_f32, v_dot2_f32_f16, ...; not the integer ones the families table
 * calls address arithmetic (v_mad_u64_u32, v_mad_u32_u24). */
static bool mac_family(const treg_insn_effect *e)
{
    static const char *const mac[] = {"v_fma", "v_fmac", "v_mac", "v_mad", "v_pk_fma", "v_dot"};
    if (mclass_of(e) == M_INT) return false;
    for (size_t i = 0; i < sizeof mac / sizeof *mac; i++)
        if (treg_mnemonic_starts(e, mac[i])) return true;
    return false;
}

/* The register a multiply-add adds to: its tied destination (v_fmac), else
 * its last vector source (v_fma's src2); TREG_NO_REG when none. */
static unsigned addend(const treg_insn_effect *e)
{
    unsigned last = TREG_NO_REG;
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        treg_regclass cls = treg_reg_class(op->reg);
        if (!(op->role & TREG_USE) || (cls != TREG_CLASS_V && cls != TREG_CLASS_A)) continue;
        if (op->old) return op->reg;
        last = op->reg;
    }
    return last;
}

/* Whether multiply-add o accumulates: it sits in a loop and adds to what a
 * multiply-add made or to a value made before the loop (the accumulator's
 * start), as a dot product done with FMAs does (gfx906, hand-written
 * kernels), whatever registers the compiler rotates it through. */
static bool accumulates(const ctx *c, uint32_t o)
{
    const treg_cat_input *in = c->in;
    if (!mac_family(&in->fx[o]) || !in->rows[o].loop_depth) return false;
    unsigned r = addend(&in->fx[o]);
    if (r == TREG_NO_REG) return false;
    uint32_t d = treg_prov_def(in->prov, o, r, false);
    uint32_t src = d == TREG_NONE ? TREG_NONE : origin_from(c, d, r);
    if (src == TREG_NONE) return false;
    return mac_family(&in->fx[src]) || in->rows[src].loop_depth < in->rows[o].loop_depth;
}

/* The verdict for definition d of r. */
static verdict judge(const ctx *c, uint32_t d, unsigned r, bool carried)
{
    const treg_cat_input *in = c->in;
    verdict v = {TREG_CAT_ADDRESS, -1, TREG_NONE};
    uint32_t o = d == TREG_NONE ? TREG_NONE : origin_from(c, d, r);
    if (o == TREG_NONE) return v; /* work-item ids and arguments: what offsets are made of */
    enum mclass mc = mclass_at(c, o);
    v.insn = o;
    v.op = op_of(c, o, mc);
    enum opkind ok = in->ttgir ? op_kind(in->ttgir, v.op) : OPK_NONE;
    v.kind = combine(mc, ok);
    /* elementwise math on a matrix result, in its layout, is that tile */
    if (v.kind == TREG_CAT_OTHER && v.op >= 0 && in->ttgir->ops[v.op].type.mma_layout)
        v.kind = TREG_CAT_ACCUMULATOR;
    /* without a TTGIR op: a dot done with multiply-adds */
    if (v.kind == TREG_CAT_OTHER && ok == OPK_NONE && accumulates(c, o))
        v.kind = TREG_CAT_ACCUMULATOR;
    if (v.kind == TREG_CAT_OTHER && (mc == M_OTHER || mc == M_PACK))
        v.kind = derived_from(c, o, DERIVED_DEPTH);
    if (v.kind == TREG_CAT_OTHER && carried) v.kind = TREG_CAT_LOOP_CARRIED;
    return v;
}

enum { MAX_DEFS = 4 };

static verdict classify(const ctx *c, uint32_t at, unsigned r, const treg_regset *header_live,
                        uint32_t loop)
{
    const treg_cat_input *in = c->in;
    uint32_t defs[MAX_DEFS + 1];
    unsigned n = treg_prov_defs(in->prov, at, r, true, defs, MAX_DEFS);
    bool carried = false;
    /* a value live into the loop and made again inside it: what the back edge brings */
    if (loop != TREG_NONE && header_live && treg_regset_has(header_live, r)) {
        uint32_t inner = treg_prov_def_within(in->prov, at, r, c->in_loop);
        bool known = false;
        for (unsigned i = 0; i < n; i++) known |= defs[i] == inner;
        if (inner != TREG_NONE && !known) defs[n++] = inner;
        carried = inner != TREG_NONE;
    }
    if (!n) return judge(c, TREG_NONE, r, false);
    verdict best = judge(c, defs[0], r, carried);
    for (unsigned i = 1; i < n; i++) {
        verdict v = judge(c, defs[i], r, carried);
        if (priority[v.kind] > priority[best.kind]) best = v;
    }
    return best;
}

/* --- parts and categories ----------------------------------------------------------- */

typedef struct part_acc {
    int kind;
    const char *op;
    int32_t ttgir_op;
    treg_loc loc;
    uint16_t vgpr, agpr, uniform;
    bool in_loop; /* made inside a loop */
} part_acc;

/* The family of a mnemonic: "v_mfma_f32_32x32x8f16" -> "v_mfma". */
static const char *family(treg_arena *a, const treg_insn_effect *e)
{
    size_t n = 0, unders = 0;
    while (n < e->mnemonic_len && !(e->mnemonic[n] == '_' && ++unders == 2)) n++;
    return treg_arena_strndup(a, e->mnemonic, n);
}

static uint32_t tile_registers(const treg_cat_input *in, const treg_ttgir_op *op)
{
    if (!op || !op->type.ndims || !in->num_warps || !in->wave_size) return 0;
    const char *elem = op->type.elem;
    if (strcmp(elem, "ptr") == 0 && strcmp(op->name, "tt.load") == 0) elem = op->type.pointee;
    unsigned bytes = treg_ttgir_elem_bytes(elem);
    if (!bytes) return 0;
    uint64_t elements = 1;
    for (unsigned d = 0; d < op->type.ndims; d++) {
        if (op->type.dims[d] && elements > (1ull << 40) / op->type.dims[d]) return UINT32_MAX;
        elements *= op->type.dims[d];
    }
    uint64_t per = 4ull * in->wave_size * in->num_warps;
    uint64_t regs = (elements * bytes + per - 1) / per;
    return regs > UINT32_MAX ? UINT32_MAX : (uint32_t)regs;
}

static const char *shape_of(treg_arena *a, const treg_ttgir_op *op)
{
    if (!op || !op->type.ndims) return NULL;
    char buf[96];
    size_t at = 0;
    for (unsigned d = 0; d < op->type.ndims && at < sizeof buf; d++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%ux", op->type.dims[d]);
    /* a load's tensor of pointers is a tensor of what they point to */
    bool load = strcmp(op->name, "tt.load") == 0;
    bool ptr = strcmp(op->type.elem, "ptr") == 0;
    if (at < sizeof buf)
        snprintf(buf + at, sizeof buf - at, "%s%s%s", ptr && !load ? "ptr<" : "",
                 ptr ? op->type.pointee : op->type.elem, ptr && !load ? ">" : "");
    return treg_arena_strdup(a, buf);
}

static int cmp_part(const void *pa, const void *pb)
{
    const treg_category_part *a = pa, *b = pb;
    unsigned x = (unsigned)a->vgpr + a->agpr, y = (unsigned)b->vgpr + b->agpr;
    if (x != y) return x > y ? -1 : 1;
    return a->loc.line < b->loc.line ? -1 : a->loc.line > b->loc.line;
}

static int cmp_category(const void *pa, const void *pb)
{
    const treg_category *a = pa, *b = pb;
    unsigned x = (unsigned)a->vgpr + a->agpr, y = (unsigned)b->vgpr + b->agpr;
    if (x != y) return x > y ? -1 : 1;
    return a->kind - b->kind;
}

/* The largest part made by a matrix instruction's op (tt.dot), or NULL. */
static const treg_category_part *dot_part(const treg_category *cat)
{
    for (size_t j = 0; j < cat->nparts; j++)
        if (strncmp(cat->parts[j].op, "tt.dot", 6) == 0 ||
            strncmp(cat->parts[j].op, "v_mfma", 6) == 0 ||
            strncmp(cat->parts[j].op, "v_wmma", 6) == 0)
            return &cat->parts[j];
    return NULL;
}

/* One line on what would change a category, from its largest part. */
static const char *hint(treg_arena *a, const treg_cat_input *in, const treg_category *cat)
{
    const treg_category_part *p = cat->nparts ? &cat->parts[0] : NULL;
    unsigned regs = (unsigned)cat->vgpr + cat->agpr;
    char buf[400];
    switch (cat->kind) {
    case TREG_CAT_ACCUMULATOR: {
        const treg_category_part *d = dot_part(cat);
        unsigned dot_regs = d ? (unsigned)d->vgpr + d->agpr : 0;
        if (d && d->shape && d->tile_registers)
            snprintf(buf, sizeof buf,
                     "%s's %s accumulator over %u warps of %u lanes is %u registers a lane "
                     "(BLOCK_M x BLOCK_N x bytes / (lanes x 4 x warps))%s; a tile half as large "
                     "(BLOCK_M or BLOCK_N) halves it",
                     d->op, d->shape, in->num_warps, in->wave_size, d->tile_registers,
                     regs > dot_regs ? ", and math on such tiles holds the rest" : "");
        else if (!d && p && strcmp(p->op, "tt.dot") != 0)
            snprintf(buf, sizeof buf,
                     "sums multiply-added round a loop (%s): one register a lane per element each "
                     "thread accumulates (%u registers here); a smaller block per thread "
                     "needs fewer",
                     p->op, regs);
        else
            snprintf(buf, sizeof buf,
                     "matrix results and the math on them: BLOCK_M x BLOCK_N x 4 bytes / (lanes x "
                     "4 x warps) registers a lane per tile; a smaller tile needs fewer");
        break;
    }
    case TREG_CAT_LOADED:
        if (p && p->in_loop && in->num_stages > 1 && p->tile_registers)
            snprintf(buf, sizeof buf,
                     "%s%s%s: %u registers a lane per copy; with num_stages=%d the next "
                     "iterations' loads are in flight while this one computes: fewer stages or "
                     "a smaller tile keep fewer",
                     p->op, p->shape ? " " : "", p->shape ? p->shape : "", p->tile_registers,
                     in->num_stages);
        else
            snprintf(buf, sizeof buf,
                     "values loaded from global memory and waiting to be used; "
                     "a smaller block keeps fewer");
        break;
    case TREG_CAT_LDS:
        if (p && p->dot_operand && p->shape && p->tile_registers)
            snprintf(buf, sizeof buf,
                     "%s of the %s dot operand is %u registers a lane; a smaller BLOCK_K keeps "
                     "fewer of them",
                     p->op, p->shape, p->tile_registers);
        else
            snprintf(buf, sizeof buf,
                     "values read from shared memory (LDS) and waiting to be used");
        break;
    case TREG_CAT_ADDRESS:
        snprintf(buf, sizeof buf,
                 "%u registers of offsets and pointers%s: a 64-bit pointer tensor costs 2 a lane "
                 "per element; a scalar base with 32-bit offsets (buffer loads, "
                 "tl.make_block_ptr) costs fewer",
                 regs,
                 p && strcmp(p->op, "scf.for") == 0 ? ", most of them stepped by the loop" : "");
        break;
    case TREG_CAT_MASK:
        snprintf(buf, sizeof buf,
                 "masks and predicates: a mask the shapes make unnecessary "
                 "(sizes that divide the tile) costs nothing");
        break;
    case TREG_CAT_LOOP_CARRIED:
        snprintf(buf, sizeof buf, "values carried from one iteration to the next");
        break;
    case TREG_CAT_REDUCTION:
        snprintf(buf, sizeof buf, "partial and final values of reductions (tl.max, tl.sum)");
        break;
    default:
        return NULL;
    }
    return treg_arena_strdup(a, buf);
}

static int peak_categories(treg_arena *a, ctx *c, uint32_t peak, treg_kernel_report *k,
                           const treg_regset *header_live, uint32_t loop, treg_error *err)
{
    const treg_cat_input *in = c->in;
    treg_regset occ, uniform;
    treg_liveness_occupied_at(in->lv, in->g, in->fx, in->partial, peak, &occ);
    treg_regset_fold(&occ);
    treg_regset_clear(&uniform);
    for (size_t i = 0; i < k->npeak_uniform; i++) {
        uint32_t r = k->peak_uniform[i];
        treg_regset_add(&uniform,
                        r < TREG_REPORT_A0 ? TREG_REG_V0 + r : TREG_REG_A0 + (r - TREG_REPORT_A0));
    }
    part_acc *parts = NULL;
    size_t nparts = 0, cap = 0;
    for (unsigned r = TREG_REG_V0; r < TREG_REG_S0; r++) {
        if (!treg_regset_has(&occ, r)) continue;
        verdict v = classify(c, peak, r, header_live, loop);
        if (treg_prov_spent(in->prov)) break; /* this verdict and the rest: unknown */
        c->classified++;
        const treg_ttgir_op *op = v.op >= 0 ? &in->ttgir->ops[v.op] : NULL;
        treg_loc site = v.insn != TREG_NONE ? in->rows[v.insn].call_site : (treg_loc){-1, 0, 0};
        site.column = 0;
        const char *opname = op                    ? op->name
                             : v.insn == TREG_NONE ? "(kernel entry)"
                                                   : family(a, &in->fx[v.insn]);
        if (!opname) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        size_t j = 0;
        while (j < nparts && !(parts[j].kind == v.kind && parts[j].ttgir_op == v.op &&
                               parts[j].loc.file == site.file && parts[j].loc.line == site.line &&
                               strcmp(parts[j].op, opname) == 0))
            j++;
        if (j == nparts) {
            if (nparts == cap) {
                size_t ncap = cap ? 2 * cap : 16;
                part_acc *g = treg_arena_grow(a, parts, nparts, ncap, sizeof *g);
                if (!g) return treg_fail(err, TREG_E_NOMEM, "out of memory");
                parts = g, cap = ncap;
            }
            parts[nparts++] = (part_acc){
                v.kind, opname, v.op, site,
                0,      0,      0,    v.insn != TREG_NONE && in->rows[v.insn].loop_depth > 0};
        }
        if (treg_reg_class(r) == TREG_CLASS_V)
            parts[j].vgpr++;
        else
            parts[j].agpr++;
        parts[j].uniform += treg_regset_has(&uniform, r);
    }
    /* parts -> categories */
    treg_category cats[TREG_CAT_COUNT];
    memset(cats, 0, sizeof cats);
    for (int kind = 0; kind < TREG_CAT_COUNT; kind++) cats[kind].kind = kind;
    for (size_t j = 0; j < nparts; j++) cats[parts[j].kind].nparts++;
    for (int kind = 0; kind < TREG_CAT_COUNT; kind++) {
        if (!cats[kind].nparts) continue;
        cats[kind].parts = treg_arena_calloc(a, cats[kind].nparts, sizeof *cats[kind].parts);
        if (!cats[kind].parts) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        cats[kind].nparts = 0;
    }
    for (size_t j = 0; j < nparts; j++) {
        const part_acc *x = &parts[j];
        treg_category *cat = &cats[x->kind];
        const treg_ttgir_op *op = x->ttgir_op >= 0 ? &in->ttgir->ops[x->ttgir_op] : NULL;
        treg_category_part *p = &cat->parts[cat->nparts++];
        *p = (treg_category_part){.op = x->op,
                                  .shape = shape_of(a, op),
                                  .loc = x->loc,
                                  .vgpr = x->vgpr,
                                  .agpr = x->agpr,
                                  .uniform = x->uniform,
                                  .tile_registers = tile_registers(in, op),
                                  .in_loop = x->in_loop,
                                  .dot_operand = op && op->type.dot_operand};
        cat->vgpr += x->vgpr;
        cat->agpr += x->agpr;
        cat->uniform += x->uniform;
    }
    size_t ncats = 0;
    for (int kind = 0; kind < TREG_CAT_COUNT; kind++) {
        if (!cats[kind].nparts) continue;
        qsort(cats[kind].parts, cats[kind].nparts, sizeof *cats[kind].parts, cmp_part);
        cats[kind].hint = hint(a, in, &cats[kind]);
        cats[ncats++] = cats[kind];
    }
    qsort(cats, ncats, sizeof *cats, cmp_category);
    k->categories = treg_arena_calloc(a, ncats ? ncats : 1, sizeof *k->categories);
    if (!k->categories) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    memcpy(k->categories, cats, ncats * sizeof *cats);
    k->ncategories = ncats;
    return TREG_OK;
}

static void mark_loop(const treg_cfg *g, uint32_t l, uint8_t *in_loop, uint8_t on)
{
    for (uint32_t b = 0; b < g->loops[l].nblocks; b++) in_loop[g->loops[l].blocks[b]] = on;
}

/* Says where the work budget ran out: the peak's registers left without
 * a category, and the loops from `loop` on (of nloops) whose live-across
 * counts are partial or missing.  (An arena failure leaves it out.) */
static void spent_note(treg_arena *a, treg_kernel_report *k, const ctx *c, uint32_t peak,
                       uint32_t loop, uint32_t nloops)
{
    unsigned total = 0;
    if (peak != TREG_NONE) {
        treg_regset occ;
        treg_liveness_occupied_at(c->in->lv, c->in->g, c->in->fx, c->in->partial, peak, &occ);
        treg_regset_fold(&occ);
        for (unsigned r = TREG_REG_V0; r < TREG_REG_S0; r++) total += treg_regset_has(&occ, r);
    }
    char buf[400];
    int at = snprintf(buf, sizeof buf, "following values back passed its work budget");
    if (c->classified < total && at > 0 && (size_t)at < sizeof buf)
        at += snprintf(buf + at, sizeof buf - (size_t)at,
                       ": %u of the peak's %u registers have a category, the rest are not counted",
                       c->classified, total);
    if (loop < nloops && at > 0 && (size_t)at < sizeof buf)
        snprintf(buf + at, sizeof buf - (size_t)at,
                 "%s the live-across counts of %u of %u loops are partial or missing",
                 c->classified < total ? ";" : ":", nloops - loop, nloops);
    k->categories_note = treg_arena_strdup(a, buf);
}

int treg_categories(treg_arena *a, const treg_cat_input *in, uint32_t peak, treg_kernel_report *k,
                    treg_error *err)
{
    ctx c = {.in = in, .index = in->index};
    const treg_cfg *g = in->g;
    treg_cat_index *own = NULL;
    if (in->ttgir && (!c.index || c.index->ttgir != in->ttgir)) {
        if (treg_cat_index_new(a, in->ttgir, &own, err)) return err->code;
        c.index = own;
    }
    c.in_loop = treg_arena_calloc(a, g->nblocks ? g->nblocks : 1, 1);
    c.mclass = treg_arena_calloc(a, in->n ? in->n : 1, 1);
    c.derived = treg_arena_calloc(a, in->n ? in->n : 1, DERIVED_DEPTH + 1);
    if (!c.in_loop || !c.mclass || !c.derived) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    if (peak != TREG_NONE) {
        /* the innermost loop around the peak, for what it carries */
        uint32_t loop = g->blocks[g->block_of[peak]].loop;
        treg_regset header_live;
        if (loop != TREG_NONE) {
            mark_loop(g, loop, c.in_loop, 1);
            treg_liveness_occupied_at(in->lv, g, in->fx, in->partial,
                                      g->blocks[g->loops[loop].header].first, &header_live);
            treg_regset_fold(&header_live);
        }
        int rc =
            peak_categories(a, &c, peak, k, loop != TREG_NONE ? &header_live : NULL, loop, err);
        if (loop != TREG_NONE) mark_loop(g, loop, c.in_loop, 0);
        if (rc) return rc;
    }
    /* each loop: what lives into its header, by category */
    for (uint32_t l = 0; l < g->nloops && l < k->nloops; l++) {
        uint32_t head = g->blocks[g->loops[l].header].first;
        treg_regset live;
        treg_liveness_occupied_at(in->lv, g, in->fx, in->partial, head, &live);
        treg_regset_fold(&live);
        mark_loop(g, l, c.in_loop, 1);
        for (unsigned r = TREG_REG_V0; r < TREG_REG_S0 && !treg_prov_spent(in->prov); r++) {
            if (!treg_regset_has(&live, r)) continue;
            verdict v = classify(&c, head, r, &live, l);
            if (treg_prov_spent(in->prov)) break;
            if (k->loops[l].live_across[v.kind] < UINT16_MAX) k->loops[l].live_across[v.kind]++;
        }
        mark_loop(g, l, c.in_loop, 0);
        if (treg_prov_spent(in->prov)) {
            spent_note(a, k, &c, peak, l, g->nloops);
            break;
        }
    }
    if (peak != TREG_NONE && treg_prov_spent(in->prov) && !k->categories_note)
        spent_note(a, k, &c, peak, 0, 0);
    return TREG_OK;
}
