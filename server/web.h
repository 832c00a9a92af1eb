/* tregd's pages for a browser (routed by http.c):
 *
 *   GET  /login?next=PATH   the login form: a team token
 *   POST /login             token=...&next=...: a session cookie and a 303 to next
 *   POST /logout            the session forgotten, the cookie cleared
 *   GET  /                  recent uploads (?kernel=&target=&offset=), each a link
 *   GET  /r/{hash}?inputs=  the report's self-contained page (render_html.c, the
 *                           renderer tregc uses) with its stored source files
 *
 * A browser authenticates with the session cookie (__Host-treg_session:
 * HttpOnly, Secure, Path=/, no Domain, SameSite=Strict, WEB_SESSION_HOURS long,
 * ended by /logout and revoked with the token that opened it); a program with
 * its bearer token as on /v1/.  Without either, every page but the login form
 * answers 401 with the login form and no report data.  The __Host- prefix
 * means a browser takes the cookie only from a secure page of this host, for
 * Path=/: a page on another port or scheme of the same host cannot plant one
 * for a path of ours (cookies do not tell ports apart), and a request
 * carrying more than one session cookie is served as carrying none.  POST
 * /login and /logout answer only requests from our own origin (web_same_origin):
 * a form on another site cannot sign a browser in as its own team, or out.
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
#define WEB_COOKIE        "__Host-treg_session"
/* The name before tregd 0.31: cleared at sign-in and sign-out, never read. */
#define WEB_OLD_COOKIE "treg_session"
/* Sessions one token may hold; signing in once more ends the oldest. */
#define WEB_SESSIONS_PER_TOKEN 32
#define WEB_LIST_LIMIT         100

/* Security headers every page carries, name/value pairs, NULL-terminated. */
extern const char *const web_headers[];
/* The Content-Security-Policy header of the pages (no script at all). */
extern const char web_csp_pages[];
/* A report's page's: its <meta> policy (its script by hash, no
 * 'unsafe-inline') and what a <meta> cannot say; 0, or -1. */
int web_report_csp(char *out, size_t len);

/* Each page is malloc'd into *out (its length in *len): 0, or -1 when out of
 * memory. */
int web_login_page(const char *next, const char *message, char **out, size_t *len);
int web_message_page(const char *title, const char *message, char **out, size_t *len);
int web_list_page(const store_summary *rows, size_t n, const char *team, const char *kernel,
                  const char *target, uint32_t offset, bool more, char **out, size_t *len);
/* r's page with the given source files (names from r->source_files);
 * sources_from, when not NULL, names the team that sent them (not the
 * viewer's), said on the page. */
int web_report_page(const Treg__V1__Report *r, const store_source *files, size_t nfiles,
                    const char *sources_from, char **out, size_t *len);

/* How many session cookies (WEB_COOKIE, whatever their value) one Cookie
 * header carries; the last one's id, when it is 64 lower-case hex digits,
 * goes into id (else id is emptied).  A request's session is its one
 * cookie: with two or more (one planted beside ours), none. */
int web_session_cookies(const char *cookie_header, char id[65]);

/* Whether a POST comes from a page of our own origin (https://HOST, host
 * being the request's Host header): Sec-Fetch-Site must be same-origin when
 * the browser sends it, else Origin must be ours when sent.  A request with
 * neither is not a browser's cross-site form (browsers send Origin on every
 * POST), and passes: curl and scripts sign in. */
bool web_same_origin(const char *origin, const char *sec_fetch_site, const char *host);
/* Whether next is a page of ours to return to after the login: "/" or
 * "/r/..." (no scheme, no host: never an open redirect). */
bool web_safe_next(const char *next);

#endif
