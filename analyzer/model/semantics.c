/* Stage 3 mechanism: turns one disassembled instruction into register reads
 * and writes.  All per-mnemonic knowledge is in semantics_table.def; this
 * file finds the row (binary search over exact names, then an ordered list
 * of '*' patterns), scans the operand text once, and applies the row's
 * roles.  The scan allocates nothing and keeps no state between calls.
 *
 * Operand positions are comma-separated fields, not register ordinals:
 * "v_mad_u64_u32 v[0:1], null, v2, v3, v[4:5]" writes v[0:1] and nothing
 * else, because field 1 prints as null.  A mnemonic with no row gets the
 * generic rule (field 0 written, every other register read) and
 * TREG_FX_UNKNOWN. */
#include "model/semantics.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/glob.h"

/* Short names the table is written in (see semantics_table.def). */
enum { I_VCC = 1, I_EXEC = 2, I_SCC = 4, I_M0 = 8 };
enum { D0 = 1, D1 = 2 };
enum { H_LO = TREG_HALF_LO, H_HI = TREG_HALF_HI };
enum {
    P_GETPC = TREG_PC_GETPC,
    P_ADD = TREG_PC_ADD,
    P_ADDC = TREG_PC_ADDC,
    P_SETPC = TREG_PC_SETPC
};
enum {
    R_RET = 1 << 0,
    R_OPTDST = 1 << 1,
    R_NOEXEC = 1 << 2,
    R_COPY = 1 << 3,
    R_SAVEEXEC = 1 << 4,
    R_MOVE_IF_OFF = 1 << 5,
    R_MOVE_IF_VSRC = 1 << 6,
    R_DUAL = 1 << 7,
    R_FI_BC = 1 << 8,
    R_MASK4 = 1 << 9,
    R_LDS_ADDR = 1 << 10,
    R_VGPR_SIZE = 1 << 11
};
enum {
    C_JUMP = TREG_CTRL_JUMP,
    C_CBRANCH = TREG_CTRL_CBRANCH,
    C_END = TREG_CTRL_END,
    C_CALL = TREG_CTRL_CALL,
    C_TRAP = TREG_CTRL_TRAP
};
enum {
    X_COPY = TREG_EXEC_COPY,
    X_AND = TREG_EXEC_AND,
    X_OR = TREG_EXEC_OR,
    X_OTHER = TREG_EXEC_OTHER
};
enum {
    M_SSTORE = TREG_MOVE_SCRATCH_STORE,
    M_SLOAD = TREG_MOVE_SCRATCH_LOAD,
    M_S2L = TREG_MOVE_SGPR_TO_LANE,
    M_L2S = TREG_MOVE_LANE_TO_SGPR,
    M_V2A = TREG_MOVE_VGPR_TO_AGPR,
    M_A2V = TREG_MOVE_AGPR_TO_VGPR
};
enum {
    MOD_RETURN = 1,
    MOD_TO_LDS,
    MOD_PRESERVE,
    MOD_DPP_MASK,
    MOD_DPP_BOUND,
    MOD_OP_SEL,
    MOD_NO_M0
};

typedef struct sem_row {
    const char *name;
    uint8_t ndef, tied, partial;
    uint8_t half0;         /* enum treg_half: destination 0 is one half (d16 loads) */
    uint8_t hread, hfield; /* enum treg_half: field hfield is read in one half (stores) */
    uint16_t flags;
    uint8_t iuse, idef;
    uint8_t ctrl, exec, move, pc;
    const char *why;
} sem_row;

typedef struct sem_regname {
    const char *name;
    uint16_t first, count; /* count 0: the wave's mask width */
} sem_regname;

typedef struct sem_modifier {
    const char *pattern;
    uint8_t effect, iuse;
} sem_modifier;

static const sem_row exact_rows[] = {
#define EXACT(n, ...) {.name = n, __VA_ARGS__},
#define GLOB(n, ...)
#define REGNAME(n, f, c)
#define MODIFIER(p, e, u)
#include "model/semantics_table.def"
#undef EXACT
#undef GLOB
#undef REGNAME
#undef MODIFIER
};

