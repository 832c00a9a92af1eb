/* The analyzer's report: plain data, no behaviour.  Renderers (the local
 * tool's text and JSON, the server's protobuf) read it; nothing here knows
 * how it is shown.  Source locations are an index into files[] plus a line
 * (0 = no line, as the compiler marks generated code). */
#ifndef TREG_REPORT_H
#define TREG_REPORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct treg_loc {
    int32_t file; /* index into treg_report.files, -1 when unknown */
    uint32_t line;
    uint32_t column;
} treg_loc;

/* Most waves per SIMD any target runs (bounds treg_kernel_report's vgpr_steps). */
enum { TREG_MAX_WAVE_STEPS = 32 };

enum treg_row_flags {
    TREG_ROW_SPILL = 1 << 0,   /* stores a register to scratch or to another file */
    TREG_ROW_RELOAD = 1 << 1,  /* brings a spilled value back */
    TREG_ROW_BRANCH = 1 << 2,  /* ends a basic block */
    TREG_ROW_UNKNOWN = 1 << 3, /* mnemonic not in the semantics table */
    TREG_ROW_UNREACHABLE = 1 << 4,
    TREG_ROW_VGPR_PEAK = 1 << 5,
    TREG_ROW_PARTIAL_EXEC = 1 << 6, /* EXEC may be partial here */
    TREG_ROW_UNDECODABLE = 1 << 7   /* a word the substitute ISA could not decode */
};

/* Registers in rows and live ranges, one number per 32-bit register (the
 * numbering of treg.proto's Row.reads): v[4:7] is 4, 5, 6, 7. */
enum treg_report_reg {
    TREG_REPORT_V0 = 0,        /* vN = N */
    TREG_REPORT_A0 = 1024,     /* aN = 1024 + N */
    TREG_REPORT_S0 = 1280,     /* sN = 1280 + N */
    TREG_REPORT_VCC_LO = 1408, /* live ranges only: counted as SGPRs, as the compiler does */
    TREG_REPORT_VCC_HI = 1409,
    TREG_REPORT_REG_END = 1410
};

typedef struct treg_row {
    uint64_t address;          /* offset from the kernel's entry */
    const char *text;          /* disassembly */
    treg_loc loc;              /* the line table's row: the innermost (inlined) line */
    treg_loc call_site;        /* the author's line: the first inlined frame outside Triton's
                                  package (metrics/callsite.h); loc when not inlined */
    int32_t scope;             /* innermost inlined call (treg_report.inline_calls), -1 */
    uint16_t vgpr, agpr, sgpr; /* registers occupied: live-in | live-out | written */
    uint16_t loop_depth;
    uint32_t flags;
    /* The VGPRs, AGPRs and SGPRs the instruction reads and writes
     * (VCC, EXEC, M0, SCC and the other specials not listed), ascending,
     * no repeats; a partial write (the rest of the old value kept) is in
     * both. */
    uint32_t nreads, nwrites;
    const uint32_t *reads, *writes;
} treg_row;

/* Where one register is occupied, by the rule of treg_row.vgpr/agpr/sgpr,
 * over the kernel's rows in address order: maximal runs of row indices.
 * At every row, the registers of a class with the row inside one of their
 * runs are exactly as many as that row's count (VCC among the SGPRs). */
typedef struct treg_live_range {
    uint32_t reg; /* enum treg_report_reg numbering */
    uint32_t nruns;
    const uint32_t *runs; /* nruns [start, end) pairs, flat: ascending, disjoint, never touching */
} treg_live_range;

/* Per author's line: rows grouped by their call_site. */
typedef struct treg_line_stat {
    treg_loc loc; /* a call site; column 0 */
    uint32_t instructions;
    uint16_t peak_vgpr, peak_agpr, peak_sgpr;
    uint32_t spills, reloads;
    uint64_t spill_cost; /* spills and reloads weighted by how often they run (spill_cost.h) */
} treg_line_stat;

