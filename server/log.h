/* Structured logs: one JSON object per line on stderr, so an operator can
 * feed them to jq or a log shipper.  A caller starts a line (log_begin:
 * "ts", "level", "msg"), adds its own fields, and log_end writes it.  The
 * line is built as text in one buffer: the request log runs once per
 * request on the event loop, where a tree of json-c objects per line cost
 * a dozen allocations. */
#ifndef TREGD_LOG_H
#define TREGD_LOG_H

typedef struct log_line log_line;

/* A new line with "ts", "level" and "msg"; NULL when memory runs out, and
 * every function below accepts that NULL and does nothing. */
log_line *log_begin(const char *level, const char *msg);

/* Closes the object, writes the line in one write(2), frees it. */
void log_end(log_line *l);

/* Convenience for the common one-field case: {"level","msg","detail"}. */
void log_msg(const char *level, const char *msg, const char *detail);

/* Fields, in the order added; a NULL value adds nothing. */
void log_add_str(log_line *l, const char *key, const char *value);
void log_add_int(log_line *l, const char *key, long long value);

#endif
