/* The container reader: the code objects inside a file (treg/container.h),
 * for tregc on the nodes and the analyzer alike.
 *
 * The formats, from clang's ClangOffloadBundler.rst / OffloadBundler.cpp and
 * llvm/Object/OffloadBinary.h (see ../shared/notes/AMDGPU-NOTES.md,
 * "Offload bundles"), all little-endian:
 *   bundle   "__CLANG_OFFLOAD_BUNDLE__", u64 entries, then per entry u64
 *            offset (from the bundle's start), u64 size, u64 id length, id;
 *   CCOB     "CCOB", u16 version, u16 method (0 zlib, 1 zstd), then
 *            v1: u32 uncompressed, u64 hash; v2: u32 total, u32
 *            uncompressed, u64 hash; v3: u64 total, u64 uncompressed, u64
 *            hash; then the compressed bundle (v1 runs to the stream's end);
 *   offload binary  0x10FF10AD, u32 version 1, u64 size, u64 entry offset,
 *            u64 entry size; the entry: u16 image kind, u16 offload kind,
 *            u32 flags, u64 string offset, u64 strings, u64 image offset,
 *            u64 image size; strings are (u64 key, u64 value) offsets;
 *   .hipFatBinSegment  per translation unit u32 "HIPF", u32 version, u64
 *            pointer to its bundle, u64 reserved.
 * A section may hold several bundles (one per translation unit, padded
 * with zeros to the section's alignment) or several offload binaries: they
 * are walked by each one's own extent.  Every offset is checked against
 * the bytes it points into before it is used; a decompressed size is
 * checked against the budget before the buffer is allocated, and the
 * stream must produce exactly that many bytes. */
#include "treg/container.h"

#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "util/arena.h"
#include "util/bytes.h"
#include "util/elf_machine.h"
#include "util/error.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

static const char BUNDLE_MAGIC[] = "__CLANG_OFFLOAD_BUNDLE__"; /* 24 bytes, no NUL */
enum {
    BUNDLE_MAGIC_LEN = 24,
    BUNDLE_HEADER = 32,    /* magic + u64 entry count */
    BUNDLE_ENTRY_MIN = 24, /* offset, size, id length */
    BUNDLE_ID_MAX = 1024,  /* an id is a target triple and features */
    CCOB_V1_HEADER = 20,
    CCOB_V2_HEADER = 24,
    CCOB_V3_HEADER = 32,
    OFFLOAD_HEADER = 32,
    OFFLOAD_ENTRY = 40,
    OFFLOAD_ALIGN = 8,
    OFFLOAD_STRINGS_MAX = 64, /* LLVM writes a handful: triple, arch, kind */
    OFFLOAD_STRING_MAX = 4096,
    HIPF_RECORD = 24,
    MAX_DEPTH = 4, /* host ELF > offload binary > bundle > CCOB > bundle */
    R_X86_64_RELATIVE_TYPE = 8,
};
static const uint64_t DEFAULT_MAX_BUNDLE = 1ull << 30;
static const uint64_t DEFAULT_MIN_TOTAL = 256ull << 20;
static const uint64_t TOTAL_PER_INPUT_BYTE = 64;
static const uint32_t DEFAULT_MAX_ENTRIES = 65536;

typedef struct reader {
    treg_arena *arena; /* names and tables of the container being read; see scoped() */
    treg_container_limits lim;
    uint32_t nentries;
    const uint8_t *file; /* the caller's buffer */
    size_t file_len;
    uint64_t delivered; /* bytes of entries from the caller's buffer: at most file_len */
    treg_container_fn fn;
    void *ctx;
    treg_container_stats stats;
    char skipped_names[240]; /* the first two skipped entries, for the no-object error */
    size_t skipped_at;
    treg_error *err;
} reader;

static bool is_bundle(const uint8_t *b, size_t n)
{
    return n >= BUNDLE_MAGIC_LEN && memcmp(b, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN) == 0;
}
static bool is_ccob(const uint8_t *b, size_t n)
{
    return n >= 4 && memcmp(b, "CCOB", 4) == 0;
}
static bool is_offload_binary(const uint8_t *b, size_t n)
{
    return n >= 4 && b[0] == 0x10 && b[1] == 0xFF && b[2] == 0x10 && b[3] == 0xAD;
}
static bool is_elf64le(const uint8_t *b, size_t n)
{
    return n >= 64 && memcmp(b, ELFMAG, SELFMAG) == 0 && b[EI_CLASS] == ELFCLASS64 &&
           b[EI_DATA] == ELFDATA2LSB;
}
static bool is_amdgpu_elf(const uint8_t *b, size_t n)
{
    return is_elf64le(b, n) && treg_rd16(b + 18) == EM_AMDGPU;
}
static bool is_bitcode(const uint8_t *b, size_t n)
{
    /* raw bitcode 'BC' 0xC0DE, or the wrapper 0x0B17C0DE */
    return n >= 4 && ((b[0] == 'B' && b[1] == 'C' && b[2] == 0xC0 && b[3] == 0xDE) ||
                      (b[0] == 0xDE && b[1] == 0xC0 && b[2] == 0x17 && b[3] == 0x0B));
}

