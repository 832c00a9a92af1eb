/* treg containers: the AMDGPU code objects inside a file.
 *
 * A file given to treg is a code object (a Triton .hsaco, a .co), or
 * something that holds code objects: a clang offload bundle (.hipfb,
 * clang-offload-bundler output), a compressed bundle (CCOB v1-3, zlib or
 * zstd), LLVM's offload binary (clang-offload-packager, the
 * .llvm.offloading section), or a host ELF executable or shared library
 * with a .hip_fatbin section (a HIP program, a ROCm library).  This reader
 * finds every embedded AMDGPU code object, and names every entry it skips
 * (the host entry, LLVM bitcode) with the reason.
 *
 * It needs libelf, zlib and libzstd, not LLVM: tregc uses it on the DCU
 * nodes to extract code objects before uploading them one by one.  Every
 * size from the file is checked against the buffer, and a decompressed
 * size against its header and the caller's limits, before anything is
 * allocated for it.  Like the analyzer it never prints or exits. */
#ifndef TREG_CONTAINER_H
#define TREG_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "treg/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct treg_embedded {
    /* The bundle entry id ("hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"), or
     * for an offload binary one made the same way from its triple and arch;
     * NULL for a code object given as itself. */
    const char *entry_id;
    /* The processor the entry id names ("gfx906"), or NULL. */
    const char *target;
    /* Where in the file: ".hip_fatbin+0x3000: bundle 1, entry 2 (CCOB v3, zstd)". */
    const char *where;
    /* Skipped entries only: why ("host code", "LLVM bitcode: ..."); NULL for a code object. */
    const char *skipped;
    const uint8_t *bytes; /* the entry: into the caller's buffer, or decompressed */
    size_t len;
    /* A section of a bundled assembly listing (treg_text_bundle_each):
     * bytes hold its text, not a code object; line is the file's line of
     * the section's first line of text. */
    int text;
    unsigned line;
} treg_embedded;

typedef struct treg_container_limits {
    uint64_t max_bundle;  /* one compressed bundle, uncompressed; 0: 1 GiB */
    uint64_t max_total;   /* all compressed bundles of the file; 0: 64 x its size, >= 256 MiB */
    uint32_t max_entries; /* entries in the whole file; 0: 65536 */
} treg_container_limits;

/* treg_text_bundle_each's format: its entries are sections of text. */
#define TREG_FORMAT_ASM_LISTING "bundled assembly listing"

typedef struct treg_container_stats {
    /* "code object", "offload bundle", "compressed offload bundle", "offload binary",
     * "host ELF (.hip_fatbin)", "host ELF (.llvm.offloading)",
     * "host ELF (.hip_fatbin, .llvm.offloading)", TREG_FORMAT_ASM_LISTING */
    const char *format;
    size_t objects, skipped;
    uint64_t decompressed; /* bytes inflated from compressed bundles */
} treg_container_stats;

/* Called once per entry, code objects (e->skipped NULL) and skipped
 * entries alike, in file order.  e and the bytes it points to are valid
 * during the call only: a compressed bundle's memory is released once its
 * entries are done, so a file costs one decompressed bundle at a time.
 * A non-zero return stops the walk; treg_container_each returns it (the
 * callback fills err). */
typedef int (*treg_container_fn)(void *ctx, const treg_embedded *e, treg_error *err);

/* Walks what bytes holds.  TREG_OK after at least one code object;
 * otherwise err says why in one line: TREG_E_FORMAT for a malformed or
 * truncated container or a stream that does not decompress to its stated
 * size, TREG_E_MACHINE for an ELF of another machine with no offload
 * section, TREG_E_NOKERNEL for a container whose every entry was skipped
 * (the message names them), TREG_E_LIMIT when a stated size or count
 * passes a limit, TREG_E_NOMEM.  An error found after some entries were
 * passed to fn is still an error.  lim and stats may be NULL. */
int treg_container_each(const uint8_t *bytes, size_t len, const treg_container_limits *lim,
                        treg_container_fn fn, void *ctx, treg_container_stats *stats,
                        treg_error *err);

/* A bundled assembly listing: the .s that clang's offload bundler writes
 * for -S or --save-temps of a HIP file built for several targets (DTK's
 * hipcc too), one section per target between
 *     # __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906
 *     # __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906
 * lines (';' in .ll listings; clang 14/15, DTK's among them, writes
 * "amdhsa-gfx906" with one dash), and a host section.  1 when text starts
 * with such a START line (after blank lines). */
int treg_text_bundle_is(const char *text, size_t len);

/* Calls fn once per section in file order: an AMDGPU device section with
 * its text (e->text 1, e->target its processor), the host's and any other
 * kind skipped with the reason.  TREG_OK after at least one device section;
 * TREG_E_FORMAT (one line naming the line) for a START without its END, an
 * END of another section or outside one, or text between sections;
 * TREG_E_NOKERNEL when no section is a device's; TREG_E_LIMIT past
 * lim->max_entries (65536 by default) sections. */
int treg_text_bundle_each(const char *text, size_t len, const treg_container_limits *lim,
                          treg_container_fn fn, void *ctx, treg_container_stats *stats,
                          treg_error *err);

/* 1 when name ("gfx906") is the processor of target ("gfx906:xnack-"). */
int treg_target_matches(const char *target, const char *name);

#ifdef __cplusplus
}
#endif

#endif
