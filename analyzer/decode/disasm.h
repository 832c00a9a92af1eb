/* Stage 2: decode a kernel's bytes into instruction text with LLVM's C
 * disassembler API.  The processor must be one the linked LLVM knows (the
 * list is taken from its llc at configure time): LLVM aborts on a processor
 * it cannot decode, so the target table's decode_as decides first. */
#ifndef TREG_DECODE_DISASM_H
#define TREG_DECODE_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "treg/analyzer.h"
#include "util/arena.h"

typedef struct treg_insn {
    uint64_t addr;    /* virtual address */
    uint32_t size;    /* bytes */
    const char *text; /* without the disassembler's leading tab */
} treg_insn;

typedef struct treg_disasm treg_disasm;

/* True when the linked LLVM can decode processor cpu ("gfx90a"). */
bool treg_disasm_knows(const char *cpu);
/* Version string of the linked LLVM. */
const char *treg_disasm_llvm_version(void);

int treg_disasm_open(const char *cpu, treg_disasm **out, treg_error *err);
void treg_disasm_close(treg_disasm *d);

/* Decodes [code, code+size) located at virtual address addr. A word LLVM
 * cannot decode is an error naming its address and value. */
int treg_disasm_range(treg_disasm *d, treg_arena *a, const uint8_t *code, size_t size,
                      uint64_t addr, treg_insn **out, size_t *count, treg_error *err);

#endif