int treg_target_matches(const char *target, const char *name)
{
    if (!target || !name) return 0;
    size_t n = strlen(name);
    return strncmp(target, name, n) == 0 && (target[n] == 0 || target[n] == ':');
}

static char *fmt(reader *r, const char *f, ...) __attribute__((format(printf, 2, 3)));
static char *fmt(reader *r, const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return treg_arena_strdup(r->arena, buf);
}

/* An id as printable text for messages: control bytes as '?'. */
static char *clean_id(reader *r, const uint8_t *p, size_t n)
{
    char *s = treg_arena_strndup(r->arena, (const char *)p, n);
    if (!s) return NULL;
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return s;
}

/* The processor an entry id names: its first '-'-separated field that
 * starts with "gfx", up to the features (':'). */
static const char *id_target(reader *r, const char *id)
{
    for (const char *p = id; p && *p; p = strchr(p, '-') ? strchr(p, '-') + 1 : NULL) {
        if (strncmp(p, "gfx", 3) == 0) {
            size_t n = strcspn(p, ":-");
            return treg_arena_strndup(r->arena, p, n);
        }
    }
    return NULL;
}

static int emit(reader *r, const char *id, const char *where, const char *why, const uint8_t *bytes,
                size_t len)
{
    /* Entries of a well-formed file never share bytes, so together they
     * cannot pass its size; overlapping ones (one code object handed out
     * again and again) are refused before they cost an analysis each. */
    uintptr_t at = (uintptr_t)bytes, file = (uintptr_t)r->file;
    if (len && at >= file && at - file < r->file_len) {
        if (len > r->file_len - r->delivered)
            return treg_fail(r->err, TREG_E_FORMAT,
                             "%s: entries overlap: together they hold more than the file's %zu "
                             "bytes",
                             where, r->file_len);
        r->delivered += len;
    }
    treg_embedded e = {.entry_id = id,
                       .target = id ? id_target(r, id) : NULL,
                       .where = where,
                       .skipped = why,
                       .bytes = bytes,
                       .len = len};
    if (why) {
        r->stats.skipped++;
        size_t room = sizeof r->skipped_names - r->skipped_at;
        if (r->stats.skipped <= 2 && room > 1) { /* the rest are counted in the message */
            int w = snprintf(r->skipped_names + r->skipped_at, room, "%s%s (%s)",
                             r->skipped_at ? ", " : "", id ? id : "?", why);
            r->skipped_at += w < 0 ? 0 : (size_t)w < room ? (size_t)w : room - 1;
        }
    } else {
        r->stats.objects++;
    }
    return r->fn ? r->fn(r->ctx, &e, r->err) : TREG_OK;
}

/* One entry of a bundle or offload binary: a code object, or skipped with
 * the reason. */
static int classify(reader *r, const char *id, const char *where, const uint8_t *b, size_t n)
{
    if (!where) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    const char *why = NULL;
    if (strncmp(id, "host-", 5) == 0)
        why = "host code";
    else if (n == 0)
        why = "empty";
    else if (is_amdgpu_elf(b, n))
        return emit(r, id, where, NULL, b, n);
    else if (is_bitcode(b, n))
        why = "LLVM bitcode (-fgpu-rdc): code objects are made when the program is linked";
    else if (is_elf64le(b, n))
        why = fmt(r, "an ELF for machine %u, not AMDGPU", treg_rd16(b + 18));
    else
        why = "not an AMDGPU code object";
    if (!why) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    return emit(r, id, where, why, b, n);
}

static int count_entries(reader *r, uint64_t n, const char *where)
{
    if (n > r->lim.max_entries - r->nentries)
        return treg_fail(r->err, TREG_E_LIMIT,
                         "%s: %llu more entries pass the limit of %u entries in one file", where,
                         (unsigned long long)n, r->lim.max_entries);
    r->nentries += (uint32_t)n;
    return TREG_OK;
}

static int read_any(reader *r, const uint8_t *b, size_t avail, const char *where, int depth,
                    size_t *consumed);

/* An uncompressed bundle at b (avail bytes to the end of what holds it);
 * *consumed is its extent: the header or the furthest entry end. */
static int read_bundle_table(reader *r, const uint8_t *b, size_t avail, const char *where,
                             size_t *consumed);

/* The table, ids and names of one bundle live as long as its entries are
 * being passed on, so a file of many bundles holds one table at a time. */
static int read_bundle(reader *r, const uint8_t *b, size_t avail, const char *where,
                       size_t *consumed)
{
    treg_arena *outer = r->arena, scoped;
    treg_arena_init(&scoped);
    r->arena = &scoped;
    int rc = read_bundle_table(r, b, avail, where, consumed);
    r->arena = outer;
    treg_arena_free(&scoped);
    return rc;
}

