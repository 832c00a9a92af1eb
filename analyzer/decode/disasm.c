/* LLVM MC disassembly of AMDGPU code, one kernel range at a time. */
#include "decode/disasm.h"

#include <llvm-c/Disassembler.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/encoding.h"
#include "llvm_cpus.h"
#include "targets/targets.h"
#include "util/error.h"

struct treg_disasm {
    LLVMDisasmContextRef ctx;
    bool lenient;
};

/* Memo of decoded encodings, keyed by the instruction's bytes: decoding is
 * a function of an instruction's own bytes, so an encoding seen before in
 * the range has the same length and text. */
enum { MEMO_MAX_BYTES = 20 };
typedef struct memo_entry {
    uint32_t insn; /* index of the first instruction with these bytes; UINT32_MAX = free */
    uint32_t len;
    uint8_t bytes[MEMO_MAX_BYTES];
} memo_entry;

typedef struct memo {
    memo_entry *slots;
    size_t mask;
} memo;

static size_t memo_hash(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return (size_t)(w * 2654435761u) ^ (w >> 15);
}

/* The entry whose bytes start the stream at p (avail bytes), or the free
 * slot where a new one for p belongs. */
static memo_entry *memo_find(memo *m, const uint8_t *p, size_t avail)
{
    for (size_t i = memo_hash(p) & m->mask;; i = (i + 1) & m->mask) {
        memo_entry *e = &m->slots[i];
        if (e->insn == UINT32_MAX) return e;
        if (e->len <= avail && memcmp(e->bytes, p, e->len) == 0) return e;
    }
}

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

/* Target registration writes LLVM's global registry: once per process,
 * for the disassembler and the what-if stage's code generator alike. */
static void llvm_init(void)
{
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser(); /* inline assembly in the IR */
#if TREG_LLVM_MAJOR >= 16
    /* LLVM's IR parser verifies a module with debug info as it reads it and
     * aborts the process on a broken one ("Broken module found"): with this
     * LLVMVerifyModule is the one check (whatif.c), an error with its reason.
     * Process-wide, like the registrations above. */
    static const char *const args[] = {"treg", "-disable-auto-upgrade-debug-info"};
    LLVMParseCommandLineOptions(2, args, NULL);
#endif
}

void treg_llvm_register(void)
{
    pthread_once(&llvm_once, llvm_init);
}

bool treg_disasm_knows(const char *cpu)
{
    if (treg_llvm_cpus[0] == NULL) {
        /* llc was not found at configure time: a target upstream LLVM
         * knows is one it gave an EF_AMDGPU_MACH value (the target table). */
        const treg_target *t = treg_target_by_name(cpu);
        return t && t->mach != 0;
    }
    for (int i = 0; treg_llvm_cpus[i]; i++)
        if (strcmp(treg_llvm_cpus[i], cpu) == 0) return true;
    return false;
}

/* Whether LLVM's text is the illegal-instruction opcode (v_illegal). */
static bool decoded_as_illegal(const char *text)
{
    while (*text == '\t' || *text == ' ') text++;
    return strncmp(text, "v_illegal", 9) == 0 && (text[9] == '\0' || text[9] == ' ');
}

const char *treg_disasm_cpu_for(const treg_target *t)
{
    if (treg_disasm_knows(t->name)) return t->name;
    for (size_t i = 0; i < sizeof t->decode_as / sizeof t->decode_as[0] && t->decode_as[i]; i++)
        if (treg_disasm_knows(t->decode_as[i])) return t->decode_as[i];
    return NULL;
}

const char *treg_disasm_llvm_version(void)
{
    return TREG_LLVM_VERSION;
}

int treg_disasm_open(const char *cpu, bool lenient, treg_disasm **out, treg_error *err)
{
    *out = NULL;
    if (!treg_disasm_knows(cpu))
        return treg_fail(err, TREG_E_TARGET, "LLVM %s cannot decode %s", TREG_LLVM_VERSION, cpu);
    treg_llvm_register();
    treg_disasm *d = calloc(1, sizeof *d);
    if (!d) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    d->ctx = LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", cpu, "", NULL, 0, NULL, NULL);
    if (!d->ctx) {
        free(d);
        return treg_fail(err, TREG_E_TARGET, "LLVM has no AMDGPU disassembler for %s", cpu);
    }
    d->lenient = lenient;
    *out = d;
    return TREG_OK;
}

void treg_disasm_close(treg_disasm *d)
{
    if (!d) return;
    LLVMDisasmDispose(d->ctx);
    free(d);
}

