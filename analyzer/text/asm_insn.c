/* One instruction statement of the assembly text, read: the encoding
 * family of its mnemonic, whether an operand needs a literal (so its size),
 * the label a branch names, and the canonical text the model reads, with
 * DTK's own forms rewritten in place (register expressions and lists,
 * missing commas) and everything else left as printed, so that LLVM's text
 * comes out as LLVM's disassembler prints it. */
#include "text/asm_insn.h"

#include <stdio.h>
#include <string.h>

#include "text/asm_lex.h"
#include "text/asm_size.h"
#include "util/error.h"

enum { MAX_INSN_TEXT = 1024, MAX_EDITS = 48 };

/* One operand token: where it is, and what it became. */
typedef struct edit {
    size_t start, end; /* in the statement */
    char text[48];
    bool insert_comma; /* before start: DTK writes some operands without commas */
} edit;

typedef struct insn_scan {
    bool literal;
    bool unresolved;   /* an operand names a symbol not yet defined */
    const char *label; /* SOPP/SOPK: the operand naming a label */
    size_t label_len;
    edit edits[MAX_EDITS];
    unsigned nedits;
} insn_scan;

static bool is_reg_prefix(const char *s, size_t len, size_t *plen)
{
    if (len >= 2 && (s[0] == 'v' || s[0] == 's' || s[0] == 'a') && s[1] == '[') {
        *plen = 1;
        return true;
    }
    if (len >= 5 && memcmp(s, "ttmp[", 5) == 0) {
        *plen = 4;
        return true;
    }
    return false;
}

static bool is_register_word(const char *s, size_t len)
{
    size_t plen;
    if (is_reg_prefix(s, len, &plen)) return true;
    if (len >= 2 && (s[0] == 'v' || s[0] == 's' || s[0] == 'a') && s[1] >= '0' && s[1] <= '9') {
        for (size_t i = 2; i < len; i++)
            if ((s[i] < '0' || s[i] > '9') && s[i] != '.' && s[i] != 'l' && s[i] != 'h')
                return false;
        return true;
    }
    return false;
}

/* Inline constants need no literal: integers -16..64 and the float
 * constants (ISA manual, "Scalar ALU operands"; SIInstrInfo isInlineConstant). */
static bool inline_value(int64_t v)
{
    int64_t w = (int64_t)(int32_t)(uint32_t)v; /* a 32-bit operand's value */
    if ((v >= -16 && v <= 64) || (v == (int64_t)(uint32_t)v && w >= -16 && w <= 64)) return true;
    static const uint32_t floats[] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                                      0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
        if ((uint64_t)v == floats[i]) return true;
    return false;
}

static bool inline_float(const char *s, size_t len)
{
    static const char *const floats[] = {"0.5",  "-0.5", "1.0",  "-1.0",       "2.0",
                                         "-2.0", "4.0",  "-4.0", "0.15915494", NULL};
    for (size_t i = 0; floats[i]; i++)
        if (word_is(s, len, floats[i])) return true;
    return false;
}

static bool looks_float(const char *s, size_t len)
{
    size_t i = s[0] == '-' ? 1 : 0;
    bool digits = false, dot = false;
    for (; i < len; i++) {
        if (s[i] >= '0' && s[i] <= '9')
            digits = true;
        else if (s[i] == '.' && !dot)
            dot = true;
        else if ((s[i] == 'e' || s[i] == 'E') && digits)
            return true;
        else
            return false;
    }
    return digits && dot;
}

/* Names that are registers or keywords, never literals (the printer's
 * special operands). */
static bool special_word(const char *s, size_t len)
{
    static const char *const words[] = {"vcc",
                                        "vcc_lo",
                                        "vcc_hi",
                                        "exec",
                                        "exec_lo",
                                        "exec_hi",
                                        "m0",
                                        "scc",
                                        "off",
                                        "null",
                                        "vccz",
                                        "execz",
                                        "lds_direct",
                                        "flat_scratch",
                                        "flat_scratch_lo",
                                        "flat_scratch_hi",
                                        "xnack_mask",
                                        "xnack_mask_lo",
                                        "xnack_mask_hi",
                                        "tba",
                                        "tma",
                                        "tba_lo",
                                        "tba_hi",
                                        "tma_lo",
                                        "tma_hi",
                                        "pops_exiting_wave_id",
                                        NULL};
    for (size_t i = 0; words[i]; i++)
        if (word_is(s, len, words[i])) return true;
    return starts_with(s, len, "src_") || starts_with(s, len, "ttmp") ||
           starts_with(s, len, "shared_") || starts_with(s, len, "private_");
}

