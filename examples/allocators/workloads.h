/* The four allocator workloads of allocbench, and the reference that computes
 * each one's checksum without touching the heap.
 *
 * Every object a workload allocates carries a tag and its size in its first
 * 12 bytes (objects are at least 16) and the tag's low byte in its last byte;
 * when the object is freed those are read back and folded into the checksum.
 * The reference draws the same random numbers and folds the same values, so a
 * workload's checksum equals the reference's only if every object came back
 * intact: an allocator that handed out overlapping memory, or a workload that
 * skipped work, would not match. */
#ifndef ALLOCBENCH_WORKLOADS_H
#define ALLOCBENCH_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

/* What a workload did, printed as PERFLAB_COUNT lines so that the suite's
 * `expect` can check that the intended operation mix happened. */
struct counts {
    uint64_t mallocs;
    uint64_t reallocs;
    uint64_t frees;
    uint64_t cross_thread_frees; /* freed by another thread than allocated */
    uint64_t bytes;              /* bytes requested, reallocs' growth included */
};

struct outcome {
    uint64_t checksum;
    struct counts counts;
};

enum workload { SMALL, MIXED, PRODCONS, REALLOC, WORKLOADS };

/* Names as given on the command line, indexed by enum workload. */
extern const char *const workload_names[WORKLOADS];

/* Runs the workload for `ops` operations through malloc/realloc/free, with
 * `live` objects alive at once (small: objects, each freed after the next
 * live - 1 are made; mixed: the working set; prodcons: messages in flight
 * at most, in batches of BATCH_MESSAGES; realloc: buffers grown side by
 * side). `live` of 0 takes the workload's default_live. */
struct outcome run_workload(enum workload w, uint64_t ops, uint64_t live);

/* The checksum run_workload must produce, computed without allocating. */
uint64_t reference_checksum(enum workload w, uint64_t ops, uint64_t live);

/* The live objects of each workload when none are given: enough that the
 * heap holds tens of MiB under every allocator, so that a comparison of
 * peak memory is about how each allocator keeps a loaded heap, not about
 * the few MiB each one maps at start-up. Indexed by enum workload. */
extern const uint64_t default_live[WORKLOADS];

/* Fixed parameters, shared by the workloads and the reference. */
#define BATCH_MESSAGES 256    /* messages handed from producer to consumer at once */
#define SEED 0x9e3779b97f4a7c15ULL

/* splitmix64 (Steele, Lea, Flood 2014): a tiny, well-mixed generator, so that
 * the workloads and the reference draw identical streams. */
static inline uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* What one freed object adds to the checksum. */
static inline uint64_t object_value(uint64_t tag, uint64_t size, uint8_t last) {
    return (tag ^ (size * 0x100000001b3ULL)) + last;
}

/* Sizes of the small workload: 16..128 bytes. */
static inline size_t small_size(uint64_t *rng) { return 16 + next_random(rng) % 113; }

/* Sizes of the mixed workload: 70% 16..256 B, 25% 257 B..4 KiB, 5% 4..64 KiB. */
static inline size_t mixed_size(uint64_t *rng) {
    uint64_t r = next_random(rng) % 100;
    if (r < 70) return 16 + next_random(rng) % 241;
    if (r < 95) return 257 + next_random(rng) % 3840;
    return 4097 + next_random(rng) % 61440;
}

/* Sizes of the producer/consumer messages: 16..512 bytes. */
static inline size_t message_size(uint64_t *rng) { return 16 + next_random(rng) % 497; }

/* Final length of a growing buffer: 1..64 KiB; chunks appended: 1..64 bytes. */
static inline size_t buffer_target(uint64_t *rng) { return 1024 + next_random(rng) % 64513; }
static inline size_t chunk_size(uint64_t *rng) { return 1 + next_random(rng) % 64; }

/* Byte k of a chunk drawn as the 64-bit value v. */
static inline uint8_t chunk_byte(uint64_t v, size_t k) {
    return (uint8_t)((v >> (8 * (k % 8))) ^ k);
}

/* FNV-1a, folded byte by byte: the checksum of a grown buffer's contents. */
#define FNV_OFFSET 0xcbf29ce484222325ULL
static inline uint64_t fnv_byte(uint64_t h, uint8_t b) { return (h ^ b) * 0x100000001b3ULL; }

#endif
