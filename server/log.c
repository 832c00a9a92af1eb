/* Structured logs to stderr (see log.h).  Each line goes out in a single
 * write(2) so lines from the server and its worker processes never
 * interleave mid-line. */
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

json_object *log_begin(const char *level, const char *msg)
{
    json_object *o = json_object_new_object();
    if (o == NULL) return NULL;
    json_object_object_add(o, "ts", NULL); /* keeps "ts" first in the line */
    log_add_str(o, "level", level);
    log_add_str(o, "msg", msg);
    return o;
}

void log_add_str(json_object *o, const char *key, const char *value)
{
    if (o != NULL && value != NULL) json_object_object_add(o, key, json_object_new_string(value));
}

void log_add_int(json_object *o, const char *key, long long value)
{
    if (o != NULL) json_object_object_add(o, key, json_object_new_int64(value));
}

void log_end(json_object *o)
{
    if (o == NULL) return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    char ts[40];
    size_t n = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof ts - n, ".%03ldZ", now.tv_nsec / 1000000);
    json_object_object_add(o, "ts", json_object_new_string(ts));

    const char *text =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t len = strlen(text);
    char line[4096];
    if (len + 1 <= sizeof line) {
        memcpy(line, text, len);
        line[len] = '\n';
        ssize_t w = write(STDERR_FILENO, line, len + 1);
        (void)w;
    } else {
        fprintf(stderr, "%s\n", text);
    }
    json_object_put(o);
}

void log_msg(const char *level, const char *msg, const char *detail)
{
    json_object *o = log_begin(level, msg);
    log_add_str(o, "detail", detail);
    log_end(o);
}