static int push_edit(const treg_asm_insn_ctx *ps, insn_scan *sc, size_t start, size_t end,
                     const char *text, bool comma)
{
    if (sc->nedits >= MAX_EDITS) return fail_at(ps, TREG_E_FORMAT, "too many operands to rewrite");
    edit *e = &sc->edits[sc->nedits++];
    e->start = start;
    e->end = end;
    snprintf(e->text, sizeof e->text, "%s", text);
    e->insert_comma = comma;
    return TREG_OK;
}

/* Register brackets with expressions or DTK's lists inside one token:
 * v[vgprValuC+3], v[0:1:2:3], s[sgprSrd:sgprSrd+3] become v3, v[0:3], s[8:11]. */
static int rewrite_registers(const treg_asm_insn_ctx *ps, insn_scan *sc, const char *stmt,
                             size_t start, size_t end)
{
    for (size_t i = start; i < end; i++) {
        size_t plen;
        if ((i > start && ident_char(stmt[i - 1])) || !is_reg_prefix(stmt + i, end - i, &plen))
            continue;
        size_t open = i + plen, close = open + 1;
        unsigned depth = 1;
        while (close < end && depth) {
            if (stmt[close] == '[') depth++;
            if (stmt[close] == ']') depth--;
            if (depth) close++;
        }
        if (close >= end)
            return fail_at(ps, TREG_E_FORMAT, "unbalanced register bracket in '%.*s'",
                           QUOTE(end - start), stmt + start);
        /* the parts between ':' */
        int64_t part[8];
        unsigned nparts = 0;
        bool plain = true;
        size_t p = open + 1;
        while (p <= close) {
            size_t q = p;
            while (q < close && stmt[q] != ':') q++;
            if (nparts == 8)
                return fail_at(ps, TREG_E_FORMAT, "register list too long in '%.*s'",
                               QUOTE(end - start), stmt + start);
            for (size_t k = p; k < q; k++)
                if (stmt[k] < '0' || stmt[k] > '9') plain = false;
            int st = treg_expr_eval(ps->syms, stmt + p, q - p, false, &part[nparts]);
            if (st != TREG_EXPR_OK)
                return fail_at(ps, TREG_E_FORMAT, "register '%.*s' is not a constant",
                               QUOTE(close + 1 - i), stmt + i);
            nparts++;
            p = q + 1;
        }
        if (nparts != 1 && nparts != 2 && nparts != 4)
            return fail_at(ps, TREG_E_FORMAT, "malformed register '%.*s'", QUOTE(close + 1 - i),
                           stmt + i);
        if (nparts == 4)
            for (unsigned k = 1; k < 4; k++)
                if (part[k] != part[0] + k)
                    return fail_at(ps, TREG_E_FORMAT,
                                   "register list '%.*s' is not 4 consecutive registers",
                                   QUOTE(close + 1 - i), stmt + i);
        int64_t first = part[0], last = part[nparts - 1];
        if (first < 0 || last < first || last > 1023)
            return fail_at(ps, TREG_E_FORMAT, "register '%.*s' out of range", QUOTE(close + 1 - i),
                           stmt + i);
        if (!(plain && nparts <= 2)) {
            char buf[48];
            if (first == last)
                snprintf(buf, sizeof buf, "%.*s%lld", (int)plen, stmt + i, (long long)first);
            else
                snprintf(buf, sizeof buf, "%.*s[%lld:%lld]", (int)plen, stmt + i, (long long)first,
                         (long long)last);
            int rc = push_edit(ps, sc, i, close + 1, buf, false);
            if (rc) return rc;
        }
        i = close;
    }
    return TREG_OK;
}

/* ---- a bare VALU mnemonic's encoding ---- */

enum { MAX_FIELDS = 8 };

static bool field_vgpr(const char *f, size_t n)
{
    return n >= 2 && f[0] == 'v' && (f[1] == '[' || (f[1] >= '0' && f[1] <= '9'));
}

