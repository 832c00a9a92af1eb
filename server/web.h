/* tregd's pages for a browser (routed by http.c):
 *
 *   GET  /login?next=PATH   the login form: a team token
 *   POST /login             token=...&next=...: a session cookie and a 303 to next
 *   POST /logout            the session forgotten, the cookie cleared
 *   GET  /                  recent uploads (?kernel=&target=&offset=), each a link
 *   GET  /r/{hash}?inputs=  the report's self-contained page (render_html.c, the
 *                           renderer tregc uses) with its stored source files
 *
 * A browser authenticates with the session cookie (treg_session: HttpOnly,
 * Secure, SameSite=Strict, WEB_SESSION_HOURS long, and revoked with the token
 * that opened it); a program with its bearer token as on /v1/.  Without
 * either, every page but the login form answers 401 with the login form and
 * no report data.
 *
 * This file makes the pages (HTML with every string from a report, a request
 * or the store escaped) and reads cookies and forms; it knows nothing of
 * libevent or the store's files. */
#ifndef TREGD_WEB_H
#define TREGD_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "treg.pb-c.h"

#define WEB_SESSION_HOURS 12
#define WEB_COOKIE        "treg_session"
#define WEB_LIST_LIMIT    100

/* Security headers every page carries, name/value pairs, NULL-terminated. */
extern const char *const web_headers[];
/* The Content-Security-Policy headers of the pages and of a report's page. */
extern const char web_csp_pages[], web_csp_report[];

/* Each page is malloc'd into *out (its length in *len): 0, or -1 when out of
 * memory. */
int web_login_page(const char *next, const char *message, char **out, size_t *len);
int web_message_page(const char *title, const char *message, char **out, size_t *len);
int web_list_page(const store_summary *rows, size_t n, const char *team, const char *kernel,
                  const char *target, uint32_t offset, bool more, char **out, size_t *len);
/* r's page with the given source files (names from r->source_files). */
int web_report_page(const Treg__V1__Report *r, const store_source *files, size_t nfiles, char **out,
                    size_t *len);

/* The session id in a Cookie header (64 hex digits), into id. */
bool web_session_id(const char *cookie_header, char id[65]);
/* Whether next is a page of ours to return to after the login: "/" or
 * "/r/..." (no scheme, no host: never an open redirect). */
bool web_safe_next(const char *next);

#endif