static const sem_row glob_rows[] = {
#define EXACT(n, ...)
#define GLOB(n, ...) {.name = n, __VA_ARGS__},
#define REGNAME(n, f, c)
#define MODIFIER(p, e, u)
#include "model/semantics_table.def"
#undef EXACT
#undef GLOB
#undef REGNAME
#undef MODIFIER
};

static const sem_regname reg_names[] = {
#define EXACT(n, ...)
#define GLOB(n, ...)
#define REGNAME(n, f, c) {n, f, c},
#define MODIFIER(p, e, u)
#include "model/semantics_table.def"
#undef EXACT
#undef GLOB
#undef REGNAME
#undef MODIFIER
};

static const sem_modifier modifiers[] = {
#define EXACT(n, ...)
#define GLOB(n, ...)
#define REGNAME(n, f, c)
#define MODIFIER(p, e, u) {p, e, u},
#include "model/semantics_table.def"
#undef EXACT
#undef GLOB
#undef REGNAME
#undef MODIFIER
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The row for a mnemonic nobody described: field 0 written, rest read. */
static const sem_row generic_row = {.name = "", .ndef = 1};

/* ---- table lookup ---- */

/* strcmp of a counted string against a NUL-terminated one. */
static int cmp_counted(const char *s, size_t len, const char *z)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] != z[i]) return (unsigned char)s[i] - (unsigned char)z[i];
    }
    return z[len] == '\0' ? 0 : -1;
}

static const sem_row *find_row_uncached(const char *mn, size_t len)
{
    size_t lo = 0, hi = COUNT_OF(exact_rows);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = cmp_counted(mn, len, exact_rows[mid].name);
        if (c == 0) return &exact_rows[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    /* Patterns start with a literal; comparing the first three characters
     * inline rejects almost every row before the matcher runs. */
    char c1 = len > 1 ? mn[1] : '\0', c2 = len > 2 ? mn[2] : '\0';
    for (size_t i = 0; i < COUNT_OF(glob_rows); i++) {
        const char *pat = glob_rows[i].name;
        if (pat[0] != mn[0]) continue;
        if (pat[1] != c1 && pat[1] != '*') continue;
        if (pat[1] != '*' && pat[2] != c2 && pat[2] != '*') continue;
        if (treg_glob_match(pat, mn, len)) return &glob_rows[i];
    }
    return NULL;
}

/* A kernel uses a few dozen mnemonics thousands of times each: a small
 * per-thread cache of the lookup (mnemonic -> row, NULL cached too) keeps
 * the binary search and the pattern scan off the hot path. */
enum { ROW_CACHE = 256, ROW_CACHE_NAME = 40 };
typedef struct row_cache_entry {
    uint8_t len; /* 0: empty */
    char name[ROW_CACHE_NAME];
    const sem_row *row;
} row_cache_entry;
static _Thread_local row_cache_entry row_cache[ROW_CACHE];

static const sem_row *find_row(const char *mn, size_t len)
{
    if (len == 0 || len >= ROW_CACHE_NAME) return find_row_uncached(mn, len);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)mn[i]) * 16777619u;
    row_cache_entry *e = &row_cache[h % ROW_CACHE];
    if (e->len == len && memcmp(e->name, mn, len) == 0) return e->row;
    e->row = find_row_uncached(mn, len);
    memcpy(e->name, mn, len);
    e->len = (uint8_t)len;
    return e->row;
}

/* ---- operand scanning ---- */

enum { FIELD_NONE = 0, FIELD_REG, FIELD_OFF, FIELD_INT, FIELD_OTHER };
enum { MAX_FIELDS = 12, MAX_TOKENS = 32 };

typedef struct field_info {
    uint8_t kind;
    uint16_t reg, count;
    long long value;
} field_info;

