/* Runtime PC samples, as AMD's profilers write them, read into one table
 * per sampled instruction: rocprofv3's --pc-sampling JSON
 * (<pid>_results.json: buffer_records.pc_sample_host_trap and
 * pc_sample_stochastic, each {"record": {pc{code_object_id,
 * code_object_offset}, wave_issued, snapshot{stall_reason}, ...},
 * "inst_index"} with the instruction text in strings.pc_sample_instructions
 * and the loaded code objects in code_objects[]), and the per-instruction
 * code.json of rocprofv3's thread-trace tool and of rocprof-compute-viewer
 * ({"code": [[ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency,
 * Stall, Idle, ...]], "header", "version"}), whose columns are found by the
 * header; and rocprofv3's rocpd SQLite database (rocpd.c).  Formats as rocprofiler-sdk's
 * generateJSON.cpp, save.hpp and att-tool/code.cpp write them (tests/data/rocprof/SOURCES.md).
 *
 * Every count and string comes from a file: the text is bounded
 * (TREG_PCS_MAX_TEXT) before it is parsed, the samples and rows by
 * TREG_PCS_MAX_RECORDS, each string by TREG_PCS_MAX_STRING.  Library code:
 * errors come back in a treg_error, one line naming the problem. */
#ifndef TREG_PROFILE_PCSAMPLES_H
#define TREG_PROFILE_PCSAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "treg/error.h"
#include "util/arena.h"

#define TREG_PCS_MAX_TEXT (512u << 20) /* bytes of JSON read */
/* samples, or code.json rows, kept 128 bytes each until summed: a 512 MiB
 * rocprofv3 JSON holds at most ~8.7 million (62-byte records), ~1.1 GB */
#define TREG_PCS_MAX_RECORDS (64u << 20)
#define TREG_PCS_MAX_STRING  4096         /* an instruction's text */
#define TREG_PCS_MAX_DB      (8ull << 30) /* bytes of a rocpd database */

/* rocprofiler-sdk's pc_sampling.h, ROCPROFILER_PC_SAMPLING_INSTRUCTION_
 * NOT_ISSUED_REASON_*, in its order (the code.json arrays' too). */
enum treg_pcs_reason {
    TREG_PCS_REASON_NONE,
    TREG_PCS_REASON_NO_INSTRUCTION_AVAILABLE,
    TREG_PCS_REASON_ALU_DEPENDENCY,
    TREG_PCS_REASON_WAITCNT,
    TREG_PCS_REASON_INTERNAL_INSTRUCTION,
    TREG_PCS_REASON_BARRIER_WAIT,
    TREG_PCS_REASON_ARBITER_NOT_WIN,
    TREG_PCS_REASON_ARBITER_WIN_EX_STALL,
    TREG_PCS_REASON_OTHER_WAIT,
    TREG_PCS_REASON_SLEEP_WAIT,
    TREG_PCS_NREASONS
};

/* The reason's name as rocprofiler-sdk spells it after the prefix
 * ("WAITCNT"). */
const char *treg_pcs_reason_name(enum treg_pcs_reason r);

enum treg_pcs_source {
    TREG_PCS_HOST_TRAP = 1,  /* rocprofv3 --pc-sampling-method host_trap */
    TREG_PCS_STOCHASTIC = 2, /* stochastic: issued or not, and why */
    TREG_PCS_CODE_JSON = 4,  /* a code.json's per-instruction counts */
};

/* One sampled instruction: every sample at (code_object_id, offset). */
typedef struct treg_pcs_pc {
    uint64_t code_object_id; /* the profiler's load id (0: unknown code) */
    uint64_t offset;         /* code_object_offset: PC - load_base (code.json: Vaddr) */
    const char *text;        /* the profiler's instruction text, or NULL */
    uint64_t samples;        /* all of them */
    uint64_t issued;         /* stochastic: the wave issued this instruction */
    uint64_t stalled;        /* stochastic: it did not; why in reasons */
    uint64_t reasons[TREG_PCS_NREASONS];
} treg_pcs_pc;

/* A loaded code object as rocprofv3's code_objects[] lists it. */
typedef struct treg_pcs_code_object {
    uint64_t id;
    const char *uri; /* "file:///app/vcopy#offset=12288&size=34504", "memory://..." */
    uint64_t load_base, load_size;
    int64_t load_delta;
} treg_pcs_code_object;

typedef struct treg_pcs {
    unsigned sources; /* enum treg_pcs_source bits */
    treg_pcs_pc *pcs; /* by code object, then offset */
    size_t npcs;
    uint64_t nsamples; /* the sum of pcs[].samples */
    uint64_t unknown;  /* samples in no known code object (code_object_id 0: blits) */
    treg_pcs_code_object *code_objects;
    size_t ncode_objects;
} treg_pcs;

/* Reads text[0..len) (rocprofv3's JSON, or a code.json) into *out, its
 * strings in a.  TREG_E_FORMAT: not either format, or malformed; TREG_E_LIMIT:
 * past a bound; TREG_E_NOMEM.  A file without any sample is TREG_E_FORMAT
 * too ("holds no PC samples"). */
int treg_pcs_read(treg_arena *a, const char *text, size_t len, treg_pcs *out, treg_error *err);

/* The profile at path, of any of the formats above (read_file.c): an
 * SQLite database by its first bytes, else JSON, bounded by the file's size
 * before it is read.  TREG_E_IO: cannot be read; else as treg_pcs_read. */
int treg_pcs_read_file(treg_arena *a, const char *path, treg_pcs *out, treg_error *err);

/* Whether a file starting with head[0..len) is an SQLite database. */
bool treg_pcs_is_sqlite(const void *head, size_t len);

/* Reads the PC samples of rocprofv3's rocpd database at path (rocpd.c: the
 * layout of rocm-systems' drafts, no released rocprofv3 writes one) into
 * *out, as treg_pcs_read; TREG_E_IO: not a file. */
int treg_pcs_read_rocpd(treg_arena *a, const char *path, treg_pcs *out, treg_error *err);

/* The ELF virtual address of a sample's offset in code object co:
 * load_base + offset - load_delta (pc_sampling.h: the offset is from
 * load_base; callback_tracing.h: load_delta is the load address minus the
 * ELF's).  A code.json's Vaddr is the ELF address already. */
uint64_t treg_pcs_elf_address(const treg_pcs_code_object *co, uint64_t offset);

#endif
