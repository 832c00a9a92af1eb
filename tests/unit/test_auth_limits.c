/* tregd's defences around tokens: the failure throttle (server/throttle.c)
 * and the strength a plain token must have (auth_token_bits).
 *   - an address fails `free` times unhindered, then waits 1, 2, 4 ... s,
 *     capped (and at the cap stays there: its count is not forgotten when
 *     a wait ends); a success clears it; max_delay quiet seconds past the
 *     wait forget it;
 *   - IPv6 clients count by /64, IPv4 (and IPv4-mapped IPv6) by address;
 *   - past the server-wide bound in a minute, addresses never seen to
 *     succeed wait until the minute ends, known ones do not;
 *   - a flood from 200,000 addresses leaves the table as it was made (its
 *     slots fixed at creation) and a trusted address still trusted;
 *   - tokens: hex from openssl rand -hex 16 is 128 bits; short, few-letter
 *     or repeated ones fall short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "auth.h"
#include "throttle.h"

static const throttle_config cfg = {.free = 3, .max_delay = 60, .server_per_minute = 0};

static void backoff(void **state)
{
    (void)state;
    throttle *t = throttle_new(&cfg);
    assert_non_null(t);
    int64_t now = 6000;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(throttle_wait(t, "10.0.0.1", now), 0);
        throttle_failed(t, "10.0.0.1", now);
    }
    assert_int_equal(throttle_wait(t, "10.0.0.1", now), 0); /* three free */
    unsigned want[] = {1, 2, 4, 8, 16, 32, 60, 60};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        throttle_failed(t, "10.0.0.1", now);
        assert_int_equal(throttle_wait(t, "10.0.0.1", now), want[i]);
        assert_int_equal(throttle_wait(t, "10.0.0.2", now), 0); /* another address: no wait */
        now += want[i];
        assert_int_equal(throttle_wait(t, "10.0.0.1", now), 0);
    }
    throttle_failed(t, "10.0.0.1", now);
    assert_int_equal(throttle_wait(t, "10.0.0.1", now), 60);
    throttle_succeeded(t, "10.0.0.1", now + 60); /* a right token clears it */
    throttle_failed(t, "10.0.0.1", now + 60);
    assert_int_equal(throttle_wait(t, "10.0.0.1", now + 60), 0);
    /* quiet for max_delay seconds past the wait's end: forgotten; not before */
    for (int i = 0; i < 4; i++) throttle_failed(t, "10.0.0.3", now);
    assert_int_equal(throttle_wait(t, "10.0.0.3", now), 1); /* until now + 1 */
    assert_int_equal(throttle_wait(t, "10.0.0.3", now + 60), 0);
    throttle_failed(t, "10.0.0.3", now + 60); /* quiet 59 s past the wait: counted */
    assert_int_equal(throttle_wait(t, "10.0.0.3", now + 60), 2);
    throttle_failed(t, "10.0.0.3", now + 62 + 60); /* quiet 60 s past it: forgotten */
    assert_int_equal(throttle_wait(t, "10.0.0.3", now + 122), 0);
    throttle_free(t);
}

static void address_keys(void **state)
{
    (void)state;
    throttle *t = throttle_new(&cfg);
    int64_t now = 6000;
    /* one /64: the same client however it picks its host bits */
    const char *same[] = {"2001:db8:1:2::1", "2001:db8:1:2:aaaa::9",
                          "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002::77"};
    for (size_t i = 0; i < 4; i++) throttle_failed(t, same[i], now);
    assert_int_equal(throttle_wait(t, "2001:db8:1:2::1234", now), 1);
    assert_int_equal(throttle_wait(t, "2001:db8:1:3::1", now), 0); /* the next /64 */
    /* IPv4 by address, also when mapped */
    for (int i = 0; i < 4; i++) throttle_failed(t, "::ffff:192.0.2.7", now);
    assert_int_equal(throttle_wait(t, "192.0.2.7", now), 1);
    assert_int_equal(throttle_wait(t, "192.0.2.8", now), 0);
    /* not an address: never a wait, never a slot */
    throttle_failed(t, "not-an-address", now);
    assert_int_equal(throttle_wait(t, "not-an-address", now), 0);
    throttle_free(t);
}

static void server_wide(void **state)
{
    (void)state;
    throttle_config c = cfg;
    c.server_per_minute = 10;
    throttle *t = throttle_new(&c);
    int64_t now = 60 * 1000 + 5; /* 5 s into a minute */
    throttle_succeeded(t, "10.1.0.1", now);
    char a[32];
    for (int i = 0; i < 10; i++) { /* one failure each: no address waits for itself */
        snprintf(a, sizeof a, "10.2.0.%d", i + 1);
        assert_int_equal(throttle_wait(t, a, now), 0);
        throttle_failed(t, a, now);
    }
    assert_int_equal(throttle_wait(t, "10.3.0.1", now), 55); /* unknown: until the minute ends */
    assert_int_equal(throttle_wait(t, "10.1.0.1", now), 0);  /* known good */
    assert_int_equal(throttle_wait(t, "10.3.0.1", now + 55), 0); /* the next minute */
    throttle_free(t);
}

static void flood(void **state)
{
    (void)state;
    throttle_config c = cfg;
    throttle *t = throttle_new(&c);
    int64_t now = 6000;
    throttle_succeeded(t, "10.9.9.9", now);
    for (int i = 0; i < 4; i++) throttle_failed(t, "10.8.8.8", now);
    char a[32];
    for (unsigned i = 0; i < 200000; i++) { /* 200,000 addresses, 49x the slots */
        snprintf(a, sizeof a, "172.%u.%u.%u", 16 + (i >> 16), (i >> 8) & 255, i & 255);
        throttle_failed(t, a, now + 1);
    }
    /* a trusted address outlives failing ones in its slots */
    assert_int_equal(throttle_wait(t, "10.9.9.9", now + 1), 0);
    /* the flood's own addresses cost slots, not memory: the last one is
     * still there (its failure and 4 more: two past the free three, 2 s) */
    for (int i = 0; i < 4; i++) throttle_failed(t, a, now + 1);
    assert_int_equal(throttle_wait(t, a, now + 1), 2);
    throttle_free(t);
}

static void token_bits(void **state)
{
    (void)state;
    assert_int_equal(auth_token_bits("0123456789abcdef0123456789abcdef"), 128); /* rand -hex 16 */
    assert_true(auth_token_bits("0123456789abcdef0123456789abcde") < AUTH_MIN_TOKEN_BITS);
    assert_int_equal(auth_token_bits("0123456789ABCDEF0123456789ABCDEF"), 128);
    assert_true(auth_token_bits("change-me") < AUTH_MIN_TOKEN_BITS);
    assert_true(auth_token_bits("team-secret-token") < AUTH_MIN_TOKEN_BITS);
    assert_true(auth_token_bits("12345678901234567890123456789012345678") < AUTH_MIN_TOKEN_BITS);
    assert_true(auth_token_bits("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") <
                AUTH_MIN_TOKEN_BITS);
    assert_true(auth_token_bits("abababababababababababababababababababababababab") <
                AUTH_MIN_TOKEN_BITS);
    /* 22 of base64's alphabet: 22 x 5.95 = 130 */
    assert_true(auth_token_bits("q3Zt8Kd0LmWx2PvN7sYbRc") >= AUTH_MIN_TOKEN_BITS);
    assert_int_equal(auth_token_bits(""), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backoff), cmocka_unit_test(address_keys), cmocka_unit_test(server_wide),
        cmocka_unit_test(flood),   cmocka_unit_test(token_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
