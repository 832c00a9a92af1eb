/* tregd's structured log lines: each is one JSON object on one line, with
 * "ts", "level", "msg" first and the fields in the order added; strings
 * with quotes, backslashes, control characters and UTF-8 come back
 * byte for byte through a real JSON parser (json-c); a NULL line (no
 * memory) is accepted everywhere. */
#include <ctype.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "log.h"

/* ts is UTC now, to the millisecond: YYYY-MM-DDTHH:MM:SS.mmmZ, within a
 * few seconds of the clock (the date is formatted once a second and
 * cached, so a stale cache would show here). */
static void assert_ts_now(const char *ts)
{
    assert_int_equal(strlen(ts), strlen("2026-11-30T06:00:00.000Z"));
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm);
    assert_non_null(rest);
    assert_true(rest[0] == '.' && isdigit((unsigned char)rest[1]) &&
                isdigit((unsigned char)rest[2]) && isdigit((unsigned char)rest[3]) &&
                strcmp(rest + 4, "Z") == 0);
    long long skew = (long long)(timegm(&tm) - time(NULL));
    assert_true(skew >= -5 && skew <= 1);
}

/* Runs emit() with stderr sent to a file; returns what was written. */
static char *captured(void (*emit)(void))
{
    char path[] = "/tmp/treg-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    emit();
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    char *text = calloc(1, (size_t)len + 1);
    assert_non_null(text);
    assert_int_equal(pread(fd, text, (size_t)len, 0), len);
    close(fd);
    return text;
}

static const char nasty[] = "<script>\"q\" back\\slash\ttab\nnewline\x01\x1f caf\xc3\xa9 /slash";

static void emit_request(void)
{
    log_line *l = log_begin("info", "request");
    log_add_str(l, "path", nasty);
    log_add_int(l, "status", 404);
    log_add_int(l, "big", -9223372036854775807LL);
    log_add_str(l, "skipped", NULL);
    log_end(l);
    log_msg("warn", "second line", "detail text");
}

static void lines_are_json_objects_in_order(void **state)
{
    (void)state;
    char *text = captured(emit_request);
    size_t lines = 0;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 2); /* the newline in the value is escaped */
    assert_int_equal(text[strlen(text) - 1], '\n');
    char *nl = strchr(text, '\n');
    *nl = '\0';
    assert_true(strncmp(text, "{\"ts\":\"", 7) == 0);

    json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    const char *keys[] = {"ts", "level", "msg", "path", "status", "big"};
    size_t i = 0;
    json_object_object_foreach(o, key, val)
    {
        (void)val;
        assert_true(i < sizeof keys / sizeof keys[0]);
        assert_string_equal(key, keys[i++]);
    }
    assert_int_equal(i, 6);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "path", &v));
    assert_string_equal(json_object_get_string(v), nasty);
    assert_true(json_object_object_get_ex(o, "status", &v));
    assert_int_equal(json_object_get_int64(v), 404);
    assert_true(json_object_object_get_ex(o, "big", &v));
    assert_true(json_object_get_int64(v) == -9223372036854775807LL);
    assert_true(json_object_object_get_ex(o, "ts", &v));
    assert_ts_now(json_object_get_string(v));
    json_object_put(o);

    o = json_tokener_parse(nl + 1);
    assert_non_null(o);
    assert_true(json_object_object_get_ex(o, "detail", &v));
    assert_string_equal(json_object_get_string(v), "detail text");
    assert_true(json_object_object_get_ex(o, "level", &v));
    assert_string_equal(json_object_get_string(v), "warn");
    json_object_put(o);
    free(text);
}

static void emit_long(void)
{
    char *big = malloc(100000);
    assert_non_null(big);
    memset(big, 'x', 99999);
    big[99999] = '\0';
    log_line *l = log_begin("info", "long");
    log_add_str(l, "value", big);
    log_end(l);
    free(big);
}

static void long_values_grow_the_line(void **state)
{
    (void)state;
    char *text = captured(emit_long);
    json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "value", &v));
    assert_int_equal(strlen(json_object_get_string(v)), 99999);
    json_object_put(o);
    free(text);
}