/* Registers live at the VGPR peak, grouped by the source line of the
 * definitions that reach the peak. */
typedef struct treg_attribution {
    treg_loc loc;       /* column 0; file -1, line 0 for kernel arguments/entry */
    treg_loc call_site; /* the author's line for loc (column 0): entries group by both */
    uint16_t vgpr, agpr, sgpr;
    uint16_t uniform; /* of vgpr + agpr: wave-uniform values (metrics/uniform.h) */
} treg_attribution;

/* What the registers at the VGPR peak hold (metrics/categories.h). */
enum treg_category_kind {
    TREG_CAT_ACCUMULATOR,  /* dot/MFMA accumulators */
    TREG_CAT_LOADED,       /* tiles loaded from global memory, pipelined copies included */
    TREG_CAT_LDS,          /* shared-memory (LDS) reads, mostly dot operands */
    TREG_CAT_ADDRESS,      /* address and offset arithmetic */
    TREG_CAT_MASK,         /* masks and predicates */
    TREG_CAT_LOOP_CARRIED, /* values carried round a loop, none of the above */
    TREG_CAT_REDUCTION,    /* reductions' partial and final values */
    TREG_CAT_OTHER,        /* elementwise math and the rest */
    TREG_CAT_COUNT
};

/* One operation's share of a category: the TTGIR op (or, without a
 * .ttgir, the machine instruction family) at one of the author's lines. */
typedef struct treg_category_part {
    const char *op;    /* "tt.dot", "tt.load", ... or "v_mfma", "global_load", ... */
    const char *shape; /* the op's tensor, "128x128xf32", or NULL */
    treg_loc loc;      /* the author's line (column 0) */
    uint16_t vgpr, agpr;
    uint16_t uniform; /* of them, wave-uniform */
    /* The registers a lane needs for the whole tensor (elements x bytes /
     * (4 x lanes x warps)): for an accumulator the tile arithmetic; 0 n/a. */
    uint32_t tile_registers;
    uint8_t in_loop;     /* made inside a loop */
    uint8_t dot_operand; /* laid out as a dot's operand */
} treg_category_part;

typedef struct treg_category {
    int kind; /* enum treg_category_kind */
    uint16_t vgpr, agpr, uniform;
    const char *hint;          /* what would change it, in one line, or NULL */
    treg_category_part *parts; /* largest first */
    size_t nparts;
} treg_category;

typedef struct treg_loop {
    uint64_t head, end; /* address range of the loop's blocks */
    uint32_t first_line, last_line;
    int32_t file;
    uint16_t depth;
    uint16_t peak_vgpr, peak_agpr, peak_sgpr;
    uint32_t instructions;
    uint32_t trip_count; /* a constant the code shows; 0: unknown */
    uint64_t spill_cost; /* of the spills inside it, nested loops included */
    /* The VGPRs and AGPRs live into its header (carried round it or kept
     * across it), by category. */
    uint16_t live_across[TREG_CAT_COUNT];
} treg_loop;

enum treg_spill_kind {
    TREG_SPILL_SCRATCH_STORE,
    TREG_SPILL_SCRATCH_LOAD,
    TREG_SPILL_SGPR_TO_LANE,
    TREG_SPILL_LANE_TO_SGPR,
    TREG_SPILL_VGPR_TO_AGPR,
    TREG_SPILL_AGPR_TO_VGPR
};

typedef struct treg_spill {
    uint64_t address;
    int kind; /* enum treg_spill_kind */
    treg_loc loc;
    treg_loc call_site;
    uint64_t weight; /* runs per kernel run: its loops' trip counts multiplied */
} treg_spill;

typedef struct treg_class_stat {
    uint32_t peak_live;
    uint32_t allocated; /* as the compiler counts (NumVgprs, NumAgprs, TotalNumSgprs) */
    uint32_t limit;     /* addressable by one wave on this target */
    uint64_t peak_address;
    treg_loc peak_loc;
    treg_loc peak_call_site;
} treg_class_stat;

