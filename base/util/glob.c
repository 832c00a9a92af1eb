/* treg_glob_match: one backtracking point (the last '*'), which is enough
 * for '*'-only patterns: a later '*' can absorb whatever an earlier one
 * would have. */
#include "util/glob.h"

bool treg_glob_match(const char *pat, const char *s, size_t len)
{
    const char *star = NULL;
    size_t star_at = 0, i = 0;
    while (i < len) {
        if (*pat == '*') {
            star = pat++;
            star_at = i;
        } else if (*pat && *pat == s[i]) {
            pat++;
            i++;
        } else if (star) {
            pat = star + 1;
            i = ++star_at;
        } else {
            return false;
        }
    }
    while (*pat == '*') pat++;
    return *pat == '\0';
}
