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

static uint64_t mixed_sizes(uint64_t ops, uint64_t live) {
    uint64_t rng = SEED, sum = 0;
    for (uint64_t s = 0; s < live; s++) sum += object(&rng, mixed_size(&rng));
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

/* The buffers' state lives on the stack (a variable-length array), so
 * `live` is bounded by the stack: the tests use at most a few thousand. */
static uint64_t growing_buffers(uint64_t ops, uint64_t live) {
    uint64_t rng = SEED, sum = 0;
    uint64_t hash[live];
    size_t length[live], target[live];
    for (uint64_t b = 0; b < live; b++) {
        hash[b] = FNV_OFFSET;
        length[b] = 0;
        target[b] = buffer_target(&rng);
    }
    for (uint64_t i = 0; i < ops; i++) {
        uint64_t b = i % live;
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
    for (uint64_t b = 0; b < live; b++)
        if (length[b] > 0) sum += hash[b];
    return sum;
}

/* The small and prodcons checksums do not depend on `live`: every object
 * is folded in once, whenever it is freed. */
uint64_t reference_checksum(enum workload w, uint64_t ops, uint64_t live) {
    if (live == 0) live = default_live[w];
    switch (w) {
    case SMALL: return small_objects(ops);
    case MIXED: return mixed_sizes(ops, live);
    case PRODCONS: return messages(ops);
    case REALLOC: return growing_buffers(ops, live);
    default: return 0;
    }
}