static int read_bundle_table(reader *r, const uint8_t *b, size_t avail, const char *where,
                             size_t *consumed)
{
    if (avail < BUNDLE_HEADER)
        return treg_fail(r->err, TREG_E_FORMAT, "%s: truncated offload bundle header (%zu bytes)",
                         where, avail);
    uint64_t n = treg_rd64(b + BUNDLE_MAGIC_LEN);
    if (n == 0)
        return treg_fail(r->err, TREG_E_FORMAT, "%s: offload bundle with no entries", where);
    if (n > (avail - BUNDLE_HEADER) / BUNDLE_ENTRY_MIN)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: offload bundle states %llu entries; its %zu bytes hold at most %zu",
                         where, (unsigned long long)n, avail,
                         (avail - BUNDLE_HEADER) / BUNDLE_ENTRY_MIN);
    int rc = count_entries(r, n, where);
    if (rc != TREG_OK) return rc;

    /* The table first, so entry offsets can be checked against its end. */
    uint64_t *off = treg_arena_calloc(r->arena, n, sizeof *off);
    uint64_t *size = treg_arena_calloc(r->arena, n, sizeof *size);
    char **id = treg_arena_calloc(r->arena, n, sizeof *id);
    if (!off || !size || !id) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    size_t pos = BUNDLE_HEADER;
    for (uint64_t i = 0; i < n; i++) {
        if (avail - pos < BUNDLE_ENTRY_MIN)
            return treg_fail(r->err, TREG_E_FORMAT,
                             "%s: offload bundle truncated in entry %llu of %llu", where,
                             (unsigned long long)i + 1, (unsigned long long)n);
        off[i] = treg_rd64(b + pos);
        size[i] = treg_rd64(b + pos + 8);
        uint64_t idlen = treg_rd64(b + pos + 16);
        pos += BUNDLE_ENTRY_MIN;
        if (idlen == 0 || idlen > BUNDLE_ID_MAX || idlen > avail - pos)
            return treg_fail(r->err, TREG_E_FORMAT,
                             "%s: offload bundle entry %llu has an id of %llu bytes (%zu left)",
                             where, (unsigned long long)i + 1, (unsigned long long)idlen,
                             avail - pos);
        id[i] = clean_id(r, b + pos, (size_t)idlen);
        if (!id[i]) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
        pos += (size_t)idlen;
    }
    size_t end = pos;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (size[i] == 0) continue; /* the host entry is often empty */
        if (off[i] < pos || off[i] > avail || size[i] > avail - off[i])
            return treg_fail(r->err, TREG_E_FORMAT,
                             "%s: offload bundle entry %llu (%s) at offset %llu, %llu bytes, lies "
                             "outside the bundle's data (%zu..%zu)",
                             where, (unsigned long long)i + 1, id[i], (unsigned long long)off[i],
                             (unsigned long long)size[i], pos, avail);
        if (off[i] + size[i] > end) end = (size_t)(off[i] + size[i]);
        sum += size[i];
    }
    if (sum > avail - pos)
        return treg_fail(
            r->err, TREG_E_FORMAT,
            "%s: offload bundle entries overlap: %llu bytes of entries in %zu bytes of "
            "data",
            where, (unsigned long long)sum, avail - pos);
    for (uint64_t i = 0; i < n; i++) {
        rc = classify(r, id[i], fmt(r, "%s, entry %llu", where, (unsigned long long)i + 1),
                      size[i] ? b + off[i] : b, (size_t)size[i]);
        if (rc != TREG_OK) return rc;
    }
    *consumed = end;
    return TREG_OK;
}

/* zlib or zstd into exactly want bytes at dst; *used: the input read. */
static int inflate_zlib(reader *r, const uint8_t *src, size_t n, uint8_t *dst, size_t want,
                        size_t *used, const char *where)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return treg_fail(r->err, TREG_E_NOMEM, "out of memory (zlib)");
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)want;
    int zr = inflate(&z, Z_FINISH);
    size_t got = want - z.avail_out;
    *used = (size_t)(z.next_in - src);
    const char *msg = z.msg;
    inflateEnd(&z);
    if (zr == Z_STREAM_END && got == want) return TREG_OK;
    if (zr == Z_STREAM_END)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: decompresses to %zu bytes, not the %zu its header states", where, got,
                         want);
    /* input used up first: the stream is cut; output full first: it runs on */
    if ((zr == Z_BUF_ERROR || zr == Z_OK) && *used == n)
        return treg_fail(r->err, TREG_E_FORMAT, "%s: truncated zlib stream", where);
    if (zr == Z_BUF_ERROR || zr == Z_OK)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: decompresses past the %zu bytes its header states", where, want);
    return treg_fail(r->err, TREG_E_FORMAT, "%s: zlib: %s", where, msg ? msg : "corrupt data");
}

