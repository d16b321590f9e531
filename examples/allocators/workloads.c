/* The workloads: each stresses the allocator in one way engineers meet in
 * real programs, and does nothing else worth timing (it writes and reads a
 * few bytes per object, and touches each page of a large one so that peak
 * memory is memory really used). */
#define _GNU_SOURCE
#include "workloads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const workload_names[WORKLOADS] = {"small", "mixed", "prodcons", "realloc"};
/* small: 128Ki objects of 16..128 B (about 9 MiB requested); mixed: 32Ki
 * objects of 16 B..64 KiB (about 75 MiB); prodcons: up to 64Ki messages of
 * 16..512 B in flight (about 17 MiB); realloc: 1024 buffers growing to
 * 1..64 KiB (about 20 MiB). */
const uint64_t default_live[WORKLOADS] = {131072, 32768, 65536, 1024};

static void *out_of_memory(size_t size) {
    fprintf(stderr, "allocbench: out of memory allocating %zu bytes\n", size);
    exit(1);
}

static void *new_object(size_t size, uint64_t tag, struct counts *c) {
    unsigned char *p = malloc(size);
    if (!p) return out_of_memory(size);
    uint32_t size32 = (uint32_t)size;
    memcpy(p, &tag, 8);
    memcpy(p + 8, &size32, 4); /* bytes 12..15 stay free for the last byte */
    for (size_t page = 4096; page < size; page += 4096) p[page] = (unsigned char)page;
    p[size - 1] = (unsigned char)tag;
    c->mallocs++;
    c->bytes += size;
    return p;
}

static uint64_t free_object(void *object, struct counts *c) {
    unsigned char *p = object;
    uint64_t tag;
    uint32_t size;
    memcpy(&tag, p, 8);
    memcpy(&size, p + 8, 4);
    uint64_t value = object_value(tag, size, p[size - 1]);
    free(p);
    c->frees++;
    return value;
}

static void *new_array(uint64_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) out_of_memory(n * size);
    return p;
}

/* Many small objects: each lives while the next live - 1 are made. */
static struct outcome small_objects(uint64_t ops, uint64_t live) {
    struct outcome o = {0};
    uint64_t rng = SEED;
    void **slots = new_array(live, sizeof *slots);
    for (uint64_t i = 0; i < ops; i++) {
        void **slot = &slots[i % live];
        if (*slot) o.checksum += free_object(*slot, &o.counts);
        size_t size = small_size(&rng);
        *slot = new_object(size, next_random(&rng), &o.counts);
    }
    for (uint64_t s = 0; s < live; s++)
        if (slots[s]) o.checksum += free_object(slots[s], &o.counts);
    free(slots);
    return o;
}

/* Mixed sizes replacing objects at random in a long-lived working set, the
 * pattern that fragments a heap. */
static struct outcome mixed_sizes(uint64_t ops, uint64_t live) {
    struct outcome o = {0};
    uint64_t rng = SEED;
    void **slots = new_array(live, sizeof *slots);
    for (uint64_t s = 0; s < live; s++) {
        size_t size = mixed_size(&rng);
        slots[s] = new_object(size, next_random(&rng), &o.counts);
    }
    for (uint64_t i = 0; i < ops; i++) {
        uint64_t s = next_random(&rng) % live;
        o.checksum += free_object(slots[s], &o.counts);
        size_t size = mixed_size(&rng);
        slots[s] = new_object(size, next_random(&rng), &o.counts);
    }
    for (uint64_t s = 0; s < live; s++) o.checksum += free_object(slots[s], &o.counts);
    free(slots);
    return o;
}

/* A producer thread allocates messages and hands them over in batches; a
 * consumer thread frees them, so every free is of another thread's memory.
 * The threads block on a condition variable rather than spin: the machine
 * may have fewer free cores than busy threads, and a spinning wait would time
 * the scheduler instead of the allocator. */
struct queue {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    void *(*batches)[BATCH_MESSAGES]; /* `capacity` batches */
    uint64_t *sizes;                  /* messages in each batch */
    uint64_t capacity;                /* batches in flight at most */
    uint64_t head, tail;              /* batches taken, batches put */
    uint64_t ops;
    struct outcome consumed;
};