typedef struct reg_token {
    uint16_t reg, count;
    uint8_t field;
    bool first;   /* the field's leading token: the operand itself */
    uint8_t half; /* enum treg_half: true16 .l/.h names one half */
} reg_token;

typedef struct scan_state {
    reg_token regs[MAX_TOKENS];
    unsigned nregs;
    field_info fields[MAX_FIELDS];
    unsigned nfields;
    bool ret, to_lds, preserve, dpp16, dpp_masked, dpp_bound, no_m0;
    uint8_t mod_iuse;
    uint8_t op_sel; /* op_sel:[a,b,...]: bit i = element i (the first eight) */
} scan_state;

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_end(const char *p)
{
    return *p == '\0' || *p == '\n' || *p == ';' || (p[0] == '/' && p[1] == '/');
}

static unsigned mask_width(const treg_model_ctx *ctx)
{
    return ctx->wave_size == 32 ? 1 : 2;
}

/* Parses a decimal number at *pp; false if there is none. */
static bool parse_uint(const char **pp, unsigned long *out)
{
    const char *p = *pp;
    if (!is_digit(*p)) return false;
    char *end;
    *out = strtoul(p, &end, 10);
    *pp = end;
    return true;
}

/* Recognises a register name at ident[0..len). Returns 1 and fills *reg,
 * *count for a register, 0 for something else (ttmp, null, a modifier),
 * or TREG_E_DECODE for a malformed or out-of-range register. *after is
 * moved past a tuple's brackets. */
static int parse_register(const treg_model_ctx *ctx, const char *ident, size_t len,
                          const char **after, uint16_t *reg, uint16_t *count, treg_error *err)
{
    char c = ident[0];
    if ((c == 'v' || c == 's' || c == 'a') && (len == 1 || is_digit(ident[1]))) {
        unsigned base = c == 'v' ? TREG_REG_V0 : c == 'a' ? TREG_REG_A0 : TREG_REG_S0;
        unsigned limit = c == 'v' ? TREG_NUM_V : c == 'a' ? TREG_NUM_A : TREG_NUM_S;
        unsigned long first, last;
        if (len > 1) {
            for (size_t i = 1; i < len; i++)
                if (!is_digit(ident[i])) return 0; /* e.g. "s1x": not ours */
            const char *p = ident + 1;
            parse_uint(&p, &first);
            last = first;
        } else {
            const char *p = ident + 1;
            if (*p != '[') return 0; /* a lone "v", "s", "a" */
            p++;
            if (!parse_uint(&p, &first))
                return treg_fail(err, TREG_E_DECODE, "malformed register tuple '%.*s'", 16, ident);
            last = first;
            if (*p == ':') {
                p++;
                if (!parse_uint(&p, &last))
                    return treg_fail(err, TREG_E_DECODE, "malformed register tuple '%.*s'", 16,
                                     ident);
            }
            if (*p != ']' || last < first)
                return treg_fail(err, TREG_E_DECODE, "malformed register tuple '%.*s'", 16, ident);
            *after = p + 1;
        }
        if (last >= limit)
            return treg_fail(err, TREG_E_DECODE, "register %c%lu out of range (%c0..%c%u)", c, last,
                             c, c, limit - 1);
        *reg = (uint16_t)(base + first);
        *count = (uint16_t)(last - first + 1);
        return 1;
    }
    for (size_t i = 0; i < COUNT_OF(reg_names); i++) {
        if (cmp_counted(ident, len, reg_names[i].name) == 0) {
            *reg = reg_names[i].first;
            *count = reg_names[i].count ? reg_names[i].count : (uint16_t)mask_width(ctx);
            return 1;
        }
    }
    return 0;
}

