/* ELF e_machine values as words, for messages about a file that is not an
 * AMDGPU code object ("ELF machine 62 (x86-64) ..."): shared by the code
 * object loader and the container reader. */
#ifndef TREG_UTIL_ELF_MACHINE_H
#define TREG_UTIL_ELF_MACHINE_H

/* "x86-64", "AArch64", ... or "unknown". */
const char *treg_elf_machine_name(unsigned machine);

#endif