static void *consume(void *arg) {
    struct queue *q = arg;
    uint64_t done = 0;
    while (done < q->ops) {
        pthread_mutex_lock(&q->lock);
        while (q->head == q->tail) pthread_cond_wait(&q->changed, &q->lock);
        uint64_t slot = q->head % q->capacity, n = q->sizes[slot];
        pthread_mutex_unlock(&q->lock);
        for (uint64_t k = 0; k < n; k++)
            q->consumed.checksum += free_object(q->batches[slot][k], &q->consumed.counts);
        q->consumed.counts.cross_thread_frees += n;
        done += n;
        pthread_mutex_lock(&q->lock);
        q->head++;
        pthread_cond_signal(&q->changed);
        pthread_mutex_unlock(&q->lock);
    }
    return NULL;
}

static struct outcome producer_consumer(uint64_t ops, uint64_t live) {
    static struct queue q;
    memset(&q, 0, sizeof q);
    q.capacity = live / BATCH_MESSAGES > 0 ? live / BATCH_MESSAGES : 1;
    q.batches = new_array(q.capacity, sizeof *q.batches);
    q.sizes = new_array(q.capacity, sizeof *q.sizes);
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.changed, NULL);
    q.ops = ops;
    pthread_t consumer;
    if (pthread_create(&consumer, NULL, consume, &q) != 0) {
        fprintf(stderr, "allocbench: cannot start the consumer thread\n");
        exit(1);
    }
    struct outcome o = {0};
    uint64_t rng = SEED;
    for (uint64_t made = 0; made < ops;) {
        pthread_mutex_lock(&q.lock);
        while (q.tail - q.head == q.capacity) pthread_cond_wait(&q.changed, &q.lock);
        uint64_t slot = q.tail % q.capacity;
        pthread_mutex_unlock(&q.lock);
        /* The slot is the producer's until tail moves past it. */
        uint64_t n = ops - made < BATCH_MESSAGES ? ops - made : BATCH_MESSAGES;
        for (uint64_t k = 0; k < n; k++) {
            size_t size = message_size(&rng);
            q.batches[slot][k] = new_object(size, next_random(&rng), &o.counts);
        }
        made += n;
        pthread_mutex_lock(&q.lock);
        q.sizes[slot] = n;
        q.tail++;
        pthread_cond_signal(&q.changed);
        pthread_mutex_unlock(&q.lock);
    }
    pthread_join(consumer, NULL);
    free(q.batches);
    free(q.sizes);
    o.checksum = q.consumed.checksum;
    o.counts.frees = q.consumed.counts.frees;
    o.counts.cross_thread_frees = q.consumed.counts.cross_thread_frees;
    return o;
}

/* Buffers grown a few bytes at a time by realloc to their exact new length,
 * the naive way, many side by side so that none can always grow in place. */
struct buffer {
    unsigned char *bytes;
    size_t length, target;
};

static uint64_t finish_buffer(struct buffer *b, struct counts *c) {
    uint64_t h = FNV_OFFSET;
    for (size_t k = 0; k < b->length; k++) h = fnv_byte(h, b->bytes[k]);
    free(b->bytes);
    c->frees++;
    return h;
}

static struct outcome growing_buffers(uint64_t ops, uint64_t live) {
    struct outcome o = {0};
    uint64_t rng = SEED;
    struct buffer *buffers = new_array(live, sizeof *buffers);
    for (uint64_t b = 0; b < live; b++)
        buffers[b] = (struct buffer){NULL, 0, buffer_target(&rng)};
    for (uint64_t i = 0; i < ops; i++) {
        struct buffer *b = &buffers[i % live];
        size_t chunk = chunk_size(&rng);
        uint64_t v = next_random(&rng);
        unsigned char *grown = realloc(b->bytes, b->length + chunk);
        if (!grown) out_of_memory(b->length + chunk);
        if (!b->bytes) o.counts.mallocs++; else o.counts.reallocs++;
        o.counts.bytes += chunk;
        for (size_t k = 0; k < chunk; k++) grown[b->length + k] = chunk_byte(v, k);
        b->bytes = grown;
        b->length += chunk;
        if (b->length >= b->target) {
            o.checksum += finish_buffer(b, &o.counts);
            *b = (struct buffer){NULL, 0, buffer_target(&rng)};
        }
    }
    for (uint64_t b = 0; b < live; b++)
        if (buffers[b].bytes) o.checksum += finish_buffer(&buffers[b], &o.counts);
    free(buffers);
    return o;
}

struct outcome run_workload(enum workload w, uint64_t ops, uint64_t live) {
    if (live == 0) live = default_live[w];
    switch (w) {
    case SMALL: return small_objects(ops, live);
    case MIXED: return mixed_sizes(ops, live);
    case PRODCONS: return producer_consumer(ops, live);
    case REALLOC: return growing_buffers(ops, live);
    default: abort();
    }
}
