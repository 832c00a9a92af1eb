/* tregc: the lightweight client of tregd.  Sends code objects (with
 * Triton's .json and .amdgcn) to the team server, fetches stored reports by
 * hash, lists them, checks the server's health.  It renders reports with
 * the same treg_render as treg-analyze, so `tregc upload --format json` and
 * `treg-analyze --format json` can be compared field by field.
 *
 * Failures are one line on stderr, "tregc: <what>: <problem>".  A failure
 * of one file (not a code object, too large, refused by the analyzer) is
 * reported and the next file is sent; a failure of the server (unreachable,
 * TLS, token, busy) stops the run.  Exit 0: all done; 1: something failed;
 * 2: usage or configuration.
 *
 * An upload asks before it sends: the code object's SHA-256 and the digest
 * of what else the report depends on (report_key.h: bundle entry, the
 * Triton .json and .amdgcn) are computed here and
 * GET /v1/reports/{hash}?inputs={digest} tried first; only a 404 POSTs the
 * blob (--reanalyze POSTs straight away).  Reports come without per-instruction
 * rows (?rows=0, UploadRequest.omit_rows) unless they will be printed:
 * --format json without --no-rows, or the text view --asm.
 *
 * A HIP executable, shared library or offload bundle is opened here (the
 * container reader needs no LLVM): each AMDGPU code object inside is sent
 * on its own, by its own SHA-256, so the server stores and dedupes code
 * objects, never executables. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <gnu/libc-version.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <protobuf-c/protobuf-c.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "config.h"
#include "diff.h"
#include "https.h"
#include "render.h"
#include "treg.pb-c.h"

#include "tregc.h"

#ifndef TREGC_VERSION
#define TREGC_VERSION "0"
#endif
#define DEFAULT_TIMEOUT_S 120

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: tregc [options] upload FILE|DIR...\n"
        "       tregc [options] fetch HASH   (or its first 8+ hex digits, when unique)\n"
        "       tregc [options] diff [--fail-on RULES] OLD NEW | --baseline FILE NEW\n"
        "       tregc [options] watch [DIR]   (default $TRITON_CACHE_DIR, else ~/.triton/cache)\n"
        "       tregc [options] list [--kernel NAME] [--target GFX] [--limit N] [--offset N]\n"
        "FILE: a code object (.hsaco), or a HIP executable, shared library or offload bundle:\n"
        "each code object inside is sent alone (upload --target GFX: only those for GFX)\n"
        "       tregc [options] health\n"
        "options:\n"
        "  --server https://HOST:PORT   tregd (else TREG_SERVER, else server in client.conf)\n"
        "  --token TOKEN                bearer token (else TREG_TOKEN, else token)\n"
        "  --ca FILE                    CA certificates to trust (else TREG_CA, else ca;\n"
        "                               default: the system store)\n"
        "  --format text|json|html      output (json: {\"reports\": [...], \"errors\": [...]};\n"
        "                               html: one self-contained page, an index when several)\n"
        "  -o, --output FILE            write the HTML page to FILE (else standard output);\n"
        "                               -o DIR/: a site, DIR/index.html and a page per report\n"
        "  --no-rows                    leave per-instruction rows out of the JSON\n"
        "  --reanalyze                  upload: analyze again even if the server has a report\n"
        "  --what-if                    upload: send each kernel's <kernel>.llir too; the server\n"
        "                               builds it at each register budget up to the occupancy\n"
        "                               the launch allows (registers, scratch, spills per budget:\n"
        "                               compiler results, not a measured speed)\n"
        "  --no-source                  upload: do not send the kernel's source files for its\n"
        "                               page on the server (https://SERVER/r/HASH)\n"
        "  --samples FILE               upload: runtime PC samples (rocprofv3 --pc-sampling JSON\n"
        "                               or rocpd database, a thread trace's code.json) placed by\n"
        "                               the server on each report whose kernels they fall in,\n"
        "                               kept with it for its page; --hot shows where they fall\n"
        "  --samples-code-object N      upload: the profile's code object to take (else the one\n"
        "                               whose samples fall on the instructions)\n"
        "  --timeout SECONDS            per request (default %d)\n"
        "  --write-baseline FILE        upload, fetch, diff: the kernels' figures (diff: NEW's)\n"
        "                               to FILE, for diff --baseline\n"
        "watch: each new cache entry is uploaded once Triton has written it whole (.hsaco,\n"
        ".json and what its __grp__ file lists, in any order; temporary names ignored), one\n"
        "line per kernel; an entry not readable yet is tried again when it changes, and\n"
        "while the server is away; Ctrl-C or SIGTERM stops it\n"
        "diff: OLD and NEW are files, folders (uploaded) or report hashes (fetched); kernels\n"
        "matched by name and target (or the one kernel of each side, for one target) show\n"
        "old, new, delta and the lines whose peak moved;\n"
        "  --fail-on RULES              exit 1 when NEW is worse: spills, scratch, vgpr+N,\n"
        "                               agpr+N, sgpr+N, occupancy-N (as treg-analyze diff)\n"
        "  --baseline FILE              OLD is a baseline written by --write-baseline\n"
        "client.conf: $TREG_CONFIG, else $XDG_CONFIG_HOME/treg/client.conf, else\n"
        "~/.config/treg/client.conf; lines `server = ...`, `token = ...`, `ca = ...`.\n"
        "upload and fetch, %s",
        DEFAULT_TIMEOUT_S, treg_text_help);
}

/* tregc --version: what it was built with, and where the static one finds
 * CA certificates (a node's user asks that first). */
