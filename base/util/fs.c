/* See fs.h. */
#include "util/fs.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"

int treg_make_dir(const char *path, treg_error *err)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return treg_fail(err, TREG_E_IO, "%s: cannot make the folder: %s", path, strerror(errno));
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return treg_fail(err, TREG_E_IO, "%s: not a folder", path);
    return TREG_OK;
}
