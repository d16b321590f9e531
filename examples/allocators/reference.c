/* The checksums the workloads must produce, computed without the heap: the
 * same random draws in the same order, folded the same way. Written apart
 * from workloads.c so that a test compares two independent computations. */
#include "workloads.h"

static uint64_t object(uint64_t *rng, size_t size) {
    uint64_t tag = next_random(rng);
    return object_value(tag, size, (uint8_t)tag);
}

static uint64_t small_objects(uint64_t ops) {
    uint64_t rng = SEED, sum = 0;
    for (uint64_t i = 0; i < ops; i++) sum += object(&rng, small_size(&rng));
    return sum;
}

static uint64_t mixed_sizes(uint64_t ops) {
    uint64_t rng = SEED, sum = 0;
    for (int s = 0; s < MIXED_SLOTS; s++) sum += object(&rng, mixed_size(&rng));
    for (uint64_t i = 0; i < ops; i++) {
        (void)next_random(&rng); /* the slot replaced: any slot's object counts once */
        sum += object(&rng, mixed_size(&rng));
    }
    return sum;
}

static uint64_t messages(uint64_t ops) {
    uint64_t rng = SEED, sum = 0;
    for (uint64_t i = 0; i < ops; i++) sum += object(&rng, message_size(&rng));
    return sum;
}

static uint64_t growing_buffers(uint64_t ops) {
    uint64_t rng = SEED, sum = 0;
    uint64_t hash[GROWING_BUFFERS];
    size_t length[GROWING_BUFFERS], target[GROWING_BUFFERS];
    for (int b = 0; b < GROWING_BUFFERS; b++) {
        hash[b] = FNV_OFFSET;
        length[b] = 0;
        target[b] = buffer_target(&rng);
    }
    for (uint64_t i = 0; i < ops; i++) {
        int b = (int)(i % GROWING_BUFFERS);
        size_t chunk = chunk_size(&rng);
        uint64_t v = next_random(&rng);
        for (size_t k = 0; k < chunk; k++) hash[b] = fnv_byte(hash[b], chunk_byte(v, k));
        length[b] += chunk;
        if (length[b] >= target[b]) {
            sum += hash[b];
            hash[b] = FNV_OFFSET;
            length[b] = 0;
            target[b] = buffer_target(&rng);
        }
    }
    for (int b = 0; b < GROWING_BUFFERS; b++)
        if (length[b] > 0) sum += hash[b];
    return sum;
}

uint64_t reference_checksum(enum workload w, uint64_t ops) {
    switch (w) {
    case SMALL: return small_objects(ops);
    case MIXED: return mixed_sizes(ops);
    case PRODCONS: return messages(ops);
    case REALLOC: return growing_buffers(ops);
    default: return 0;
    }
}
