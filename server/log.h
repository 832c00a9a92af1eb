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

/* Closes the object, writes the line in one write(2), frees it (after any
 * deferred lines of this thread, which it writes first). */
void log_end(log_line *l);

/* Deferred lines: the request log, one line per request on the event loop,
 * where a write(2) per line cost a fifth of the loop's CPU (measured: 23-31
 * against 30-38 us per stored-report GET).  On the thread that called
 * log_defer_start, log_end_deferred keeps the line in a buffer; arm(arg)
 * is called when a line enters the empty buffer, for the caller to
 * schedule log_flush() (tregd: 10 ms later, on the loop); a full buffer
 * (64 KiB) is written at once, and log_end writes the buffer before its own
 * line.  On any other thread log_end_deferred is log_end.  A process killed
 * outright loses what is buffered. */
void log_defer_start(void (*arm)(void *arg), void *arg);
void log_end_deferred(log_line *l);
void log_flush(void);
/* Writes what is buffered and stops deferring. */
void log_defer_stop(void);
/* In a child after fork(): forgets the parent's buffered lines (the parent
 * writes them) and stops deferring. */
void log_defer_drop(void);

/* Convenience for the common one-field case: {"level","msg","detail"}. */
void log_msg(const char *level, const char *msg, const char *detail);

/* Fields, in the order added; a NULL value adds nothing. */
void log_add_str(log_line *l, const char *key, const char *value);
void log_add_int(log_line *l, const char *key, long long value);

#endif
