/* Structured logs: one JSON object per line on stderr, so an operator can
 * feed them to jq or a log shipper.  A caller builds the object with json-c
 * (log_begin), adds its own fields, and log_end stamps and writes it. */
#ifndef TREGD_LOG_H
#define TREGD_LOG_H

#include <json-c/json.h>

/* A new log object with "level" and "msg" set; never NULL (aborts on OOM is
 * json-c's business; a NULL from it makes log_end a no-op). */
json_object *log_begin(const char *level, const char *msg);

/* Adds "ts", writes the line in one write, frees the object. */
void log_end(json_object *o);

/* Convenience for the common one-field case: {"level","msg","detail"}. */
void log_msg(const char *level, const char *msg, const char *detail);

void log_add_str(json_object *o, const char *key, const char *value);
void log_add_int(json_object *o, const char *key, long long value);

#endif