static int inflate_zstd(reader *r, const uint8_t *src, size_t n, bool sized, uint8_t *dst,
                        size_t want, size_t *used, const char *where)
{
    if (!sized) { /* v1: the frame's own header says where it ends */
        size_t f = ZSTD_findFrameCompressedSize(src, n);
        if (ZSTD_isError(f))
            return treg_fail(r->err, TREG_E_FORMAT, "%s: zstd: %s", where, ZSTD_getErrorName(f));
        n = f;
    }
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d) return treg_fail(r->err, TREG_E_NOMEM, "out of memory (zstd)");
    /* zstd's default window limit (128 MiB) bounds its own memory. */
    size_t got = ZSTD_decompressDCtx(d, dst, want, src, n);
    ZSTD_freeDCtx(d);
    *used = n;
    if (ZSTD_isError(got)) {
        if (ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall)
            return treg_fail(r->err, TREG_E_FORMAT,
                             "%s: decompresses past the %zu bytes its header states", where, want);
        return treg_fail(r->err, TREG_E_FORMAT, "%s: zstd: %s", where, ZSTD_getErrorName(got));
    }
    if (got != want)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: decompresses to %zu bytes, not the %zu its header states", where, got,
                         want);
    return TREG_OK;
}

/* A compressed bundle: inflated into the arena, then read as a bundle. */
static int read_ccob(reader *r, const uint8_t *b, size_t avail, const char *where, size_t *consumed)
{
    if (avail < 8) return treg_fail(r->err, TREG_E_FORMAT, "%s: truncated CCOB header", where);
    unsigned version = treg_rd16(b + 4), method = treg_rd16(b + 6);
    size_t header;
    uint64_t total = 0, want;
    switch (version) {
    case 1:
        header = CCOB_V1_HEADER;
        break;
    case 2:
        header = CCOB_V2_HEADER;
        break;
    case 3:
        header = CCOB_V3_HEADER;
        break;
    default:
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: compressed bundle version %u (versions 1 to 3 are known)", where,
                         version);
    }
    if (avail < header)
        return treg_fail(r->err, TREG_E_FORMAT, "%s: truncated CCOB v%u header (%zu bytes)", where,
                         version, avail);
    if (version == 1) {
        want = treg_rd32(b + 8);
    } else if (version == 2) {
        total = treg_rd32(b + 8);
        want = treg_rd32(b + 12);
    } else {
        total = treg_rd64(b + 8);
        want = treg_rd64(b + 16);
    }
    if (version > 1 && (total < header || total > avail))
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: CCOB v%u states a total size of %llu bytes; %zu are there", where,
                         version, (unsigned long long)total, avail);
    if (method != 0 && method != 1)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: CCOB compression method %u (0 zlib and 1 zstd are known)", where,
                         method);
    const char *how = method == 0 ? "zlib" : "zstd";
    if (want > r->lim.max_bundle)
        return treg_fail(r->err, TREG_E_LIMIT,
                         "%s: CCOB v%u states %llu bytes uncompressed, past the limit of %llu for "
                         "one bundle",
                         where, version, (unsigned long long)want,
                         (unsigned long long)r->lim.max_bundle);
    uint64_t budget = r->lim.max_total - r->stats.decompressed;
    if (want > budget)
        return treg_fail(r->err, TREG_E_LIMIT,
                         "%s: CCOB v%u states %llu bytes uncompressed; the file's limit of %llu "
                         "leaves %llu",
                         where, version, (unsigned long long)want,
                         (unsigned long long)r->lim.max_total, (unsigned long long)budget);
    if (want > UINT32_MAX)
        return treg_fail(r->err, TREG_E_LIMIT,
                         "%s: CCOB v%u states %llu bytes uncompressed, past 4 GiB", where, version,
                         (unsigned long long)want);
    if (want < BUNDLE_HEADER)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: CCOB v%u states %llu bytes uncompressed, too few for a bundle", where,
                         version, (unsigned long long)want);
    uint8_t *dst = malloc((size_t)want);
    if (!dst)
        return treg_fail(r->err, TREG_E_NOMEM, "%s: out of memory for %llu bytes", where,
                         (unsigned long long)want);
    const uint8_t *src = b + header;
    size_t n = (version == 1 ? avail : (size_t)total) - header, used = 0;
    int rc = method == 0 ? inflate_zlib(r, src, n, dst, (size_t)want, &used, where)
                         : inflate_zstd(r, src, n, version > 1, dst, (size_t)want, &used, where);
    if (rc == TREG_OK) {
        r->stats.decompressed += want;
        *consumed = version == 1 ? header + used : (size_t)total;
        if (!is_bundle(dst, (size_t)want)) {
            rc = treg_fail(r->err, TREG_E_FORMAT,
                           "%s: CCOB v%u (%s) does not decompress to an offload bundle", where,
                           version, how);
        } else {
            size_t inner;
            const char *w = fmt(r, "%s (CCOB v%u, %s)", where, version, how);
            rc = w ? read_bundle(r, dst, (size_t)want, w, &inner)
                   : treg_fail(r->err, TREG_E_NOMEM, "out of memory");
        }
    }
    free(dst);
    return rc;
}

