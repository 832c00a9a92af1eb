/* tregd: the treg analysis server.  This file is the process: flags and the
 * config file, startup (tokens, TLS, store, worker pool, listener), signal
 * handling and orderly shutdown.  The pieces live in auth.c, tls.c,
 * store*.c (store_internal.h says which does what), pool.c (+ worker.c in
 * the children, over ../worker/'s framing and analysis; writer.c's threads
 * for the store writes), http.c, web.c and log.c.
 *
 * Exit codes: 0 after a clean shutdown, 1 when the certificate, key, store
 * or listen address cannot be used, 2 for a bad flag or config line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <event2/event.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "auth.h"
#include "db.h"
#include "http.h"
#include "log.h"
#include "pool.h"
#include "sandbox.h"
#include "store.h"
#include "tls.h"
#include "treg/analyzer.h"
#include "util/error.h"

typedef struct config {
    char *listen, *cert, *key, *store, *tokens_file, *port_file, *worker_user;
    char *index, *instance; /* --index postgresql://..., --instance NAME */
    long long workers, queue, timeout, head_timeout, worker_memory, request_timeout;
    long long what_if_seconds; /* -1: half the timeout */
    long long max_body, max_list_bytes, min_free_mb, max_per_address;
    long long auth_free_failures, auth_max_delay, auth_server_failures, hsts_max_age;
    bool team_visibility; /* --visibility team */
    char **tokens;        /* plain tokens from --token, hashed at startup */
    size_t ntokens;
} config;

/* Everything shutdown and reload need, reached from the signal callbacks. */
typedef struct server {
    struct event_base *base;
    http_server *http;
    pool *pool;
    const config *config;
    auth_set *auth; /* the set requests are checked against */
    unsigned timeout_seconds;
    int stopping;
    int forced; /* left the loop with analyses still running */
    struct event *deadline;
} server;

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: tregd --cert FILE --key FILE --store DIR (--token TOKEN | --tokens-file FILE) "
        "[OPTION...]\n"
        "       tregd hash-token TOKEN|-     the SHA-256 a tokens file holds for TOKEN\n"
        "       tregd add-token TEAM [--tokens-file FILE]   a new token for TEAM, printed\n"
        "                                    once; its SHA-256 appended to FILE\n"
        "                                    (default /etc/treg/tokens)\n"
        "\n"
        "Every option is also a setting of --config FILE (NAME = VALUE; flags override it);\n"
        "deploy/tregd.conf.example describes each.\n"
        "  --config FILE                  settings file, read before the flags\n"
        "  --listen HOST:PORT             address to serve HTTPS on (127.0.0.1:8443)\n"
        "  --cert FILE, --key FILE        the server certificate chain and its key (PEM)\n"
        "  --store DIR                    the report store (created when missing)\n"
        "  --index postgresql://...       a PostgreSQL index several servers share (libpq's\n"
        "                                 URI; else DIR/index.sqlite, one server's)\n"
        "  --instance NAME                this server among those sharing --store: its temp\n"
        "                                 folder DIR/tmp/NAME (the host name)\n"
        "  --token TOKEN                  a team's bearer token (teams token-1, token-2, ...)\n"
        "  --tokens-file FILE             TEAM SHA256HEX lines; reloaded on SIGHUP\n"
        "  --workers N                    analysis processes (the number of cores)\n"
        "  --queue N                      uploads waiting for a worker before 503 (4 x workers)\n"
        "  --max-body BYTES               largest request body, else 413 (67108864)\n"
        "  --timeout SECONDS              longest analysis, else 504 (60)\n"
        "  --what-if-seconds SECONDS      an upload's what-if builds (its .llir at each\n"
        "                                 register budget); less than --timeout (half of it)\n"
        "  --head-timeout SECONDS         a request must complete or bring 64 KiB per period (30)\n"
        "  --request-timeout SECONDS      a whole request, however it moves; 0: none (300)\n"
        "  --worker-memory MIB            each worker's address space; 0: no limit (4096)\n"
        "  --worker-user USER             workers' identity when started as root (nobody)\n"
        "  --visibility all|team          team: a team sees only the reports it uploaded (all)\n"
        "  --max-list-bytes BYTES         a listing stops before this many bytes (4194304)\n"
        "  --min-free-mb MIB              free space kept on the store's disk, else 507 (64)\n"
        "  --max-connections-per-address N   TLS connections one address may hold; 0: no cap "
        "(128)\n"
        "  --auth-free-failures N         wrong tokens an address may send before it waits (5)\n"
        "  --auth-max-delay SECONDS       the longest such wait; each failure doubles it (900)\n"
        "  --auth-server-failures N       wrong tokens a minute, all addresses, before only\n"
        "                                 addresses known good are served; 0: no bound (300)\n"
        "  --hsts-max-age SECONDS         Strict-Transport-Security; 0: not sent (31536000)\n"
        "  --port-file FILE               write the port bound here (for --listen HOST:0)\n"
        "  -h, --help                     this text\n");
}

