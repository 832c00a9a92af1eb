/* Stage 1b (load/lines): the DWARF line tables of the corpus kernels
 * against what their source says (kernels_a.py, Triton's standard.py for
 * inlined library code), lookup semantics on a hand-built table, objects
 * without DWARF, and a truncation sweep that must fail cleanly. */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/codeobj.h"
#include "load/lines.h"
#include "testutil.h"

#define KERNEL_SOURCE "/workspace/kernels/kernels_a.py"

static const char *const add_kernel_hsacos[] = {
    TREG_CORPUS
    "/triton-cache/BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ/add_kernel.hsaco",
    TREG_CORPUS
    "/triton-cache/I24B4VIKUZU37PH46DEKWPBMMZFR3R2C6IFQV55DYIF4MODDWY2Q/add_kernel.hsaco",
    TREG_CORPUS "/gfx906-llc22/BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ-906/"
                "add_kernel.hsaco",
};

static void require_corpus(void)
{
    if (!tu_exists(TREG_CORPUS "/triton-cache")) {
        print_message("shared corpus not found at %s\n", TREG_CORPUS);
        skip();
    }
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Rows sorted, file indexes valid, the last row of the table ends a
 * sequence. */
static void check_table_shape(const treg_linetab *t)
{
    assert_true(t->nrows > 0);
    for (size_t i = 0; i < t->nrows; i++) {
        assert_true(t->rows[i].file >= 0 && (size_t)t->rows[i].file < t->nfiles);
        if (i) assert_true(t->rows[i - 1].addr <= t->rows[i].addr);
    }
    assert_true(t->rows[t->nrows - 1].end_sequence);
    for (size_t f = 0; f < t->nfiles; f++)
        for (size_t g = f + 1; g < t->nfiles; g++)
            assert_string_not_equal(t->files[f], t->files[g]);
}

static void test_add_kernel_lines(void **state)
{
    (void)state;
    require_corpus();
    for (size_t h = 0; h < 3; h++) {
        size_t len;
        uint8_t *b = tu_read_file(add_kernel_hsacos[h], &len);
        assert_non_null(b);
        treg_arena a;
        treg_arena_init(&a);
        treg_error err = {0};
        treg_codeobj co;
        treg_linetab t;
        assert_int_equal(treg_codeobj_load(&a, b, len, &co, &err), TREG_OK);
        assert_int_equal(treg_lines_load(&a, b, len, &t, &err), TREG_OK);
        check_table_shape(&t);

        /* add_kernel is lines 5-11 of kernels_a.py and calls nothing from
         * triton.language that is not inlined away. */
        assert_int_equal(t.nfiles, 1);
        assert_string_equal(t.files[0], KERNEL_SOURCE);
        /* Lines with code: the def (5), then 7-11; line 6 (pid =
         * tl.program_id(0)) folds into others' rows, and 0 marks
         * compiler-made code. */
        unsigned seen = 0;
        for (size_t i = 0; i < t.nrows; i++) {
            uint32_t line = t.rows[i].line;
            assert_true(line == 0 || (line >= 5 && line <= 11));
            seen |= 1u << line;
        }
        assert_int_equal(seen,
                         1u << 0 | 1u << 5 | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 10 | 1u << 11);

        /* The kernel's first instruction is the def line, and every
         * instruction word of the kernel maps into kernels_a.py. */
        const treg_kernel_sym *k = &co.kernels[0];
        assert_int_equal(t.rows[0].addr, k->addr);
        const treg_line_row *first = treg_lines_lookup(&t, k->addr);
        assert_non_null(first);
        assert_int_equal(first->line, 5);
        for (uint64_t pc = k->addr; pc < k->addr + k->size; pc += 4) {
            const treg_line_row *r = treg_lines_lookup(&t, pc);
            assert_non_null(r);
            assert_int_equal(r->file, 0);
            assert_true(r->addr <= pc);
        }
        assert_null(treg_lines_lookup(&t, k->addr - 1));
        assert_null(treg_lines_lookup(&t, t.rows[t.nrows - 1].addr));
        assert_null(treg_lines_lookup(&t, UINT64_MAX));

        treg_arena_free(&a);
        free(b);
    }
}

/* Which kernels inline Triton library code: every corpus kernel except
 * add_kernel has rows in triton/language/standard.py (softmax and
 * layernorm through max/sum, matmul through cdiv, attention through max).
 * The second file is the compiling machine's path, so only its tail is
 * checked. */
static void test_second_file_is_triton_standard(void **state)
{
    (void)state;
    require_corpus();
    static const char *const roots[] = {TREG_CORPUS "/triton-cache", TREG_CORPUS "/gfx906-llc22"};
    size_t checked = 0, with_standard = 0;
    for (size_t r = 0; r < 2; r++) {
        DIR *d = opendir(roots[r]);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.') continue;
            char sub[PATH_MAX];
            if (snprintf(sub, sizeof sub, "%s/%s", roots[r], de->d_name) >= (int)sizeof sub)
                continue;
            DIR *s = opendir(sub);
            if (!s) continue;
            struct dirent *fe;
            while ((fe = readdir(s))) {
                if (!ends_with(fe->d_name, ".hsaco")) continue;
                char path[PATH_MAX + 256];
                snprintf(path, sizeof path, "%s/%s", sub, fe->d_name);
                size_t len;
                uint8_t *b = tu_read_file(path, &len);
                assert_non_null(b);
                treg_arena a;
                treg_arena_init(&a);
                treg_error err = {0};
                treg_linetab t;
                assert_int_equal(treg_lines_load(&a, b, len, &t, &err), TREG_OK);
                check_table_shape(&t);
                assert_string_equal(t.files[0], KERNEL_SOURCE);
                bool is_add = strcmp(fe->d_name, "add_kernel.hsaco") == 0;
                assert_int_equal(t.nfiles, is_add ? 1 : 2);
                if (!is_add) {
                    assert_true(ends_with(t.files[1], "/triton/language/standard.py"));
                    size_t rows_in_standard = 0;
                    for (size_t i = 0; i < t.nrows; i++) rows_in_standard += t.rows[i].file == 1;
                    assert_true(rows_in_standard > 0);
                    with_standard++;
                }
                checked++;
                treg_arena_free(&a);
                free(b);
            }
            closedir(s);
        }
        closedir(d);
    }
    assert_true(checked >= 37);
    assert_int_equal(with_standard, checked - 3); /* the three add_kernels */
}