int treg_disasm_range(treg_disasm *d, treg_arena *a, const uint8_t *code, size_t size,
                      uint64_t addr, treg_insn **out, size_t *count, treg_error *err)
{
    /* Most instructions are 4 or 8 bytes: size/4 is an upper bound. */
    size_t cap = size / 4 + 1, n = 0;
    treg_insn *insns = treg_arena_calloc(a, cap, sizeof *insns);
    if (!insns) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    char text[512];
    /* Load factor at most 1/2. */
    memo m = {NULL, 0};
    size_t slots = 16;
    while (slots < 2 * cap) slots *= 2;
    m.slots = treg_arena_calloc(a, slots, sizeof *m.slots);
    if (!m.slots) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    m.mask = slots - 1;
    for (size_t i = 0; i < slots; i++) m.slots[i].insn = UINT32_MAX;
    /* LLVM 22's AMDGPU disassembler crashes (SEGV in llvm::Twine::print,
     * on the error path for a missing literal) when the buffer ends where
     * an instruction's 32-bit literal should be, e.g. "v_mov_b32 v0,
     * <literal>" in a kernel's last 4 bytes (found by fuzz_analyze;
     * llvm-objdump-22 crashes the same way).  So near the end it is handed
     * a zero-padded copy of the tail that holds any encoding whole (the
     * longest, a GFX10 NSA MIMG, is 20 bytes); an instruction that then
     * runs past the real end is refused below.  Not avoided: the same
     * crash on other invalid operand encodings (e.g. a literal src2 on a
     * gfx942 MFMA, d3bf8000 03ff2d32), which every such error path of
     * LLVM 22's decoder seems to share. */
    enum { TAIL = 32 };
    uint8_t tail[2 * TAIL];
    size_t off = 0;
    while (off + 4 <= size) {
        const uint8_t *p = code + off;
        size_t avail = size - off;
        if (avail < TAIL) {
            memset(tail, 0, sizeof tail);
            memcpy(tail, p, avail);
            p = tail;
            avail = sizeof tail;
        }
        memo_entry *e = memo_find(&m, code + off, size - off);
        if (e->insn != UINT32_MAX) {
            const treg_insn *first = &insns[e->insn];
            insns[n] = (treg_insn){.addr = addr + off,
                                   .size = first->size,
                                   .text = first->text,
                                   .same_as = e->insn,
                                   .undecodable = first->undecodable};
            n++;
            off += first->size;
            continue;
        }
        size_t len =
            LLVMDisasmInstruction(d->ctx, (uint8_t *)p, avail, addr + off, text, sizeof text);
        uint32_t word;
        memcpy(&word, code + off, 4);
        /* Older decoders "decode" what is no instruction: LLVM 16 prints an
         * all-ones word as v_illegal on GFX9, and a GFX11 true16 operand it
         * cannot name as "; Error: VGPR_32_Lo128: unknown register 145".
         * Neither says what the word does to registers: not decoded.  (On
         * GFX10+ v_illegal is a real instruction, word 0: kept.) */
        if (len && ((word == 0xffffffffu && decoded_as_illegal(text)) || strstr(text, "; Error:")))
            len = 0;
        bool undecodable = false;
        if (len == 0 && d->lenient) {
            /* step over the whole encoding, never into its second dword */
            int format = treg_gfx9_format(word);
            len = treg_gfx9_size(format, word);
            if (len > size - off) len = 4;
            uint32_t words[4] = {word, 0, 0, 0};
            memcpy(words, code + off, len);
            treg_gfx9_undecoded_text(format, words, (unsigned)(len / 4), text, sizeof text);
            undecodable = true;
        }
        if (len == 0)
            return treg_fail(err, TREG_E_DECODE, "undecodable instruction word 0x%08x at 0x%llx",
                             word, (unsigned long long)(addr + off));
        if (len > size - off)
            return treg_fail(err, TREG_E_DECODE,
                             "undecodable: the %zu-byte instruction 0x%08x at 0x%llx runs past the "
                             "end of the code (%zu bytes left)",
                             len, word, (unsigned long long)(addr + off), size - off);
        const char *t = text;
        while (*t == '\t' || *t == ' ') t++;
        insns[n].addr = addr + off;
        insns[n].size = (uint32_t)len;
        insns[n].text = treg_arena_strdup(a, t);
        insns[n].same_as = UINT32_MAX;
        insns[n].undecodable = undecodable;
        if (!insns[n].text) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        if (len <= MEMO_MAX_BYTES) {
            e->insn = (uint32_t)n;
            e->len = (uint32_t)len;
            memcpy(e->bytes, code + off, len);
        }
        n++;
        off += len;
    }
    *out = insns;
    *count = n;
    return TREG_OK;
}
