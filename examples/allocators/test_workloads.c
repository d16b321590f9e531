/* Tests of the workloads: each one's checksum equals the reference's (every
 * object came back intact), at sizes around the workloads' own boundaries,
 * and its counts say the intended operations happened. `make test` runs this
 * under glibc and again under each allocator installed (LD_PRELOAD). */
#include "workloads.h"

#include <inttypes.h>
#include <stdio.h>

static int failures;

static void expect_equal(const char *what, enum workload w, uint64_t ops, uint64_t got,
                         uint64_t want) {
    if (got == want) return;
    fprintf(stderr, "FAIL %s ops=%" PRIu64 ": %s is %" PRIu64 ", expected %" PRIu64 "\n",
            workload_names[w], ops, what, got, want);
    failures++;
}

static void a_workload_matches_its_reference_and_counts(enum workload w, uint64_t ops) {
    struct outcome o = run_workload(w, ops);
    expect_equal("checksum", w, ops, o.checksum, reference_checksum(w, ops));
    struct counts c = o.counts;
    expect_equal("frees (every allocation freed)", w, ops, c.frees, c.mallocs);
    switch (w) {
    case SMALL:
        expect_equal("mallocs", w, ops, c.mallocs, ops);
        break;
    case MIXED:
        expect_equal("mallocs", w, ops, c.mallocs, ops + MIXED_SLOTS);
        break;
    case PRODCONS:
        expect_equal("mallocs", w, ops, c.mallocs, ops);
        expect_equal("cross-thread frees", w, ops, c.cross_thread_frees, ops);
        break;
    case REALLOC:
        expect_equal("mallocs + reallocs", w, ops, c.mallocs + c.reallocs, ops);
        if (ops > 2 * GROWING_BUFFERS && c.reallocs < ops / 2) {
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
        uint64_t a = reference_checksum((enum workload)w, 5000);
        uint64_t b = reference_checksum((enum workload)w, 5001);
        if (a == b) {
            fprintf(stderr, "FAIL %s: the checksum of 5000 and 5001 ops is the same\n",
                    workload_names[w]);
            failures++;
        }
    }
}

int main(void) {
    static const uint64_t sizes[] = {0, 1, SMALL_SLOTS - 1, SMALL_SLOTS + 1, BATCH_MESSAGES * QUEUE_BATCHES + 1,
                                     5000, 200000};
    for (int w = 0; w < WORKLOADS; w++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            a_workload_matches_its_reference_and_counts((enum workload)w, sizes[i]);
    the_reference_tells_sizes_apart();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("workloads: all checks passed\n");
    return 0;
}