static void config_free(config *c)
{
    free(c->listen);
    free(c->cert);
    free(c->key);
    free(c->store);
    free(c->tokens_file);
    free(c->port_file);
    free(c->worker_user);
    free(c->index);
    free(c->instance);
    for (size_t i = 0; i < c->ntokens; i++) {
        OPENSSL_cleanse(c->tokens[i], strlen(c->tokens[i]));
        free(c->tokens[i]);
    }
    free(c->tokens);
}

static int parse_long(const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end != '\0' || n < lo || n > hi) return -1;
    *out = n;
    return 0;
}

static int set_str(char **slot, const char *v)
{
    free(*slot);
    *slot = strdup(v);
    return *slot ? 0 : -1;
}

/* Applies one setting (a long flag name without dashes).  -1 with a message
 * in err when the name or value is bad. */
static int config_set(config *c, const char *name, const char *v, treg_error *err)
{
    long long n;
    if (strcmp(name, "listen") == 0) return set_str(&c->listen, v);
    if (strcmp(name, "cert") == 0) return set_str(&c->cert, v);
    if (strcmp(name, "key") == 0) return set_str(&c->key, v);
    if (strcmp(name, "store") == 0) return set_str(&c->store, v);
    if (strcmp(name, "tokens-file") == 0) return set_str(&c->tokens_file, v);
    if (strcmp(name, "port-file") == 0) return set_str(&c->port_file, v);
    if (strcmp(name, "worker-user") == 0) return set_str(&c->worker_user, v);
    if (strcmp(name, "index") == 0) {
        if (!db_is_postgres(v)) {
            treg_fail(err, TREG_E_ARG,
                      "index: not a postgresql:// URL (without --index the index is "
                      "DIR/index.sqlite)");
            return -1;
        }
        return set_str(&c->index, v);
    }
    if (strcmp(name, "instance") == 0) {
        if (!store_valid_instance(v)) {
            treg_fail(err, TREG_E_FORMAT, "instance: '%.64s' is not 1-64 of A-Z a-z 0-9 . _ -", v);
            return -1;
        }
        return set_str(&c->instance, v);
    }
    if (strcmp(name, "visibility") == 0) {
        if (strcmp(v, "all") != 0 && strcmp(v, "team") != 0) {
            treg_fail(err, TREG_E_FORMAT, "visibility: '%s' is not all or team", v);
            return -1;
        }
        c->team_visibility = strcmp(v, "team") == 0;
        return 0;
    }
    if (strcmp(name, "token") == 0) {
        if (*v == '\0') {
            treg_fail(err, TREG_E_FORMAT, "token: empty");
            return -1;
        }
        char **t = realloc(c->tokens, (c->ntokens + 1) * sizeof *t);
        if (t == NULL) return -1;
        c->tokens = t;
        if ((c->tokens[c->ntokens] = strdup(v)) == NULL) return -1;
        c->ntokens++;
        return 0;
    }
    struct {
        const char *name;
        long long lo, hi, *slot;
    } nums[] = {{"workers", 1, 256, &c->workers},
                {"queue", 0, 1000000, &c->queue},
                {"max-body", 1, (long long)1 << 30, &c->max_body},
                {"timeout", 1, 86400, &c->timeout},
                {"what-if-seconds", 1, 86400, &c->what_if_seconds},
                {"head-timeout", 1, 3600, &c->head_timeout},
                {"request-timeout", 0, 86400, &c->request_timeout},
                {"worker-memory", 0, 1 << 20, &c->worker_memory},
                {"max-list-bytes", 4096, (long long)1 << 30, &c->max_list_bytes},
                {"min-free-mb", 0, (long long)1 << 40, &c->min_free_mb},
                {"max-connections-per-address", 0, 1000000, &c->max_per_address},
                {"auth-free-failures", 0, 1000000, &c->auth_free_failures},
                {"auth-max-delay", 1, 86400, &c->auth_max_delay},
                {"auth-server-failures", 0, 100000000, &c->auth_server_failures},
                {"hsts-max-age", 0, 2LL * 365 * 86400, &c->hsts_max_age}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (strcmp(name, nums[i].name) != 0) continue;
        if (parse_long(v, nums[i].lo, nums[i].hi, &n) != 0) {
            treg_fail(err, TREG_E_FORMAT, "%s: '%s' is not an integer in %lld..%lld", name, v,
                      nums[i].lo, nums[i].hi);
            return -1;
        }
        *nums[i].slot = n;
        return 0;
    }
    treg_fail(err, TREG_E_FORMAT, "unknown setting '%s'", name);
    return -1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* key = value lines, # comments.  Exit code 2 or 1 on failure, else 0. */
static int config_load(config *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "tregd: --config %s: %s\n", path, strerror(errno));
        return 1;
    }
    char line[4096];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        char *p = trim(line);
        if (*p == '\0' || *p == '#') continue;
        char *eq = strchr(p, '=');
        treg_error err = {TREG_E_NOMEM, "out of memory"};
        if (eq == NULL) {
            fprintf(stderr, "tregd: %s:%d: expected 'key = value'\n", path, lineno);
            rc = 2;
            break;
        }
        *eq = '\0';
        char *key = trim(p), *value = trim(eq + 1);
        if (strcmp(key, "config") == 0 || config_set(c, key, value, &err) != 0) {
            fprintf(stderr, "tregd: %s:%d: %s\n", path, lineno,
                    strcmp(key, "config") == 0 ? "'config' cannot be nested" : err.msg);
            rc = 2;
        }
    }
    fclose(f);
    return rc;
}