/* Two sequences that touch at 0x200, a gap, and repeated addresses. */
static void test_lookup_semantics(void **state)
{
    (void)state;
    const char *files[] = {"a.py"};
    treg_line_row rows[] = {
        {.addr = 0x100, .line = 1},
        {.addr = 0x100, .line = 2}, /* the later of two rows at one address wins */
        {.addr = 0x180, .line = 3},
        {.addr = 0x200, .line = 3, .end_sequence = 1},
        {.addr = 0x200, .line = 7},
        {.addr = 0x240, .line = 8, .end_sequence = 1},
        {.addr = 0x400, .line = 9},
        {.addr = 0x410, .line = 9, .end_sequence = 1},
    };
    treg_linetab t = {
        .files = files, .nfiles = 1, .rows = rows, .nrows = sizeof rows / sizeof rows[0]};
    assert_null(treg_lines_lookup(&t, 0));
    assert_null(treg_lines_lookup(&t, 0xff));
    assert_int_equal(treg_lines_lookup(&t, 0x100)->line, 2);
    assert_int_equal(treg_lines_lookup(&t, 0x17f)->line, 2);
    assert_int_equal(treg_lines_lookup(&t, 0x180)->line, 3);
    assert_int_equal(treg_lines_lookup(&t, 0x1ff)->line, 3);
    assert_int_equal(treg_lines_lookup(&t, 0x200)->line, 7);
    assert_int_equal(treg_lines_lookup(&t, 0x23c)->line, 7);
    assert_null(treg_lines_lookup(&t, 0x240));
    assert_null(treg_lines_lookup(&t, 0x3ff));
    assert_int_equal(treg_lines_lookup(&t, 0x404)->line, 9);
    assert_null(treg_lines_lookup(&t, 0x410));
    assert_null(treg_lines_lookup(&t, UINT64_MAX));

    treg_linetab empty = {0};
    assert_null(treg_lines_lookup(&empty, 0x100));
    assert_null(treg_lines_lookup(NULL, 0x100));
}

