/* Scalar compares, SCC branches and operands; see scalar.h. */
#include "model/scalar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/regs.h"

bool treg_scalar_cmp_parse(const char *text, treg_scalar_cmp *c)
{
    static const char *const ops[] = {"eq", "lg", "gt", "ge", "lt", "le"};
    size_t at;
    if (strncmp(text, "s_cmp_", 6) == 0)
        at = 6;
    else if (strncmp(text, "s_cmpk_", 7) == 0)
        at = 7;
    else
        return false;
    for (int i = 0; i < 6; i++)
        if (strncmp(text + at, ops[i], 2) == 0 && text[at + 2] == '_') {
            c->op = (enum treg_cmp_op)i;
            if (strncmp(text + at + 3, "i32 ", 4) == 0)
                c->is_signed = true;
            else if (strncmp(text + at + 3, "u32 ", 4) == 0)
                c->is_signed = false;
            else
                return false;
            return true;
        }
    return false;
}

bool treg_scalar_cmp_holds(const treg_scalar_cmp *c, uint32_t a, uint32_t b)
{
    int64_t x = c->is_signed ? (int64_t)(int32_t)a : (int64_t)a;
    int64_t y = c->is_signed ? (int64_t)(int32_t)b : (int64_t)b;
    switch (c->op) {
    case TREG_CMP_EQ:
        return x == y;
    case TREG_CMP_LG:
        return x != y;
    case TREG_CMP_GT:
        return x > y;
    case TREG_CMP_GE:
        return x >= y;
    case TREG_CMP_LT:
        return x < y;
    case TREG_CMP_LE:
        return x <= y;
    }
    return false;
}

int treg_scalar_branch_on_scc(const char *text)
{
    if (strncmp(text, "s_cbranch_scc", 13) != 0 || (text[13] != '0' && text[13] != '1') ||
        text[14] != ' ')
        return -1;
    return text[13] == '1';
}

bool treg_scalar_constant(const char *s, size_t len, int64_t *v)
{
    char buf[32];
    if (!len || len >= sizeof buf) return false;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 0);
    if (errno || *end || (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9'))) return false;
    if (x > (1LL << 32) || x < -(1LL << 32)) return false; /* no 32-bit operand is wider */
    *v = x;
    return true;
}

bool treg_scalar_sgpr(const char *s, size_t len, unsigned *r)
{
    if (len < 2 || len > 4 || s[0] != 's') return false;
    unsigned n = 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        n = n * 10 + (unsigned)(s[i] - '0');
    }
    if (n >= TREG_NUM_S) return false;
    *r = TREG_REG_S0 + n;
    return true;
}