static void emit_a_second_apart(void)
{
    log_msg("info", "first", NULL);
    struct timespec pause = {1, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    log_msg("info", "second", NULL);
}

/* The cached date moves on with the clock. */
static void timestamps_follow_the_clock(void **state)
{
    (void)state;
    char *text = captured(emit_a_second_apart);
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    json_object *a = json_tokener_parse(text), *b = json_tokener_parse(nl + 1), *va, *vb;
    assert_non_null(a);
    assert_non_null(b);
    assert_true(json_object_object_get_ex(a, "ts", &va));
    assert_true(json_object_object_get_ex(b, "ts", &vb));
    assert_ts_now(json_object_get_string(vb));
    /* 1.1 s apart: the seconds differ */
    assert_true(strncmp(json_object_get_string(va), json_object_get_string(vb), 19) != 0);
    json_object_put(a);
    json_object_put(b);
    free(text);
}

static int arms;
static void count_arm(void *arg)
{
    assert_ptr_equal(arg, &arms);
    arms++;
}

static char *deferred_text; /* the captured stderr before log_flush */

static void emit_deferred(void)
{
    arms = 0;
    log_defer_start(count_arm, &arms);
    for (int i = 0; i < 3; i++) {
        log_line *l = log_begin("info", "request");
        log_add_int(l, "n", i);
        log_end_deferred(l);
    }
    /* nothing written yet: only the first line armed the flush */
    assert_int_equal(lseek(STDERR_FILENO, 0, SEEK_CUR), 0);
    assert_int_equal(arms, 1);
    log_flush();
    off_t after_flush = lseek(STDERR_FILENO, 0, SEEK_CUR);
    assert_true(after_flush > 0);
    /* an immediate line writes the deferred ones before it */
    log_line *l = log_begin("info", "request");
    log_add_int(l, "n", 3);
    log_end_deferred(l);
    assert_int_equal(arms, 2);
    log_msg("warn", "immediate", NULL);
    /* 2,000 lines (about 180 KB): the 64 KiB buffer is written as it fills */
    for (int i = 4; i < 2004; i++) {
        l = log_begin("info", "request");
        log_add_int(l, "n", i);
        log_end_deferred(l);
    }
    assert_true(lseek(STDERR_FILENO, 0, SEEK_CUR) > after_flush + 64 * 1024);
    /* a line longer than the buffer goes out whole, in its place */
    char *big = malloc(100000);
    assert_non_null(big);
    memset(big, 'y', 99999);
    big[99999] = '\0';
    l = log_begin("info", "request");
    log_add_int(l, "n", 2004);
    log_add_str(l, "value", big);
    log_end_deferred(l);
    free(big);
    l = log_begin("info", "request");
    log_add_int(l, "n", 2005);
    log_end_deferred(l);
    log_defer_stop();
    /* not deferring any more: written at once */
    l = log_begin("info", "request");
    log_add_int(l, "n", 2006);
    off_t before = lseek(STDERR_FILENO, 0, SEEK_CUR);
    log_end_deferred(l);
    assert_true(lseek(STDERR_FILENO, 0, SEEK_CUR) > before);
    /* what a forked child must forget: buffered, then dropped */
    log_defer_start(count_arm, &arms);
    l = log_begin("info", "request");
    log_add_int(l, "n", 9999);
    log_end_deferred(l);
    log_defer_drop();
    log_flush();
}

/* Deferred request lines: held until log_flush (or a full buffer, or an
 * immediate line), every line whole and in order; dropped ones never appear. */
static void deferred_lines_keep_their_order(void **state)
{
    (void)state;
    deferred_text = captured(emit_deferred);
    int expect = 0;
    bool saw_immediate = false;
    for (char *line = deferred_text; *line;) {
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        json_object *o = json_tokener_parse(line), *v;
        assert_non_null(o);
        assert_true(json_object_object_get_ex(o, "msg", &v));
        if (strcmp(json_object_get_string(v), "immediate") == 0) {
            assert_int_equal(expect, 4); /* after 0..3 */
            saw_immediate = true;
        } else {
            assert_true(json_object_object_get_ex(o, "n", &v));
            assert_int_equal(json_object_get_int(v), expect);
            expect++;
        }
        json_object_put(o);
        line = nl + 1;
    }
    assert_true(saw_immediate);
    assert_int_equal(expect, 2007); /* 0..2006, and not the dropped 9999 */
    free(deferred_text);
}

static void null_line_is_harmless(void **state)
{
    (void)state;
    log_add_str(NULL, "k", "v");
    log_add_int(NULL, "k", 1);
    log_end(NULL);
    log_end_deferred(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_are_json_objects_in_order),
        cmocka_unit_test(long_values_grow_the_line),
        cmocka_unit_test(timestamps_follow_the_clock),
        cmocka_unit_test(deferred_lines_keep_their_order),
        cmocka_unit_test(null_line_is_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