/* Applies a modifier token (the whole "name:value" or bare word). */
static void apply_modifier(scan_state *st, const char *tok, size_t len)
{
    for (size_t i = 0; i < COUNT_OF(modifiers); i++) {
        if (modifiers[i].pattern[0] != tok[0] || !treg_glob_match(modifiers[i].pattern, tok, len))
            continue;
        st->mod_iuse |= modifiers[i].iuse;
        switch (modifiers[i].effect) {
        case MOD_RETURN:
            st->ret = true;
            break;
        case MOD_TO_LDS:
            st->to_lds = true;
            break;
        case MOD_PRESERVE:
            st->preserve = true;
            break;
        case MOD_DPP_MASK: {
            const char *colon = memchr(tok, ':', len);
            st->dpp16 = true;
            if (colon && strtol(colon + 1, NULL, 0) != 0xf) st->dpp_masked = true;
            break;
        }
        case MOD_DPP_BOUND:
            st->dpp_bound = true;
            break;
        case MOD_OP_SEL: {
            const char *p = memchr(tok, '[', len);
            unsigned bit = 0;
            for (; p && p < tok + len && bit < 8; p++) {
                if (*p == '1') st->op_sel |= (uint8_t)(1u << bit);
                if (*p == ',') bit++;
            }
            break;
        }
        case MOD_NO_M0:
            st->no_m0 = true;
            break;
        default:
            break;
        }
        return;
    }
}

/* Marks the start of a token in the current field; true if it is the
 * field's first. */
static bool begin_token(scan_state *st, unsigned field)
{
    if (field >= MAX_FIELDS) return false;
    if (field >= st->nfields) st->nfields = field + 1;
    return st->fields[field].kind == FIELD_NONE;
}

/* Scans the operands from p to the end of the instruction or a VOPD "::".
 * Sets *next to the text after "::", or NULL. */
static int scan_operands(const treg_model_ctx *ctx, const char *p, scan_state *st,
                         const char **next, treg_error *err)
{
    unsigned field = 0, depth = 0;
    *next = NULL;
    while (!is_end(p)) {
        char c = *p;
        if (c == ' ' || c == '\t') {
            p++;
            continue;
        }
        if (c == ':' && p[1] == ':') {
            *next = p + 2;
            return TREG_OK;
        }
        if (c == ',' && depth == 0) {
            field++;
            p++;
            continue;
        }
        if (c == '(' || c == '[') depth++;
        if ((c == ')' || c == ']') && depth > 0) depth--;
        if (is_digit(c) || (c == '-' && is_digit(p[1]))) {
            /* An integer only when strtoll takes the whole token: 0.5 and
             * -4.0 are float inline constants, not 0 and -4. */
            const char *start = p++;
            while (is_ident_char(*p) || *p == '.') p++;
            if (begin_token(st, field)) {
                char *end;
                long long v = strtoll(start, &end, 0);
                st->fields[field].kind = end == p ? FIELD_INT : FIELD_OTHER;
                st->fields[field].value = v;
            }
            continue;
        }
        if (!is_ident_start(c)) {
            p++;
            continue;
        }
        const char *ident = p;
        while (is_ident_char(*p)) p++;
        size_t len = (size_t)(p - ident);
        if (*p == ':' && p[1] != ':') {
            /* name:value modifier; the value may hold brackets and commas */
            unsigned d = 0;
            p++;
            while (!is_end(p) && (d > 0 || (*p != ' ' && *p != '\t' && *p != ','))) {
                if (*p == '[' || *p == '(') d++;
                if ((*p == ']' || *p == ')') && d > 0) d--;
                p++;
            }
            apply_modifier(st, ident, (size_t)(p - ident));
            continue;
        }
        if (*p == '(' && ((len == 3 && memcmp(ident, "lit", 3) == 0) ||
                          (len == 5 && memcmp(ident, "lit64", 5) == 0))) {
            /* lit(0x0): a constant LLVM 22 prints as a forced literal */
            char *end;
            long long v = strtoll(p + 1, &end, 0);
            if (begin_token(st, field) && end != p + 1 && *end == ')') {
                st->fields[field].kind = FIELD_INT;
                st->fields[field].value = v;
            }
            p = end != p + 1 && *end == ')' ? end + 1 : p + 1;
            continue;
        }
        if (*p == '(') {
            /* abs(v1), sext(v2), hwreg(...), vmcnt(0): look inside */
            (void)begin_token(st, field);
            if (field < MAX_FIELDS && st->fields[field].kind == FIELD_NONE)
                st->fields[field].kind = FIELD_OTHER;
            continue;
        }
        uint16_t reg = 0, count = 0;
        int r = parse_register(ctx, ident, len, &p, &reg, &count, err);
        if (r < 0 || r > 1) return r;
        bool first = begin_token(st, field);
        if (r == 1) {
            uint8_t half = TREG_HALF_BOTH;
            if (p[0] == '.' && (p[1] == 'l' || p[1] == 'h') && !is_ident_char(p[2])) {
                half = p[1] == 'l' ? TREG_HALF_LO : TREG_HALF_HI;
                p += 2;
            }
            if (st->nregs >= MAX_TOKENS)
                return treg_fail(err, TREG_E_DECODE, "too many register operands");
            reg_token *t = &st->regs[st->nregs++];
            t->reg = reg;
            t->count = count;
            t->field = (uint8_t)(field < 255 ? field : 255);
            t->first = first;
            t->half = half;
            if (first) {
                st->fields[field].kind = FIELD_REG;
                st->fields[field].reg = reg;
                st->fields[field].count = count;
            }
            continue;
        }
        if (first) {
            st->fields[field].kind =
                (len == 3 && memcmp(ident, "off", 3) == 0) ? FIELD_OFF : FIELD_OTHER;
        }
        apply_modifier(st, ident, len);
    }
    return TREG_OK;
}