static const char *offload_kind(unsigned k)
{
    switch (k) {
    case 1:
        return "openmp";
    case 2:
        return "cuda";
    case 4:
        return "hip";
    case 8:
        return "sycl";
    default:
        return "offload";
    }
}

static int dashes(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '-';
    return n;
}

/* A NUL-terminated string at off inside b[0..n), or NULL. */
static const char *string_at(const uint8_t *b, size_t n, uint64_t off)
{
    if (off >= n) return NULL;
    size_t room = n - (size_t)off;
    if (!memchr(b + off, 0, room < OFFLOAD_STRING_MAX ? room : OFFLOAD_STRING_MAX)) return NULL;
    return (const char *)b + off;
}

/* One offload binary (LLVM's OffloadBinary, version 1). */
static int read_offload_binary(reader *r, const uint8_t *b, size_t avail, const char *where,
                               int depth, size_t *consumed)
{
    if (avail < OFFLOAD_HEADER)
        return treg_fail(r->err, TREG_E_FORMAT, "%s: truncated offload binary header", where);
    unsigned version = treg_rd32(b + 4);
    uint64_t size = treg_rd64(b + 8), eoff = treg_rd64(b + 16), esize = treg_rd64(b + 24);
    if (version != 1)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: offload binary version %u (version 1 is known)", where, version);
    if (size < OFFLOAD_HEADER || size > avail)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: offload binary states %llu bytes; %zu are there", where,
                         (unsigned long long)size, avail);
    if (eoff < OFFLOAD_HEADER || esize < OFFLOAD_ENTRY || eoff > size || esize > size - eoff)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: offload binary entry at %llu (%llu bytes) lies outside its %llu "
                         "bytes",
                         where, (unsigned long long)eoff, (unsigned long long)esize,
                         (unsigned long long)size);
    int rc = count_entries(r, 1, where);
    if (rc != TREG_OK) return rc;
    const uint8_t *e = b + eoff;
    unsigned image_kind = treg_rd16(e), kind = treg_rd16(e + 2);
    uint64_t soff = treg_rd64(e + 8), nstr = treg_rd64(e + 16), ioff = treg_rd64(e + 24),
             isize = treg_rd64(e + 32);
    if (soff > size || nstr > (size - soff) / 16 || nstr > OFFLOAD_STRINGS_MAX)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: offload binary string table (%llu strings at %llu) lies outside "
                         "its %llu bytes",
                         where, (unsigned long long)nstr, (unsigned long long)soff,
                         (unsigned long long)size);
    if (ioff > size || isize > size - ioff)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "%s: offload binary image at %llu (%llu bytes) lies outside its %llu "
                         "bytes",
                         where, (unsigned long long)ioff, (unsigned long long)isize,
                         (unsigned long long)size);
    const char *triple = NULL, *arch = NULL;
    for (uint64_t i = 0; i < nstr; i++) {
        const char *k = string_at(b, (size_t)size, treg_rd64(b + soff + 16 * i));
        const char *v = string_at(b, (size_t)size, treg_rd64(b + soff + 16 * i + 8));
        if (!k || !v)
            return treg_fail(r->err, TREG_E_FORMAT,
                             "%s: offload binary string %llu lies outside its bytes", where,
                             (unsigned long long)i + 1);
        if (strcmp(k, "triple") == 0) triple = v;
        if (strcmp(k, "arch") == 0) arch = v;
    }
    *consumed = (size_t)size;
    /* The id as a bundle names it: kind, a four-part triple (an empty
     * environment after "amdgcn-amd-amdhsa"), the target. */
    const char *id = fmt(r, "%s-%s%s-%s", offload_kind(kind), triple ? triple : "unknown",
                         triple && dashes(triple) == 2 ? "-" : "", arch ? arch : "unknown");
    if (!id) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    char *clean = clean_id(r, (const uint8_t *)id, strlen(id));
    if (!clean) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    const uint8_t *img = b + ioff;
    /* a fat binary that is a bundle: its entries; another kind (CUDA's) is skipped */
    if (image_kind == 4 && depth < MAX_DEPTH &&
        (is_bundle(img, (size_t)isize) || is_ccob(img, (size_t)isize) ||
         is_offload_binary(img, (size_t)isize))) {
        size_t used;
        return read_any(r, b + ioff, (size_t)isize, fmt(r, "%s (%s)", where, clean), depth + 1,
                        &used);
    }
    if (image_kind == 4)
        return emit(r, clean, where, "a fat binary that is not an offload bundle", img,
                    (size_t)isize);
    return classify(r, clean, where, img, (size_t)isize);
}

