/*
 * cachewalk: the cost of one dependent memory access as the working set
 * grows past each cache level.
 *
 * Usage: cachewalk KIB [STEPS]
 *
 * Builds a random cycle through KIB kibibytes of 64-byte slots (Sattolo's
 * algorithm, fixed seed, so every run walks the same cycle) and follows it
 * for STEPS loads (default 5 million). Each load depends on the one before,
 * so the time per step is the latency of wherever the slot lives: L1, L2,
 * L3 or memory. Setting up the cycle is not timed; the walk is, and its
 * cost per step is printed as a metric line for `perflab sweep`:
 *
 *   PERFLAB_METRIC ns_per_access 4.21 ns
 *
 * The last line prints where the walk ended, so that the compiler cannot
 * drop the walk and runs can be checked to do the same work.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* One slot per cache line, so that each step touches a new line. */
typedef struct slot {
    struct slot *next;
    char pad[64 - sizeof(struct slot *)];
} slot;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void) {
    /* splitmix64: small, fast, and the same sequence everywhere. */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2 || atol(argv[1]) <= 0) {
        fprintf(stderr, "usage: cachewalk KIB [STEPS]  (KIB: working set in KiB, at least 1)\n");
        return 2;
    }
    size_t slots = (size_t)atol(argv[1]) * 1024 / sizeof(slot);
    long steps = argc > 2 ? atol(argv[2]) : 5000000L;
    if (slots < 2) slots = 2;
    slot *memory = aligned_alloc(64, slots * sizeof(slot));
    size_t *order = malloc(slots * sizeof *order);
    if (!memory || !order) {
        fprintf(stderr, "cachewalk: cannot allocate %zu slots\n", slots);
        return 1;
    }
    /* Sattolo's algorithm: a uniformly random permutation with one cycle,
     * so the walk visits every slot before it repeats. */
    for (size_t i = 0; i < slots; i++) order[i] = i;
    for (size_t i = slots - 1; i > 0; i--) {
        size_t j = (size_t)(next_random() % i);
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < slots; i++) memory[i].next = &memory[order[i]];
    free(order);

    slot *at = &memory[0];
    for (size_t i = 0; i < slots; i++) at = at->next; /* warm the caches */
    double start = seconds_now();
    for (long i = 0; i < steps; i++) at = at->next;
    double elapsed = seconds_now() - start;

    printf("PERFLAB_METRIC ns_per_access %.3f ns\n", elapsed * 1e9 / (double)steps);
    printf("walked %ld steps over %zu slots, ended at slot %zu\n", steps, slots,
           (size_t)(at - memory));
    free(memory);
    return 0;
}