/* ---- building the effect ---- */

static int add_op(treg_insn_effect *out, uint16_t reg, uint16_t count, uint8_t role, uint8_t half,
                  bool dedupe, treg_error *err)
{
    if (dedupe) {
        for (unsigned i = 0; i < out->nops; i++)
            if (out->ops[i].reg == reg && out->ops[i].count == count && out->ops[i].role == role &&
                out->ops[i].half == half)
                return TREG_OK;
    }
    if (out->nops >= TREG_MAX_OPERANDS)
        return treg_fail(err, TREG_E_DECODE, "more than %d register operands",
                         (int)TREG_MAX_OPERANDS);
    treg_operand *o = &out->ops[out->nops++];
    o->reg = reg;
    o->count = count;
    o->role = role;
    o->half = half & 3;
    o->old = 0;
    return TREG_OK;
}

/* The read of a tied destination's old value (flow/defined.c treats it
 * apart from other reads). */
static int add_old_value(treg_insn_effect *out, uint16_t reg, uint16_t count, uint8_t half,
                         treg_error *err)
{
    int rc = add_op(out, reg, count, TREG_USE, half, false, err);
    if (rc == TREG_OK) out->ops[out->nops - 1].old = 1;
    return rc;
}

static int add_implicit(const treg_model_ctx *ctx, treg_insn_effect *out, uint8_t mask,
                        uint8_t role, treg_error *err)
{
    int rc = TREG_OK;
    if (mask & I_VCC)
        rc |= add_op(out, TREG_REG_VCC_LO, (uint16_t)mask_width(ctx), role, 0, true, err);
    if (mask & I_EXEC)
        rc |= add_op(out, TREG_REG_EXEC_LO, (uint16_t)mask_width(ctx), role, 0, true, err);
    if (mask & I_SCC) rc |= add_op(out, TREG_REG_SCC, 1, role, 0, true, err);
    if (mask & I_M0) rc |= add_op(out, TREG_REG_M0, 1, role, 0, true, err);
    return rc ? TREG_E_DECODE : TREG_OK;
}

static bool overlaps_exec(uint16_t reg, uint16_t count)
{
    return reg <= TREG_REG_EXEC_HI && reg + count > TREG_REG_EXEC_LO;
}

static bool field_is_exec(const treg_model_ctx *ctx, const field_info *f)
{
    return f->kind == FIELD_REG && f->reg == TREG_REG_EXEC_LO && f->count >= mask_width(ctx);
}