static void print_version(void)
{
#ifdef TREG_STATIC_BUILD
    const char *linkage = "static";
#else
    const char *linkage = "dynamic";
#endif
#if defined(__x86_64__)
    const char *arch = "x86-64";
#elif defined(__aarch64__)
    const char *arch = "aarch64";
#else
    const char *arch = "this machine's";
#endif
    printf("tregc %s (%s, %s Linux)\n", TREGC_VERSION, linkage, arch);
    printf("built with: %s, libevent %s, protobuf-c %s, json-c %s, zlib %s, zstd %s, glibc %s\n",
           OpenSSL_version(OPENSSL_VERSION), event_get_version(), protobuf_c_version(),
           json_c_version(), zlibVersion(), ZSTD_versionString(), gnu_get_libc_version());
    if (!tregc_https_ca_place(0)) {
        printf("CA certificates (no --ca): the system OpenSSL's (%s, %s)\n",
               X509_get_default_cert_file(), X509_get_default_cert_dir());
        return;
    }
    const char *found = tregc_https_system_ca();
    const char *file = getenv("SSL_CERT_FILE"), *dir = getenv("SSL_CERT_DIR");
    if (file || dir)
        printf("CA certificates (no --ca): SSL_CERT_FILE=%s SSL_CERT_DIR=%s, set here\n",
               file ? file : "(unset)", dir ? dir : "(unset)");
    printf(
        "CA certificates (no --ca): SSL_CERT_FILE or SSL_CERT_DIR when set, else the first of:\n");
    for (size_t i = 0; tregc_https_ca_place(i); i++)
        printf("  %s%s\n", tregc_https_ca_place(i),
               found && strcmp(found, tregc_https_ca_place(i)) == 0 ? "   (found here)" : "");
}

/* Server text into one printable line. */

/* --- options ----------------------------------------------------------------------- */

static int parse_count(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "tregc: %s: '%s' is not a whole number from %ld to %ld\n", opt, s, min,
                max);
        return -1;
    }
    *out = v;
    return 0;
}

/* Options of one command only: naming one elsewhere is a usage error. */
enum {
    OPT_LIST = 1,
    OPT_UPLOAD = 2,
    OPT_REPORTS = 4,
    OPT_TARGET = 8,
    OPT_DIFF = 16,
    OPT_WBASE = 32
};