static bool field_vcc(const char *f, size_t n)
{
    return word_is(f, n, "vcc") || word_is(f, n, "vcc_lo");
}

/* A source modifier only VOP3 encodes: -v1, |v1|, abs(), neg(), sext(). */
static bool field_modified(const char *f, size_t n)
{
    if (!n) return false;
    if (f[0] == '|') return true;
    if (f[0] == '-' && n > 1 && !(f[1] >= '0' && f[1] <= '9') && f[1] != '.') return true;
    return (n > 4 && memcmp(f, "abs(", 4) == 0) || (n > 4 && memcmp(f, "neg(", 4) == 0) ||
           (n > 5 && memcmp(f, "sext(", 5) == 0);
}

/* "_e32" or "_e64" for a bare VALU mnemonic that has both encodings (the
 * assembler picks the shortest the operands allow: AMDGPUAsmParser tries
 * the 32-bit form first), NULL for one printed with its encoding or with
 * one encoding only.  The 32-bit forms: VOP1 vdst, src0; VOP2 vdst, src0,
 * vsrc1; VOPC vcc, src0, vsrc1; the carry forms with VCC in their carry
 * slots; no source or output modifiers (a modifier after the operands
 * needs VOP3 too). */
static const char *bare_valu_suffix(const char *mn, size_t mn_len, const char *stmt, size_t p,
                                    size_t end, bool gfx10_plus)
{
    if (mn_len < 3 || memcmp(mn, "v_", 2) != 0 || treg_asm_family(mn, mn_len) != TREG_ENC_VALU64 ||
        !treg_asm_has_vop32(mn, mn_len, gfx10_plus))
        return NULL; /* printed with its encoding, or one encoding only (v_nop) */
    size_t fs[MAX_FIELDS] = {0}, fl[MAX_FIELDS] = {0};
    unsigned nf = 0, depth = 0;
    while (p < end && is_blank(stmt[p])) p++;
    size_t start = p;
    for (size_t i = p; i <= end; i++) {
        char c = i < end ? stmt[i] : ',';
        if (c == '(' || c == '[') depth++;
        if ((c == ')' || c == ']') && depth) depth--;
        if (c != ',' || depth) continue;
        size_t a = start, b = i;
        while (a < b && is_blank(stmt[a])) a++;
        while (b > a && is_blank(stmt[b - 1])) b--;
        if (nf == MAX_FIELDS) return "_e64";
        if (b > a || i < end) {
            fs[nf] = a;
            fl[nf++] = b - a;
        }
        start = i + 1;
    }
    for (unsigned k = 0; k < nf; k++) {
        const char *f = stmt + fs[k];
        for (size_t j = 0, d = 0; j < fl[k]; j++) { /* a modifier after the last operand */
            if (f[j] == '(' || f[j] == '[') d++;
            if ((f[j] == ')' || f[j] == ']') && d) d--;
            if (!d && is_blank(f[j])) return "_e64";
        }
        if (field_modified(f, fl[k])) return "_e64";
    }
#define F(k) (stmt + fs[k]), fl[k]
    bool fits;
    if (mn_len > 5 && memcmp(mn, "v_cmp", 5) == 0)
        fits = (nf == 3 && field_vcc(F(0)) && field_vgpr(F(2))) || (nf == 2 && field_vgpr(F(1)));
    else if (nf == 5) /* v_addc_co_u32 v0, vcc, v1, v2, vcc (and subb, co_ci) */
        fits = field_vgpr(F(0)) && field_vcc(F(1)) && field_vgpr(F(3)) && field_vcc(F(4));
    else if (nf == 4) /* v_add_co_u32 v0, vcc, v1, v2; v_cndmask_b32 v0, v1, v2, vcc */
        fits = field_vgpr(F(0)) &&
               ((field_vcc(F(1)) && field_vgpr(F(3))) || (field_vgpr(F(2)) && field_vcc(F(3))));
    else if (nf == 3)
        fits = field_vgpr(F(0)) && field_vgpr(F(2));
    else if (nf == 2)
        fits = field_vgpr(F(0));
    else
        fits = nf == 0;
#undef F
    return fits ? "_e32" : "_e64";
}