static bool is_all_ones(const treg_model_ctx *ctx, long long v)
{
    return v == -1 || (ctx->wave_size == 32 && v == 0xffffffffLL);
}

/* exec_src / exec_src_all_ones from a source field. */
static void set_exec_src(const treg_model_ctx *ctx, treg_insn_effect *out, const field_info *f)
{
    if (f->kind == FIELD_REG) {
        out->exec_src = f->reg;
    } else {
        out->exec_src = TREG_NO_REG;
        out->exec_src_all_ones = f->kind == FIELD_INT && is_all_ones(ctx, f->value);
    }
}

/* How EXEC changes, from the row and the operands actually printed. */
static void classify_exec(const treg_model_ctx *ctx, const sem_row *row, const scan_state *st,
                          treg_insn_effect *out)
{
    static const field_info none = {0};
    const field_info *f0 = st->nfields > 0 ? &st->fields[0] : &none;
    const field_info *f1 = st->nfields > 1 ? &st->fields[1] : &none;
    const field_info *f2 = st->nfields > 2 ? &st->fields[2] : &none;
    if (row->flags & R_SAVEEXEC) {
        out->exec_op = row->exec;
        out->flags |= TREG_FX_SAVEEXEC;
        out->saveexec_dst = f0->kind == FIELD_REG ? f0->reg : TREG_NO_REG;
        set_exec_src(ctx, out, f1);
        return;
    }
    bool writes_exec = false;
    for (unsigned i = 0; i < out->nops; i++)
        if (out->ops[i].role != TREG_USE && overlaps_exec(out->ops[i].reg, out->ops[i].count))
            writes_exec = true;
    if (!writes_exec) return;
    out->exec_op = TREG_EXEC_OTHER;
    if (row->ndef == 0 || !field_is_exec(ctx, f0)) {
        if (row->exec == X_OTHER) out->exec_op = TREG_EXEC_OTHER;
        return;
    }
    switch (row->exec) {
    case X_COPY:
        out->exec_op = TREG_EXEC_COPY;
        set_exec_src(ctx, out, f1);
        break;
    case X_AND:
    case X_OR:
        /* exec op= src only when one of the sources is EXEC itself */
        if (field_is_exec(ctx, f1) && !field_is_exec(ctx, f2)) {
            out->exec_op = row->exec;
            set_exec_src(ctx, out, f2);
        } else if (field_is_exec(ctx, f2) && !field_is_exec(ctx, f1)) {
            out->exec_op = row->exec;
            set_exec_src(ctx, out, f1);
        }
        break;
    default:
        break;
    }
}

static void reset_effect(treg_insn_effect *out)
{
    out->nops = 0;
    out->ctrl = TREG_CTRL_NONE;
    out->branch_words = 0;
    out->exec_op = TREG_EXEC_NONE;
    out->exec_src = TREG_NO_REG;
    out->exec_src_all_ones = false;
    out->saveexec_dst = TREG_NO_REG;
    out->copy_dst = TREG_NO_REG;
    out->copy_src = TREG_NO_REG;
    out->move = TREG_MOVE_NONE;
    out->pc = TREG_PC_NONE;
    out->imm = 0;
    out->flags = 0;
    out->mnemonic = "";
    out->mnemonic_len = 0;
}

/* Models one instruction (one half of a VOPD pair) starting at its
 * mnemonic; sets *next past "::" when a second half follows. */
