/* tregc's settings (client/config.c): a flag beats the environment, which
 * beats client.conf, setting by setting; the file is found through
 * TREG_CONFIG, $XDG_CONFIG_HOME or $HOME; a malformed line is an error that
 * names the file and the line.  Every test runs in a fresh temporary HOME
 * with the TREG_* and XDG variables cleared, so the developer's own
 * configuration never leaks in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../client/config.h"

typedef struct fixture {
    char home[64];
    treg_error err;
    tregc_config cfg;
} fixture;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* $HOME/REL with its folders made; the returned path is static. */
static const char *home_file(const fixture *fx, const char *rel, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", fx->home, rel);
    for (char *slash = strchr(path + strlen(fx->home) + 1, '/'); slash;
         slash = strchr(slash + 1, '/')) {
        *slash = 0;
        mkdir(path, 0700);
        *slash = '/';
    }
    write_file(path, text);
    return path;
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx) return -1;
    snprintf(fx->home, sizeof fx->home, "/tmp/tregc-config-test.XXXXXX");
    if (!mkdtemp(fx->home)) {
        free(fx);
        return -1;
    }
    setenv("HOME", fx->home, 1);
    static const char *const cleared[] = {"TREG_SERVER", "TREG_TOKEN", "TREG_CA", "TREG_CONFIG",
                                          "XDG_CONFIG_HOME"};
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++) unsetenv(cleared[i]);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    tregc_config_free(&fx->cfg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->home);
    int rc = system(cmd);
    free(fx);
    return rc == 0 ? 0 : -1;
}

static const char default_conf[] = ".config/treg/client.conf";

static void test_flags_beat_env_beat_file(void **state)
{
    fixture *fx = *state;
    home_file(fx, default_conf,
              "server = https://from-file:1\ntoken = file-token\nca = /file/ca.pem\n");
    setenv("TREG_SERVER", "https://from-env:2", 1);
    setenv("TREG_TOKEN", "env-token", 1);
    tregc_settings flags = {.server = "https://from-flag:3"};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), 0);
    assert_string_equal(fx->cfg.server, "https://from-flag:3"); /* flag over env and file */
    assert_string_equal(fx->cfg.token, "env-token");            /* env over file */
    assert_string_equal(fx->cfg.ca, "/file/ca.pem");            /* file when nothing else */
    assert_non_null(fx->cfg.file);
}

static void test_every_flag_wins(void **state)
{
    fixture *fx = *state;
    home_file(fx, default_conf, "server = https://f:1\ntoken = ft\nca = /f.pem\n");
    setenv("TREG_SERVER", "https://e:2", 1);
    setenv("TREG_TOKEN", "et", 1);
    setenv("TREG_CA", "/e.pem", 1);
    tregc_settings flags = {"https://g:3", "gt", "/g.pem"};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), 0);
    assert_string_equal(fx->cfg.server, "https://g:3");
    assert_string_equal(fx->cfg.token, "gt");
    assert_string_equal(fx->cfg.ca, "/g.pem");
}

static void test_env_beats_file_and_empty_env_is_unset(void **state)
{
    fixture *fx = *state;
    home_file(fx, default_conf, "server = https://f:1\ntoken = ft\nca = /f.pem\n");
    setenv("TREG_CA", "/e.pem", 1);
    setenv("TREG_TOKEN", "", 1); /* set but empty: as if unset */
    tregc_settings flags = {0};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), 0);
    assert_string_equal(fx->cfg.server, "https://f:1");
    assert_string_equal(fx->cfg.token, "ft");
    assert_string_equal(fx->cfg.ca, "/e.pem");
}

static void test_no_file_is_fine(void **state)
{
    fixture *fx = *state;
    setenv("TREG_SERVER", "https://e:2", 1);
    tregc_settings flags = {0};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), 0);
    assert_string_equal(fx->cfg.server, "https://e:2");
    assert_null(fx->cfg.token);
    assert_null(fx->cfg.ca);
    assert_null(fx->cfg.file);
}

static void test_xdg_config_home(void **state)
{
    fixture *fx = *state;
    home_file(fx, default_conf, "server = https://home:1\n");
    home_file(fx, "xdg/treg/client.conf", "server = https://xdg:1\n");
    char xdg[128];
    snprintf(xdg, sizeof xdg, "%s/xdg", fx->home);
    setenv("XDG_CONFIG_HOME", xdg, 1);
    int explicit_path = -1;
    char *path = tregc_config_path(&explicit_path);
    char want[200];
    snprintf(want, sizeof want, "%s/treg/client.conf", xdg);
    assert_string_equal(path, want);
    assert_int_equal(explicit_path, 0);
    free(path);
    tregc_settings flags = {0};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), 0);
    assert_string_equal(fx->cfg.server, "https://xdg:1");
}

