/* server/log.h for fuzz targets: every line dropped (log_begin's NULL,
 * which every other call takes as "nothing to do"), so that a target that
 * logs per input neither floods the fuzzer's output nor measures it. */
#include <stddef.h>

#include "log.h"

log_line *log_begin(const char *level, const char *msg)
{
    (void)level, (void)msg;
    return NULL;
}
void log_end(log_line *l)
{
    (void)l;
}
void log_defer_start(void (*arm)(void *arg), void *arg)
{
    (void)arm, (void)arg;
}
void log_end_deferred(log_line *l)
{
    (void)l;
}
void log_flush(void) {}
void log_defer_stop(void) {}
void log_defer_drop(void) {}
void log_msg(const char *level, const char *msg, const char *detail)
{
    (void)level, (void)msg, (void)detail;
}
void log_add_str(log_line *l, const char *key, const char *value)
{
    (void)l, (void)key, (void)value;
}
void log_add_int(log_line *l, const char *key, long long value)
{
    (void)l, (void)key, (void)value;
}