/* A call (s_swappc_b64) and what its callee adds to the caller's peak. */
typedef struct treg_call {
    uint64_t address;   /* of the call, from the caller's entry */
    const char *callee; /* the function it calls, or NULL when the code does not show it */
    treg_loc loc;
    treg_loc call_site;
    /* The caller's registers live across the call (vgpr, agpr, sgpr), and
     * the most occupied while the callee runs: those and the callee's own
     * (its callees' too) as one set. */
    uint32_t held[3];
    uint32_t peak[3];
    uint32_t callee_spills; /* spill instructions in the callee and what it calls */
    int recursive;          /* the callee is being analyzed up the chain: not counted */
} treg_call;

typedef struct treg_unknown_mnemonic {
    const char *mnemonic;
    uint32_t count;
} treg_unknown_mnemonic;

/* Instructions of a family (analyzer/targets/families.h) the kernel's
 * target is not shown to have: a gfx928 text using a gfx946-only form. */
typedef struct treg_off_target {
    const char *mnemonic;
    uint32_t count;
    uint64_t first_address; /* of the first, from the kernel's entry */
    const char *family;     /* "MMAC with 16-bit accumulators" */
    const char *shown_on;   /* the targets a source shows with it, space-separated ("": none) */
    int lacks;              /* a source shows this target without it (else: nothing says) */
    const char *source;
} treg_off_target;

/* Wave-specialised kernels (Hygon gfx946 WASP/WDRA): each wave role sets
 * its own VGPR size with s_set_vgpr_size N after the dispatch on the wave
 * id, so no one allocation holds for every wave (metrics/wave_roles.h). */
typedef struct treg_wave_role {
    uint32_t size;        /* s_set_vgpr_size N: VGPRs each of its waves holds */
    uint64_t set_address; /* of that s_set_vgpr_size, from the kernel's entry */
    int32_t first_wave;   /* the wave ids the dispatch sends to it; -1: not found */
    int32_t last_wave;
    uint32_t instructions; /* instructions its waves run after the size is set */
    uint32_t peak_live;    /* VGPRs live at most there */
    uint64_t peak_address;
    uint32_t highest_vgpr; /* 1 + the highest VGPR its code names; 0: none */
    uint32_t spills;       /* spill instructions there */
    /* The backend's own comments for this role (; BranchRealOrSuggestedVgprs,
     * ; BranchAvailableVgprs, ; BranchSpillInfo); -1 where the text has none */
    int32_t backend_needs, backend_available, backend_spills;
} treg_wave_role;

typedef struct treg_wave_roles {
    treg_wave_role *roles; /* by wave id when found, else in code order */
    size_t nroles;
    uint32_t size_sum;        /* what one wave of each role holds together */
    uint32_t budget;          /* the target's VGPRs per SIMD */
    uint32_t groups_per_simd; /* floor(budget / size_sum): one wave of every role per SIMD each */
    uint32_t waves_per_simd;  /* groups_per_simd x nroles */
    /* The code before any role's size is set (the prologue and dispatch). */
    uint32_t before_instructions, before_peak_live, before_highest_vgpr;
    int backend_comments; /* the text's Branch* comments were read */
    const char *note;     /* what does not add up, or NULL */
} treg_wave_roles;

/* The what-if stage (analyzer/whatif): the kernel's LLVM IR compiled by the
 * linked LLVM at a register budget, analyzed like any code object.  These
 * are the compiler's results for a budget, not a measured speed. */
enum treg_what_if_kind {
    TREG_WHAT_IF_SHIPPED,    /* the code object as given: the report's own figures */
    TREG_WHAT_IF_RECOMPILED, /* the IR as given, compiled by the linked LLVM */
    TREG_WHAT_IF_BUDGET      /* the IR with "amdgpu-waves-per-eu"="N, N" */
};

/* A source line with more spill traffic than in the recompiled build. */
typedef struct treg_what_if_line {
    treg_loc loc;             /* column 0 */
    uint32_t spills, reloads; /* how many more */
} treg_what_if_line;