static int model_one(const treg_model_ctx *ctx, const char *p, treg_insn_effect *out, bool primary,
                     const char **next, treg_error *err)
{
    while (*p == ' ' || *p == '\t') p++;
    const char *mn = p;
    while (is_ident_char(*p) || *p == '.') p++;
    size_t mn_len = (size_t)(p - mn);
    if (mn_len == 0) return treg_fail(err, TREG_E_DECODE, "no mnemonic in '%.40s'", mn);
    if (primary) {
        out->mnemonic = mn;
        out->mnemonic_len = (uint8_t)(mn_len < 255 ? mn_len : 255);
    }

    const sem_row *row = find_row(mn, mn_len);
    if (!row) {
        row = &generic_row;
        out->flags |= TREG_FX_UNKNOWN;
    }

    scan_state st;
    st.nregs = 0;
    st.nfields = 0;
    st.ret = st.to_lds = st.preserve = st.dpp16 = st.dpp_masked = st.dpp_bound = st.no_m0 = false;
    st.mod_iuse = 0;
    st.op_sel = 0;
    memset(st.fields, 0, sizeof st.fields);
    int rc = scan_operands(ctx, p, &st, next, err);
    if (rc) return rc;

    unsigned ndef = row->ndef;
    if ((row->flags & R_RET) && !st.ret) ndef = 0;
    if (st.to_lds) ndef = 0;
    if ((row->flags & R_OPTDST) && st.nfields < 3) ndef = 0;
    bool dst0_partial = st.preserve || st.dpp_masked || (st.dpp16 && !st.dpp_bound);
    uint8_t tied = row->tied;
    if ((row->flags & R_FI_BC) && (st.op_sel & 3)) tied &= (uint8_t)~D0;
    uint8_t iuse = row->iuse | st.mod_iuse;
    if ((row->flags & R_MASK4) && st.nfields >= 4 && st.fields[3].kind == FIELD_REG)
        iuse &= (uint8_t)~I_VCC;
    if (st.no_m0 || (row->flags & R_LDS_ADDR)) iuse &= (uint8_t)~I_M0;

    bool vector_write = false;
    for (unsigned i = 0; i < st.nregs; i++) {
        const reg_token *t = &st.regs[i];
        if (t->field < ndef && t->first) {
            unsigned bit = 1u << t->field;
            /* A write of one half (true16 .l/.h, a d16 load) kills that
             * half only; where the register has no halves to track (an
             * AGPR), the old value stays live instead. */
            uint8_t half = t->half ? t->half : t->field == 0 ? row->half0 : TREG_HALF_BOTH;
            bool whole_half = half && treg_reg_has_halves(t->reg + t->count - 1u);
            bool partial =
                (row->partial & bit) || (half && !whole_half) || (t->field == 0 && dst0_partial);
            if (!whole_half) half = TREG_HALF_BOTH;
            if (tied & bit) rc |= add_old_value(out, t->reg, t->count, half, err);
            rc |= add_op(out, t->reg, t->count, partial ? TREG_DEF_PARTIAL : TREG_DEF, half, false,
                         err);
            if (treg_reg_class(t->reg) == TREG_CLASS_V || treg_reg_class(t->reg) == TREG_CLASS_A)
                vector_write = true;
        } else {
            uint8_t half = t->half;
            if (!half && t->first && row->hread && t->field == row->hfield) half = row->hread;
            if (!treg_reg_has_halves(t->reg + t->count - 1u)) half = TREG_HALF_BOTH;
            rc |= add_op(out, t->reg, t->count, TREG_USE, half, false, err);
        }
    }
    if (rc) return TREG_E_DECODE;
    if (add_implicit(ctx, out, iuse, TREG_USE, err) ||
        add_implicit(ctx, out, row->idef, TREG_DEF, err))
        return TREG_E_DECODE;
    if (vector_write && !(row->flags & R_NOEXEC)) out->flags |= TREG_FX_VECTOR;

    if (!primary) return TREG_OK;

    out->ctrl = row->ctrl;
    if (row->ctrl == C_JUMP || row->ctrl == C_CBRANCH || row->ctrl == C_CALL) {
        unsigned f = row->ndef;
        if (f < st.nfields && st.fields[f].kind == FIELD_INT) {
            long long w = st.fields[f].value;
            /* the disassembler prints simm16 unsigned: 65535 is -1 */
            if (w >= 0x8000 && w <= 0xffff) w -= 0x10000;
            out->branch_words = (int32_t)w;
        }
    }
    classify_exec(ctx, row, &st, out);
    out->pc = row->pc;
    if ((row->pc == P_ADD || row->pc == P_ADDC) &&
        (st.nfields < 3 || st.fields[2].kind != FIELD_INT || st.fields[0].kind != FIELD_REG ||
         st.fields[1].kind != FIELD_REG || st.fields[0].reg != st.fields[1].reg))
        out->pc = TREG_PC_NONE; /* only sN := sN + constant combines */
    if (out->pc == P_ADD || out->pc == P_ADDC) out->imm = st.fields[2].value;
    if (row->flags & R_VGPR_SIZE) {
        out->flags |= TREG_FX_VGPR_SIZE;
        out->imm = st.nfields >= 1 && st.fields[0].kind == FIELD_INT ? st.fields[0].value : -1;
    }
    if ((row->flags & R_COPY) && st.nfields >= 2 && st.fields[0].kind == FIELD_REG &&
        st.fields[1].kind == FIELD_REG) {
        out->copy_dst = st.fields[0].reg;
        out->copy_src = st.fields[1].reg;
    }
    if (row->move) {
        bool applies = true;
        if (row->flags & R_MOVE_IF_OFF) applies = st.nfields > 1 && st.fields[1].kind == FIELD_OFF;
        if (row->flags & R_MOVE_IF_VSRC)
            applies = st.nfields > 1 && st.fields[1].kind == FIELD_REG &&
                      treg_reg_class(st.fields[1].reg) == TREG_CLASS_V;
        if (applies) out->move = row->move;
    }
    return TREG_OK;
}

