/* Team bearer tokens (see auth.h): SHA-256 through OpenSSL's EVP, compared
 * with CRYPTO_memcmp against every entry without an early exit. */
#include "auth.h"
#include "util/error.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

/* md: a fetched SHA-256, or NULL for OpenSSL's default (looked up per call). */
static int sha256(const EVP_MD *md, const char *data, size_t len, uint8_t out[AUTH_HASH_LEN])
{
    unsigned int n = 0;
    if (EVP_Digest(data, len, out, &n, md ? md : EVP_sha256(), NULL) != 1 || n != AUTH_HASH_LEN)
        return -1;
    return 0;
}

int auth_hash_hex(const char *token, char out[2 * AUTH_HASH_LEN + 1])
{
    uint8_t h[AUTH_HASH_LEN];
    if (sha256(NULL, token, strlen(token), h) != 0) return -1;
    for (size_t i = 0; i < AUTH_HASH_LEN; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
    OPENSSL_cleanse(h, sizeof h);
    return 0;
}

unsigned auth_token_bits(const char *token)
{
    bool digit = false, lower = false, upper = false, other = false, hex_lower = true,
         hex_upper = true;
    bool seen[256] = {false};
    unsigned distinct = 0;
    size_t len = strlen(token);
    for (const unsigned char *p = (const unsigned char *)token; *p; p++) {
        if (!seen[*p]) distinct++;
        seen[*p] = true;
        if (isdigit(*p))
            digit = true;
        else if (islower(*p))
            lower = true;
        else if (isupper(*p))
            upper = true;
        else
            other = true;
        hex_lower = hex_lower && (isdigit(*p) || (*p >= 'a' && *p <= 'f'));
        hex_upper = hex_upper && (isdigit(*p) || (*p >= 'A' && *p <= 'F'));
    }
    unsigned n = hex_lower || hex_upper ? (digit && !lower && !upper ? 10 : 16)
                                        : 10 * digit + 26 * lower + 26 * upper + 33 * other;
    /* a few characters repeated ("aaaa...", "abab..."): no more than those */
    if (distinct < 8 && distinct < n) n = distinct;
    if (n < 2) return 0;
    double bits = (double)len * log2(n);
    return bits > 100000 ? 100000 : (unsigned)bits;
}

static auth_entry *append(auth_set *set, const char *team)
{
    if (set->sha256 == NULL && (set->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL)
        return NULL;
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        auth_entry *e = realloc(set->entries, cap * sizeof *e);
        if (e == NULL) return NULL;
        set->entries = e;
        set->cap = cap;
    }
    auth_entry *e = &set->entries[set->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->team, sizeof e->team, "%s", team);
    return e;
}

int auth_add_token(auth_set *set, const char *team, const char *token)
{
    auth_entry *e = append(set, team);
    if (e == NULL) return -1;
    if (sha256(set->sha256, token, strlen(token), e->hash) != 0) {
        set->n--;
        return -1;
    }
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int auth_load_file(auth_set *set, const char *path, treg_error *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        treg_fail(err, TREG_E_IO, "--tokens-file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0' || *p == '#') continue;
        char team[64], hex[80];
        char extra;
        if (sscanf(p, "%63s %79s %c", team, hex, &extra) != 2 || strlen(hex) != 2 * AUTH_HASH_LEN) {
            treg_fail(
                err, TREG_E_FORMAT,
                "--tokens-file %s:%d: not 'TEAM <64 hex digits>' (tregd add-token TEAM makes one)",
                path, lineno);
            rc = -1;
            break;
        }
        uint8_t hash[AUTH_HASH_LEN];
        int ok = 1;
        for (size_t i = 0; i < AUTH_HASH_LEN && ok; i++) {
            int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
            if (hi < 0 || lo < 0)
                ok = 0;
            else
                hash[i] = (uint8_t)(hi << 4 | lo);
        }
        auth_entry *e = ok ? append(set, team) : NULL;
        if (e == NULL) {
            treg_fail(err, TREG_E_NOMEM, "--tokens-file %s:%d: %s", path, lineno,
                      ok ? "out of memory" : "hash is not 64 hex digits");
            rc = -1;
            break;
        }
        memcpy(e->hash, hash, sizeof hash);
    }
    fclose(f);
    return rc;
}

const auth_entry *auth_find_hash(const auth_set *set, const uint8_t hash[AUTH_HASH_LEN])
{
    const auth_entry *found = NULL;
    for (size_t i = 0; i < set->n; i++) {
        /* No break: every entry is compared whatever matched before. */
        if (CRYPTO_memcmp(hash, set->entries[i].hash, AUTH_HASH_LEN) == 0 && found == NULL)
            found = &set->entries[i];
    }
    return found;
}

const auth_entry *auth_find_hash_hex(const auth_set *set, const char *hex)
{
    uint8_t h[AUTH_HASH_LEN];
    if (hex == NULL || strlen(hex) != 2 * AUTH_HASH_LEN) return NULL;
    for (size_t i = 0; i < AUTH_HASH_LEN; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return NULL;
        h[i] = (uint8_t)(hi << 4 | lo);
    }
    return auth_find_hash(set, h);
}

const auth_entry *auth_find_token(const auth_set *set, const char *token)
{
    uint8_t h[AUTH_HASH_LEN];
    if (token == NULL || *token == '\0' || sha256(set->sha256, token, strlen(token), h) != 0)
        return NULL;
    return auth_find_hash(set, h);
}

const char *auth_check(const auth_set *set, const char *authorization)
{
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0) return NULL;
    const char *token = authorization + 7;
    while (*token == ' ') token++;
    const auth_entry *e = auth_find_token(set, token);
    return e ? e->team : NULL;
}

void auth_free(auth_set *set)
{
    if (set->entries != NULL) OPENSSL_cleanse(set->entries, set->cap * sizeof *set->entries);
    free(set->entries);
    EVP_MD_free(set->sha256);
    memset(set, 0, sizeof *set);
}