/* One container at b: a bundle, a compressed bundle or an offload binary. */
static int read_any(reader *r, const uint8_t *b, size_t avail, const char *where, int depth,
                    size_t *consumed)
{
    if (!where) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    if (depth > MAX_DEPTH)
        return treg_fail(r->err, TREG_E_FORMAT, "%s: containers nested more than %d deep", where,
                         MAX_DEPTH);
    if (is_bundle(b, avail)) return read_bundle(r, b, avail, where, consumed);
    if (is_ccob(b, avail)) return read_ccob(r, b, avail, where, consumed);
    if (is_offload_binary(b, avail))
        return read_offload_binary(r, b, avail, where, depth, consumed);
    return treg_fail(r->err, TREG_E_FORMAT,
                     "%s: not an offload bundle, compressed bundle or offload binary", where);
}

/* Every container in a section, one after another, zero padding between. */
static int read_all(reader *r, const uint8_t *b, size_t n, const char *name, uint64_t base,
                    int depth, size_t **starts, size_t *nstarts)
{
    size_t pos = 0, count = 0, cap = 0;
    int rc = TREG_OK;
    while (rc == TREG_OK) {
        while (pos < n && b[pos] == 0) pos++;
        if (pos == n) break;
        count++;
        size_t used = 0;
        const char *unit = is_offload_binary(b + pos, n - pos) ? "image" : "bundle";
        const char *where = fmt(r, "%s%s0x%llx, %s %zu", name, *name ? "+" : "offset ",
                                (unsigned long long)(base + pos), unit, count);
        rc = read_any(r, b + pos, n - pos, where, depth, &used);
        if (rc == TREG_OK && starts) {
            if (*nstarts == cap) { /* doubling: a section of 64K bundles costs 64K copies */
                cap = cap ? cap * 2 : 16;
                *starts = treg_arena_grow(r->arena, *starts, *nstarts, cap, sizeof **starts);
                if (!*starts) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
            }
            (*starts)[(*nstarts)++] = pos;
        }
        if (used == 0) break;
        pos += used;
        if (is_offload_binary(b + pos - used, used)) /* offload binaries are 8-aligned */
            pos = pos + (OFFLOAD_ALIGN - pos % OFFLOAD_ALIGN) % OFFLOAD_ALIGN;
        if (pos > n) pos = n;
    }
    if (rc == TREG_OK && count == 0)
        return treg_fail(r->err, TREG_E_FORMAT, "%s is empty", *name ? name : "the file");
    return rc;
}

/* --- host ELF ----------------------------------------------------------------------- */

typedef struct section {
    const char *name;
    GElf_Shdr sh;
    const uint8_t *data; /* NULL for NOBITS or out of bounds */
} section;

static const section *find_section(const section *s, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].name && strcmp(s[i].name, name) == 0) return &s[i];
    return NULL;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct relative {
    uint64_t where, addend;
} relative;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_section_addr(const void *a, const void *b)
{
    uint64_t x = (*(const section *const *)a)->sh.sh_addr;
    uint64_t y = (*(const section *const *)b)->sh.sh_addr;
    return x < y ? -1 : x > y;
}

/* Every R_X86_64_RELATIVE relocation of the file, sorted by the address
 * it fills (a shared library's .hipFatBinSegment pointers are these: lld
 * leaves the fields 0). */
static int relatives(reader *r, const section *s, size_t n, relative **out, size_t *count)
{
    /* Relocation sections do not overlap in a real file: together they are
     * at most its size, which bounds the table and the scan. */
    size_t total = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].sh.sh_type == SHT_RELA && s[i].data && s[i].sh.sh_entsize == 24) {
            total += (size_t)(s[i].sh.sh_size / 24);
            bytes += s[i].sh.sh_size;
        }
    if (bytes > r->file_len)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "relocation sections of %llu bytes overlap in a file of %zu",
                         (unsigned long long)bytes, r->file_len);
    relative *v = treg_arena_calloc(r->arena, total ? total : 1, sizeof *v);
    if (!v) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].sh.sh_type != SHT_RELA || !s[i].data || s[i].sh.sh_entsize != 24) continue;
        for (uint64_t o = 0; o + 24 <= s[i].sh.sh_size; o += 24) {
            const uint8_t *rel = s[i].data + o;
            if ((treg_rd64(rel + 8) & 0xffffffff) != R_X86_64_RELATIVE_TYPE) continue;
            v[k].where = treg_rd64(rel);
            v[k++].addend = treg_rd64(rel + 16);
        }
    }
    qsort(v, k, sizeof *v, cmp_u64); /* where is the first member */
    *out = v;
    *count = k;
    return TREG_OK;
}

/* The .hipFatBinSegment wrappers (one per translation unit) point at their
 * bundles: one inside .hip_fatbin must be at a bundle read there, one
 * elsewhere is read where it points.  Pointers are taken once each, and
 * every lookup is a binary search, so a hostile table costs n log n. */
