/* A profile file by its first bytes: an SQLite database (rocpd.c), else
 * JSON (pcsamples.c), bounded by its size before a byte is read. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcsamples.h"
#include "util/error.h"

int treg_pcs_read_file(treg_arena *a, const char *path, treg_pcs *out, treg_error *err)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return treg_fail(err, TREG_E_IO, "cannot open it: %s", strerror(errno));
    struct stat sb;
    char head[16];
    ssize_t got;
    int rc = TREG_OK;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        rc = treg_fail(err, TREG_E_IO, "not a regular file");
    else if ((got = pread(fd, head, sizeof head, 0)) < 0)
        rc = treg_fail(err, TREG_E_IO, "cannot read it: %s", strerror(errno));
    else if (treg_pcs_is_sqlite(head, (size_t)got)) {
        close(fd);
        return treg_pcs_read_rocpd(a, path, out, err);
    } else if ((uint64_t)sb.st_size > TREG_PCS_MAX_TEXT)
        rc = treg_fail(err, TREG_E_LIMIT, "%lld bytes, past the limit of %u MiB",
                       (long long)sb.st_size, TREG_PCS_MAX_TEXT >> 20);
    if (rc) {
        close(fd);
        return rc;
    }
    size_t len = (size_t)sb.st_size, have = 0;
    char *text = malloc(len ? len : 1);
    if (!text) {
        close(fd);
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    }
    while (have < len) {
        ssize_t n = read(fd, text + have, len - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        have += (size_t)n;
    }
    close(fd);
    if (have != len)
        rc = treg_fail(err, TREG_E_IO, "it changed while read (%zu of %zu bytes)", have, len);
    else
        rc = treg_pcs_read(a, text, len, out, err);
    free(text);
    return rc;
}