static int parse_listen(const char *s, char *host, size_t hostlen, unsigned short *port)
{
    const char *colon = strrchr(s, ':');
    if (colon == NULL || colon == s) return -1;
    const char *h = s;
    size_t hl = (size_t)(colon - s);
    if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    if (hl == 0 || hl >= hostlen) return -1;
    long long p;
    if (parse_long(colon + 1, 0, 65535, &p) != 0) return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    *port = (unsigned short)p;
    return 0;
}

static int write_port_file(const char *path, unsigned short port)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return -1;
    fprintf(f, "%u\n", port);
    if (fclose(f) != 0) return -1;
    return rename(tmp, path);
}

static int hash_token(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "tregd: usage: tregd hash-token TOKEN (or - to read it from stdin)\n");
        return 2;
    }
    char line[4096], hex[2 * AUTH_HASH_LEN + 1];
    const char *token = argv[2];
    if (strcmp(token, "-") == 0) {
        if (fgets(line, sizeof line, stdin) == NULL) {
            fprintf(stderr, "tregd: hash-token: no token on stdin\n");
            return 2;
        }
        line[strcspn(line, "\r\n")] = '\0';
        token = line;
    }
    if (*token == '\0' || auth_hash_hex(token, hex) != 0) {
        fprintf(stderr, "tregd: hash-token: empty token\n");
        return 2;
    }
    printf("%s\n", hex);
    OPENSSL_cleanse(line, sizeof line);
    return 0;
}

