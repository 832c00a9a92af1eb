/* Seeds for fuzz_render: each code object given, analyzed and packed as the
 * server stores it (treg.v1.Report with rows and live ranges), written to
 * OUT_DIR/<n>.pb.  Files the analyzer refuses are skipped.
 *   report_seeds OUT_DIR FILE.hsaco... */
#include <stdio.h>
#include <stdlib.h>

#include "convert.h"
#include "treg/analyzer.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: report_seeds OUT_DIR FILE.hsaco...\n");
        return 2;
    }
    int written = 0;
    for (int i = 2; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) continue;
        static unsigned char buf[1 << 22];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        treg_options opt = {.keep_rows = 1};
        treg_report *rep = NULL;
        treg_error err = {0};
        if (treg_analyze(buf, n, &opt, &rep, &err) != TREG_OK) continue;
        uint8_t *packed = NULL;
        size_t len = 0;
        treg_pb_info info = {.hash = "0123", .file_name = argv[i], .client_host = "seed"};
        if (treg_pb_pack_report(rep, &info, &packed, &len) == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%d.pb", argv[1], i);
            FILE *o = fopen(path, "wb");
            if (o != NULL && fwrite(packed, 1, len, o) == len) written++;
            if (o != NULL) fclose(o);
        }
        free(packed);
        treg_report_free(rep);
    }
    fprintf(stderr, "report_seeds: %d reports in %s\n", written, argv[1]);
    return written > 0 ? 0 : 1;
}