static bool is_plain_number(const char *t, size_t len)
{
    size_t k = t[0] == '-' ? 1 : 0;
    if (k >= len || t[k] < '0' || t[k] > '9') return false;
    for (; k < len; k++)
        if (!((t[k] >= '0' && t[k] <= '9') || (t[k] >= 'a' && t[k] <= 'f') ||
              (t[k] >= 'A' && t[k] <= 'F') || t[k] == 'x' || t[k] == 'X'))
            return false;
    return true;
}

/* Looks at one operand token [start, end) of a statement. */
static int scan_operand(const treg_asm_insn_ctx *ps, insn_scan *sc, int family, const char *stmt,
                        size_t start, size_t end, bool labels_ok)
{
    const char *t = stmt + start;
    size_t len = end - start;
    if (!len) return TREG_OK;
    /* modifiers name:value, wrappers -|x|, neg(x), abs(x), sext(x) */
    const char *in = t;
    size_t in_len = len;
    while (in_len && (*in == '-' || *in == '|')) in++, in_len--;
    while (in_len && in[in_len - 1] == '|') in_len--;
    static const char *const wraps[] = {"neg(", "abs(", "sext(", "lit(", "lit64(", NULL};
    for (size_t w = 0; wraps[w]; w++) {
        size_t wl = strlen(wraps[w]);
        if (in_len > wl && memcmp(in, wraps[w], wl) == 0 && in[in_len - 1] == ')') {
            if (wraps[w][1] == 'i') { /* lit(...): a literal by definition */
                sc->literal = true;
                return TREG_OK;
            }
            in += wl;
            in_len -= wl + 1;
            break;
        }
    }
    if (is_register_word(in, in_len) || special_word(in, in_len))
        return rewrite_registers(ps, sc, stmt, start, end);
    if (looks_float(in, in_len)) {
        if (!inline_float(t[0] == '-' && in[0] != '-' ? t : in, t[0] == '-' ? len : in_len))
            sc->literal = true;
        return TREG_OK;
    }
    /* hwreg(...), sendmsg(...), vmcnt(0), a modifier: not a value operand */
    for (size_t k = 0; k < in_len; k++) {
        if (in[k] == '(' && k > 0 && ident_char(in[k - 1])) {
            static const char *const fns[] = {"max(", "min(", "or(", "alignto(", NULL};
            bool expr_fn = false;
            for (size_t f = 0; fns[f]; f++)
                if (k + 1 >= strlen(fns[f]) &&
                    memcmp(in + k + 1 - strlen(fns[f]), fns[f], strlen(fns[f])) == 0)
                    expr_fn = true;
            if (!expr_fn) return TREG_OK;
        }
        if (in[k] == ':') return TREG_OK;
    }
    if (family == TREG_ENC_SOPP && treg_expr_is_symbol(t, len)) {
        const treg_sym *sym = treg_symtab_find(ps->syms, t, len);
        if (!sym || !sym->defined || sym->label) { /* a branch or call target */
            sc->label = t;
            sc->label_len = len;
            if (!labels_ok) sc->unresolved = true;
            return TREG_OK;
        }
    }
    bool value_operand =
        family != TREG_ENC_SOPP && family != TREG_ENC_SMEM && family != TREG_ENC_MEM;
    int64_t v;
    int st = treg_expr_eval(ps->syms, t, len, false, &v);
    if (st == TREG_EXPR_OK) {
        if (value_operand && !inline_value(v)) sc->literal = true;
        if (is_plain_number(t, len)) return TREG_OK; /* as printed */
        /* a symbol or an expression: the value it stands for */
        char buf[32];
        if (!value_operand || inline_value(v) || v < INT32_MIN || v > UINT32_MAX)
            snprintf(buf, sizeof buf, "%lld", (long long)v);
        else
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)((uint64_t)v & 0xffffffffu));
        return push_edit(ps, sc, start, end, buf, false);
    }
    if (st == TREG_EXPR_UNDEFINED) {
        if (value_operand) sc->literal = true; /* a relocation or label arithmetic: 32 bits */
        if (!labels_ok) {
            sc->unresolved = true;
            return TREG_OK;
        }
        st = treg_expr_eval(ps->syms, t, len, true, &v);
    }
    if (st == TREG_EXPR_UNDEFINED) {
        /* sym@rel32@lo+A against a label of this text: the linker's S + A - P,
         * P the literal's address (after the 4-byte SOP2 word) */
        const char *at = memchr(t, '@', len);
        if (!at || !value_operand) return TREG_OK;
        bool lo = (size_t)(t + len - at) >= 9 && memcmp(at, "@rel32@lo", 9) == 0;
        bool hi = (size_t)(t + len - at) >= 9 && memcmp(at, "@rel32@hi", 9) == 0;
        const treg_sym *sym = treg_symtab_find(ps->syms, t, (size_t)(at - t));
        int64_t addend = 0;
        const char *rest = at + 9;
        size_t rest_len = (size_t)(t + len - rest);
        if ((!lo && !hi) || !sym || !sym->defined || !sym->label ||
            (rest_len && treg_expr_eval(ps->syms, rest, rest_len, false, &addend) != TREG_EXPR_OK))
            return TREG_OK; /* a global variable's address: the linker's */
        uint64_t rel = (uint64_t)sym->value + (uint64_t)addend - (ps->insn_off + 4);
        v = (int64_t)(hi ? rel >> 32 : rel & 0xffffffffu);
        st = TREG_EXPR_OK;
    }
    if (st == TREG_EXPR_OK && labels_ok && sc->literal && !is_plain_number(t, len)) {
        /* a value only the layout gives: always encoded as a literal, which
         * LLVM prints lit(...) where the value could be inline */
        char buf[32];
        snprintf(buf, sizeof buf, inline_value(v) ? "lit(0x%llx)" : "0x%llx",
                 (unsigned long long)((uint64_t)v & 0xffffffffu));
        return push_edit(ps, sc, start, end, buf, false);
    }
    return TREG_OK; /* something only the model reads (a keyword) */
}