/* --format html: every report of the run on one page, written at the end. */
static int write_page(cli *c, char **inputs, int ninputs)
{
    treg_error err = {0, ""};
    int rc =
        treg_render_html_page(c->output, (const Treg__V1__Report *const *)c->pages, c->npages,
                              c->text.options.sources, (const char *const *)inputs, ninputs, &err);
    if (rc != 0) fprintf(stderr, "tregc: %s\n", err.msg);
    return rc;
}

/* The command line beyond the run's settings in cli. */
typedef struct invocation {
    tregc_settings flags; /* --server, --token, --ca */
    const char *format;
    long timeout;
    const char *fail_on, *baseline, *write_baseline;
    treg_gate gate;
    int seen; /* OPT_* bits: the command-specific options given */
    const char *cmd;
    char **args;
    int nargs;
} invocation;

/* Reads the options into c and inv: -1 to go on, else the exit status
 * (--help, --version: 0; a bad option: EXIT_USAGE with a line on stderr). */
static int parse_options(cli *c, invocation *inv, int argc, char **argv)
{
    static const struct option longopts[] = {{"server", required_argument, NULL, 's'},
                                             {"token", required_argument, NULL, 't'},
                                             {"ca", required_argument, NULL, 'c'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"no-rows", no_argument, NULL, 'R'},
                                             {"no-source", no_argument, NULL, 'S'},
                                             {"timeout", required_argument, NULL, 'T'},
                                             {"kernel", required_argument, NULL, 'k'},
                                             {"target", required_argument, NULL, 'g'},
                                             {"limit", required_argument, NULL, 'l'},
                                             {"offset", required_argument, NULL, 'F'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"reanalyze", no_argument, NULL, 'A'},
                                             {"what-if", no_argument, NULL, 'w'},
                                             {"samples", required_argument, NULL, 'P'},
                                             {"samples-code-object", required_argument, NULL, 'C'},
                                             {"fail-on", required_argument, NULL, 'X'},
                                             {"baseline", required_argument, NULL, 'B'},
                                             {"write-baseline", required_argument, NULL, 'W'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             TREG_TEXT_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            inv->flags.server = optarg;
            break;
        case 't':
            inv->flags.token = optarg;
            break;
        case 'c':
            inv->flags.ca = optarg;
            break;
        case 'f':
            inv->format = optarg;
            break;
        case 'R':
            c->rows = 0;
            inv->seen |= OPT_REPORTS;
            break;
        case 'S':
            c->no_source = 1;
            break;
        case 'T':
            if (parse_count("--timeout", optarg, 1, 86400, &inv->timeout)) return EXIT_USAGE;
            break;
        case 'k':
            c->kernel = optarg;
            inv->seen |= OPT_LIST;
            break;
        case 'g':
            c->target = optarg;
            inv->seen |= OPT_TARGET;
            break;
        case 'l':
            if (parse_count("--limit", optarg, 0, INT_MAX, &c->limit)) return EXIT_USAGE;
            inv->seen |= OPT_LIST;
            break;
        case 'o':
            c->output = optarg;
            inv->seen |= OPT_REPORTS;
            break;
        case 'F':
            if (parse_count("--offset", optarg, 0, INT_MAX, &c->offset)) return EXIT_USAGE;
            inv->seen |= OPT_LIST;
            break;
        case 'A':
            c->reanalyze = 1;
            inv->seen |= OPT_UPLOAD;
            break;
        case 'w':
            c->what_if = 1;
            inv->seen |= OPT_UPLOAD;
            break;
        case 'P':
            c->samples_path = optarg;
            inv->seen |= OPT_UPLOAD;
            break;
        case 'C': {
            long v;
            if (parse_count("--samples-code-object", optarg, 1, LONG_MAX, &v)) return EXIT_USAGE;
            c->samples_co = (uint64_t)v;
            inv->seen |= OPT_UPLOAD;
            break;
        }
        case 'X':
            inv->fail_on = optarg;
            inv->seen |= OPT_DIFF;
            break;
        case 'B':
            inv->baseline = optarg;
            inv->seen |= OPT_DIFF;
            break;
        case 'W':
            inv->write_baseline = optarg;
            inv->seen |= OPT_WBASE;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            print_version();
            return 0;
        default:
            if (opt >= TREG_TEXT_OPT_FIRST && opt <= TREG_TEXT_OPT_LAST) {
                treg_error why = {0, ""};
                if (treg_text_option(&c->text, opt, optarg, &why) != 0) {
                    fprintf(stderr, "tregc: %s\n", why.msg);
                    return EXIT_USAGE;
                }
                if (opt != TREG_TEXT_OPT_COLOR) inv->seen |= OPT_REPORTS;
                break;
            }
            if (optopt)
                fprintf(stderr, "tregc: -%c: unknown option or missing value (see --help)\n",
                        optopt);
            else
                fprintf(stderr, "tregc: %s: unknown option or missing value (see --help)\n",
                        argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (strcmp(inv->format, "json") == 0) {
        c->json = 1;
    } else if (strcmp(inv->format, "html") == 0) {
        c->html = 1;
    } else if (strcmp(inv->format, "text") != 0) {
        fprintf(stderr, "tregc: --format must be text, json or html, not '%s'\n", inv->format);
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    inv->cmd = argv[optind];
    inv->nargs = argc - optind - 1;
    inv->args = argv + optind + 1;
    return -1;
}

/* The command's arguments, and the options it takes (OPT_* bits): 0, or
 * EXIT_USAGE with a line on stderr. */
static int check_command(const cli *c, invocation *inv, int *allowed)
{
    const char *cmd = inv->cmd;
    int nargs = inv->nargs;
    char **args = inv->args;
    if (strcmp(cmd, "watch") == 0) {
        *allowed = OPT_UPLOAD;
        if (nargs > 1) {
            fprintf(stderr, "tregc: watch: give at most one folder (default $TRITON_CACHE_DIR, "
                            "else ~/.triton/cache)\n");
            return EXIT_USAGE;
        }
        if (c->json || c->html) {
            fprintf(stderr, "tregc: watch: prints one line per kernel: no --format\n");
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "diff") == 0) {
        *allowed = OPT_DIFF | OPT_WBASE | OPT_UPLOAD | OPT_TARGET;
        if (nargs != (inv->baseline ? 1 : 2)) {
            fprintf(stderr, "tregc: diff: %s\n",
                    inv->baseline
                        ? "with --baseline FILE, give one more: NEW"
                        : "give two: OLD NEW (files, folders or hashes), or --baseline FILE NEW");
            return EXIT_USAGE;
        }
        treg_error why = {0, ""};
        if (inv->fail_on && treg_gate_parse(inv->fail_on, &inv->gate, &why) != 0) {
            fprintf(stderr, "tregc: diff: %s\n", why.msg);
            return EXIT_USAGE;
        }
        if (c->html) {
            fprintf(stderr, "tregc: diff: --format text or json, not html\n");
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "upload") == 0) {
        *allowed = OPT_UPLOAD | OPT_REPORTS | OPT_TARGET | OPT_WBASE;
        if (nargs < 1) {
            fprintf(stderr, "tregc: upload: give at least one FILE or DIR\n");
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "fetch") == 0) {
        *allowed = OPT_REPORTS | OPT_WBASE;
        if (nargs != 1) {
            fprintf(stderr, "tregc: fetch: give exactly one HASH\n");
            return EXIT_USAGE;
        }
        if (!is_hash_or_prefix(args[0])) {
            fprintf(stderr,
                    "tregc: fetch: '%.80s' is not a SHA-256 (64 hex digits) or a prefix of 8 or "
                    "more\n",
                    args[0]);
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "list") == 0 || strcmp(cmd, "health") == 0) {
        *allowed = cmd[0] == 'l' ? OPT_LIST | OPT_TARGET : 0;
        if (nargs != 0) {
            fprintf(stderr, "tregc: %s: takes no arguments, got '%.80s'\n", cmd, args[0]);
            return EXIT_USAGE;
        }
    } else {
        fprintf(stderr,
                "tregc: unknown command '%.80s' (upload, fetch, diff, watch, list or health)\n",
                cmd);
        return EXIT_USAGE;
    }
    return 0;
}

/* Options the command does not take, or that do not go together: the
 * one-line message, or NULL. */
static const char *conflicting(const cli *c, const invocation *inv, int allowed)
{
    int extra = inv->seen & ~allowed;
    if (extra)
        return extra & OPT_DIFF     ? "--fail-on and --baseline are for diff"
               : extra & OPT_WBASE  ? "--write-baseline is for upload, fetch and diff"
               : extra & OPT_TARGET ? "--target is for list, upload and diff"
               : extra & OPT_LIST   ? "--kernel, --limit and --offset are for list"
               : extra & OPT_UPLOAD ? "--reanalyze, --what-if and --samples are for upload"
                                    : "--no-rows and the text views (--lines, --peak, --asm, ...) "
                                      "are for upload and fetch";
    const char *cmd = inv->cmd;
    /* upload: --source-dir and --source-map also say where the files to send are */
    if (c->json &&
        (c->text.explicit_views ||
         (c->text.sources_given && strcmp(cmd, "upload") != 0 && strcmp(cmd, "watch") != 0)))
        return "--lines, --peak, --why, --asm, --summary, --regs, --source-dir and --source-map "
               "are for text output, not --format json (upload: --source-dir, --source-map say "
               "which files to send)";
    if (c->html && c->text.explicit_views)
        return "--lines, --peak, --why, --asm, --summary and --regs are text views: the HTML "
               "page has them all";
    if (c->html && !c->rows) return "--format html draws every instruction: not with --no-rows";
    if (c->samples_co && !c->samples_path) return "--samples-code-object needs --samples FILE";
    if (c->samples_path && strcmp(cmd, "upload") != 0) return "--samples is for upload";
    if ((c->text.options.views & TREG_VIEW_HOT) && !c->samples_path)
        return "--hot shows where runtime PC samples fall: give them with upload --samples FILE";
    if (c->output && !c->html) return "-o/--output is for --format html";
    if (!c->rows && (c->text.options.views & TREG_VIEW_ASM))
        return "--asm lists the per-instruction rows: not with --no-rows";
    return NULL;
}

/* The server's settings, the connection and the run's outputs: 0, or the
 * exit status with a line on stderr. */
static int connect_server(cli *c, const invocation *inv)
{
    treg_error err = {0, ""};
    if (tregc_config_resolve(&c->cfg, &inv->flags, &err) != 0) {
        fprintf(stderr, "tregc: %s\n", err.msg);
        return EXIT_USAGE;
    }
    if (!c->cfg.server) {
        fprintf(stderr,
                "tregc: no server: give --server https://HOST:PORT, set TREG_SERVER or server in "
                "client.conf\n");
        return EXIT_USAGE;
    }
    int rc = tregc_https_open(&c->https, c->cfg.server, c->cfg.ca, c->cfg.token, (int)inv->timeout,
                              &err);
    if (rc != TREGC_NET_OK) {
        fprintf(stderr, "tregc: %s\n", err.msg);
        return rc == TREGC_NET_USAGE ? EXIT_USAGE : 1;
    }
    if (gethostname(c->host_name, sizeof c->host_name - 1) != 0) c->host_name[0] = 0;
    const char cmd = inv->cmd[0];
    if (c->json) {
        c->errors = json_object_new_array();
        c->containers = json_object_new_array();
        if (cmd == 'u' || cmd == 'f') treg_json_doc_begin(&c->doc, stdout);
    }
    if (!(c->cross = treg_cross_new()) ||
        ((cmd == 'd' || inv->write_baseline) && !(c->diff = treg_diff_new()))) {
        fprintf(stderr, "tregc: out of memory\n");
        return 1;
    }
    c->side = TREG_DIFF_NEW;
    return 0;
}

/* --write-baseline: the new side's figures; status, or 1 when it was 0 and
 * the file could not be written. */
static int write_baseline(cli *c, const invocation *inv, int status)
{
    treg_error why = {0, ""};
    if (inv->write_baseline &&
        treg_diff_write_baseline(c->diff, TREG_DIFF_NEW, inv->write_baseline, &why)) {
        fprintf(stderr, "tregc: --write-baseline %s\n", why.msg);
        return status ? status : 1;
    }
    return status;
}

/* upload and fetch: the reports, then the site's index or the HTML page and
 * the baseline. */
static int run_reports(cli *c, const invocation *inv)
{
    treg_error why = {0, ""};
    if (c->html && treg_is_site_path(c->output) &&
        !(c->site = treg_site_open(c->output, c->text.options.sources, &why))) {
        fprintf(stderr, "tregc: -o %s\n", why.msg);
        return 1;
    }
    int status =
        inv->cmd[0] == 'u' ? cmd_upload(c, inv->nargs, inv->args) : cmd_fetch(c, inv->args[0]);
    if (c->site) {
        char title[300];
        if (inv->nargs == 1)
            snprintf(title, sizeof title, "%s", inv->args[0]);
        else
            snprintf(title, sizeof title, "%d inputs", inv->nargs);
        if (treg_site_close(c->site, title, &why) != 0) {
            fprintf(stderr, "tregc: %s\n", why.msg);
            status = status ? status : 1;
        }
    } else if (c->html && c->npages > 0 && write_page(c, inv->args, inv->nargs) != 0) {
        status = status ? status : 1;
    }
    return write_baseline(c, inv, status);
}

static int run(cli *c, int argc, char **argv)
{
    invocation inv = {.format = "text", .timeout = DEFAULT_TIMEOUT_S};
    int allowed = 0, status = parse_options(c, &inv, argc, argv);
    if (status >= 0) return status;
    if (check_command(c, &inv, &allowed) != 0) return EXIT_USAGE;
    const char *conflict = conflicting(c, &inv, allowed);
    if (conflict) {
        fprintf(stderr, "tregc: %s: %s\n", inv.cmd, conflict);
        return EXIT_USAGE;
    }
    treg_text_finish(&c->text);
    if (c->samples_path) { /* read whole before anything is sent */
        treg_error why = {0, ""};
        treg_arena_init(&c->samples_arena);
        if (treg_pcs_read_file(&c->samples_arena, c->samples_path, &c->samples, &why) != TREG_OK) {
            fprintf(stderr, "tregc: --samples %s: %s\n", c->samples_path, why.msg);
            return EXIT_USAGE;
        }
    }
    if ((status = connect_server(c, &inv)) != 0) return status;
    switch (inv.cmd[0]) {
    case 'w':
        c->rows = 0;
        return cmd_watch(c, inv.nargs ? inv.args[0] : NULL);
    case 'd':
        c->diffing = 1;
        c->rows = 0; /* the figures and the source lines are enough */
        status = cmd_diff(c, inv.nargs, inv.args, inv.baseline, inv.fail_on ? &inv.gate : NULL);
        return status == EXIT_USAGE ? status : write_baseline(c, &inv, status);
    case 'u':
    case 'f':
        return run_reports(c, &inv);
    case 'l':
        return cmd_list(c);
    default:
        return cmd_health(c);
    }
}

int main(int argc, char **argv)
{
    /* A server that closes early must be an error message, not a SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    cli c = {0};
    c.rows = 1;
    c.limit = c.offset = -1;
    int rc = run(&c, argc, argv);
    for (size_t i = 0; i < c.npages; i++) treg__v1__report__free_unpacked(c.pages[i], NULL);
    free(c.pages);
    json_object_put(c.errors);
    json_object_put(c.containers);
    treg_cross_free(c.cross);
    treg_diff_free(c.diff);
    treg_site_free(c.site);
    free(c.analyzer_version);
    tregc_https_close(&c.https);
    tregc_config_free(&c.cfg);
    treg_text_free(&c.text);
    if (c.samples_path) treg_arena_free(&c.samples_arena);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        /* A reader that stopped early (| head) needs no message. */
        if (errno != EPIPE) fprintf(stderr, "tregc: stdout: %s\n", strerror(errno));
        return 1;
    }
    return rc;
}