/* tregd add-token TEAM [--tokens-file FILE]: a new random token for TEAM,
 * printed once; only its SHA-256 goes into the file (made 0600 when
 * missing, checked first so a line is never added to a broken one).  A
 * running tregd takes it on SIGHUP. */
static int add_token(int argc, char **argv)
{
    const char *team = NULL, *file = "/etc/treg/tokens";
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--tokens-file") == 0 && i + 1 < argc)
            file = argv[++i];
        else if (strncmp(argv[i], "--tokens-file=", 14) == 0)
            file = argv[i] + 14;
        else if (!team && argv[i][0] != '-')
            team = argv[i];
        else {
            fprintf(stderr, "tregd: usage: tregd add-token TEAM [--tokens-file FILE]\n");
            return 2;
        }
    }
    size_t tlen = team ? strlen(team) : 0;
    if (!tlen || tlen > 63 ||
        strspn(team, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_.-") != tlen) {
        fprintf(stderr,
                "tregd: add-token: the team must be 1 to 63 letters, digits, '_', '.' or "
                "'-'%s%s%s\n",
                team ? ", not '" : " (usage: tregd add-token TEAM [--tokens-file FILE])",
                team ? team : "", team ? "'" : "");
        return 2;
    }
    treg_error err = {0, ""};
    auth_set existing = {0};
    if (access(file, F_OK) == 0 && auth_load_file(&existing, file, &err) != 0) {
        fprintf(stderr, "tregd: add-token: %s: fix it first\n", err.msg);
        auth_free(&existing);
        return 1;
    }
    auth_free(&existing);
    unsigned char raw[32];
    char token[2 * sizeof raw + 1], hex[2 * AUTH_HASH_LEN + 1];
    if (RAND_bytes(raw, sizeof raw) != 1) {
        fprintf(stderr, "tregd: add-token: no randomness from OpenSSL\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof raw; i++) snprintf(token + 2 * i, 3, "%02x", raw[i]);
    OPENSSL_cleanse(raw, sizeof raw);
    if (auth_hash_hex(token, hex) != 0) {
        fprintf(stderr, "tregd: add-token: out of memory\n");
        return 1;
    }
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    char line[200];
    int n = snprintf(line, sizeof line, "%s %s\n", team, hex);
    if (fd < 0 || write(fd, line, (size_t)n) != n || fsync(fd) != 0) {
        fprintf(stderr, "tregd: add-token: %s: %s\n", file, strerror(errno));
        if (fd >= 0) close(fd);
        OPENSSL_cleanse(token, sizeof token);
        return 1;
    }
    close(fd);
    printf("%s\n", token);
    fprintf(stderr,
            "tregd: a token for team %s: its SHA-256 is in %s, the token above is shown only "
            "now; a running tregd takes it on SIGHUP\n",
            team, file);
    OPENSSL_cleanse(token, sizeof token);
    return 0;
}

/* ---- shutdown ---- */

static void drained(void *arg)
{
    server *s = arg;
    /* A moment for the last replies to leave the socket buffers. */
    struct timeval flush = {0, 300 * 1000};
    event_base_loopexit(s->base, &flush);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    server *s = arg;
    log_msg("warn", "shutdown deadline reached", "analyses still running are abandoned");
    s->forced = 1;
    event_base_loopexit(s->base, NULL);
}

static void on_stop_signal(evutil_socket_t sig, short what, void *arg)
{
    server *s = arg;
    if (s->stopping) {
        /* A second signal: stop waiting for running analyses. */
        log_msg("warn", "second signal: exiting now", "running analyses are answered 503");
        s->forced = 1;
        event_base_loopexit(s->base, NULL);
        return;
    }
    s->stopping = 1;
    log_line *o = log_begin("info", "shutting down");
    log_add_str(o, "signal", strsignal((int)sig));
    log_end(o);
    http_stop_accepting(s->http);
    struct timeval tv = {.tv_sec = s->timeout_seconds + 5, .tv_usec = 0};
    s->deadline = evtimer_new(s->base, on_deadline, s);
    if (s->deadline) evtimer_add(s->deadline, &tv);
    pool_drain(s->pool, drained, s);
}

/* The tokens from --token and --tokens-file. 0, or -1 with err set. */
static int load_tokens(const config *c, auth_set *out, treg_error *err)
{
    for (size_t i = 0; i < c->ntokens; i++) {
        char team[32];
        snprintf(team, sizeof team, "token-%zu", i + 1);
        if (auth_add_token(out, team, c->tokens[i]) != 0) {
            treg_fail(err, TREG_E_IO, "cannot hash tokens");
            return -1;
        }
    }
    if (c->tokens_file && auth_load_file(out, c->tokens_file, err) != 0) return -1;
    return 0;
}

/* SIGHUP: read the tokens file again (token rotation without a restart).
 * The new set replaces the old in place, between two requests of the
 * single-threaded loop; a file that does not load keeps the old set. */
static void on_reload_signal(evutil_socket_t sig, short what, void *arg)
{
    server *s = arg;
    auth_set fresh = {0};
    treg_error err = {0, ""};
    if (load_tokens(s->config, &fresh, &err) != 0) {
        auth_free(&fresh);
        log_msg("error", "tokens not reloaded; the old ones stay in force", err.msg);
        return;
    }
    auth_free(s->auth);
    *s->auth = fresh;
    log_line *o = log_begin("info", "tokens reloaded");
    log_add_int(o, "teams", (long long)fresh.n);
    log_end(o);
}

static void on_sigchld(evutil_socket_t sig, short what, void *arg)
{
    pool_reap(((server *)arg)->pool);
}

static const struct option long_options[] = {
    {"config", required_argument, NULL, 'c'},
    {"listen", required_argument, NULL, 'l'},
    {"cert", required_argument, NULL, 'C'},
    {"key", required_argument, NULL, 'K'},
    {"store", required_argument, NULL, 's'},
    {"token", required_argument, NULL, 't'},
    {"tokens-file", required_argument, NULL, 'T'},
    {"workers", required_argument, NULL, 'w'},
    {"queue", required_argument, NULL, 'q'},
    {"max-body", required_argument, NULL, 'm'},
    {"timeout", required_argument, NULL, 'o'},
    {"what-if-seconds", required_argument, NULL, 'Y'},
    {"head-timeout", required_argument, NULL, 'H'},
    {"worker-memory", required_argument, NULL, 'M'},
    {"port-file", required_argument, NULL, 'p'},
    {"visibility", required_argument, NULL, 'V'},
    {"max-list-bytes", required_argument, NULL, 'L'},
    {"min-free-mb", required_argument, NULL, 'F'},
    {"worker-user", required_argument, NULL, 'U'},
    {"max-connections-per-address", required_argument, NULL, 'A'},
    {"request-timeout", required_argument, NULL, 'R'},
    {"index", required_argument, NULL, 'I'},
    {"instance", required_argument, NULL, 'N'},
    {"auth-free-failures", required_argument, NULL, 'a'},
    {"auth-max-delay", required_argument, NULL, 'd'},
    {"auth-server-failures", required_argument, NULL, 'g'},
    {"hsts-max-age", required_argument, NULL, 'S'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Config file first (found by a scan of argv), then flags over it. */
static int parse_args(int argc, char **argv, config *c)
{
    for (int i = 1; i < argc; i++) {
        const char *path = NULL;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            path = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            path = argv[i] + 9;
        if (path != NULL) {
            int rc = config_load(c, path);
            if (rc != 0) return rc;
        }
    }
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            exit(0);
        }
        if (opt == '?' || opt == ':') {
            const char *bad = argv[optind - 1];
            fprintf(stderr, "tregd: %s: %s\n", bad,
                    opt == ':' ? "missing value" : "unknown option");
            return 2;
        }
        if (opt == 'c') continue;
        const char *name = NULL;
        for (const struct option *o = long_options; o->name; o++)
            if (o->val == opt) name = o->name;
        treg_error err = {TREG_E_NOMEM, "out of memory"};
        if (name == NULL || config_set(c, name, optarg, &err) != 0) {
            fprintf(stderr, "tregd: --%s\n", err.msg);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "tregd: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    const char *missing = !c->cert ? "--cert" : !c->key ? "--key" : !c->store ? "--store" : NULL;
    if (missing != NULL) {
        fprintf(stderr, "tregd: %s is required\n", missing);
        return 2;
    }
    if (c->ntokens == 0 && c->tokens_file == NULL) {
        fprintf(stderr, "tregd: no tokens: give --token TOKEN or --tokens-file FILE\n");
        return 2;
    }
    for (size_t i = 0; i < c->ntokens; i++) {
        unsigned bits = auth_token_bits(c->tokens[i]);
        if (bits < AUTH_MIN_TOKEN_BITS) {
            fprintf(stderr,
                    "tregd: --token/token = (team token-%zu): a guessable token (%u bits, %u "
                    "needed): make one with 'openssl rand -hex 32' or 'tregd add-token TEAM'\n",
                    i + 1, bits, (unsigned)AUTH_MIN_TOKEN_BITS);
            return 2;
        }
    }
    return 0;
}

/* Every connection is a descriptor: take the hard limit on open files
 * rather than the soft one (1024 by default on Debian), which a few
 * hundred idle keep-alive clients would use up.  The limit now in force,
 * or -1 when unlimited or unknown. */
static long raise_open_files(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit want = rl;
        /* Linux refuses more than fs.nr_open (2^20 by default). */
        want.rlim_cur = rl.rlim_max == RLIM_INFINITY ? (rlim_t)1 << 20 : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &want) == 0) rl.rlim_cur = want.rlim_cur;
    }
    return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > LONG_MAX ? -1 : (long)rl.rlim_cur;
}

/* libevent's own warnings (it prints them to stderr by default) as log
 * lines like ours, so the log stays one JSON object per line. */
static void on_libevent_log(int severity, const char *msg)
{
    log_msg(severity >= EVENT_LOG_ERR    ? "error"
            : severity == EVENT_LOG_WARN ? "warn"
                                         : "info",
            "libevent", msg);
}

/* The request log is deferred (log.h) and written at most LOG_FLUSH_MS
 * after its first line: the timer is armed when a line enters the empty
 * buffer, so an idle server does not wake up for it. */
enum { LOG_FLUSH_MS = 10 };

static void on_log_flush(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    log_flush();
}

static void arm_log_flush(void *timer)
{
    struct timeval in = {0, LOG_FLUSH_MS * 1000};
    evtimer_add((struct event *)timer, &in);
}

/* The event loop.  With epoll's change list, the read/write interest a
 * connection drops and takes back within one loop iteration (evhttp does
 * that around every request) costs one epoll_ctl or none, not one each:
 * measured 4.2 epoll_ctl calls per stored-report GET without it.  None of
 * our descriptors is dup'ed, the one case the change list gets wrong. */
static struct event_base *new_event_base(void)
{
    struct event_config *cfg = event_config_new();
    if (cfg == NULL) return NULL;
    event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
    struct event_base *base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    return base;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "hash-token") == 0) return hash_token(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "add-token") == 0) return add_token(argc, argv);

    config c = {.workers = 0,
                .queue = -1,
                .timeout = 60,
                .what_if_seconds = -1,
                .head_timeout = 30,
                .request_timeout = 300,
                .worker_memory = 4096,
                .max_body = 64LL << 20,
                .max_list_bytes = 4LL << 20,
                .min_free_mb = 64,
                .max_per_address = 128,
                .auth_free_failures = 5,
                .auth_max_delay = 900,
                .auth_server_failures = 300,
                .hsts_max_age = 365LL * 86400};
    int rc = parse_args(argc, argv, &c);
    /* The what-if builds stop starting new ones at their budget; the worker
     * is killed at the timeout, so the budget must end first. */
    uint32_t what_if_ms =
        c.what_if_seconds < 0 ? (uint32_t)c.timeout * 500u : (uint32_t)c.what_if_seconds * 1000u;
    if (rc == 0 && c.what_if_seconds >= c.timeout) {
        fprintf(stderr,
                "tregd: --what-if-seconds %lld must be less than --timeout %lld (an analysis "
                "is killed at the timeout)\n",
                c.what_if_seconds, c.timeout);
        rc = 2;
    }
    char host[256];
    unsigned short port = 8443;
    if (rc == 0 &&
        parse_listen(c.listen ? c.listen : "127.0.0.1:8443", host, sizeof host, &port) != 0) {
        fprintf(stderr, "tregd: --listen: '%s' is not HOST:PORT\n", c.listen);
        rc = 2;
    }
    if (rc != 0) {
        config_free(&c);
        return rc;
    }
    if (c.workers == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        c.workers = cores > 0 ? (cores > 256 ? 256 : cores) : 1;
    }
    if (c.queue < 0) c.queue = 4 * c.workers;
    signal(SIGPIPE, SIG_IGN);
    event_set_log_callback(on_libevent_log);
    long open_files = raise_open_files();

    treg_error err = {0, ""};
    auth_set auth = {0};
    if (load_tokens(&c, &auth, &err) != 0) {
        fprintf(stderr, "tregd: %s\n", err.msg);
        rc = 2;
    }

    SSL_CTX *tls = NULL;
    store *st = NULL;
    struct event_base *base = NULL;
    pool *workers = NULL;
    http_server *http = NULL;
    struct event *sigterm = NULL, *sigint = NULL, *sigchld = NULL, *sighup = NULL;
    struct event *log_timer = NULL;
    if (rc == 0 && (tls = tls_context_new(c.cert, c.key, &err)) == NULL) {
        fprintf(stderr, "tregd: %s\n", err.msg);
        rc = 1;
    }
    sandbox sb = {0};
    if (rc == 0 && sandbox_prepare(&sb, c.worker_user, &err) != 0) {
        fprintf(stderr, "tregd: %s\n", err.msg);
        rc = 2;
    }
    store_options so = {.index = c.index, .instance = c.instance};
    if (rc == 0 && (st = store_open(c.store, &so, &err)) == NULL) {
        fprintf(stderr, "tregd: %s\n", err.msg);
        rc = 1;
    }
    if (rc == 0 && (base = new_event_base()) == NULL) {
        fprintf(stderr, "tregd: cannot create the event loop\n");
        rc = 1;
    }
    if (rc == 0 && (workers = pool_new(base, (unsigned)c.workers, (unsigned)c.queue,
                                       (unsigned)c.timeout, (unsigned)c.worker_memory, &sb, c.store,
                                       store_tmp_dir(st), &err)) == NULL) {
        fprintf(stderr, "tregd: %s\n", err.msg);
        rc = 1;
    }
    if (rc == 0) {
        http_config hc = {.host = host,
                          .port = port,
                          .max_body = (size_t)c.max_body,
                          .timeout_seconds = (unsigned)c.timeout,
                          .what_if_ms = what_if_ms,
                          .head_timeout_seconds = (unsigned)c.head_timeout,
                          .request_timeout_seconds = (unsigned)c.request_timeout,
                          .tls = tls,
                          .auth = &auth,
                          .store = st,
                          .pool = workers,
                          .team_visibility = c.team_visibility,
                          .max_list_bytes = (size_t)c.max_list_bytes,
                          .min_free_bytes = (uint64_t)c.min_free_mb << 20,
                          .max_per_address = (unsigned)c.max_per_address,
                          .throttle = {.free = (unsigned)c.auth_free_failures,
                                       .max_delay = (unsigned)c.auth_max_delay,
                                       .server_per_minute = (unsigned)c.auth_server_failures},
                          .hsts_max_age = (unsigned)c.hsts_max_age};
        if ((http = http_new(base, &hc, &err)) == NULL) {
            fprintf(stderr, "tregd: %s\n", err.msg);
            rc = 1;
        }
    }
    if (rc == 0 && c.port_file && write_port_file(c.port_file, http_port(http)) != 0) {
        fprintf(stderr, "tregd: --port-file %s: %s\n", c.port_file, strerror(errno));
        rc = 1;
    }
    server srv = {.base = base,
                  .http = http,
                  .pool = workers,
                  .config = &c,
                  .auth = &auth,
                  .timeout_seconds = (unsigned)c.timeout};
    if (rc == 0) {
        sigterm = evsignal_new(base, SIGTERM, on_stop_signal, &srv);
        sigint = evsignal_new(base, SIGINT, on_stop_signal, &srv);
        sigchld = evsignal_new(base, SIGCHLD, on_sigchld, &srv);
        sighup = evsignal_new(base, SIGHUP, on_reload_signal, &srv);
        if (!sigterm || !sigint || !sigchld || !sighup || evsignal_add(sigterm, NULL) != 0 ||
            evsignal_add(sigint, NULL) != 0 || evsignal_add(sigchld, NULL) != 0 ||
            evsignal_add(sighup, NULL) != 0) {
            fprintf(stderr, "tregd: cannot install signal handlers\n");
            rc = 1;
        }
    }
    if (rc == 0) {
        log_line *o = log_begin("info", "listening");
        log_add_str(o, "host", host);
        log_add_int(o, "port", http_port(http));
        log_add_int(o, "workers", c.workers);
        log_add_int(o, "queue", c.queue);
        log_add_int(o, "max_open_files", open_files);
        log_add_str(o, "store", c.store);
        log_add_str(o, "index_kind", store_index_kind(st)); /* never the URL: a password */
        log_add_str(o, "instance", store_instance(st));
        log_add_int(o, "teams", (long long)auth.n);
        log_add_int(o, "recovered", (long long)store_recovered(st));
        log_add_int(o, "converted", (long long)store_converted(st));
        log_add_str(o, "index",
                    store_rebuilt(st)    ? "rebuilt"
                    : store_upgraded(st) ? "upgraded"
                                         : "ok");
        log_add_str(o, "visibility", c.team_visibility ? "team" : "all");
        log_add_str(o, "analyzer_version", TREG_ANALYZER_VERSION);
        log_end(o);
        /* Without the timer every line is written at once, as before. */
        if ((log_timer = evtimer_new(base, on_log_flush, NULL)) != NULL)
            log_defer_start(arm_log_flush, log_timer);
        event_base_dispatch(base);
        log_msg("info", "stopped", NULL);
    }

    /* pool_free before http_free: jobs it still completes answer requests
     * (503), and after a forced stop the loop runs a moment more so those
     * answers reach their clients. */
    pool_free(workers);
    if (srv.forced) {
        struct timeval flush = {0, 300 * 1000};
        event_base_loopexit(base, &flush);
        event_base_dispatch(base);
    }
    log_defer_stop();
    if (log_timer) event_free(log_timer);
    http_free(http);
    if (srv.deadline) event_free(srv.deadline);
    if (sigterm) event_free(sigterm);
    if (sigint) event_free(sigint);
    if (sigchld) event_free(sigchld);
    if (sighup) event_free(sighup);
    if (base) event_base_free(base);
    store_close(st);
    SSL_CTX_free(tls);
    auth_free(&auth);
    sandbox_free(&sb);
    config_free(&c);
    return rc;
}