/* Scans the operands of one mnemonic's part [p, end) of stmt. */
static int scan_part(const treg_asm_insn_ctx *ps, insn_scan *sc, int family, const char *stmt,
                     size_t p, size_t end, bool labels_ok)
{
    /* tokens at depth 0, split by commas and blanks */
    typedef struct tok {
        size_t start, end;
        bool after_comma; /* a comma precedes it (or it is the first) */
    } tok;
    tok toks[40];
    unsigned ntoks = 0;
    size_t i = p;
    bool comma = true;
    while (i < end) {
        while (i < end && is_blank(stmt[i])) i++;
        if (i < end && stmt[i] == ',') {
            comma = true;
            i++;
            continue;
        }
        if (i >= end) break;
        size_t s = i;
        unsigned depth = 0;
        while (i < end && (depth || (!is_blank(stmt[i]) && stmt[i] != ','))) {
            if (stmt[i] == '(' || stmt[i] == '[') depth++;
            if ((stmt[i] == ')' || stmt[i] == ']') && depth) depth--;
            i++;
        }
        if (ntoks == sizeof toks / sizeof toks[0])
            return fail_at(ps, TREG_E_FORMAT, "too many operands");
        toks[ntoks++] = (tok){s, i, comma};
        comma = false;
    }
    /* DTK's comma-less operands: leading register tokens, none after a comma */
    bool commas = false;
    for (unsigned k = 1; k < ntoks; k++) commas |= toks[k].after_comma;
    unsigned leading = 0;
    while (leading < ntoks &&
           is_register_word(stmt + toks[leading].start, toks[leading].end - toks[leading].start))
        leading++;
    for (unsigned k = 0; k < ntoks; k++) {
        bool operand = toks[k].after_comma || (!commas && leading >= 2 && k < leading);
        if (!operand) {
            /* a modifier, but DTK also spells a register list with blanks
             * inside the brackets: rewrite brackets anywhere */
            int rc = rewrite_registers(ps, sc, stmt, toks[k].start, toks[k].end);
            if (rc) return rc;
            continue;
        }
        if (!toks[k].after_comma) {
            int rc = push_edit(ps, sc, toks[k].start, toks[k].start, "", true);
            if (rc) return rc;
        }
        int rc = scan_operand(ps, sc, family, stmt, toks[k].start, toks[k].end, labels_ok);
        if (rc) return rc;
    }
    return TREG_OK;
}

/* Builds the canonical text: mnemonic lower-cased, edits applied, blanks
 * collapsed to one space. */