static void test_no_dwarf_is_empty(void **state)
{
    (void)state;
    require_corpus();
    size_t len;
    uint8_t *b = tu_read_file(add_kernel_hsacos[0], &len);
    assert_non_null(b);
    /* Renaming .debug_info in .shstrtab makes an object without DWARF. */
    int renamed = 0;
    for (size_t i = 0; i + 12 <= len; i++)
        if (memcmp(b + i, ".debug_info\0", 12) == 0) {
            b[i + 1] = 'x';
            renamed++;
        }
    assert_int_equal(renamed, 1);
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_linetab t;
    assert_int_equal(treg_lines_load(&a, b, len, &t, &err), TREG_OK);
    assert_int_equal(t.nrows, 0);
    assert_int_equal(t.nfiles, 0);
    assert_null(treg_lines_lookup(&t, 0x1600));
    treg_arena_free(&a);
    free(b);
}

static void test_not_elf(void **state)
{
    (void)state;
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_linetab t;
    const char *text = "not an elf";
    assert_int_equal(treg_lines_load(&a, (const uint8_t *)text, strlen(text), &t, &err),
                     TREG_E_FORMAT);
    assert_string_equal(err.msg, "not an ELF file");
    assert_int_equal(treg_lines_load(&a, (const uint8_t *)text, 0, &t, &err), TREG_E_FORMAT);
    assert_int_equal(treg_lines_load(&a, NULL, 0, &t, &err), TREG_E_FORMAT);
    assert_int_equal(treg_lines_load(&a, NULL, 3, &t, &err), TREG_E_ARG);
    assert_int_equal(treg_lines_load(NULL, (const uint8_t *)text, 3, &t, &err), TREG_E_ARG);
    treg_arena_free(&a);
}

/* Cut anywhere (exact-size copies, so ASan sees a read past the end):
 * a failure has a message, a success a well-formed table. */
/* A .debug_str that inflates to 1 GiB (tests/fixtures/dwarf_bomb.py) is
 * refused from its header, before libdw inflates it. */
static void test_dwarf_bomb(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = tu_read_file(TREG_FIXTURES "/bad/dwarf-bomb.hsaco", &len);
    if (!b) skip();
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_linetab t;
    assert_int_equal(treg_lines_load(&a, b, len, &t, &err), TREG_E_LIMIT);
    assert_non_null(strstr(err.msg, ".debug_str states 1073741824"));
    assert_int_equal(t.nrows, 0);
    treg_arena_free(&a);
    free(b);
}

static void test_truncations(void **state)
{
    (void)state;
    require_corpus();
    size_t len;
    uint8_t *b = tu_read_file(TREG_CORPUS
                              "/triton-cache/MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA/"
                              "softmax_kernel.hsaco",
                              &len);
    assert_non_null(b);
    for (size_t step = 0; step <= 97; step++) {
        size_t cut = len * step / 97;
        uint8_t *c = malloc(cut ? cut : 1);
        assert_non_null(c);
        memcpy(c, b, cut);
        treg_arena a;
        treg_arena_init(&a);
        treg_error err = {0};
        treg_linetab t;
        int rc = treg_lines_load(&a, c, cut, &t, &err);
        if (rc != TREG_OK)
            assert_true(err.msg[0] != 0);
        else if (t.nrows)
            check_table_shape(&t);
        if (cut == len) assert_int_equal(rc, TREG_OK);
        treg_arena_free(&a);
        free(c);
    }
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_kernel_lines),
        cmocka_unit_test(test_second_file_is_triton_standard),
        cmocka_unit_test(test_lookup_semantics),
        cmocka_unit_test(test_no_dwarf_is_empty),
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_dwarf_bomb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