static int read_wrappers(reader *r, const section *secs, size_t n, const section *segment,
                         const section *fatbin, const size_t *starts, size_t nstarts)
{
    size_t nrec = (size_t)(segment->sh.sh_size / HIPF_RECORD), np = 0, nrel = 0, nalloc = 0;
    uint64_t *ptr = treg_arena_calloc(r->arena, nrec ? nrec : 1, sizeof *ptr);
    const section **alloc = treg_arena_calloc(r->arena, n ? n : 1, sizeof *alloc);
    if (!ptr || !alloc) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    relative *rel = NULL;
    for (size_t i = 0; i < nrec; i++) {
        const uint8_t *w = segment->data + i * HIPF_RECORD;
        if (treg_rd32(w) != 0x48495046u) continue; /* "HIPF" */
        uint64_t p = treg_rd64(w + 8), field = segment->sh.sh_addr + i * HIPF_RECORD + 8;
        if (!p) {
            int rc = rel ? TREG_OK : relatives(r, secs, n, &rel, &nrel);
            if (rc != TREG_OK) return rc;
            const relative *hit = bsearch(&field, rel, nrel, sizeof *rel, cmp_u64);
            p = hit ? hit->addend : 0;
        }
        if (p) ptr[np++] = p; /* 0: a relocatable object, resolved at link time */
    }
    qsort(ptr, np, sizeof *ptr, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if ((secs[i].sh.sh_flags & SHF_ALLOC) && secs[i].data) alloc[nalloc++] = &secs[i];
    qsort(alloc, nalloc, sizeof *alloc, cmp_section_addr);
    for (size_t i = 0; i < np; i++) {
        uint64_t p = ptr[i];
        if (i && p == ptr[i - 1]) continue;
        /* the last section starting at or below p */
        size_t lo = 0, hi = nalloc;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (alloc[mid]->sh.sh_addr <= p)
                lo = mid + 1;
            else
                hi = mid;
        }
        const section *in = lo ? alloc[lo - 1] : NULL;
        if (!in || p - in->sh.sh_addr >= in->sh.sh_size)
            return treg_fail(r->err, TREG_E_FORMAT,
                             ".hipFatBinSegment points at 0x%llx, outside every section",
                             (unsigned long long)p);
        size_t at = (size_t)(p - in->sh.sh_addr);
        if (in == fatbin) {
            if (!bsearch(&at, starts, nstarts, sizeof *starts, cmp_size))
                return treg_fail(r->err, TREG_E_FORMAT,
                                 ".hipFatBinSegment points at .hip_fatbin+0x%zx, which is not the "
                                 "start of a bundle",
                                 at);
            continue;
        }
        size_t used;
        int rc = read_any(r, in->data + at, (size_t)in->sh.sh_size - at,
                          fmt(r, "%s+0x%zx", in->name ? in->name : "?", at), 1, &used);
        if (rc != TREG_OK) return rc;
    }
    return TREG_OK;
}

static int read_host_elf(reader *r, const uint8_t *bytes, size_t len, const char **format)
{
    unsigned machine = treg_rd16(bytes + 18);
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)(uintptr_t)bytes, len); /* read only, as in load/codeobj.c */
    size_t nsec = 0, shstrndx = 0;
    if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrnum(elf, &nsec) != 0 ||
        elf_getshdrstrndx(elf, &shstrndx) != 0) {
        if (elf) elf_end(elf);
        return treg_fail(r->err, TREG_E_FORMAT, "unreadable ELF (libelf: %s)", elf_errmsg(-1));
    }
    uint64_t shoff = treg_rd64(bytes + 40);
    if (nsec && (shoff > len || nsec > (len - shoff) / 64)) {
        elf_end(elf);
        return treg_fail(r->err, TREG_E_FORMAT, "truncated: section header table past end of file");
    }
    section *secs = treg_arena_calloc(r->arena, nsec ? nsec : 1, sizeof *secs);
    if (!secs) {
        elf_end(elf);
        return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    }
    size_t n = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && n < nsec; scn = elf_nextscn(elf, scn)) {
        section *s = &secs[n];
        if (!gelf_getshdr(scn, &s->sh)) continue;
        const char *name = elf_strptr(elf, shstrndx, s->sh.sh_name);
        s->name = name ? treg_arena_strdup(r->arena, name) : NULL;
        if (s->sh.sh_type != SHT_NOBITS && s->sh.sh_offset <= len &&
            s->sh.sh_size <= len - s->sh.sh_offset)
            s->data = bytes + s->sh.sh_offset;
        n++;
    }
    elf_end(elf);

    const section *fatbin = find_section(secs, n, ".hip_fatbin");
    const section *offloading = find_section(secs, n, ".llvm.offloading");
    const section *segment = find_section(secs, n, ".hipFatBinSegment");
    if (!fatbin && !offloading)
        return treg_fail(r->err, TREG_E_MACHINE,
                         "an ELF for machine %u (%s) with no GPU code: not AMDGPU (224), and no "
                         ".hip_fatbin or .llvm.offloading section",
                         machine, treg_elf_machine_name(machine));
    int rc = TREG_OK;
    size_t *starts = NULL, nstarts = 0;
    if (fatbin) {
        if (!fatbin->data)
            return treg_fail(r->err, TREG_E_FORMAT,
                             ".hip_fatbin (%llu bytes at %llu) lies outside the file's %zu bytes",
                             (unsigned long long)fatbin->sh.sh_size,
                             (unsigned long long)fatbin->sh.sh_offset, len);
        rc = read_all(r, fatbin->data, (size_t)fatbin->sh.sh_size, ".hip_fatbin", 0, 1, &starts,
                      &nstarts);
    }
    if (rc == TREG_OK && segment && segment->data)
        rc = read_wrappers(r, secs, n, segment, fatbin, starts, nstarts);
    if (rc == TREG_OK && offloading) {
        if (!offloading->data)
            return treg_fail(r->err, TREG_E_FORMAT,
                             ".llvm.offloading (%llu bytes at %llu) lies outside the file's %zu "
                             "bytes",
                             (unsigned long long)offloading->sh.sh_size,
                             (unsigned long long)offloading->sh.sh_offset, len);
        rc = read_all(r, offloading->data, (size_t)offloading->sh.sh_size, ".llvm.offloading", 0, 1,
                      NULL, NULL);
    }
    *format = fatbin && offloading ? "host ELF (.hip_fatbin, .llvm.offloading)"
              : fatbin             ? "host ELF (.hip_fatbin)"
                                   : "host ELF (.llvm.offloading)";
    return rc;
}