static void test_relative_xdg_is_ignored(void **state)
{
    fixture *fx = *state;
    setenv("XDG_CONFIG_HOME", "relative/dir", 1);
    int explicit_path;
    char *path = tregc_config_path(&explicit_path);
    char want[200];
    snprintf(want, sizeof want, "%s/.config/treg/client.conf", fx->home);
    assert_string_equal(path, want);
    free(path);
}

static void test_treg_config_overrides_path(void **state)
{
    fixture *fx = *state;
    home_file(fx, default_conf, "server = https://home:1\n");
    const char *other = home_file(fx, "elsewhere.conf", "server = https://other:1\n");
    setenv("TREG_CONFIG", other, 1);
    tregc_settings flags = {0};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), 0);
    assert_string_equal(fx->cfg.server, "https://other:1");
}

static void test_missing_treg_config_is_an_error(void **state)
{
    fixture *fx = *state;
    char path[128];
    snprintf(path, sizeof path, "%s/absent.conf", fx->home);
    setenv("TREG_CONFIG", path, 1);
    tregc_settings flags = {0};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), -1);
    assert_non_null(strstr(fx->err.msg, path));
    assert_non_null(strstr(fx->err.msg, "No such file"));
}

static void test_comments_blanks_spaces_crlf(void **state)
{
    fixture *fx = *state;
    home_file(fx, default_conf,
              "# the team server\n\n   \n  server=https://a:1  \r\n\t token =\tt0k en\n"
              "   # ca = ignored\n");
    tregc_settings flags = {0};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), 0);
    assert_string_equal(fx->cfg.server, "https://a:1");
    assert_string_equal(fx->cfg.token, "t0k en"); /* inner spaces are the value's */
    assert_null(fx->cfg.ca);
}

static void test_ca_paths(void **state)
{
    fixture *fx = *state;
    const char *conf = home_file(fx, "cfg/client.conf", "ca = certs/team.pem\n");
    tregc_config cfg = {0};
    assert_int_equal(tregc_config_read_file(&cfg, conf, &fx->err), 0);
    char want[200];
    snprintf(want, sizeof want, "%s/cfg/certs/team.pem", fx->home); /* beside the file */
    assert_string_equal(cfg.ca, want);
    tregc_config_free(&cfg);

    conf = home_file(fx, "cfg/client.conf", "ca = ~/team.pem\n");
    assert_int_equal(tregc_config_read_file(&cfg, conf, &fx->err), 0);
    snprintf(want, sizeof want, "%s/team.pem", fx->home);
    assert_string_equal(cfg.ca, want);
    tregc_config_free(&cfg);
}

/* One malformed file: resolve fails with "PATH:LINE: " and the keyword. */
static void expect_bad(fixture *fx, const char *text, unsigned line, const char *keyword)
{
    const char *path = home_file(fx, default_conf, text);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%u: ", path, line);
    tregc_settings flags = {0};
    tregc_config_free(&fx->cfg);
    fx->err = (treg_error){0, ""};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), -1);
    if (strncmp(fx->err.msg, prefix, strlen(prefix)) != 0)
        fail_msg("error '%s' does not start with '%s'", fx->err.msg, prefix);
    if (!strstr(fx->err.msg, keyword))
        fail_msg("error '%s' does not say '%s'", fx->err.msg, keyword);
}

static void test_malformed_lines_are_named(void **state)
{
    fixture *fx = *state;
    expect_bad(fx, "# ok\nserver = https://a:1\njust some words\n", 3, "expected 'key = value'");
    expect_bad(fx, "\n\nservr = https://a:1\n", 3, "unknown key 'servr'");
    expect_bad(fx, "token =   \n", 1, "token has no value");
    expect_bad(fx, "server = https://a:1\n# again\nserver = https://b:1\n", 3,
               "server set again (first on line 1)");
    expect_bad(fx, "= value\n", 1, "unknown key ''");
}

static void test_malformed_file_fails_even_with_flags(void **state)
{
    /* A broken config file is reported, not silently skipped. */
    fixture *fx = *state;
    home_file(fx, default_conf, "server https://a:1\n");
    tregc_settings flags = {"https://g:3", "gt", NULL};
    assert_int_equal(tregc_config_resolve(&fx->cfg, &flags, &fx->err), -1);
    assert_non_null(strstr(fx->err.msg, "client.conf:1: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_flags_beat_env_beat_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_flag_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_env_beats_file_and_empty_env_is_unset, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_no_file_is_fine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xdg_config_home, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relative_xdg_is_ignored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_treg_config_overrides_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_treg_config_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_comments_blanks_spaces_crlf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ca_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_lines_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_file_fails_even_with_flags, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
