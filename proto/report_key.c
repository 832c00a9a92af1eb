/* Report keys (see report_key.h). */
#include "report_key.h"

#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

static void to_hex(const unsigned char *h, char out[TREG_DIGEST_HEX + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < TREG_DIGEST_HEX / 2; i++) {
        out[2 * i] = digits[h[i] >> 4];
        out[2 * i + 1] = digits[h[i] & 15];
    }
    out[TREG_DIGEST_HEX] = '\0';
}

int treg_sha256(const void *data, size_t len, unsigned char out[32])
{
    unsigned int n = 0;
    return EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) == 1 && n == 32 ? 0 : -1;
}

int treg_sha256_hex(const void *data, size_t len, char out[TREG_DIGEST_HEX + 1])
{
    unsigned char h[32];
    out[0] = '\0';
    if (treg_sha256(data, len, h) != 0) return -1;
    to_hex(h, out);
    return 0;
}

int treg_text_sha256(const char *text, size_t len, char out[TREG_DIGEST_HEX + 1])
{
    if (len == 0) {
        out[0] = '\0';
        return 0;
    }
    return treg_sha256_hex(text, len, out);
}

/* SHA-256 of a domain tag and n strings, each preceded by its length. */
static int digest_fields(const char *tag, const char *const *fields, size_t n,
                         char out[TREG_DIGEST_HEX + 1])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char h[EVP_MAX_MD_SIZE];
    unsigned int hlen = 0;
    int ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(ctx, tag, strlen(tag) + 1) == 1;
    for (size_t i = 0; ok && i < n; i++) {
        const char *f = fields[i] ? fields[i] : "";
        char len[24];
        int m = snprintf(len, sizeof len, "%zu:", strlen(f));
        ok = EVP_DigestUpdate(ctx, len, (size_t)m) == 1 && EVP_DigestUpdate(ctx, f, strlen(f)) == 1;
    }
    ok = ok && EVP_DigestFinal_ex(ctx, h, &hlen) == 1 && hlen == TREG_DIGEST_HEX / 2;
    EVP_MD_CTX_free(ctx);
    out[0] = '\0';
    if (!ok) return -1;
    to_hex(h, out);
    return 0;
}

int treg_inputs_digest(const char *bundle_entry, const char *json_sha256, const char *amdgcn_sha256,
                       const char *llvm_ir_sha256, const char *ttgir_sha256,
                       char out[TREG_DIGEST_HEX + 1])
{
    const char *f[] = {bundle_entry, json_sha256, amdgcn_sha256,
                       llvm_ir_sha256 ? llvm_ir_sha256 : "", ttgir_sha256};
    /* fields added later count only when present: older digests stay */
    size_t n = ttgir_sha256 && *ttgir_sha256 ? 5 : llvm_ir_sha256 && *llvm_ir_sha256 ? 4 : 3;
    return digest_fields("treg inputs 1", f, n, out);
}

int treg_report_key(const char *hash, const char *inputs, const char *analyzer_version,
                    const char *llvm_version, char out[TREG_DIGEST_HEX + 1])
{
    const char *f[] = {hash, inputs, analyzer_version, llvm_version};
    return digest_fields("treg report key 1", f, 4, out);
}
