/* tregd's browser pages (server/web.c) on hostile strings: a Cookie header,
 * the login form's next, a message, and a listing's names (kernel, target,
 * team, file) cut from the input.  Beyond memory safety: a session id comes
 * back only as 64 lower-case hex digits; an Origin (or Sec-Fetch-Site) passes
 * only as our own; next is accepted only as one of
 * our own paths; no page ever carries a <script (the pages have none: any
 * must be the input's, unescaped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "web.h"

/* The next NUL- or newline-separated piece of the input, copied. */
static char *piece(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *s = *p;
    while (*p < end && **p != '\n' && **p != 0) (*p)++;
    size_t n = (size_t)(*p - s);
    if (*p < end) (*p)++;
    char *out = malloc(n + 1);
    if (out == NULL) abort();
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

static void no_script(const char *page, size_t len)
{
    if (page == NULL) return;
    for (size_t i = 0; i + 7 <= len; i++)
        if (page[i] == '<' && strncasecmp(page + i + 1, "script", 6) == 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    char *cookie = piece(&p, end), *next = piece(&p, end), *message = piece(&p, end);
    char *names[6];
    for (int i = 0; i < 6; i++) names[i] = piece(&p, end);

    char id[65];
    int cookies = web_session_cookies(cookie, id);
    if (cookies < 0 || (id[0] && (strlen(id) != 64 || strspn(id, "0123456789abcdef") != 64)))
        abort();
    if (cookies == 0 && id[0]) abort();
    /* an Origin is ours only when it is https:// and the Host given */
    if (web_same_origin(message, NULL, next) &&
        (strncasecmp(message, "https://", 8) != 0 || strcasecmp(message + 8, next) != 0))
        abort();
    if (web_same_origin(NULL, message, next) && strcmp(message, "same-origin") != 0) abort();
    if (web_safe_next(next) && (next[0] != '/' || next[1] == '/' || strchr(next, '"') != NULL))
        abort();

    char *page = NULL;
    size_t len = 0;
    if (web_login_page(next, message, &page, &len) == 0) no_script(page, len);
    free(page);
    if (web_message_page(message, next, &page, &len) == 0) no_script(page, len);
    free(page);

    store_kernel k = {
        .name = names[0], .limited_by = names[1], .vgpr_peak = size, .lower_bound = size & 1};
    store_summary row = {.key = names[2],
                         .hash = names[2],
                         .inputs = names[3],
                         .file_name = names[4],
                         .target = names[5],
                         .analyzer_version = names[1],
                         .client_host = names[1],
                         .team = names[4],
                         .created_unix = (int64_t)size,
                         .provisional = size & 2,
                         .kernels = &k,
                         .nkernels = size & 4 ? 1 : 0};
    if (web_list_page(&row, 1, message, names[0], names[5], (uint32_t)size, size & 8, &page,
                      &len) == 0)
        no_script(page, len);
    free(page);

    free(cookie);
    free(next);
    free(message);
    for (int i = 0; i < 6; i++) free(names[i]);
    return 0;
}