typedef struct treg_what_if {
    int kind;              /* enum treg_what_if_kind */
    uint32_t waves_per_eu; /* the budget asked for ("N, N"); 0: none (the IR's own) */
    /* A budget: the most VGPRs (the unified count where AGPRs share the
     * file) a wave may hold for that many waves per SIMD, from the target
     * table (a gfx936's 768 per SIMD: 152 for 5); 0 for the other rows */
    uint32_t vgpr_allowance;
    int compiled; /* 0: not built (see note), the figures below are 0 */
    struct {
        uint32_t allocated, peak_live;
    } vgpr, agpr, sgpr;
    uint32_t total_vgprs;
    uint32_t scratch_bytes;
    uint32_t spills, reloads; /* spill stores out, reloads back in (all kinds) */
    uint32_t waves_per_simd;  /* as the compiler's "; Occupancy:" */
    const char *limited_by;
    uint32_t compile_us;      /* compile and analysis time; 0 for the shipped build */
    const char *note;         /* plain words on this build, or NULL */
    treg_what_if_line *lines; /* most gained first */
    size_t nlines;
} treg_what_if;

typedef struct treg_kernel_report {
    const char *name;
    uint64_t entry_address; /* virtual address of the kernel's first instruction */
    uint32_t code_bytes;
    uint32_t instructions;
    uint32_t wave_size;
    treg_class_stat vgpr, agpr, sgpr;
    uint32_t total_vgprs; /* unified file: align(arch, 4) + agprs on gfx90a+ */
    uint32_t accum_offset;
    struct {
        uint32_t waves_per_simd;
        uint32_t max_waves;
        const char
            *limited_by; /* "vgpr", "agpr", "sgpr", "lds", "workgroup", "target", "waves_per_eu" */
        uint32_t vgpr_waves, sgpr_waves, lds_waves; /* each resource's own bound */
        int32_t vgprs_to_next; /* registers to free for one more wave; -1 when no step */
        int32_t sgprs_to_next;
        /* At launch: with Triton's dynamic LDS ("shared" in its .json, which
         * the compiler's figure cannot see) and exactly workgroup_size
         * work-items. Equal to the above when there is no .json. */
        uint32_t launch_waves_per_simd;
        const char *launch_limited_by;
        uint32_t launch_lds_bytes;
        /* The most LDS a work-group may allocate on the target: a launch
         * asking for more cannot run (launch_waves_per_simd 0). */
        uint32_t lds_limit_bytes;
        /* vgpr_steps[w - 1]: the most VGPRs (total_vgprs' count) that
         * still let w waves run per SIMD, w = 1..nvgpr_steps. */
        uint32_t vgpr_steps[TREG_MAX_WAVE_STEPS];
        uint32_t nvgpr_steps;
    } occupancy;
    uint32_t workgroup_size;    /* 0 when unknown */
    uint32_t lds_bytes;         /* static LDS from the kernel descriptor */
    uint32_t dynamic_lds_bytes; /* allocated at launch: Triton's .json "shared" */
    uint32_t scratch_bytes;
    uint32_t spill_instructions; /* stores out + reloads in, all kinds */
    uint64_t spill_cost;         /* the same weighted by how often each runs */
    uint32_t assumed_trips;      /* what a loop of unknown trip count is counted as */
    uint32_t undefined_reads;    /* registers read where no definition reaches: a model gap */
    /* sgpr.allocated's parts: the SGPRs the code numbers (highest + 1) and the
     * extra ones at the file's top (sgpr_reserved: "VCC", "XNACK_MASK",
     * "FLAT_SCRATCH", NULL-ended), reserved by the assembly's directives or by
     * the code's use and the XNACK setting; sgpr_note: why the compiler's
     * own figure differs, or NULL */
    uint32_t sgpr_numbered;
    const char *sgpr_reserved[4];
    const char *sgpr_reserved_by; /* "directives" or "code" */
    const char *sgpr_note;
    uint32_t implicit_def_reads;   /* registers read where only some paths define them: the
                                      compiler's undefined values (LLVM IMPLICIT_DEF), live
                                      from the entry along the other paths */
    uint32_t undef_operand_reads;  /* reads that read nothing, by design (flow/defined.h): a
                                      destination's old value, the unused half of a pair, an
                                      IMPLICIT_DEF spilled; not counted above, not live */
    const char *undefined_example; /* first such register and address, or NULL */
    uint32_t unknown_instructions; /* instructions handled by the generic rule */
    /* Words LLVM could not decode, when decoding with a substitute ISA
     * (decoded_as != target): their register effects are unknown. */
    uint32_t undecodable_words;
    uint64_t first_undecodable; /* offset of the first of them, when there are any */
    /* Where the instructions came from: "code object" (LLVM decoded them),
     * "assembly" (the text alone: text/asm.h), or "code object + assembly"
     * (the text supplied text_instructions words LLVM could not decode). */
    const char *instruction_source;
    uint32_t text_instructions;
    uint32_t calls;
    uint32_t basic_blocks;
    uint32_t long_branches;    /* s_setpc_b64 jumps followed to their computed target */
    uint32_t unresolved_jumps; /* s_setpc_b64 whose target is unknown: liveness stops there */
    /* What the compiler's metadata says, to compare (-1 when absent). */
    struct {
        int32_t vgpr_count, agpr_count, sgpr_count, vgpr_spill_count, sgpr_spill_count;
        int32_t occupancy; /* the assembly's "; Occupancy:" trailer (text only) */
    } metadata;

    /* "kernel", or "function": a device function the kernels call (no
     * descriptor), analyzed with every register defined at its entry; its
     * occupancy is its callers' (occupancy left 0). */
    const char *kind;
    treg_call *call_sites; /* one per call instruction, in address order */
    size_t ncall_sites;
    /* The peaks (vgpr, agpr, sgpr) with each resolved callee counted while
     * it runs; the call of the VGPR one, when a callee raises it. */
    uint32_t peak_with_calls[3];
    uint64_t peak_with_calls_address;
    int peak_with_calls_exact; /* 0: past the work budget, some callee counted as an upper bound */
    uint32_t callee_spill_instructions; /* in the functions it calls, each counted once */
    /* The allocation's own part: the registers this code names, before
     * its callees' are folded in (vgpr, agpr, sgpr as allocated counts). */
    uint32_t own_allocated[3];
    const char **called_by; /* functions: the report's entries that call it */
    size_t ncalled_by;
    const char *calls_note; /* why a call's callee is not counted, or NULL */

    treg_row *rows;
    size_t nrows;
    /* With rows only: one per register occupied at some row, ascending. */
    treg_live_range *live_ranges;
    size_t nlive_ranges;
    treg_line_stat *lines;
    size_t nlines;
    treg_attribution *peak_attribution;
    size_t nattribution;
    /* The VGPRs and AGPRs occupied at the VGPR peak that hold wave-uniform
     * values (an SGPR could hold each), ascending, in report numbering. */
    uint32_t *peak_uniform;
    size_t npeak_uniform;
    /* The VGPRs and AGPRs at the VGPR peak by what they hold, largest first. */
    treg_category *categories;
    size_t ncategories;
    const char *categories_source; /* "ttgir" or "machine code" */
    const char *categories_note;   /* why the .ttgir was not used, or NULL */
    treg_loop *loops;
    size_t nloops;
    treg_spill *spills;
    size_t nspills;
    treg_unknown_mnemonic *unknown;
    size_t nunknown;
    treg_off_target *off_target; /* by first appearance */
    size_t noff_target;
    treg_wave_roles wave_roles; /* nroles 0: not wave-specialised */
    /* With LLVM IR given (treg_options.llvm_ir): the shipped build, the
     * recompiled one, then the budgets in ascending waves_per_eu. */
    treg_what_if *what_if;
    size_t nwhat_if;
    const char *what_if_note; /* why there are no or few budgets, or NULL */
} treg_kernel_report;