int treg_model_insn(const treg_model_ctx *ctx, const char *text, treg_insn_effect *out,
                    treg_error *err)
{
    if (!ctx || !text || !out) return treg_fail(err, TREG_E_ARG, "treg_model_insn: NULL argument");
    reset_effect(out);
    const char *next = NULL;
    int rc = model_one(ctx, text, out, true, &next, err);
    if (rc == TREG_OK && next) rc = model_one(ctx, next, out, false, &next, err);
    return rc;
}

int treg_model_table_check(treg_model_table_info *info, treg_error *err)
{
    for (size_t i = 1; i < COUNT_OF(exact_rows); i++)
        if (strcmp(exact_rows[i - 1].name, exact_rows[i].name) >= 0)
            return treg_fail(err, TREG_E_ARG, "semantics table: exact rows out of order at '%s'",
                             exact_rows[i].name);
    for (size_t i = 0; i < COUNT_OF(glob_rows); i++) {
        const char *n = glob_rows[i].name;
        if (!strchr(n, '*'))
            return treg_fail(err, TREG_E_ARG, "semantics table: '%s' has no '*': make it EXACT", n);
        if (n[0] == '*')
            return treg_fail(err, TREG_E_ARG,
                             "semantics table: pattern '%s' must start with a literal", n);
    }
    if (info) {
        info->exact_rows = (unsigned)COUNT_OF(exact_rows);
        info->pattern_rows = (unsigned)COUNT_OF(glob_rows);
    }
    return TREG_OK;
}

const char *treg_model_explain(const char *mnemonic, size_t len)
{
    const sem_row *row = find_row(mnemonic, len);
    if (!row) return NULL;
    return row->why ? row->why : row->name;
}

bool treg_insn_field(const char *text, unsigned k, const char **s, size_t *len)
{
    const char *p = text;
    while (*p && *p != ' ') p++; /* the mnemonic */
    for (unsigned i = 0;; i++) {
        while (*p == ' ') p++;
        const char *b = p;
        int depth = 0;
        while (*p && (depth || *p != ',')) {
            if (*p == '[') depth++;
            if (*p == ']' && depth) depth--;
            p++;
        }
        if (i == k) {
            const char *e = p;
            while (e > b && e[-1] == ' ') e--;
            *s = b;
            *len = (size_t)(e - b);
            return e > b;
        }
        if (!*p) return false;
        p++;
    }
}
