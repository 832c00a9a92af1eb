/* Folders as the programs' outputs need them: made when missing, refused
 * when the name is something else.  Shared by the views that write a folder
 * of pages (render/site.c) so render/ itself makes no folders. */
#ifndef TREG_UTIL_FS_H
#define TREG_UTIL_FS_H

#include "treg/error.h"

/* path is a folder afterwards (made with mode 0777 less the umask when
 * missing): TREG_OK, or TREG_E_IO with "PATH: cannot make the folder: ..."
 * or "PATH: not a folder" in err. */
int treg_make_dir(const char *path, treg_error *err);

#endif
