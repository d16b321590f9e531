/* What one perflab.h span, counter and gauge cost: loops of N iterations
 * (default 10,000,000) with an empty body, with a span around the empty body,
 * with the two clock reads a span makes, with a PERFLAB_COUNT, with a
 * PERFLAB_GAUGE and with the one clock read a gauge makes (for the time of
 * its last value), in 9 repetitions taking turns; prints the median and range
 * of the nanoseconds per iteration, measured with CLOCK_MONOTONIC.
 *
 *   make bench     runs it recording (PERFLAB_PROFILE set) and not recording
 */
#define PERFLAB_IMPLEMENTATION
#include "perflab.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPETITIONS 9

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double empty_loop(long n) {
    double start = now_ns();
    for (long i = 0; i < n; i++) __asm__ __volatile__("" ::: "memory");
    return (now_ns() - start) / (double)n;
}

static double span_loop(long n) {
    double start = now_ns();
    for (long i = 0; i < n; i++) {
        PERFLAB_SCOPE("probe");
        __asm__ __volatile__("" ::: "memory");
    }
    return (now_ns() - start) / (double)n;
}

static double clock_reads_loop(long n) {
    double start = now_ns();
    for (long i = 0; i < n; i++) {
        uint64_t a = perflab__ticks(), b = perflab__ticks(); /* the clock the spans use */
        __asm__ __volatile__("" : : "r"(a), "r"(b) : "memory");
    }
    return (now_ns() - start) / (double)n;
}

static double count_loop(long n) {
    double start = now_ns();
    for (long i = 0; i < n; i++) {
        PERFLAB_COUNT("events", 1);
        __asm__ __volatile__("" ::: "memory");
    }
    return (now_ns() - start) / (double)n;
}

static double gauge_loop(long n) {
    double start = now_ns();
    for (long i = 0; i < n; i++) {
        PERFLAB_GAUGE("level", i & 1023); /* a level that moves, as a queue depth does */
        __asm__ __volatile__("" ::: "memory");
    }
    return (now_ns() - start) / (double)n;
}

static double clock_read_loop(long n) {
    double start = now_ns();
    for (long i = 0; i < n; i++) {
        uint64_t a = perflab__ticks();
        __asm__ __volatile__("" : : "r"(a) : "memory");
    }
    return (now_ns() - start) / (double)n;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    enum { CASES = 6 };
    double (*cases[CASES])(long) = {empty_loop, span_loop, clock_reads_loop, count_loop, gauge_loop, clock_read_loop};
    const char *names[CASES] = {"empty loop", "PERFLAB_SCOPE around the body",
                                perflab__timer_tsc ? "two clock reads (tsc)" : "two clock reads (clock_monotonic)",
                                "PERFLAB_COUNT in the body", "PERFLAB_GAUGE in the body",
                                perflab__timer_tsc ? "one clock read (tsc)" : "one clock read (clock_monotonic)"};
    double results[CASES][REPETITIONS];
    for (int r = 0; r < REPETITIONS; r++)
        for (int c = 0; c < CASES; c++) results[c][r] = cases[c](n);
    printf("%ld iterations x %d repetitions; recording: %s; ns per iteration, median [min, max]\n", n, REPETITIONS,
           getenv("PERFLAB_PROFILE") ? "yes" : "no (PERFLAB_PROFILE unset)");
    for (int c = 0; c < CASES; c++) {
        qsort(results[c], REPETITIONS, sizeof(double), ascending);
        /* Four decimals: perflab compare reads these figures, and at two a
         * steady loop printed one figure in every run, which it refuses as a
         * constant sample; at four, equal figures would need loop times equal
         * to within 1e-4 ns per iteration (20 ns over 200,000 iterations). */
        printf("  %-34s %8.4f  [%.4f, %.4f]\n", names[c], results[c][REPETITIONS / 2], results[c][0],
               results[c][REPETITIONS - 1]);
    }
    return 0;
}
