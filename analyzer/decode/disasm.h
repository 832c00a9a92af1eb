/* Stage 2: decode a kernel's bytes into instruction text with LLVM's C
 * disassembler API.  The processor must be one the linked LLVM knows (the
 * list is taken from its llc at configure time): LLVM aborts on a processor
 * it cannot decode, so the target table's decode_as decides first. */
#ifndef TREG_DECODE_DISASM_H
#define TREG_DECODE_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "targets/targets.h"
#include "treg/analyzer.h"
#include "util/arena.h"

typedef struct treg_insn {
    uint64_t addr;    /* virtual address */
    uint32_t size;    /* bytes */
    const char *text; /* without the disassembler's leading tab */
    /* An earlier instruction of the same range with the same bytes (which
     * shares this text), or UINT32_MAX: later stages may reuse its work. */
    uint32_t same_as;
    bool undecodable; /* lenient mode only: words LLVM could not decode (decode/encoding.h) */
    bool has_target;  /* a branch to a label (text): target is the label's address */
    uint64_t target;
} treg_insn;

typedef struct treg_disasm treg_disasm;

/* True when the linked LLVM can decode processor cpu ("gfx90a"). */
bool treg_disasm_knows(const char *cpu);

/* The processor to decode target t with: its own name where the linked
 * LLVM knows it, else the table's decode_as substitute; NULL if neither. */
const char *treg_disasm_cpu_for(const treg_target *t);
/* Registers LLVM's AMDGPU target (decoder and code generator): once per
 * process, safe from any thread. */
void treg_llvm_register(void);
/* Version string of the linked LLVM. */
const char *treg_disasm_llvm_version(void);

/* lenient: for a borrowed ISA (a Hygon target decoded as gfx906), a word
 * LLVM cannot decode becomes an instruction marked undecodable instead of
 * an error, as long as its GFX9 format says (decode/encoding.h), with its
 * register fields read where the format is VOP3/VOP3P or DS: the target's
 * own instructions are expected to be missing from the substitute. */
int treg_disasm_open(const char *cpu, bool lenient, treg_disasm **out, treg_error *err);
void treg_disasm_close(treg_disasm *d);

/* Decodes [code, code+size) located at virtual address addr. A word LLVM
 * cannot decode is an error naming its address and value (but see lenient).
 * Identical encodings are decoded once per range: kernels repeat many
 * instructions word for word, and LLVM's decoder is the pipeline's largest
 * cost. */
int treg_disasm_range(treg_disasm *d, treg_arena *a, const uint8_t *code, size_t size,
                      uint64_t addr, treg_insn **out, size_t *count, treg_error *err);

#endif