/* A Triton kernel's compile options, from its cache entry's .json (present
 * 0 when none was given); -1 where the .json does not say. */
typedef struct treg_triton_options {
    int present;
    int num_warps, num_stages, waves_per_eu, matrix_instr_nonkdim, kpack, num_ctas;
    int64_t shared;         /* LDS bytes allocated at launch */
    const char *constexprs; /* "BLOCK_M=64, BLOCK_N=128" where the cache records them, or NULL */
    const char *triton_version; /* or NULL */
    const char *backend;        /* "hip", or "hcu" (Hygon's Triton), from "target"; or NULL */
    /* Hygon's Triton's register-shaping options that differ from its
     * defaults ("mmac_layout_force=2, wdra_enabled=true"), or NULL */
    const char *hcu_options;
    /* Triton 3.8+'s llvm_fn_attrs, the LLVM function attributes it set on
     * the kernel ("amdgpu-sched-strategy=iterative-ilp, noinline"), or NULL */
    const char *llvm_fn_attrs;
    int64_t global_scratch_size; /* Triton 3.8+'s global scratch bytes; 0: none, or not said */
    int llvm_waves_per_eu; /* the budget llvm_fn_attrs set ("amdgpu-waves-per-eu"), -1: none */
    /* Warp specialisation (Triton 3.7+ on AMD): the .json's num_warps is
     * the total, the .ttgir's ttg.num-warps the layouts' (num_warps then
     * says that one) and ttg.total-num-warps the total; 0 without it */
    int total_warps;
} treg_triton_options;

