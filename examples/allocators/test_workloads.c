/* Tests of the workloads: each one's checksum equals the reference's (every
 * object came back intact), at sizes around the workloads' own boundaries,
 * and its counts say the intended operations happened. `make test` runs this
 * under glibc and again under each allocator installed (LD_PRELOAD). */
#include "workloads.h"

#include <inttypes.h>
#include <stdio.h>

static int failures;

static void expect_equal(const char *what, enum workload w, uint64_t ops, uint64_t live,
                         uint64_t got, uint64_t want) {
    if (got == want) return;
    fprintf(stderr,
            "FAIL %s ops=%" PRIu64 " live=%" PRIu64 ": %s is %" PRIu64 ", expected %" PRIu64 "\n",
            workload_names[w], ops, live, what, got, want);
    failures++;
}

static void a_workload_matches_its_reference_and_counts(enum workload w, uint64_t ops,
                                                        uint64_t live) {
    struct outcome o = run_workload(w, ops, live);
    uint64_t n = live ? live : default_live[w];
    expect_equal("checksum", w, ops, n, o.checksum, reference_checksum(w, ops, live));
    struct counts c = o.counts;
    expect_equal("frees (every allocation freed)", w, ops, n, c.frees, c.mallocs);
    switch (w) {
    case SMALL:
        expect_equal("mallocs", w, ops, n, c.mallocs, ops);
        break;
    case MIXED:
        expect_equal("mallocs", w, ops, n, c.mallocs, ops + n);
        break;
    case PRODCONS:
        expect_equal("mallocs", w, ops, n, c.mallocs, ops);
        expect_equal("cross-thread frees", w, ops, n, c.cross_thread_frees, ops);
        break;
    case REALLOC:
        expect_equal("mallocs + reallocs", w, ops, n, c.mallocs + c.reallocs, ops);
        if (ops > 2 * n && c.reallocs < ops / 2) {
            fprintf(stderr, "FAIL realloc ops=%" PRIu64 ": only %" PRIu64 " reallocs\n", ops,
                    c.reallocs);
            failures++;
        }
        break;
    default:
        break;
    }
}

/* The checksum must see a lost or corrupted object: one object's worth less
 * is another number. */
static void the_reference_tells_sizes_apart(void) {
    for (int w = 0; w < WORKLOADS; w++) {
        uint64_t a = reference_checksum((enum workload)w, 5000, 32);
        uint64_t b = reference_checksum((enum workload)w, 5001, 32);
        if (a == b) {
            fprintf(stderr, "FAIL %s: the checksum of 5000 and 5001 ops is the same\n",
                    workload_names[w]);
            failures++;
        }
    }
}

int main(void) {
    /* Around the boundaries of a small live count (32 objects, 8 batches of
     * messages), then at the workloads' default live counts. */
    static const uint64_t sizes[] = {0, 1, 31, 33, BATCH_MESSAGES * 8 + 1, 5000, 200000};
    for (int w = 0; w < WORKLOADS; w++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            uint64_t small_live = w == PRODCONS ? BATCH_MESSAGES * 8 : 32;
            a_workload_matches_its_reference_and_counts((enum workload)w, sizes[i], small_live);
            a_workload_matches_its_reference_and_counts((enum workload)w, sizes[i], 0);
        }
    the_reference_tells_sizes_apart();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("workloads: all checks passed\n");
    return 0;
}
