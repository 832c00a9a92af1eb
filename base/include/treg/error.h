/* treg's errors: a status code and a one-line message in a caller-owned
 * struct.  Library code never prints or exits: it fills a treg_error and
 * returns non-zero (util/error.h's treg_fail), and the caller decides what
 * to tell the user.  The analyzer, the container reader and the tools all
 * report this way. */
#ifndef TREG_ERROR_H
#define TREG_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum treg_status {
    TREG_OK = 0,
    TREG_E_NOMEM = 1,
    TREG_E_FORMAT = 2,   /* not an ELF, truncated or inconsistent */
    TREG_E_MACHINE = 3,  /* an ELF, but not AMDGPU */
    TREG_E_TARGET = 4,   /* a target no table entry and no LLVM knows */
    TREG_E_NOKERNEL = 5, /* no kernel symbols (or none matched) */
    TREG_E_DECODE = 6,   /* undecodable instruction words */
    TREG_E_ARG = 7,      /* bad argument from the caller */
    TREG_E_METADATA = 8, /* malformed metadata note or Triton .json */
    TREG_E_LIMIT = 9,    /* a stated size or count past a limit (a decompression bomb) */
    TREG_E_IR = 10,      /* LLVM IR that does not parse, verify or match the code object */
    TREG_E_IO = 11       /* a file, folder or stream that cannot be read or written */
};

typedef struct treg_error {
    int code;
    char msg[512]; /* one line; room for a path or two */
} treg_error;

/* The status's name in words ("out of memory", "bad format", ...). */
const char *treg_status_name(int code);

#ifdef __cplusplus
}
#endif

#endif