static char *render(const treg_asm_insn_ctx *ps, const char *stmt, size_t len, size_t mn_len,
                    insn_scan *sc)
{
    char buf[MAX_INSN_TEXT + 64];
    size_t o = 0;
    unsigned e = 0;
    bool blank = false;
    for (size_t i = 0; i < len && o < MAX_INSN_TEXT;) {
        /* edits are in statement order (pushed left to right) */
        if (e < sc->nedits && sc->edits[e].start == i) {
            const edit *ed = &sc->edits[e++];
            if (ed->insert_comma) {
                while (o && buf[o - 1] == ' ') o--;
                buf[o++] = ',';
                buf[o++] = ' ';
                blank = false;
                continue;
            }
            size_t tl = strlen(ed->text);
            if (blank && o && buf[o - 1] != ' ') buf[o++] = ' ';
            blank = false;
            memcpy(buf + o, ed->text, tl);
            o += tl;
            i = ed->end;
            continue;
        }
        char c = stmt[i++];
        if (is_blank(c)) {
            blank = true;
            continue;
        }
        if (blank && o && buf[o - 1] != ' ') buf[o++] = ' ';
        blank = false;
        buf[o++] = i <= mn_len && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    if (o >= MAX_INSN_TEXT) return NULL;
    return treg_arena_strndup(ps->arena, buf, o);
}

int treg_asm_read_insn(const treg_asm_insn_ctx *ps, const char *stmt, size_t len, bool labels_ok,
                       treg_asm_insn *it)
{
    if (len > MAX_INSN_TEXT)
        return fail_at(ps, TREG_E_FORMAT, "instruction longer than 1024 characters: '%.*s'",
                       QUOTE(len), stmt);
    size_t mn_len = 0;
    while (mn_len < len && ident_char(stmt[mn_len])) mn_len++;
    char mn[64];
    if (mn_len == 0 || mn_len >= sizeof mn)
        return fail_at(ps, TREG_E_FORMAT, "unknown mnemonic '%.*s'", QUOTE(mn_len ? mn_len : len),
                       stmt);
    for (size_t i = 0; i < mn_len; i++)
        mn[i] = stmt[i] >= 'A' && stmt[i] <= 'Z' ? (char)(stmt[i] - 'A' + 'a') : stmt[i];
    int family = treg_asm_family(mn, mn_len);
    if (family == TREG_ENC_UNKNOWN)
        return fail_at(ps, TREG_E_FORMAT, "unknown mnemonic '%.*s'", QUOTE(mn_len), stmt);
    insn_scan sc;
    memset(&sc, 0, sizeof sc);
    /* Hand-written text's bare v_mov_b32: named and laid out as assembled. */
    const char *suffix = bare_valu_suffix(mn, mn_len, stmt, mn_len, len, ps->gfx10_plus);
    if (suffix) {
        family = suffix[2] == '3' ? TREG_ENC_VALU32 : TREG_ENC_VALU64;
        int rc = push_edit(ps, &sc, mn_len, mn_len, suffix, false);
        if (rc) return rc;
    }
    /* VOPD: two halves joined by "::", one encoding */
    size_t split = len;
    for (size_t i = mn_len; i + 1 < len; i++)
        if (stmt[i] == ':' && stmt[i + 1] == ':') {
            split = i;
            break;
        }
    int rc = scan_part(ps, &sc, family, stmt, mn_len, split, labels_ok);
    if (rc) return rc;
    if (split < len) {
        size_t q = split + 2;
        while (q < len && is_blank(stmt[q])) q++;
        size_t m2 = q;
        while (m2 < len && ident_char(stmt[m2])) m2++;
        if (m2 == q || treg_asm_family(stmt + q, m2 - q) == TREG_ENC_UNKNOWN)
            return fail_at(ps, TREG_E_FORMAT, "malformed dual instruction '%.*s'", QUOTE(len),
                           stmt);
        if ((rc = scan_part(ps, &sc, family, stmt, m2, len, labels_ok))) return rc;
    }
    memset(it, 0, sizeof *it);
    it->size = treg_asm_size(family, sc.literal);
    it->text = render(ps, stmt, len, mn_len, &sc);
    if (!it->text) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    it->unresolved = sc.unresolved;
    if (sc.label && labels_ok) {
        const treg_sym *s = treg_symtab_find(ps->syms, sc.label, sc.label_len);
        if (s && s->defined && s->label) {
            it->has_target = true;
            it->target = (uint64_t)s->value;
        }
    }
    return TREG_OK;
}
