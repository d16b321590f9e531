/* allocbench WORKLOAD [OPS [LIVE]]: runs one allocator workload and prints its
 * checksum (the same under every allocator, so perflab's answer check
 * confirms the same work) and what it did as PERFLAB_COUNT lines.
 *
 * ALLOCBENCH_SCALE (a number, default 1) multiplies OPS, so a test can run
 * the suite's own commands small. ALLOCBENCH_MALLOC_FROM names a part of the
 * path of the library malloc must come from ("libjemalloc", "libc.so"): an
 * LD_PRELOAD that did not take (a wrong path only makes the loader print a
 * warning) then fails the run instead of measuring glibc under another name. */
#define _GNU_SOURCE
#include "workloads.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t default_ops[WORKLOADS] = {2000000, 500000, 1500000, 600000};

static int usage(const char *why) {
    fprintf(stderr,
            "allocbench: %s\n"
            "usage: allocbench small|mixed|prodcons|realloc [OPS [LIVE]]\n"
            "  LIVE: objects alive at once (default: the workload's, tens of MiB)\n"
            "  env ALLOCBENCH_SCALE=X multiplies OPS; ALLOCBENCH_MALLOC_FROM=NAME fails\n"
            "  the run unless malloc comes from a library whose path contains NAME\n",
            why);
    return 2;
}

static int check_malloc_origin(void) {
    const char *wanted = getenv("ALLOCBENCH_MALLOC_FROM");
    if (!wanted || !*wanted) return 0;
    Dl_info info;
    void *(*resolved)(size_t) = malloc;
    if (!dladdr((void *)resolved, &info) || !info.dli_fname) {
        fprintf(stderr, "allocbench: cannot tell which library malloc comes from\n");
        return 2;
    }
    if (!strstr(info.dli_fname, wanted)) {
        fprintf(stderr,
                "allocbench: malloc comes from %s, not from a library matching \"%s\";"
                " check LD_PRELOAD (LD_PRELOAD=%s)\n",
                info.dli_fname, wanted, getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) return usage("expected a workload and optionally OPS and LIVE");
    int w = 0;
    while (w < WORKLOADS && strcmp(argv[1], workload_names[w]) != 0) w++;
    if (w == WORKLOADS) return usage("unknown workload");
    uint64_t ops = default_ops[w];
    if (argc >= 3) {
        char *end;
        ops = strtoull(argv[2], &end, 10);
        if (*end || end == argv[2]) return usage("OPS must be a whole number");
    }
    uint64_t live = default_live[w];
    if (argc == 4) {
        char *end;
        live = strtoull(argv[3], &end, 10);
        if (*end || end == argv[3] || live == 0) return usage("LIVE must be a positive whole number");
    }
    const char *scale = getenv("ALLOCBENCH_SCALE");
    if (scale && *scale) {
        char *end;
        double x = strtod(scale, &end);
        if (*end || x <= 0) return usage("ALLOCBENCH_SCALE must be a positive number");
        ops = (uint64_t)((double)ops * x);
    }
    int refused = check_malloc_origin();
    if (refused) return refused;

    struct outcome o = run_workload((enum workload)w, ops, live);
    printf("%s ops=%" PRIu64 " live=%" PRIu64 " checksum=%016" PRIx64 "\n", argv[1], ops, live,
           o.checksum);
    printf("PERFLAB_COUNT mallocs %" PRIu64 "\n", o.counts.mallocs);
    printf("PERFLAB_COUNT reallocs %" PRIu64 "\n", o.counts.reallocs);
    printf("PERFLAB_COUNT frees %" PRIu64 "\n", o.counts.frees);
    printf("PERFLAB_COUNT cross_thread_frees %" PRIu64 "\n", o.counts.cross_thread_frees);
    printf("PERFLAB_COUNT bytes_requested %" PRIu64 "\n", o.counts.bytes);
    return 0;
}