/* --- entry point -------------------------------------------------------------------- */

int treg_container_each(const uint8_t *bytes, size_t len, const treg_container_limits *lim,
                        treg_container_fn fn, void *ctx, treg_container_stats *stats,
                        treg_error *err)
{
    if (stats) memset(stats, 0, sizeof *stats);
    if (!bytes && len) return treg_fail(err, TREG_E_ARG, "treg_container_each: missing argument");
    treg_arena arena;
    treg_arena_init(&arena);
    reader r = {.arena = &arena, .file = bytes, .file_len = len, .fn = fn, .ctx = ctx, .err = err};
    r.lim.max_bundle = lim && lim->max_bundle ? lim->max_bundle : DEFAULT_MAX_BUNDLE;
    uint64_t total = len > DEFAULT_MIN_TOTAL / TOTAL_PER_INPUT_BYTE ? len * TOTAL_PER_INPUT_BYTE
                                                                    : DEFAULT_MIN_TOTAL;
    r.lim.max_total = lim && lim->max_total ? lim->max_total : total;
    r.lim.max_entries = lim && lim->max_entries ? lim->max_entries : DEFAULT_MAX_ENTRIES;

    int rc;
    const char *format = NULL;
    if (!bytes || len == 0) {
        rc = treg_fail(err, TREG_E_FORMAT, "empty file");
    } else if (is_amdgpu_elf(bytes, len)) {
        format = "code object";
        rc = emit(&r, NULL, "the file itself", NULL, bytes, len);
    } else if (is_elf64le(bytes, len)) {
        rc = read_host_elf(&r, bytes, len, &format);
    } else if (len >= SELFMAG && memcmp(bytes, ELFMAG, SELFMAG) == 0) {
        rc = treg_fail(err, TREG_E_FORMAT,
                       "ELF class %u, data %u: only little-endian ELF64 files are read",
                       len > EI_CLASS ? bytes[EI_CLASS] : 0, len > EI_DATA ? bytes[EI_DATA] : 0);
    } else if (is_bundle(bytes, len) || is_ccob(bytes, len) || is_offload_binary(bytes, len)) {
        format = is_bundle(bytes, len) ? "offload bundle"
                 : is_ccob(bytes, len) ? "compressed offload bundle"
                                       : "offload binary";
        rc = read_all(&r, bytes, len, "", 0, 0, NULL, NULL);
    } else {
        rc = treg_fail(err, TREG_E_FORMAT,
                       "not a code object, offload bundle or ELF with GPU code (it starts with "
                       "%02x %02x %02x %02x)",
                       bytes[0], len > 1 ? bytes[1] : 0, len > 2 ? bytes[2] : 0,
                       len > 3 ? bytes[3] : 0);
    }
    if (rc == TREG_OK && r.stats.objects == 0)
        rc = treg_fail(err, TREG_E_NOKERNEL, "no AMDGPU code object inside; skipped %s%s",
                       r.stats.skipped ? r.skipped_names : "nothing",
                       r.stats.skipped > 2 ? " and more" : "");
    r.stats.format = format;
    if (stats) *stats = r.stats;
    treg_arena_free(&arena);
    return rc;
}