/* One inlined call: where it was called from, and the call it sits in
 * (-1: the kernel's own body).  A row's chain: its loc, then its scope's
 * call, that call's parent's call, ... */
typedef struct treg_inline_frame {
    treg_loc call;
    int32_t parent;
} treg_inline_frame;

/* The target table's figures a report was computed with, and the ones no
 * primary source shows (analyzer/targets: each row's source). */
typedef struct treg_target_figures {
    uint32_t vgpr_budget;    /* VGPRs per SIMD lane the resident waves share (occupancy) */
    uint32_t vgprs_per_wave; /* the most arch VGPRs one wave can address */
    uint32_t agprs_per_wave; /* 0: no AGPRs */
    int unified_agprs;       /* AGPRs share the VGPR file (gfx90a+): one count for both */
    uint32_t vgpr_granule;
    uint32_t sgprs_per_wave;
    uint32_t sgpr_block; /* the descriptor's SGPR block (SGPRBlocks = ceil(n / it) - 1); 0: none */
    uint32_t max_waves_per_simd;
    uint32_t lds_bytes;   /* the most LDS one work-group may allocate */
    const char *lds_note; /* where two sources disagree on it, or NULL */
    const char *source;
    /* "figure: why" for each figure no primary source shows */
    const char **unverified;
    size_t nunverified;
} treg_target_figures;

typedef struct treg_report {
    const char *target;      /* "gfx90a", from e_flags or the metadata note */
    const char *target_id;   /* full id when the note has one */
    const char *decoded_as;  /* the ISA LLVM decoded with; differs from target when borrowed */
    int provisional;         /* some target figure is not from a primary source */
    const char *target_note; /* plain words on decoded_as/provisional, or NULL */
    treg_target_figures target_figures;
    const char *asm_note;   /* why the assembly text given was not used, or NULL */
    const char *lines_note; /* why there are no source lines although there is DWARF, or NULL */
    const char *analyzer_version;
    const char *llvm_version;
    const char **files; /* source files from the line table, full paths */
    size_t nfiles;
    treg_inline_frame *inline_calls; /* the rows' scopes index it */
    size_t ninline_calls;
    const char *inlines_note; /* why inlined calls were not read, or NULL */
    treg_kernel_report *kernels;
    size_t nkernels;
    treg_triton_options triton;
    void *priv; /* the arena that owns all of the above */
} treg_report;

#endif
