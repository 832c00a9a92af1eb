/* tregc's settings from flags, the environment and client.conf, in that
 * order of precedence, decided per setting: a flag for the server with the
 * token from the file is a normal way to run.  The file is a few
 * `key = value` lines; anything else in it is an error naming the line, so
 * a typo never silently sends a request to the wrong place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/error.h"

static const char *nonempty_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (!s) return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    return s;
}

char *tregc_config_path(int *explicit_path)
{
    const char *v = nonempty_env("TREG_CONFIG");
    *explicit_path = v != NULL;
    if (v) return strdup(v);
    /* The XDG spec ignores a relative XDG_CONFIG_HOME. */
    v = nonempty_env("XDG_CONFIG_HOME");
    if (v && v[0] == '/') return join(v, "/treg/client.conf");
    v = nonempty_env("HOME");
    if (v) return join(v, "/.config/treg/client.conf");
    return NULL;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = 0;
    return s;
}

/* A ca value as a path usable from anywhere: "~/x" under $HOME, "x"
 * under the config file's folder. */
static char *ca_path(const char *value, const char *file)
{
    if (strncmp(value, "~/", 2) == 0) {
        const char *home = nonempty_env("HOME");
        return home ? join(home, value + 1) : strdup(value);
    }
    const char *slash = strrchr(file, '/');
    if (value[0] == '/' || !slash) return strdup(value);
    size_t dirlen = (size_t)(slash - file) + 1;
    char *s = malloc(dirlen + strlen(value) + 1);
    if (!s) return NULL;
    memcpy(s, file, dirlen);
    strcpy(s + dirlen, value);
    return s;
}

int tregc_config_read_file(tregc_config *cfg, const char *path, treg_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        treg_fail(err, TREG_E_IO, "%s: %s", path, strerror(errno));
        return -1;
    }
    static const char *const keys[] = {"server", "token", "ca"};
    char **slots[] = {&cfg->server, &cfg->token, &cfg->ca};
    unsigned first_line[3] = {0, 0, 0};
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) != -1) {
        lineno++;
        char *s = trim(line);
        if (*s == 0 || *s == '#') continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            treg_fail(err, TREG_E_FORMAT, "%s:%u: expected 'key = value', got '%.60s'", path,
                      lineno, s);
            rc = -1;
            break;
        }
        *eq = 0;
        char *key = trim(s), *value = trim(eq + 1);
        size_t k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0) k++;
        if (k == 3) {
            treg_fail(err, TREG_E_FORMAT, "%s:%u: unknown key '%.40s' (server, token or ca)", path,
                      lineno, key);
            rc = -1;
        } else if (*value == 0) {
            treg_fail(err, TREG_E_FORMAT, "%s:%u: %s has no value", path, lineno, keys[k]);
            rc = -1;
        } else if (first_line[k]) {
            treg_fail(err, TREG_E_FORMAT, "%s:%u: %s set again (first on line %u)", path, lineno,
                      keys[k], first_line[k]);
            rc = -1;
        } else {
            first_line[k] = lineno;
            if (*slots[k] == NULL) {
                *slots[k] = k == 2 ? ca_path(value, path) : strdup(value);
                if (*slots[k] == NULL) {
                    treg_fail(err, TREG_E_NOMEM, "%s: out of memory", path);
                    rc = -1;
                }
            }
        }
    }
    if (rc == 0 && ferror(f)) {
        treg_fail(err, TREG_E_IO, "%s: read error", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}

static int take(char **slot, const char *flag, const char *env_name)
{
    const char *v = flag && *flag ? flag : nonempty_env(env_name);
    if (!v) return 0;
    *slot = strdup(v);
    return *slot ? 0 : -1;
}

int tregc_config_resolve(tregc_config *cfg, const tregc_settings *flags, treg_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    if (take(&cfg->server, flags->server, "TREG_SERVER") ||
        take(&cfg->token, flags->token, "TREG_TOKEN") || take(&cfg->ca, flags->ca, "TREG_CA")) {
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return -1;
    }
    int explicit_path;
    char *path = tregc_config_path(&explicit_path);
    if (!path) return 0; /* no HOME: only flags and environment */
    FILE *probe = fopen(path, "r");
    if (!probe && errno == ENOENT && !explicit_path) {
        free(path); /* no file is the common case */
        return 0;
    }
    if (probe) fclose(probe);
    cfg->file = path;
    return tregc_config_read_file(cfg, path, err);
}

void tregc_config_free(tregc_config *cfg)
{
    free(cfg->server);
    free(cfg->token);
    free(cfg->ca);
    free(cfg->file);
    memset(cfg, 0, sizeof *cfg);
}
