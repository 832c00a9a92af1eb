/* See elf_machine.h. */
#include "util/elf_machine.h"

const char *treg_elf_machine_name(unsigned m)
{
    switch (m) {
    case 3:
        return "x86";
    case 8:
        return "MIPS";
    case 20:
        return "PowerPC";
    case 21:
        return "PowerPC64";
    case 22:
        return "S/390";
    case 40:
        return "ARM";
    case 62:
        return "x86-64";
    case 183:
        return "AArch64";
    case 190:
        return "CUDA";
    case 243:
        return "RISC-V";
    case 247:
        return "BPF";
    case 258:
        return "LoongArch";
    default:
        return "unknown";
    }
}
