/* Stage 1 of the pipeline: reads an AMDGPU code object (ELF64, EM_AMDGPU)
 * with libelf.  Finds the kernels (symbols with a matching <name>.kd),
 * decodes each kernel descriptor, and decodes the NT_AMDGPU_METADATA note
 * (msgpack) into per-kernel figures.  Never trusts an offset or size from
 * the file without checking it against the buffer. */
#ifndef TREG_LOAD_CODEOBJ_H
#define TREG_LOAD_CODEOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "treg/analyzer.h"
#include "util/arena.h"

/* The 64-byte kernel descriptor (AMDGPUUsage.rst, "Kernel Descriptor"),
 * raw fields and the decoded values liveness and occupancy need. */
typedef struct treg_kd {
    uint32_t group_segment_fixed_size;
    uint32_t private_segment_fixed_size;
    uint32_t kernarg_size;
    int64_t entry_byte_offset; /* from the descriptor's own address */
    uint32_t rsrc3, rsrc1, rsrc2;
    uint16_t code_properties;
    uint16_t kernarg_preload; /* bytes 58..59: length [6:0], offset [15:7] */

    unsigned vgpr_blocks;             /* rsrc1[5:0] */
    unsigned sgpr_blocks;             /* rsrc1[9:6] */
    unsigned user_sgpr_count;         /* rsrc2[5:1] (gfx9: 5 bits) */
    bool private_segment_wave_offset; /* rsrc2[0] ENABLE_PRIVATE_SEGMENT (SCRATCH_EN) */
    bool wg_id_x, wg_id_y, wg_id_z, wg_info;
    unsigned workitem_id_vgprs; /* rsrc2[12:11] + 1: how many of x,y,z are enabled */
    unsigned accum_offset;      /* gfx90a+: (rsrc3[5:0] + 1) * 4; 0 elsewhere */
    bool wave32;                /* code_properties bit 10 */
    /* code_properties bits 0..6 */
    bool private_segment_buffer, dispatch_ptr, queue_ptr, kernarg_segment_ptr, dispatch_id,
        flat_scratch_init, private_segment_size;
    unsigned kernarg_preload_length; /* in SGPRs */
    /* The assembly's .amdhsa_reserve_vcc/_flat_scratch/_xnack_mask (TREG_RESERVE_*
     * bits): reserve_given says which the text gave, reserve_set their values;
     * TREG_RESERVE_TEXT in reserve_given when the descriptor came from an
     * .amdhsa_kernel block, where the assembler's defaults fill the rest.
     * A binary's descriptor keeps no such bits (0, 0). */
    uint8_t reserve_given, reserve_set;
} treg_kd;

enum {
    TREG_RESERVE_VCC = 1,
    TREG_RESERVE_FLAT_SCRATCH = 2,
    TREG_RESERVE_XNACK_MASK = 4,
    TREG_RESERVE_TEXT = 8
};

/* Figures from the metadata note; -1 for fields the note lacks. */
typedef struct treg_kernel_meta {
    bool present;
    int vgpr_count, sgpr_count, agpr_count;
    int vgpr_spill_count, sgpr_spill_count;
    int private_segment_fixed_size, group_segment_fixed_size;
    int wavefront_size, kernarg_segment_size;
    int max_flat_workgroup_size;
    int uses_dynamic_stack; /* -1 absent, 0/1 */
} treg_kernel_meta;

/* Every field -1 (absent), present false. */
void treg_kernel_meta_init(treg_kernel_meta *m);

/* The note's integer keys (".vgpr_count" ...) and where each goes in
 * treg_kernel_meta, for both readers of the metadata: the msgpack note
 * here and the assembly's YAML block (text/asm_meta.c). */
typedef struct treg_meta_field {
    const char *key;
    size_t offset; /* of an int in treg_kernel_meta */
} treg_meta_field;
extern const treg_meta_field treg_meta_fields[];
extern const size_t treg_meta_nfields;

typedef struct treg_kernel_sym {
    const char *name;
    uint64_t addr; /* virtual address of the first instruction */
    uint64_t size; /* symbol size in bytes (0 if the symbol had none: then up to the next symbol or
                      end of section) */
    const uint8_t *code; /* points into the caller's buffer; size bytes */
    treg_kd kd;
    treg_kernel_meta meta;
} treg_kernel_sym;

/* EF_AMDGPU_MACH_NONE: an object that names its processor only in its
 * metadata (Hygon's, whose MACH values upstream has no entry for). */
enum { TREG_MACH_NONE = 0 };

typedef struct treg_codeobj {
    uint32_t e_flags;
    unsigned mach;          /* e_flags & EF_AMDGPU_MACH (0xff) */
    int xnack;              /* 0 unsupported, 1 any, 2 off, 3 on (code object v4+ encoding;
                             * v2/v3's single bit reads as on or off) */
    int sramecc;            /* same encoding */
    unsigned abi_version;   /* e_ident[EI_ABIVERSION] */
    const char *target_id;  /* "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" from the note, or NULL */
    const char *target_gfx; /* "gfx90a" part of target_id, or NULL */
    treg_kernel_sym *kernels; /* sorted by addr */
    size_t nkernels;
    /* The other functions of the code (an STT_FUNC symbol, or a text's
     * .type @function label, with no descriptor): device functions the
     * kernels call, such as DTK's __softfloat_f64_*.  kd and meta are
     * empty (kd all zero, meta absent); sorted by addr, one per address. */
    treg_kernel_sym *functions;
    size_t nfunctions;
} treg_codeobj;

/* The most functions a code object's report takes: past it the rest are
 * left out (and a caller's call to one of them counts as unresolved). */
enum { TREG_MAX_FUNCTIONS = 4096 };

/* Whether one of co's kernels (sorted by address) starts at addr. */
bool treg_codeobj_kernel_at(const treg_codeobj *co, uint64_t addr);

/* Parses bytes (not copied; must outlive *out). Errors: TREG_E_FORMAT for
 * anything that is not a well-formed ELF64 little-endian object,
 * TREG_E_MACHINE for another machine's ELF, TREG_E_NOKERNEL when no kernel
 * symbol is found, TREG_E_METADATA for a malformed note. */
int treg_codeobj_load(treg_arena *a, const uint8_t *bytes, size_t len, treg_codeobj *out,
                      treg_error *err);

#endif
