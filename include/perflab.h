/*
 * perflab.h: instrumentation for C and C++ programs, writing the same
 * `perflab-profile/1` JSON document as the Rust `perflab` crate, so that
 * `perflab run` and `perflab ab` show where a C program spends its time.
 *
 * USE
 *   In exactly one C or C++ file, before any other #include:
 *       #define PERFLAB_IMPLEMENTATION
 *       #include "perflab.h"
 *   Everywhere else just #include "perflab.h". Link with -pthread.
 *
 *   { PERFLAB_SCOPE("parse");  ... }        span until the end of the block
 *   void f(void) { PERFLAB_FUNCTION(); ... } span named after the function
 *   PERFLAB_SPAN("compute") { ... }         span around one block
 *   PERFLAB_COUNT("retries", 1);            counter: events and their total
 *   PERFLAB_GAUGE("queue_depth", n);        gauge: a level, converted to double
 *   PERFLAB_SITE(site, "io");                explicit pairs (any compiler mode):
 *   perflab_span_begin(&site); ... perflab_span_end(&site);
 *   PERFLAB_GAUGE_SITE(depth, "queue_depth"); perflab_gauge(&depth, n);
 *
 *   PERFLAB_SCOPE is RAII in C++ and __attribute__((cleanup)) in C, so return,
 *   break and goto end the span too. PERFLAB_SPAN is a one-pass `for` loop:
 *   `break` or `continue` inside its block leaves the block (the span ends),
 *   not a loop around it. Names must be string literals (or __func__).
 *   A gauge keeps, per thread and site, the number of values set, their sum,
 *   smallest and largest, and the last one with the time it was set; the
 *   profile gives samples, last (the latest over all threads), min, max and
 *   mean (per sample, not weighted by time), as `perflab::gauge!` does. NaN
 *   and infinite values are ignored: they would poison the mean. A gauge
 *   costs a counter's bookkeeping plus one clock read (for "latest").
 *
 * ENVIRONMENT
 *   PERFLAB_PROFILE=path  write the profile there when the program exits
 *                         (return from main or exit() from any thread; not
 *                         _exit, abort or a fatal signal). `perflab` sets it.
 *   PERFLAB_TABLE=1       also print a table on stderr. Nothing is printed
 *                         otherwise, except one line if the profile cannot be
 *                         written (the exit status is never changed).
 *   PERFLAB_TIMER=clock_monotonic  do not read the TSC.
 *   PERFLAB_TRACE=path    also record each thread's timeline (every span's
 *                         call, counter and gauge, with its time) and write
 *                         it there at exit as a perflab-trace/1 document (the
 *                         Chrome trace event format; ui.perfetto.dev opens
 *                         it). `perflab run --trace DIR` sets it per run.
 *   PERFLAB_TRACE_EVENTS=N  events each thread's timeline keeps (1000000);
 *                         later ones are counted, dropped and warned about.
 *   With none of PERFLAB_PROFILE, PERFLAB_TABLE=1 and PERFLAB_TRACE nothing is recorded and
 *   a probe costs a call that returns at once. -DPERFLAB_OFF removes every
 *   probe at compile time (amounts passed to PERFLAB_COUNT and values passed
 *   to PERFLAB_GAUGE are not evaluated).
 *
 * WHAT IS MEASURED (see crates/perflab/README.md; the figures mean the same)
 *   Clock: rdtsc where the CPU says its TSC is invariant (name "tsc"), else
 *   clock_gettime(CLOCK_MONOTONIC) ("clock_monotonic"). TSC ticks become
 *   nanoseconds by the ratio of both clocks over the whole session, read at
 *   start-up and at exit, so calibration costs nothing at start-up.
 *   Self time: each thread keeps a stack of open spans; a span's self time is
 *   its duration minus that of spans closed inside it on the same thread.
 *   Inclusive time counts only the outermost of recursive calls. Percentiles
 *   come from a log-linear histogram (32 buckets per power of two) and are
 *   within 1/64 of the exact nearest-rank value. Per thread: wall time from
 *   its first probe (the start-up thread: from start-up) to its end or exit,
 *   CPU time (CLOCK_THREAD_CPUTIME_ID), the part inside top-level spans and
 *   the rest (unattributed); its name is "main" for the main thread, else the
 *   name it was given (pthread_setname_np, prctl), if any. The cost of one span is measured at start-up
 *   (median of 11 batches of 2000 empty spans) and reported.
 *
 * HOT PATH: no lock, no allocation, no system call (except the clock_gettime
 *   vDSO call when the TSC is not used). One static site per call site gets a
 *   number on first use (compare-and-swap); each thread has its own table of
 *   slots indexed by that number, written only by that thread. A thread's
 *   first probe, and its first call of each site, take a cold path that
 *   allocates (51 KB per thread, 10.5 KB per span site it enters, 48 bytes
 *   per gauge site it sets; kept until exit so that threads that ended are
 *   still reported).
 *
 * LIMITS
 *   Linux with GCC or Clang (C11 or C++11). Sites never entered, counters
 *   never incremented and gauges never set are listed (with a never_entered,
 *   counter_never_incremented or gauge_never_set warning) through the ELF
 *   section `perflab_sites`; sites without an entry there are listed once
 *   they ran: with -DPERFLAB_NO_SECTIONS, in another shared object than the
 *   implementation, PERFLAB_SITE and PERFLAB_GAUGE_SITE in C++, and C++
 *   compiled with -fPIC. At most 1023 sites (spans, counters and gauges
 *   together) and 256 nested spans per thread: beyond, they are not recorded
 *   and a warning says so (`too_many_sites`, `too_deep`). An end that does not
 *   match the innermost open span is ignored and counted (`unbalanced_spans`).
 *   These three warning kinds exist only here; perflab-profile/1 readers that
 *   do not know them read them as `other`. A forked child does not write the
 *   profile (it would overwrite its parent's).
 */
#ifndef PERFLAB_H
#define PERFLAB_H

/* The implementation needs POSIX and Linux calls that -std=c11 hides. */
#if defined(PERFLAB_IMPLEMENTATION) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <stddef.h>
#include <stdint.h>

#if !defined(__GNUC__)
#error "perflab.h needs GCC or Clang (thread-local storage, __atomic builtins, section attributes)"
#endif

#ifdef __cplusplus
#define PERFLAB__TLS __thread /* as C11 _Thread_local, without C++'s init wrapper call */
#define PERFLAB__CAST(type, value) static_cast<type>(value) /* quiet under -Wold-style-cast */
extern "C" {
#else
#define PERFLAB__TLS _Thread_local
#define PERFLAB__CAST(type, value) ((type)(value))
#endif

enum { PERFLAB_KIND_SPAN = 1, PERFLAB_KIND_FUNCTION = 2, PERFLAB_KIND_COUNTER = 3, PERFLAB_KIND_GAUGE = 4 };

/* One call site of a span, counter or gauge; declared static by the macros. */
typedef struct perflab_site {
    const char *name;
    const char *file;
    uint32_t line;
    uint32_t kind;
    uint32_t index;            /* slot number in every thread's table; 0 until first use */
    uint32_t flags;            /* PERFLAB__SITE_* */
    struct perflab_site *next; /* list of sites that ran */
} perflab_site;

/* ---- internals the inline hot path needs; not part of the API ---- */

#define PERFLAB_MAX_SITES 1024
#define PERFLAB_MAX_DEPTH 256
#define PERFLAB__BUCKETS ((44 - 5 + 2) << 5) /* 32 per power of two up to 2^44 ticks */
#define PERFLAB__NO_PENDING UINT64_MAX
/* The hot path is inlined even where the compiler would rather not (GCC
 * keeps perflab_span_end out of line at -O2 when a file uses it often). */
#define PERFLAB__INLINE static inline __attribute__((always_inline))
#define PERFLAB__LIKELY(x) __builtin_expect(!!(x), 1)
#define PERFLAB__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Fields another thread reads at exit are relaxed atomics: plain moves on
 * x86 and ARM, and no data race when exit() runs while threads still work. */
#define PERFLAB__LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define PERFLAB__STORE(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define PERFLAB__BUMP(field, v) PERFLAB__STORE(field, PERFLAB__LOAD(field) + (v))
/* The generic builtins, as __atomic_load_n takes only integers and pointers. */
#define PERFLAB__LOAD_DOUBLE(field, out) __atomic_load(&(field), &(out), __ATOMIC_RELAXED)
#define PERFLAB__STORE_DOUBLE(field, in) __atomic_store(&(field), &(in), __ATOMIC_RELAXED)

/* Figures of one span site on one thread, in timer ticks. */
typedef struct perflab__slot {
    uint64_t calls, call_ticks, inclusive_ticks, self_ticks, min_ticks, max_ticks, unwound;
    uint64_t pending_ticks; /* latest duration, not yet in the histogram */
    uint32_t active;        /* open calls of this site on the thread (recursion) */
    uint64_t histogram[PERFLAB__BUCKETS];
} perflab__slot;

typedef struct perflab__frame {
    perflab_site *site;
    perflab__slot *slot;
    uint64_t start_ticks, saved_children_ticks;
} perflab__frame;

typedef struct perflab__counter_cell {
    uint64_t events, total;
} perflab__counter_cell;

/* Values of one gauge site on one thread. */
typedef struct perflab__gauge_cell {
    uint64_t samples;
    double sum, min, max, last;
    uint64_t last_ticks; /* when `last` was set: the latest value over all threads has the greatest */
} perflab__gauge_cell;

/* One event of a thread's timeline (PERFLAB_TRACE): a span's call (start
 * and end ticks), a counter's increment or a gauge's value (bits of the
 * double) at `start`. */
typedef struct perflab__trace_event {
    uint64_t start, end;
    uint32_t site, kind;
} perflab__trace_event;

enum { PERFLAB__TRACE_SPAN, PERFLAB__TRACE_COUNTER, PERFLAB__TRACE_GAUGE };

/* A thread's timeline: `len` events written (published with release
 * ordering), later ones counted in `dropped`. */
typedef struct perflab__trace {
    uint64_t len, capacity, dropped;
    perflab__trace_event *events; /* right after the header, in the same allocation */
} perflab__trace;

/* Everything one thread recorded. Only the owning thread writes it. */
typedef struct perflab_thread {
    uint32_t depth;          /* frames on the stack */
    uint32_t overflow;       /* spans opened beyond PERFLAB_MAX_DEPTH, not on the stack */
    uint32_t counting;       /* 0 in the placeholder every thread starts with */
    uint64_t children_ticks; /* time of spans closed inside the innermost open one */
    uint64_t attributed_ticks, unbalanced, too_deep;
    perflab__trace *trace;   /* NULL unless the program traces */
    perflab__slot *slots[PERFLAB_MAX_SITES];
    perflab__counter_cell counters[PERFLAB_MAX_SITES];
    /* Pointers rather than cells: 48 bytes per site would be 48 KB per thread
     * for gauges most programs never set. */
    perflab__gauge_cell *gauges[PERFLAB_MAX_SITES];
    perflab__frame stack[PERFLAB_MAX_DEPTH];
    perflab__slot discard; /* for sites past PERFLAB_MAX_SITES: keeps the stack balanced */
    /* cold: who the thread is, when it started and ended */
    uint64_t id, os_tid, start_ticks, start_cpu_ns, end_ticks, end_cpu_ns;
    uint64_t start_wait_ns, end_wait_ns; /* time runnable, waiting for a CPU (schedstat) */
    int cpu_clock, has_cpu_clock, has_start_cpu, has_start_wait, has_end_wait, ended;
    char name[16];
    struct perflab_thread *next;
} perflab_thread;

extern PERFLAB__TLS perflab_thread *perflab__tls;
extern int perflab__timer_tsc;
uint64_t perflab__monotonic_ns(void);
void perflab__begin_slow(perflab_site *site);
void perflab__end_slow(perflab_site *site);
void perflab__count_slow(perflab_site *site, int64_t amount);
void perflab__gauge_slow(perflab_site *site, double value);
void perflab__note_unwound(perflab_site *site);

#ifdef __cplusplus
}
#endif

#ifndef PERFLAB_OFF

PERFLAB__INLINE uint64_t perflab__ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    if (PERFLAB__LIKELY(perflab__timer_tsc)) return __builtin_ia32_rdtsc();
#endif
    return perflab__monotonic_ns();
}

/* Bucket of a duration: exact below 64 ticks, then 32 per power of two. */
PERFLAB__INLINE uint32_t perflab__bucket(uint64_t ticks) {
    uint32_t top = 63u - PERFLAB__CAST(uint32_t, __builtin_clzll(ticks | 1));
    uint32_t shift = top > 5 ? top - 5 : 0;
    uint64_t index = (PERFLAB__CAST(uint64_t, shift) << 5) + (ticks >> shift);
    return index < PERFLAB__BUCKETS - 1 ? PERFLAB__CAST(uint32_t, index) : PERFLAB__BUCKETS - 1;
}

/* Appends an event to the thread's timeline; a full one counts it as dropped. */
PERFLAB__INLINE void perflab__trace_push(perflab__trace *trace, uint64_t start, uint64_t end, uint32_t site, uint32_t kind) {
    uint64_t len = trace->len;
    if (PERFLAB__UNLIKELY(len >= trace->capacity)) {
        PERFLAB__BUMP(trace->dropped, 1);
        return;
    }
    perflab__trace_event *event = &trace->events[len];
    event->start = start, event->end = end, event->site = site, event->kind = kind;
    __atomic_store_n(&trace->len, len + 1, __ATOMIC_RELEASE);
}

/* Pushes a frame; the clock is read last so the bookkeeping is not measured. */
PERFLAB__INLINE void perflab__push(perflab_thread *t, perflab_site *site, perflab__slot *slot) {
    perflab__frame *frame = &t->stack[t->depth];
    slot->active += 1;
    frame->site = site;
    frame->slot = slot;
    frame->saved_children_ticks = t->children_ticks;
    t->children_ticks = 0;
    t->depth += 1;
    frame->start_ticks = perflab__ticks();
}

PERFLAB__INLINE void perflab_span_begin(perflab_site *site) {
    perflab_thread *t = perflab__tls;
    perflab__slot *slot = t->slots[PERFLAB__LOAD(site->index)];
    if (PERFLAB__UNLIKELY(slot == NULL || t->depth >= PERFLAB_MAX_DEPTH)) {
        perflab__begin_slow(site);
        return;
    }
    perflab__push(t, site, slot);
}

PERFLAB__INLINE void perflab_span_end(perflab_site *site) {
    perflab_thread *t = perflab__tls;
    uint32_t depth = t->depth;
    if (PERFLAB__UNLIKELY(depth == 0 || t->overflow != 0 || t->stack[depth - 1].site != site)) {
        perflab__end_slow(site);
        return;
    }
    uint64_t now = perflab__ticks();
    perflab__frame *frame = &t->stack[depth - 1];
    perflab__slot *slot = frame->slot;
    /* A thread moved between cores may see a slightly earlier TSC: count zero. */
    uint64_t elapsed = now > frame->start_ticks ? now - frame->start_ticks : 0;
    uint64_t children = t->children_ticks;
    t->children_ticks = frame->saved_children_ticks + elapsed;
    t->depth = depth - 1;
    if (depth == 1) PERFLAB__BUMP(t->attributed_ticks, elapsed);
    PERFLAB__BUMP(slot->self_ticks, elapsed > children ? elapsed - children : 0);
    slot->active -= 1;
    if (slot->active == 0) PERFLAB__BUMP(slot->inclusive_ticks, elapsed);
    PERFLAB__BUMP(slot->calls, 1);
    PERFLAB__BUMP(slot->call_ticks, elapsed);
    if (elapsed < PERFLAB__LOAD(slot->min_ticks)) PERFLAB__STORE(slot->min_ticks, elapsed);
    if (elapsed > PERFLAB__LOAD(slot->max_ticks)) PERFLAB__STORE(slot->max_ticks, elapsed);
    /* The histogram is one call behind: a bucket address computed from the
     * clock read just taken stalls the pipeline, one loaded from memory does
     * not (the Rust library measured 8 ns per span). */
    uint64_t previous = PERFLAB__LOAD(slot->pending_ticks);
    PERFLAB__STORE(slot->pending_ticks, elapsed);
    if (previous != PERFLAB__NO_PENDING) PERFLAB__BUMP(slot->histogram[perflab__bucket(previous)], 1);
    if (PERFLAB__UNLIKELY(t->trace != NULL))
        perflab__trace_push(t->trace, frame->start_ticks, now, PERFLAB__LOAD(site->index), PERFLAB__TRACE_SPAN);
}

/* Adds `amount` (negative counts as 0) to a counter; one event. */
PERFLAB__INLINE void perflab_count(perflab_site *site, int64_t amount) {
    perflab_thread *t = perflab__tls;
    uint32_t index = PERFLAB__LOAD(site->index);
    if (PERFLAB__UNLIKELY(!t->counting || index == 0)) {
        perflab__count_slow(site, amount);
        return;
    }
    uint64_t counted = amount > 0 ? PERFLAB__CAST(uint64_t, amount) : 0;
    PERFLAB__BUMP(t->counters[index].events, 1);
    PERFLAB__BUMP(t->counters[index].total, counted);
    if (PERFLAB__UNLIKELY(t->trace != NULL)) perflab__trace_push(t->trace, perflab__ticks(), counted, index, PERFLAB__TRACE_COUNTER);
}

PERFLAB__INLINE void perflab__gauge_record(perflab__gauge_cell *cell, double value, uint64_t now) {
    double sum, min, max;
    PERFLAB__LOAD_DOUBLE(cell->sum, sum);
    PERFLAB__LOAD_DOUBLE(cell->min, min);
    PERFLAB__LOAD_DOUBLE(cell->max, max);
    sum += value;
    PERFLAB__BUMP(cell->samples, 1);
    PERFLAB__STORE_DOUBLE(cell->sum, sum);
    if (value < min) PERFLAB__STORE_DOUBLE(cell->min, value);
    if (value > max) PERFLAB__STORE_DOUBLE(cell->max, value);
    PERFLAB__STORE_DOUBLE(cell->last, value);
    PERFLAB__STORE(cell->last_ticks, now);
}

/* Sets a gauge to `value` on the calling thread; NaN and infinities are
 * ignored, as by the Rust library: one would poison the mean for good. */
PERFLAB__INLINE void perflab_gauge(perflab_site *site, double value) {
    if (PERFLAB__UNLIKELY(!__builtin_isfinite(value))) return;
    perflab__gauge_cell *cell = perflab__tls->gauges[PERFLAB__LOAD(site->index)];
    if (PERFLAB__UNLIKELY(cell == NULL)) {
        perflab__gauge_slow(site, value);
        return;
    }
    uint64_t now = perflab__ticks();
    perflab__gauge_record(cell, value, now);
    perflab_thread *t = perflab__tls;
    if (PERFLAB__UNLIKELY(t->trace != NULL)) {
        uint64_t bits;
        __builtin_memcpy(&bits, &value, sizeof bits);
        perflab__trace_push(t->trace, now, bits, PERFLAB__LOAD(site->index), PERFLAB__TRACE_GAUGE);
    }
}

#else /* PERFLAB_OFF: the same API, doing nothing */
static inline void perflab_span_begin(perflab_site *site) { (void)site; }
static inline void perflab_span_end(perflab_site *site) { (void)site; }
static inline void perflab_count(perflab_site *site, int64_t amount) { (void)site, (void)amount; }
static inline void perflab_gauge(perflab_site *site, double value) { (void)site, (void)value; }
#endif

/* ---- macros ---- */

#define PERFLAB__CAT2(a, b) a##b
#define PERFLAB__CAT(a, b) PERFLAB__CAT2(a, b)
#define PERFLAB__ID(prefix) PERFLAB__CAT(prefix, __COUNTER__)

/* A pointer to every site in the ELF section `perflab_sites` lets the report
 * list sites that never ran. Pointers (8 bytes, 8-aligned) rather than the
 * sites, so that the compiler cannot pad between entries by over-aligning. */
#if defined(PERFLAB_OFF) || defined(PERFLAB_NO_SECTIONS) || !defined(__ELF__)
#define PERFLAB__SECTION_ENTRY(var)
#define PERFLAB__SECTION_ENTRY_IN_FUNCTION(var)
#elif !defined(__cplusplus)
#define PERFLAB__SECTION_ENTRY(var)                                                      \
    ;                                                                                    \
    static perflab_site *PERFLAB__CAT(var, _entry) __attribute__((section("perflab_sites"), used)) = &var
#define PERFLAB__SECTION_ENTRY_IN_FUNCTION(var) PERFLAB__SECTION_ENTRY(var);
#else
/* C++: statics of inline functions are COMDAT, and GCC refuses COMDAT and
 * plain objects in one named section ("section type conflict"), so the
 * assembler emits the entry. That needs a function body, and an address the
 * assembler may use: not so for COMDAT symbols in a shared library (-fPIC),
 * whose sites are listed once they ran. PERFLAB_SITE may be at namespace
 * scope, so it never has an entry in C++. */
#define PERFLAB__SECTION_ENTRY(var)
#if !defined(__PIC__) || defined(__PIE__)
#define PERFLAB__SECTION_ENTRY_IN_FUNCTION(var)                                          \
    __asm__ __volatile__(".pushsection perflab_sites,\"aw\"\n\t.balign 8\n\t.dc.a %c0\n\t.popsection" \
                         : : "i"(&var));
#else
#define PERFLAB__SECTION_ENTRY_IN_FUNCTION(var)
#endif
#endif

#define PERFLAB__STATIC_SITE(var, name, kind)                                            \
    static perflab_site var __attribute__((unused)) = {(name), __FILE__, __LINE__, (kind), 0, 0, NULL}
#define PERFLAB__SITE(var, name, kind)                                                   \
    PERFLAB__STATIC_SITE(var, name, kind);                                               \
    PERFLAB__SECTION_ENTRY_IN_FUNCTION(var)

/* Declares `static perflab_site var` for perflab_span_begin/_end. */
#define PERFLAB_SITE(var, name) PERFLAB__STATIC_SITE(var, name, PERFLAB_KIND_SPAN) PERFLAB__SECTION_ENTRY(var)
/* Declares `static perflab_site var` for perflab_gauge. */
#define PERFLAB_GAUGE_SITE(var, name) PERFLAB__STATIC_SITE(var, name, PERFLAB_KIND_GAUGE) PERFLAB__SECTION_ENTRY(var)

/* A pointer to a fresh static site, usable inside an expression. */
#define PERFLAB__SITE_EXPR(name, kind)                                                   \
    __extension__({                                                                      \
        PERFLAB__SITE(perflab__site, name, kind)                                         \
        &perflab__site;                                                                  \
    })

#ifdef PERFLAB_OFF
#define PERFLAB_SCOPE(name)
#define PERFLAB_FUNCTION()
#define PERFLAB_SPAN(name)
#define PERFLAB_COUNT(name, amount) ((void)sizeof(amount))
#define PERFLAB_GAUGE(name, value) ((void)sizeof(value))
#else

#define PERFLAB_COUNT(name, amount)                                                      \
    do {                                                                                 \
        PERFLAB__SITE(perflab__count_site, name, PERFLAB_KIND_COUNTER)                   \
        perflab_count(&perflab__count_site, PERFLAB__CAST(int64_t, amount));                          \
    } while (0)

#define PERFLAB_GAUGE(name, value)                                                       \
    do {                                                                                 \
        PERFLAB__SITE(perflab__gauge_site, name, PERFLAB_KIND_GAUGE)                     \
        perflab_gauge(&perflab__gauge_site, PERFLAB__CAST(double, value));               \
    } while (0)

#ifdef __cplusplus
#if __cplusplus >= 201703L
#include <exception>
#endif
namespace perflab {
/* Ends its span when destroyed; counts calls left by an exception. */
class Scope {
  public:
    explicit Scope(perflab_site *site) noexcept : site_(site) {
#if __cplusplus >= 201703L
        exceptions_ = std::uncaught_exceptions();
#endif
        perflab_span_begin(site);
    }
    ~Scope() {
#if __cplusplus >= 201703L
        if (std::uncaught_exceptions() > exceptions_) perflab__note_unwound(site_);
#endif
        perflab_span_end(site_);
    }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;
    bool once() noexcept { return first_ ? (first_ = false, true) : false; }

  private:
    perflab_site *site_;
#if __cplusplus >= 201703L
    int exceptions_ = 0;
#endif
    bool first_ = true;
};
} // namespace perflab
#define PERFLAB__SCOPE(name, kind, id) perflab::Scope id(PERFLAB__SITE_EXPR(name, kind))
#define PERFLAB__SPAN(name, id)                                                          \
    for (perflab::Scope id(PERFLAB__SITE_EXPR(name, PERFLAB_KIND_SPAN)); id.once();)
#else
typedef struct perflab__block {
    perflab_site *site;
    int open;
} perflab__block;
PERFLAB__INLINE perflab__block perflab__block_begin(perflab_site *site) {
    perflab__block block = {site, 1};
    perflab_span_begin(site);
    return block;
}
PERFLAB__INLINE void perflab__block_end(perflab__block *block) { perflab_span_end(block->site); }
#define PERFLAB__SCOPE(name, kind, id)                                                   \
    perflab__block id __attribute__((cleanup(perflab__block_end), unused)) =             \
        perflab__block_begin(PERFLAB__SITE_EXPR(name, kind))
#define PERFLAB__SPAN(name, id)                                                          \
    for (perflab__block id __attribute__((cleanup(perflab__block_end))) =                \
             perflab__block_begin(PERFLAB__SITE_EXPR(name, PERFLAB_KIND_SPAN));          \
         id.open; id.open = 0)
#endif

#define PERFLAB_SCOPE(name) PERFLAB__SCOPE(name, PERFLAB_KIND_SPAN, PERFLAB__ID(perflab__scope_))
#define PERFLAB_FUNCTION() PERFLAB__SCOPE(__func__, PERFLAB_KIND_FUNCTION, PERFLAB__ID(perflab__scope_))
#define PERFLAB_SPAN(name) PERFLAB__SPAN(name, PERFLAB__ID(perflab__span_))
#endif /* PERFLAB_OFF */

#endif /* PERFLAB_H */

/* ======================= implementation ======================= */
#if defined(PERFLAB_IMPLEMENTATION) && !defined(PERFLAB__IMPLEMENTED) && !defined(PERFLAB_OFF)
#define PERFLAB__IMPLEMENTED

/* The implementation is C, also compiled as C++ when a C++ file defines
 * PERFLAB_IMPLEMENTATION: its casts are C casts, fine in both languages. */
#ifdef __cplusplus
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#endif

#ifndef __linux__
#error "the perflab.h implementation supports Linux only (thread CPU clocks, thread ids, ELF sections)"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#if !defined(CLOCK_MONOTONIC) || !defined(CLOCK_THREAD_CPUTIME_ID)
#error "perflab.h: the implementation needs POSIX clocks: #define PERFLAB_IMPLEMENTATION and #include \"perflab.h\" before any other #include in that file (or compile it with -D_GNU_SOURCE)"
#endif

#ifdef __cplusplus
extern "C" {
#define PERFLAB__NEW(type) static_cast<type *>(calloc(1, sizeof(type)))
#else
#define PERFLAB__NEW(type) ((type *)calloc(1, sizeof(type)))
#endif

/* Shared values: DEFAULT_UNATTRIBUTED_THRESHOLD and TABLE_ENV ("PERFLAB_TABLE")
   in crates/perflab/src/lib.rs. */
#define PERFLAB__UNATTRIBUTED_THRESHOLD 0.10 /* share of a thread's wall time */
#define PERFLAB__NEAR_SPAN_COST_FACTOR 4.0
#define PERFLAB__WAITING_SHARE 0.5 /* share of a thread's time inside spans spent off the CPU */
#define PERFLAB__INSTRUMENTATION_COST_SHARE 0.05
#define PERFLAB__SITE_IN_SECTION 1u
#define PERFLAB__SITE_DROPPED 2u

static perflab_thread perflab__placeholder; /* all slots NULL: every probe takes the cold path */
PERFLAB__TLS perflab_thread *perflab__tls = &perflab__placeholder;
static PERFLAB__TLS int perflab__thread_gone;
int perflab__timer_tsc;

static pthread_once_t perflab__once = PTHREAD_ONCE_INIT;
static int perflab__ready; /* init has run: later probes need not call pthread_once */
static int perflab__enabled, perflab__print_table, perflab__reported;
static char *perflab__profile_path;
static char *perflab__trace_path;        /* PERFLAB_TRACE: record timelines, write them here */
static uint64_t perflab__trace_capacity; /* events per thread (PERFLAB_TRACE_EVENTS) */
static pthread_key_t perflab__key;
static int perflab__have_key;
static pid_t perflab__pid;
static char perflab__first_comm[17];
static uint32_t perflab__next_index = 1; /* 0 means "not yet numbered" */
static uint32_t perflab__dropped_sites;
static uint64_t perflab__next_thread_id = 1;
static perflab_site *perflab__sites;     /* sites that ran, newest first */
static perflab_thread *perflab__threads; /* every thread table, newest first */
static double perflab__span_cost_ticks, perflab__ns_per_tick = 1.0;
static uint64_t perflab__pair_ticks, perflab__pair_ns; /* TSC and monotonic clock at start-up */
static uint64_t perflab__session_start_ticks, perflab__start_unix_ms, perflab__start_process_cpu;
static int perflab__has_process_cpu;

/* Sites in this module's perflab_sites section (weak: a program may have none). */
extern perflab_site *__start_perflab_sites[] __attribute__((weak, visibility("hidden")));
extern perflab_site *__stop_perflab_sites[] __attribute__((weak, visibility("hidden")));

uint64_t perflab__monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int perflab__clock_ns(clockid_t clock, uint64_t *ns) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 1;
}

/* A thread's time runnable but waiting for a CPU, from the scheduler's
 * statistics (field 2 of /proc/self/task/TID/schedstat, in ns; the kernel's
 * Documentation/scheduler/sched-stats.rst): `tid` 0 reads the calling thread.
 * Read where CPU time is (a thread's start and end), never per span. Returns
 * 0 where the kernel keeps no such statistics. */
static int perflab__runnable_wait_ns(uint64_t tid, uint64_t *ns) {
    char path[64], text[96];
    if (tid) snprintf(path, sizeof path, "/proc/self/task/%llu/schedstat", (unsigned long long)tid);
    else snprintf(path, sizeof path, "/proc/thread-self/schedstat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    unsigned long long on_cpu = 0, waited = 0;
    if (sscanf(text, "%llu %llu", &on_cpu, &waited) != 2) return 0;
    *ns = waited;
    return 1;
}

static uint64_t perflab__ns(uint64_t ticks) {
    return perflab__timer_tsc ? (uint64_t)((double)ticks * perflab__ns_per_tick) : ticks;
}

/* Only a TSC that runs at a constant rate in every power state is a clock. */
static int perflab__invariant_tsc(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return 0;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return 0;
    return (d >> 8) & 1u;
#else
    return 0;
#endif
}

/* A (ticks, monotonic ns) pair: the tightest of three tries, ticks taken
 * halfway around the clock read, so that a preemption does not skew it. */
static void perflab__clock_pair(uint64_t *ticks, uint64_t *ns) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t before = perflab__ticks(), mono = perflab__monotonic_ns(), after = perflab__ticks();
        if (after - before < best) {
            best = after - before;
            *ticks = before + (after - before) / 2;
            *ns = mono;
        }
    }
}

static perflab__slot *perflab__new_slot(void) {
    perflab__slot *slot = PERFLAB__NEW(perflab__slot);
    if (slot) {
        slot->min_ticks = UINT64_MAX;
        slot->pending_ticks = PERFLAB__NO_PENDING;
    }
    return slot;
}

/* Numbers a site on its first use (any thread) and lists it; 0 when full. */
static uint32_t perflab__register(perflab_site *site) {
    uint32_t index = __atomic_load_n(&site->index, __ATOMIC_ACQUIRE);
    if (index != 0 || (PERFLAB__LOAD(site->flags) & PERFLAB__SITE_DROPPED)) return index;
    uint32_t claimed = __atomic_fetch_add(&perflab__next_index, 1, __ATOMIC_RELAXED);
    if (claimed >= PERFLAB_MAX_SITES) {
        if (!(__atomic_fetch_or(&site->flags, PERFLAB__SITE_DROPPED, __ATOMIC_RELAXED) & PERFLAB__SITE_DROPPED))
            __atomic_fetch_add(&perflab__dropped_sites, 1, __ATOMIC_RELAXED);
        return 0;
    }
    uint32_t expected = 0;
    if (!__atomic_compare_exchange_n(&site->index, &expected, claimed, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return expected; /* another thread numbered it first; `claimed` stays unused */
    perflab_site *head = __atomic_load_n(&perflab__sites, __ATOMIC_RELAXED);
    do site->next = head;
    while (!__atomic_compare_exchange_n(&perflab__sites, &head, site, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    return claimed;
}

/* Runs on a thread's exit (pthread key destructor): its data stay for the report. */
static void perflab__thread_ended(void *data) {
    perflab_thread *t = (perflab_thread *)data;
    uint64_t cpu = 0;
    int has_cpu = perflab__clock_ns(CLOCK_THREAD_CPUTIME_ID, &cpu);
    prctl(PR_GET_NAME, t->name, 0, 0, 0);
    PERFLAB__STORE(t->end_ticks, perflab__ticks());
    PERFLAB__STORE(t->end_cpu_ns, has_cpu ? cpu : PERFLAB__LOAD(t->start_cpu_ns));
    t->has_end_wait = perflab__runnable_wait_ns(0, &t->end_wait_ns);
    __atomic_store_n(&t->ended, 1, __ATOMIC_RELEASE);
    perflab__tls = &perflab__placeholder; /* probes in later destructors record nothing */
    perflab__thread_gone = 1;
}

static perflab_thread *perflab__new_thread(uint64_t start_ticks) {
    perflab_thread *t = PERFLAB__NEW(perflab_thread);
    if (!t) return NULL;
    clockid_t clock = 0;
    t->counting = 1;
    t->id = __atomic_fetch_add(&perflab__next_thread_id, 1, __ATOMIC_RELAXED);
    t->os_tid = (uint64_t)syscall(SYS_gettid);
    t->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &clock) == 0;
    t->cpu_clock = (int)clock;
    t->has_start_cpu = perflab__clock_ns(CLOCK_THREAD_CPUTIME_ID, &t->start_cpu_ns);
    t->has_start_wait = perflab__runnable_wait_ns(0, &t->start_wait_ns);
    if (perflab__trace_path) {
        /* Reserved, not touched: pages are used only as events arrive. */
        t->trace = (perflab__trace *)malloc(sizeof(perflab__trace) + perflab__trace_capacity * sizeof(perflab__trace_event));
        if (t->trace) {
            t->trace->len = 0, t->trace->capacity = perflab__trace_capacity, t->trace->dropped = 0;
            t->trace->events = (perflab__trace_event *)(t->trace + 1);
        }
    }
    t->start_ticks = start_ticks;
    perflab_thread *head = __atomic_load_n(&perflab__threads, __ATOMIC_RELAXED);
    do t->next = head;
    while (!__atomic_compare_exchange_n(&perflab__threads, &head, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    if (perflab__have_key) pthread_setspecific(perflab__key, t);
    perflab__tls = t;
    return t;
}

/* Median over batches of the mean cost of an empty span, recorded into a
 * private table so that the session never sees the calibration. */
static double perflab__measure_span_cost(void) {
    enum { SPANS_PER_BATCH = 2000, BATCHES = 11 };
    static perflab_site site = {"perflab calibration", __FILE__, __LINE__, PERFLAB_KIND_SPAN, 1, 0, 0};
    perflab_thread *table = PERFLAB__NEW(perflab_thread);
    perflab__slot *slot = perflab__new_slot();
    double costs[BATCHES];
    if (!table || !slot) {
        free(table);
        free(slot);
        return 0.0;
    }
    table->counting = 1;
    table->slots[1] = slot;
    perflab_thread *saved = perflab__tls;
    perflab__tls = table;
    for (int batch = 0; batch < BATCHES; batch++) {
        uint64_t start = perflab__ticks();
        for (int i = 0; i < SPANS_PER_BATCH; i++) {
            perflab_span_begin(&site);
            perflab_span_end(&site);
            __asm__ __volatile__("" ::: "memory");
        }
        costs[batch] = (double)(perflab__ticks() - start) / (double)SPANS_PER_BATCH;
    }
    perflab__tls = saved;
    free(slot);
    free(table);
    for (int i = 1; i < BATCHES; i++) /* insertion sort for the median */
        for (int j = i; j > 0 && costs[j - 1] > costs[j]; j--) {
            double swap = costs[j];
            costs[j] = costs[j - 1];
            costs[j - 1] = swap;
        }
    return costs[BATCHES / 2];
}

static void perflab__at_exit(void);

static void perflab__init(void) {
    const char *path = getenv("PERFLAB_PROFILE"), *table = getenv("PERFLAB_TABLE");
    const char *timer = getenv("PERFLAB_TIMER"), *trace = getenv("PERFLAB_TRACE");
    perflab__print_table = table && strcmp(table, "1") == 0;
    if (path && *path) perflab__profile_path = strdup(path);
    if (trace && *trace) {
        const char *events = getenv("PERFLAB_TRACE_EVENTS");
        char *end = NULL;
        unsigned long long wanted = events ? strtoull(events, &end, 10) : 0;
        perflab__trace_capacity = 1000000;
        if (events && (wanted == 0 || *end != 0))
            fprintf(stderr, "perflab: PERFLAB_TRACE_EVENTS=%s is not a positive whole number of events; each thread keeps up to 1000000\n", events);
        else if (events)
            perflab__trace_capacity = wanted;
        perflab__trace_path = strdup(trace);
    }
    perflab__enabled = perflab__profile_path || perflab__print_table || perflab__trace_path;
    if (!perflab__enabled) {
        __atomic_store_n(&perflab__ready, 1, __ATOMIC_RELEASE);
        return;
    }
    perflab__timer_tsc = perflab__invariant_tsc() && !(timer && strcmp(timer, "clock_monotonic") == 0);
    perflab__clock_pair(&perflab__pair_ticks, &perflab__pair_ns);
    perflab__have_key = pthread_key_create(&perflab__key, perflab__thread_ended) == 0;
    perflab__pid = getpid();
    prctl(PR_GET_NAME, perflab__first_comm, 0, 0, 0);
    /* Before the session's clock starts, so that it is not charged to the session. */
    perflab__span_cost_ticks = perflab__measure_span_cost();
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    perflab__start_unix_ms = (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
    perflab__has_process_cpu = perflab__clock_ns(CLOCK_PROCESS_CPUTIME_ID, &perflab__start_process_cpu);
    perflab__session_start_ticks = perflab__ticks();
    perflab__new_thread(perflab__session_start_ticks);
    if (atexit(perflab__at_exit) != 0)
        fprintf(stderr, "perflab: could not register the exit hook, so no profile will be written; "
                        "the C library's atexit table is full, register fewer handlers\n");
    __atomic_store_n(&perflab__ready, 1, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void perflab__constructor(void) { pthread_once(&perflab__once, perflab__init); }

/* The calling thread's table, created on its first probe; NULL when nothing is recorded. */
static perflab_thread *perflab__thread(void) {
    if (perflab__tls != &perflab__placeholder) return perflab__tls;
    if (!__atomic_load_n(&perflab__ready, __ATOMIC_ACQUIRE)) pthread_once(&perflab__once, perflab__init);
    if (!perflab__enabled || perflab__thread_gone) return NULL;
    if (perflab__tls != &perflab__placeholder) return perflab__tls; /* made by init */
    return perflab__new_thread(perflab__ticks());
}

void perflab__begin_slow(perflab_site *site) {
    perflab_thread *t = perflab__thread();
    if (!t) return;
    if (t->depth >= PERFLAB_MAX_DEPTH) {
        t->overflow += 1;
        PERFLAB__BUMP(t->too_deep, 1);
        return;
    }
    uint32_t index = perflab__register(site);
    perflab__slot *slot = index ? t->slots[index] : NULL;
    if (index && !slot && (slot = perflab__new_slot()) != NULL)
        __atomic_store_n(&t->slots[index], slot, __ATOMIC_RELEASE);
    perflab__push(t, site, slot ? slot : &t->discard);
}

void perflab__end_slow(perflab_site *site) {
    perflab_thread *t = perflab__tls;
    (void)site;
    if (t == &perflab__placeholder) return; /* this thread records nothing */
    if (t->overflow) t->overflow -= 1;
    else PERFLAB__BUMP(t->unbalanced, 1); /* no begin, or not the innermost span: ignored */
}

void perflab__count_slow(perflab_site *site, int64_t amount) {
    perflab_thread *t = perflab__thread();
    if (t && perflab__register(site)) perflab_count(site, amount);
}

void perflab__gauge_slow(perflab_site *site, double value) {
    perflab_thread *t = perflab__thread();
    /* A span or counter site passed by mistake would have its slot misread. */
    if (!t || site->kind != PERFLAB_KIND_GAUGE) return;
    uint32_t index = perflab__register(site);
    if (!index) return;
    perflab__gauge_cell *cell = t->gauges[index];
    if (!cell) {
        if ((cell = PERFLAB__NEW(perflab__gauge_cell)) == NULL) return;
        cell->min = __builtin_inf(), cell->max = -__builtin_inf();
        __atomic_store_n(&t->gauges[index], cell, __ATOMIC_RELEASE);
    }
    uint64_t now = perflab__ticks();
    perflab__gauge_record(cell, value, now);
    if (t->trace) {
        uint64_t bits;
        memcpy(&bits, &value, sizeof bits);
        perflab__trace_push(t->trace, now, bits, index, PERFLAB__TRACE_GAUGE);
    }
}

void perflab__note_unwound(perflab_site *site) {
    perflab_thread *t = perflab__tls;
    if (t->depth > 0 && !t->overflow && t->stack[t->depth - 1].site == site)
        PERFLAB__BUMP(t->stack[t->depth - 1].slot->unwound, 1);
}

/* ---- the report, built once at exit ---- */

typedef struct perflab__span_row {
    size_t first; /* index in sites of the first site with this name and kind */
    uint64_t calls, call_ticks, min_ticks, max_ticks, unwound;
    uint64_t inclusive_ns, self_ns, min_ns, max_ns, p50_ns, p95_ns, p99_ns;
    double mean_ns;
    uint32_t threads;
} perflab__span_row;

typedef struct perflab__counter_row {
    size_t first;
    uint64_t events, total;
    uint32_t threads;
} perflab__counter_row;

typedef struct perflab__gauge_row {
    size_t first;
    uint64_t samples, last_ticks;
    double sum, min, max, last, mean;
} perflab__gauge_row;

typedef struct perflab__thread_row {
    uint64_t id, os_tid, wall_ns, cpu_ns, attributed_ns, preempted_ns, blocked_ns;
    int has_cpu, has_split, ended, has_name;
    char name[17];
    uint64_t unbalanced, too_deep;
} perflab__thread_row;

typedef struct perflab__warning {
    const char *kind;
    char *subject, *message;
} perflab__warning;

typedef struct perflab__report {
    perflab_site **sites;
    size_t *group, n_sites;
    perflab__span_row *spans;
    size_t n_spans;
    perflab__counter_row *counters;
    size_t n_counters;
    perflab__gauge_row *gauges;
    size_t n_gauges;
    perflab__thread_row *threads;
    size_t n_threads;
    perflab__warning *warnings;
    size_t n_warnings, cap_warnings;
    char program[256];
    uint64_t wall_ns, cpu_ns, instrumentation_ns;
    int has_cpu;
    double span_cost_ns;
} perflab__report;

/* Length of the valid UTF-8 sequence at `s`, 0 if it is not one. */
static size_t perflab__utf8_length(const unsigned char *s) {
    unsigned c = s[0], low = 0x80, high = 0xBF;
    size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, low = c == 0xE0 ? 0xA0 : low, high = c == 0xED ? 0x9F : high;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, low = c == 0xF0 ? 0x90 : low, high = c == 0xF4 ? 0x8F : high;
    else return 0;
    if (s[1] < low || s[1] > high) return 0; /* also stops at the terminating NUL */
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

static int perflab__utf8_valid(const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    for (size_t n; *s; s += n)
        if ((n = perflab__utf8_length(s)) == 0) return 0;
    return 1;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD (and are warned about). */
static void perflab__json_string(FILE *f, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', f);
    while (*s) {
        unsigned c = *s;
        size_t n = 1;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", (char)c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else if ((n = perflab__utf8_length(s)) != 0) fwrite(s, 1, n, f);
        else fputs("\\ufffd", f), n = 1;
        s += n;
    }
    fputc('"', f);
}

/* A non-negative decimal with `places` digits, independent of the C locale
 * (printf's %f would write a comma under some locales, which is not JSON). */
static void perflab__json_decimal(FILE *f, double x, unsigned places) {
    uint64_t scale = 1;
    for (unsigned i = 0; i < places; i++) scale *= 10;
    if (!(x >= 0.0) || x > 1e15) x = 0.0; /* NaN, negative or absurd: never in valid figures */
    uint64_t scaled = (uint64_t)(x * (double)scale + 0.5);
    fprintf(f, "%llu.%0*llu", (unsigned long long)(scaled / scale), (int)places, (unsigned long long)(scaled % scale));
}

/* Any double, as the shortest of %.15g to %.17g that reads back as the same
 * value; the locale's decimal point (which may be a comma, or several bytes)
 * becomes '.'. Non-finite values (a sum that overflowed) are null, as
 * serde_json writes them. */
static void perflab__json_number(FILE *f, double x) {
    char text[48], out[48];
    size_t n = 0;
    int point = 0, exponent = 0;
    if (!__builtin_isfinite(x)) {
        fputs("null", f);
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, x);
        if (strtod(text, NULL) == x) break;
    }
    for (const char *c = text; *c; c++) {
        if ((*c >= '0' && *c <= '9') || *c == '-' || *c == '+') out[n++] = *c;
        else if (*c == 'e') out[n++] = 'e', exponent = 1;
        else if (!point) out[n++] = '.', point = 1;
    }
    out[n] = 0;
    fprintf(f, "%s%s", out, point || exponent ? "" : ".0");
}

static char *perflab__format(const char *format, ...) __attribute__((format(printf, 1, 2)));
static char *perflab__format(const char *format, ...) {
    va_list args;
    va_start(args, format);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *text = length >= 0 ? (char *)malloc((size_t)length + 1) : NULL;
    if (text) {
        va_start(args, format);
        vsnprintf(text, (size_t)length + 1, format, args);
        va_end(args);
    }
    return text;
}

static void perflab__warn(perflab__report *r, const char *kind, const char *subject, char *message) {
    if (!message) return;
    if (r->n_warnings == r->cap_warnings) {
        size_t cap = r->cap_warnings ? 2 * r->cap_warnings : 16;
        perflab__warning *grown = (perflab__warning *)realloc(r->warnings, cap * sizeof *grown);
        if (!grown) {
            free(message);
            return;
        }
        r->warnings = grown, r->cap_warnings = cap;
    }
    perflab__warning w = {kind, strdup(subject), message};
    r->warnings[r->n_warnings++] = w;
}

/* Midpoint of the bucket holding the nearest-rank percentile, clamped to the exact extremes. */
static uint64_t perflab__percentile(const uint64_t *histogram, uint64_t total, uint64_t per_mille,
                                    const perflab__span_row *row) {
    if (total == 0) return 0;
    uint64_t rank = (per_mille * total + 999) / 1000, seen = 0;
    if (rank < 1) rank = 1;
    for (uint32_t index = 0; index < PERFLAB__BUCKETS; index++) {
        if ((seen += histogram[index]) < rank) continue;
        uint64_t low = index, width = 1;
        if (index >= 64) {
            uint32_t shift = (index >> 5) - 1;
            low = ((uint64_t)(index & 31) + 32) << shift, width = (uint64_t)1 << shift;
        }
        double ticks = (double)low + (double)(width - 1) / 2.0;
        if (ticks < (double)row->min_ticks) ticks = (double)row->min_ticks;
        if (ticks > (double)row->max_ticks) ticks = (double)row->max_ticks;
        uint64_t ns = (uint64_t)(ticks * (perflab__timer_tsc ? perflab__ns_per_tick : 1.0) + 0.5);
        return ns < row->min_ns ? row->min_ns : ns > row->max_ns ? row->max_ns : ns;
    }
    return row->max_ns;
}

/* Records merge sites of one kind and name: a span and a function, or a
 * counter and a gauge, of the same name stay apart. */
static int perflab__same_group(const perflab_site *a, const perflab_site *b) {
    return a->kind == b->kind && strcmp(a->name, b->name) == 0;
}

/* Every site: those in this module's section (never-entered ones too), then
 * sites that ran elsewhere (another shared object, or no section support). */
static int perflab__collect_sites(perflab__report *r) {
    size_t in_section = 0, listed = 0;
    perflab_site *head = __atomic_load_n(&perflab__sites, __ATOMIC_ACQUIRE);
    if (__start_perflab_sites && __stop_perflab_sites) in_section = (size_t)(__stop_perflab_sites - __start_perflab_sites);
    for (perflab_site *s = head; s; s = s->next) listed++;
    r->sites = (perflab_site **)calloc(in_section + listed + 1, sizeof *r->sites);
    r->group = (size_t *)calloc(in_section + listed + 1, sizeof *r->group);
    if (!r->sites || !r->group) return 0;
    for (size_t i = 0; i < in_section; i++) {
        perflab_site *s = __start_perflab_sites[i];
        /* An inline function emitted in several files has an entry from each. */
        if (!s || (__atomic_fetch_or(&s->flags, PERFLAB__SITE_IN_SECTION, __ATOMIC_RELAXED) & PERFLAB__SITE_IN_SECTION))
            continue;
        r->sites[r->n_sites++] = s;
    }
    for (perflab_site *s = head; s; s = s->next)
        if (!(PERFLAB__LOAD(s->flags) & PERFLAB__SITE_IN_SECTION)) r->sites[r->n_sites++] = s;
    for (size_t i = 0; i < r->n_sites; i++) {
        size_t first = 0;
        while (first < i && !perflab__same_group(r->sites[first], r->sites[i])) first++;
        r->group[i] = first;
    }
    return 1;
}

/* `own_cpu`: the calling thread's CPU time, read with `end_ticks` so that
 * building the report is not charged to it. */
static int perflab__collect_threads(perflab__report *r, uint64_t end_ticks, int has_own_cpu, uint64_t own_cpu) {
    size_t count = 0;
    perflab_thread *head = __atomic_load_n(&perflab__threads, __ATOMIC_ACQUIRE);
    for (perflab_thread *t = head; t; t = t->next) count++;
    r->threads = (perflab__thread_row *)calloc(count + 1, sizeof *r->threads);
    if (!r->threads) return 0;
    for (perflab_thread *t = head; t; t = t->next) { /* newest first: fill from the end */
        perflab__thread_row *row = &r->threads[count - 1 - r->n_threads++];
        int ended = __atomic_load_n(&t->ended, __ATOMIC_ACQUIRE);
        uint64_t end = ended && PERFLAB__LOAD(t->end_ticks) < end_ticks ? PERFLAB__LOAD(t->end_ticks) : end_ticks;
        uint64_t cpu = 0;
        int has_cpu = 0;
        if (t == perflab__tls) has_cpu = has_own_cpu, cpu = own_cpu;
        else if (!ended && t->has_cpu_clock) has_cpu = perflab__clock_ns((clockid_t)t->cpu_clock, &cpu);
        if (!has_cpu && (ended = __atomic_load_n(&t->ended, __ATOMIC_ACQUIRE))) /* it may just have ended */
            cpu = PERFLAB__LOAD(t->end_cpu_ns), has_cpu = 1;
        row->id = t->id, row->os_tid = t->os_tid, row->ended = ended;
        row->wall_ns = perflab__ns(end > t->start_ticks ? end - t->start_ticks : 0);
        row->attributed_ns = perflab__ns(PERFLAB__LOAD(t->attributed_ticks));
        if (row->attributed_ns > row->wall_ns) row->attributed_ns = row->wall_ns;
        row->has_cpu = has_cpu && t->has_start_cpu;
        row->cpu_ns = row->has_cpu && cpu > t->start_cpu_ns ? cpu - t->start_cpu_ns : 0;
        /* Wall time is on the CPU, waiting for one (preempted), or neither (blocked). */
        uint64_t wait = 0;
        int has_wait = 0;
        if (ended) has_wait = t->has_end_wait, wait = t->end_wait_ns;
        else has_wait = perflab__runnable_wait_ns(t == perflab__tls ? 0 : t->os_tid, &wait);
        row->has_split = row->has_cpu && has_wait && t->has_start_wait;
        if (row->has_split) {
            row->preempted_ns = wait > t->start_wait_ns ? wait - t->start_wait_ns : 0;
            if (row->preempted_ns > row->wall_ns) row->preempted_ns = row->wall_ns;
            uint64_t busy = row->cpu_ns + row->preempted_ns;
            row->blocked_ns = row->wall_ns > busy ? row->wall_ns - busy : 0;
        }
        row->unbalanced = PERFLAB__LOAD(t->unbalanced), row->too_deep = PERFLAB__LOAD(t->too_deep);
        /* A thread inherits its creator's name: only a name it was given is one. */
        if (t->os_tid == (uint64_t)perflab__pid) {
            strcpy(row->name, "main"), row->has_name = 1;
            continue;
        }
        if (ended) memcpy(row->name, t->name, sizeof t->name);
        else {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/task/%llu/comm", (unsigned long long)t->os_tid);
            FILE *comm = fopen(path, "r");
            if (comm && fgets(row->name, sizeof row->name, comm)) row->name[strcspn(row->name, "\n")] = 0;
            if (comm) fclose(comm);
        }
        row->has_name = row->name[0] && strcmp(row->name, perflab__first_comm) != 0;
    }
    return 1;
}

static int perflab__compare_spans(const void *a, const void *b) {
    const perflab__span_row *x = (const perflab__span_row *)a, *y = (const perflab__span_row *)b;
    if ((x->calls > 0) != (y->calls > 0)) return x->calls > 0 ? -1 : 1;
    if (x->self_ns != y->self_ns) return x->self_ns > y->self_ns ? -1 : 1;
    return 0; /* names are compared by the caller's stable tie-break below */
}

static void perflab__sum_spans(perflab__report *r) {
    uint64_t *histogram = (uint64_t *)malloc(sizeof(uint64_t) * PERFLAB__BUCKETS);
    r->spans = (perflab__span_row *)calloc(r->n_sites + 1, sizeof *r->spans);
    r->counters = (perflab__counter_row *)calloc(r->n_sites + 1, sizeof *r->counters);
    r->gauges = (perflab__gauge_row *)calloc(r->n_sites + 1, sizeof *r->gauges);
    if (!histogram || !r->spans || !r->counters || !r->gauges) {
        free(histogram);
        return;
    }
    for (size_t g = 0; g < r->n_sites; g++) {
        if (r->group[g] != g) continue;
        int counter = r->sites[g]->kind == PERFLAB_KIND_COUNTER, gauge = r->sites[g]->kind == PERFLAB_KIND_GAUGE;
        perflab__span_row span;
        perflab__counter_row count;
        perflab__gauge_row level;
        uint64_t inclusive = 0, self = 0, recorded = 0;
        memset(&span, 0, sizeof span), memset(&count, 0, sizeof count), memset(&level, 0, sizeof level);
        memset(histogram, 0, sizeof(uint64_t) * PERFLAB__BUCKETS);
        span.first = count.first = level.first = g, span.min_ticks = UINT64_MAX;
        level.min = __builtin_inf(), level.max = -__builtin_inf();
        for (perflab_thread *t = __atomic_load_n(&perflab__threads, __ATOMIC_ACQUIRE); t; t = t->next) {
            int entered = 0;
            for (size_t k = g; k < r->n_sites; k++) {
                uint32_t index = PERFLAB__LOAD(r->sites[k]->index);
                if (r->group[k] != g || index == 0) continue;
                if (gauge) {
                    perflab__gauge_cell *cell = __atomic_load_n(&t->gauges[index], __ATOMIC_ACQUIRE);
                    uint64_t samples = cell ? PERFLAB__LOAD(cell->samples) : 0, last_ticks;
                    double sum, min, max, last;
                    if (samples == 0) continue;
                    PERFLAB__LOAD_DOUBLE(cell->sum, sum), PERFLAB__LOAD_DOUBLE(cell->min, min);
                    PERFLAB__LOAD_DOUBLE(cell->max, max), PERFLAB__LOAD_DOUBLE(cell->last, last);
                    last_ticks = PERFLAB__LOAD(cell->last_ticks);
                    level.samples += samples, level.sum += sum;
                    level.min = min < level.min ? min : level.min, level.max = max > level.max ? max : level.max;
                    if (last_ticks >= level.last_ticks) level.last_ticks = last_ticks, level.last = last;
                    continue;
                }
                if (counter) {
                    uint64_t events = PERFLAB__LOAD(t->counters[index].events);
                    count.events += events, count.total += PERFLAB__LOAD(t->counters[index].total);
                    entered |= events > 0;
                    continue;
                }
                perflab__slot *slot = __atomic_load_n(&t->slots[index], __ATOMIC_ACQUIRE);
                if (!slot) continue;
                uint64_t calls = PERFLAB__LOAD(slot->calls), pending = PERFLAB__LOAD(slot->pending_ticks);
                entered |= calls > 0;
                span.calls += calls, span.call_ticks += PERFLAB__LOAD(slot->call_ticks);
                inclusive += PERFLAB__LOAD(slot->inclusive_ticks), self += PERFLAB__LOAD(slot->self_ticks);
                if (PERFLAB__LOAD(slot->min_ticks) < span.min_ticks) span.min_ticks = PERFLAB__LOAD(slot->min_ticks);
                if (PERFLAB__LOAD(slot->max_ticks) > span.max_ticks) span.max_ticks = PERFLAB__LOAD(slot->max_ticks);
                span.unwound += PERFLAB__LOAD(slot->unwound);
                for (uint32_t b = 0; b < PERFLAB__BUCKETS; b++) recorded += PERFLAB__LOAD(slot->histogram[b]), histogram[b] += PERFLAB__LOAD(slot->histogram[b]);
                if (pending != PERFLAB__NO_PENDING) histogram[perflab__bucket(pending)] += 1, recorded += 1;
            }
            span.threads += (uint32_t)entered, count.threads += (uint32_t)entered;
        }
        if (counter) {
            r->counters[r->n_counters++] = count;
            continue;
        }
        if (gauge) {
            if (level.samples == 0) level.min = level.max = 0.0;
            else level.mean = level.sum / (double)level.samples;
            r->gauges[r->n_gauges++] = level;
            continue;
        }
        if (span.calls == 0) span.min_ticks = 0;
        span.inclusive_ns = perflab__ns(inclusive), span.self_ns = perflab__ns(self);
        span.min_ns = perflab__ns(span.min_ticks), span.max_ns = perflab__ns(span.max_ticks);
        span.mean_ns = span.calls ? (double)span.call_ticks / (double)span.calls * (perflab__timer_tsc ? perflab__ns_per_tick : 1.0) : 0.0;
        span.p50_ns = perflab__percentile(histogram, recorded, 500, &span);
        span.p95_ns = perflab__percentile(histogram, recorded, 950, &span);
        span.p99_ns = perflab__percentile(histogram, recorded, 990, &span);
        r->spans[r->n_spans++] = span;
    }
    free(histogram);
    /* Entered first, then by self time, then by name (insertion sort: stable, few rows). */
    for (size_t i = 1; i < r->n_spans; i++)
        for (size_t j = i; j > 0; j--) {
            perflab__span_row *a = &r->spans[j - 1], *b = &r->spans[j];
            int order = perflab__compare_spans(a, b);
            if (order == 0) order = strcmp(r->sites[a->first]->name, r->sites[b->first]->name);
            if (order <= 0) break;
            perflab__span_row swap = *a;
            *a = *b, *b = swap;
        }
}

static void perflab__thread_label(char *out, size_t size, const perflab__thread_row *t) {
    if (t->has_name) snprintf(out, size, "%s (#%llu)", t->name, (unsigned long long)t->id);
    else snprintf(out, size, "#%llu", (unsigned long long)t->id);
}

/* The warnings of crates/perflab/src/warnings.rs, plus three only C needs. */
static void perflab__find_warnings(perflab__report *r) {
    char label[64];
    double cost = r->span_cost_ns;
    uint64_t threads_wall = 0;
    if (!perflab__utf8_valid(r->program))
        perflab__warn(r, "invalid_utf8", r->program, perflab__format("the program's file name is not valid UTF-8; it is shown with replacement characters"));
    for (size_t i = 0; i < r->n_spans; i++) {
        const perflab__span_row *s = &r->spans[i];
        const perflab_site *site = r->sites[s->first];
        if (!perflab__utf8_valid(site->name) || !perflab__utf8_valid(site->file))
            perflab__warn(r, "invalid_utf8", site->name, perflab__format("the name or file of span `%s` is not valid UTF-8; it is shown with replacement characters", site->name));
        if (s->calls == 0) {
            perflab__warn(r, "never_entered", site->name, perflab__format("span `%s` (%s:%u) exists in the program but was never entered in this session; its phase took no time here or the code path did not run, check the workload", site->name, site->file, site->line));
            continue;
        }
        if (s->inclusive_ns == 0)
            perflab__warn(r, "zero_time", site->name, perflab__format("span `%s` (%s:%u) was entered %llu times but its total time is zero; the timer is too coarse for it, measure a larger unit of work", site->name, site->file, site->line, (unsigned long long)s->calls));
        if (cost > 0 && s->mean_ns < PERFLAB__NEAR_SPAN_COST_FACTOR * cost)
            perflab__warn(r, "near_span_cost", site->name, perflab__format("span `%s` (%s:%u) has a mean of %.1f ns, within %gx the %.1f ns one span costs: its figures are mostly probe cost; measure a larger unit of work", site->name, site->file, site->line, s->mean_ns, PERFLAB__NEAR_SPAN_COST_FACTOR, cost));
        if (s->unwound)
            perflab__warn(r, "unwound", site->name, perflab__format("an exception unwound through span `%s` (%s:%u) %llu times; those calls are included up to the throw", site->name, site->file, site->line, (unsigned long long)s->unwound));
    }
    for (size_t i = 0; i < r->n_threads; i++) {
        const perflab__thread_row *t = &r->threads[i];
        threads_wall += t->wall_ns;
        perflab__thread_label(label, sizeof label, t);
        if (t->has_name && !perflab__utf8_valid(t->name))
            perflab__warn(r, "invalid_utf8", label, perflab__format("the name of thread %s is not valid UTF-8; it is shown with replacement characters", label));
        if (t->unbalanced)
            perflab__warn(r, "unbalanced_spans", label, perflab__format("thread %s ended a span %llu times that was not the innermost open one (or had not begun); those ends were ignored and the spans around them may read too long: end spans in the reverse order of their begins", label, (unsigned long long)t->unbalanced));
        if (t->too_deep)
            perflab__warn(r, "too_deep", label, perflab__format("thread %s opened %llu spans nested more than %d deep; they were not recorded: put spans on fewer levels of a recursion", label, (unsigned long long)t->too_deep, PERFLAB_MAX_DEPTH));
        /* A thread that lived under 1% of the session is noise, not where time went. */
        if (t->wall_ns == 0 || t->wall_ns * 100 < r->wall_ns) continue;
        /* Span time beyond the thread's whole CPU time was certainly spent
         * off the CPU: a lower bound from the clocks every thread reads anyway. */
        uint64_t waited = t->attributed_ns > t->cpu_ns ? t->attributed_ns - t->cpu_ns : 0;
        if (t->has_cpu && t->attributed_ns > 0 && (double)waited >= PERFLAB__WAITING_SHARE * (double)t->attributed_ns)
        {
            char cause[256];
            double off_cpu = (double)(t->preempted_ns + t->blocked_ns);
            if (off_cpu < 1) off_cpu = 1;
            double preempted = (double)t->preempted_ns * 100.0 / off_cpu, blocked = (double)t->blocked_ns * 100.0 / off_cpu;
            if (!t->has_split)
                snprintf(cause, sizeof cause, "sleeping, blocked on I/O, a lock or a channel, or preempted; this system does not say which");
            else if (t->preempted_ns >= t->blocked_ns)
                snprintf(cause, sizeof cause, "mostly preempted: of the thread's %.3f ms off the CPU, %.0f%% it was ready to run and waited for a CPU other threads held, %.0f%% it was blocked", off_cpu / 1e6, preempted, blocked);
            else
                snprintf(cause, sizeof cause, "mostly blocked: of the thread's %.3f ms off the CPU, %.0f%% it was blocked (sleeping, waiting for I/O, a lock or a channel), %.0f%% it was ready to run and waited for a CPU", off_cpu / 1e6, blocked, preempted);
            perflab__warn(r, "mostly_waiting", label, perflab__format("at least %.0f%% of the %.3f ms inside spans on thread %s was spent off the CPU (%s): spans measure wall time, so their per-call figures include that waiting; if the waiting is not what you measure, move it out of the spans", (double)waited * 100.0 / (double)t->attributed_ns, (double)t->attributed_ns / 1e6, label, cause));
        }
        double share = (double)(t->wall_ns - t->attributed_ns) / (double)t->wall_ns;
        if (share > PERFLAB__UNATTRIBUTED_THRESHOLD)
            perflab__warn(r, "unattributed", label, perflab__format("%.1f%% of thread %s's %.3f ms is outside any top-level span (%.3f ms unattributed, threshold %.0f%%); wrap the remaining phases in spans before calling it overhead", share * 100, label, (double)t->wall_ns / 1e6, (double)(t->wall_ns - t->attributed_ns) / 1e6, PERFLAB__UNATTRIBUTED_THRESHOLD * 100));
    }
    if (threads_wall > 0 && (double)r->instrumentation_ns > PERFLAB__INSTRUMENTATION_COST_SHARE * (double)threads_wall)
        perflab__warn(r, "instrumentation_cost", "session", perflab__format("the probes themselves took an estimated %.3f ms (%.1f%% of the threads' wall time); remove spans from the hottest, shortest functions", (double)r->instrumentation_ns / 1e6, (double)r->instrumentation_ns * 100 / (double)threads_wall));
    for (size_t i = 0; i < r->n_counters; i++) {
        const perflab_site *site = r->sites[r->counters[i].first];
        if (!perflab__utf8_valid(site->name) || !perflab__utf8_valid(site->file))
            perflab__warn(r, "invalid_utf8", site->name, perflab__format("the name or file of counter `%s` is not valid UTF-8; it is shown with replacement characters", site->name));
        if (r->counters[i].events == 0)
            perflab__warn(r, "counter_never_incremented", site->name, perflab__format("counter `%s` (%s:%u) was never incremented in this session; if the event should have happened, check the workload or the counting code", site->name, site->file, site->line));
    }
    for (size_t i = 0; i < r->n_gauges; i++) {
        const perflab_site *site = r->sites[r->gauges[i].first];
        if (!perflab__utf8_valid(site->name) || !perflab__utf8_valid(site->file))
            perflab__warn(r, "invalid_utf8", site->name, perflab__format("the name or file of gauge `%s` is not valid UTF-8; it is shown with replacement characters", site->name));
        if (r->gauges[i].samples == 0)
            perflab__warn(r, "gauge_never_set", site->name, perflab__format("gauge `%s` (%s:%u) was never set in this session", site->name, site->file, site->line));
    }
    uint32_t dropped = PERFLAB__LOAD(perflab__dropped_sites);
    if (dropped)
        perflab__warn(r, "too_many_sites", "session", perflab__format("%u span, counter or gauge sites were not recorded: perflab.h keeps at most %d; remove probes from code that is not under investigation", dropped, PERFLAB_MAX_SITES - 1));
}

/* Further call sites of a merged record; instances of one site (a template's,
 * an inline function's) share file and line, and are listed once. */
static void perflab__json_also_at(FILE *f, const perflab__report *r, size_t first) {
    int any = 0;
    for (size_t k = first + 1; k < r->n_sites; k++) {
        size_t seen = first;
        while (seen < k && !(r->group[seen] == first && r->sites[seen]->line == r->sites[k]->line &&
                             strcmp(r->sites[seen]->file, r->sites[k]->file) == 0))
            seen++;
        if (r->group[k] != first || seen < k) continue;
        char *at = perflab__format("%s:%u", r->sites[k]->file, r->sites[k]->line);
        fputs(any ? ", " : ", \"also_at\": [", f);
        perflab__json_string(f, at ? at : "");
        free(at), any = 1;
    }
    if (any) fputc(']', f);
}

static void perflab__write_json(FILE *f, const perflab__report *r) {
    typedef unsigned long long ull;
    fputs("{\n  \"format\": \"perflab-profile/1\",\n  \"program\": ", f);
    perflab__json_string(f, r->program);
    fprintf(f, ",\n  \"pid\": %llu,\n  \"session\": {\"name\": ", (ull)perflab__pid);
    perflab__json_string(f, r->program);
    fprintf(f, ", \"scope\": \"process\", \"wall_ns\": %llu, \"cpu_ns\": ", (ull)r->wall_ns);
    if (r->has_cpu) fprintf(f, "%llu", (ull)r->cpu_ns);
    else fputs("null", f);
    fprintf(f, ", \"ended_by\": \"process_exit\", \"started_unix_ms\": %llu, \"unattributed_threshold\": ", (ull)perflab__start_unix_ms);
    perflab__json_decimal(f, PERFLAB__UNATTRIBUTED_THRESHOLD, 6);
    fprintf(f, "},\n  \"timer\": {\"name\": \"%s\", \"span_cost_ns\": ", perflab__timer_tsc ? "tsc" : "clock_monotonic");
    perflab__json_decimal(f, r->span_cost_ns, 3);
    fprintf(f, ", \"percentile_relative_error\": 0.015625, \"instrumentation_ns\": %llu},\n  \"spans\": [", (ull)r->instrumentation_ns);
    for (size_t i = 0; i < r->n_spans; i++) {
        const perflab__span_row *s = &r->spans[i];
        const perflab_site *site = r->sites[s->first];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        perflab__json_string(f, site->name);
        fprintf(f, ", \"kind\": \"%s\", \"file\": ", site->kind == PERFLAB_KIND_FUNCTION ? "function" : "span");
        perflab__json_string(f, site->file);
        fprintf(f, ", \"line\": %u", site->line);
        perflab__json_also_at(f, r, s->first);
        fprintf(f, ", \"calls\": %llu, \"inclusive_ns\": %llu, \"self_ns\": %llu, \"mean_ns\": ", (ull)s->calls, (ull)s->inclusive_ns, (ull)s->self_ns);
        perflab__json_decimal(f, s->mean_ns, 3);
        fprintf(f, ", \"min_ns\": %llu, \"p50_ns\": %llu, \"p95_ns\": %llu, \"p99_ns\": %llu, \"max_ns\": %llu, \"threads\": %u, \"unwound\": %llu}",
                (ull)s->min_ns, (ull)s->p50_ns, (ull)s->p95_ns, (ull)s->p99_ns, (ull)s->max_ns, s->threads, (ull)s->unwound);
    }
    fputs("\n  ],\n  \"threads\": [", f);
    for (size_t i = 0; i < r->n_threads; i++) {
        const perflab__thread_row *t = &r->threads[i];
        fprintf(f, "%s\n    {\"id\": %llu, \"name\": ", i ? "," : "", (ull)t->id);
        if (t->has_name) perflab__json_string(f, t->name);
        else fputs("null", f);
        fprintf(f, ", \"os_tid\": %llu, \"wall_ns\": %llu, \"cpu_ns\": ", (ull)t->os_tid, (ull)t->wall_ns);
        if (t->has_cpu) fprintf(f, "%llu", (ull)t->cpu_ns);
        else fputs("null", f);
        if (t->has_split) fprintf(f, ", \"preempted_ns\": %llu, \"blocked_ns\": %llu", (ull)t->preempted_ns, (ull)t->blocked_ns);
        else fputs(", \"preempted_ns\": null, \"blocked_ns\": null", f);
        fprintf(f, ", \"attributed_ns\": %llu, \"unattributed_ns\": %llu, \"ended\": %s}", (ull)t->attributed_ns,
                (ull)(t->wall_ns - t->attributed_ns), t->ended ? "true" : "false");
    }
    fputs("\n  ],\n  \"counters\": [", f);
    for (size_t i = 0; i < r->n_counters; i++) {
        const perflab__counter_row *c = &r->counters[i];
        const perflab_site *site = r->sites[c->first];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        perflab__json_string(f, site->name);
        fputs(", \"file\": ", f);
        perflab__json_string(f, site->file);
        fprintf(f, ", \"line\": %u", site->line);
        perflab__json_also_at(f, r, c->first);
        fprintf(f, ", \"events\": %llu, \"total\": %llu, \"threads\": %u}", (ull)c->events, (ull)c->total, c->threads);
    }
    fputs("\n  ],\n  \"gauges\": [", f);
    for (size_t i = 0; i < r->n_gauges; i++) {
        const perflab__gauge_row *g = &r->gauges[i];
        const perflab_site *site = r->sites[g->first];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        perflab__json_string(f, site->name);
        fputs(", \"file\": ", f);
        perflab__json_string(f, site->file);
        fprintf(f, ", \"line\": %u", site->line);
        perflab__json_also_at(f, r, g->first);
        fprintf(f, ", \"samples\": %llu, \"last\": ", (ull)g->samples);
        perflab__json_number(f, g->last);
        fputs(", \"min\": ", f);
        perflab__json_number(f, g->min);
        fputs(", \"max\": ", f);
        perflab__json_number(f, g->max);
        fputs(", \"mean\": ", f);
        perflab__json_number(f, g->mean);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"warnings\": [", f);
    for (size_t i = 0; i < r->n_warnings; i++) {
        fprintf(f, "%s\n    {\"kind\": \"%s\", \"subject\": ", i ? "," : "", r->warnings[i].kind);
        perflab__json_string(f, r->warnings[i].subject ? r->warnings[i].subject : "");
        fputs(", \"message\": ", f);
        perflab__json_string(f, r->warnings[i].message);
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
}

/* A regular (or new) file is written beside the target and renamed over it,
 * so a reader never sees half a profile; a pipe or device is written in place. */
/* Writes a document with `write` beside `path` and renames it over (in
 * place for a pipe or a device), so that a reader never sees half of one;
 * a failure is one message naming the path and the variable to fix. */
static void perflab__write_document(const char *path, const perflab__report *r, void (*write)(FILE *, const perflab__report *), const char *what, const char *variable) {
    struct stat info;
    int in_place = stat(path, &info) == 0 && !S_ISREG(info.st_mode), error = 0;
    const char *slash = strrchr(path, '/');
    char *temporary = in_place ? NULL
                               : perflab__format("%.*s.%s.%d.tmp", slash ? (int)(slash - path + 1) : 0, path,
                                                 slash ? slash + 1 : path, (int)perflab__pid);
    FILE *f = fopen(temporary ? temporary : path, "w");
    if (!f) error = errno ? errno : EIO;
    else {
        write(f, r);
        if (fflush(f) != 0 || ferror(f)) error = errno ? errno : EIO;
        if (!error && temporary && fsync(fileno(f)) != 0) error = errno;
        if (fclose(f) != 0 && !error) error = errno ? errno : EIO;
    }
    if (!error && temporary && rename(temporary, path) != 0) error = errno;
    if (error && temporary) remove(temporary);
    if (error)
        fprintf(stderr, "perflab: could not write the %s to %s: %s. The program's run and exit status are not affected; point %s at a writable file whose directory exists.\n", what, path, strerror(error), variable);
    free(temporary);
}

/* A tick count since the session's start in microseconds, with ns decimals. */
static double perflab__trace_us(uint64_t ticks) {
    return (double)perflab__ns(ticks > perflab__session_start_ticks ? ticks - perflab__session_start_ticks : 0) / 1e3;
}

typedef struct perflab__timed {
    uint64_t ticks, value;
    uint32_t site, kind;
} perflab__timed;

static int perflab__timed_order(const void *a, const void *b) {
    uint64_t x = ((const perflab__timed *)a)->ticks, y = ((const perflab__timed *)b)->ticks;
    return x < y ? -1 : x > y;
}

/* The timelines as a perflab-trace/1 document: the Chrome trace event
 * format's JSON object, as crates/perflab-format/src/trace.rs describes
 * and the Rust library writes. */
static void perflab__write_trace_json(FILE *f, const perflab__report *r) {
    typedef unsigned long long ull;
    uint32_t sites = __atomic_load_n(&perflab__next_index, __ATOMIC_RELAXED);
    const perflab_site **by_index = (const perflab_site **)calloc(sites + 1, sizeof *by_index);
    for (perflab_site *s = __atomic_load_n(&perflab__sites, __ATOMIC_ACQUIRE); s && by_index; s = s->next) {
        uint32_t index = PERFLAB__LOAD(s->index);
        if (index <= sites) by_index[index] = s;
    }
    uint64_t dropped = 0, timed_count = 0;
    for (perflab_thread *t = __atomic_load_n(&perflab__threads, __ATOMIC_ACQUIRE); t; t = t->next)
        if (t->trace) timed_count += __atomic_load_n(&t->trace->len, __ATOMIC_ACQUIRE);
    perflab__timed *timed = (perflab__timed *)malloc((timed_count + 1) * sizeof *timed);
    size_t n_timed = 0;
    fprintf(f, "{\"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": %d, \"tid\": 0, \"args\": {\"name\": ", (int)perflab__pid);
    perflab__json_string(f, r->program);
    fputs("}}", f);
    for (perflab_thread *t = __atomic_load_n(&perflab__threads, __ATOMIC_ACQUIRE); t; t = t->next) {
        if (!t->trace) continue;
        char label[64] = "";
        for (size_t i = 0; i < r->n_threads; i++)
            if (r->threads[i].id == t->id) perflab__thread_label(label, sizeof label, &r->threads[i]);
        fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": %d, \"tid\": %llu, \"args\": {\"name\": ", (int)perflab__pid, (ull)t->os_tid);
        perflab__json_string(f, label);
        fputs("}}", f);
        dropped += PERFLAB__LOAD(t->trace->dropped);
        uint64_t len = __atomic_load_n(&t->trace->len, __ATOMIC_ACQUIRE);
        for (uint64_t i = 0; i < len; i++) {
            const perflab__trace_event *e = &t->trace->events[i];
            const perflab_site *site = e->site <= sites && by_index ? by_index[e->site] : NULL;
            if (e->kind != PERFLAB__TRACE_SPAN) {
                if (timed && n_timed < timed_count) {
                    perflab__timed *x = &timed[n_timed++];
                    x->ticks = e->start, x->value = e->end, x->site = e->site, x->kind = e->kind;
                }
                continue;
            }
            fputs(",\n{\"name\": ", f);
            perflab__json_string(f, site ? site->name : "?");
            fprintf(f, ", \"cat\": \"span\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": %d, \"tid\": %llu}",
                    perflab__trace_us(e->start), (double)perflab__ns(e->end > e->start ? e->end - e->start : 0) / 1e3,
                    (int)perflab__pid, (ull)t->os_tid);
        }
    }
    /* Counters as the process's running totals and gauges as their values, in time order. */
    if (timed) qsort(timed, n_timed, sizeof *timed, perflab__timed_order);
    /* By name: sites of one name are one counter, as in the profile. */
    const char **total_names = (const char **)calloc(sites + 1, sizeof *total_names);
    uint64_t *totals = (uint64_t *)calloc(sites + 1, sizeof *totals);
    size_t n_totals = 0;
    for (size_t i = 0; i < n_timed && totals && total_names; i++) {
        const perflab__timed *x = &timed[i];
        const perflab_site *site = x->site <= sites && by_index ? by_index[x->site] : NULL;
        const char *name = site ? site->name : "?";
        fputs(",\n{\"name\": ", f);
        perflab__json_string(f, name);
        fprintf(f, ", \"cat\": \"%s\", \"ph\": \"C\", \"ts\": %.3f, \"pid\": %d, \"tid\": 0, \"args\": {",
                x->kind == PERFLAB__TRACE_COUNTER ? "counter" : "gauge", perflab__trace_us(x->ticks), (int)perflab__pid);
        perflab__json_string(f, name);
        if (x->kind == PERFLAB__TRACE_COUNTER) {
            size_t k = 0;
            while (k < n_totals && strcmp(total_names[k], name) != 0) k++;
            if (k == n_totals) total_names[n_totals++] = name;
            totals[k] += x->value;
            fprintf(f, ": %llu}}", (ull)totals[k]);
        } else {
            double value;
            memcpy(&value, &x->value, sizeof value);
            fprintf(f, ": %.17g}}", value);
        }
    }
    fprintf(f, "\n], \"displayTimeUnit\": \"ns\", \"otherData\": {\"format\": \"perflab-trace/1\", \"session\": ");
    perflab__json_string(f, r->program);
    fprintf(f, ", \"started_unix_ms\": %llu, \"events_per_thread\": %llu, \"dropped_events\": %llu}}\n",
            (ull)perflab__start_unix_ms, (ull)perflab__trace_capacity, (ull)dropped);
    if (dropped)
        fprintf(stderr, "perflab: the trace in %s is missing %llu events that did not fit in the threads' buffers (%llu events each); it holds the start of the run: set PERFLAB_TRACE_EVENTS higher to keep more\n",
                perflab__trace_path, (ull)dropped, (ull)perflab__trace_capacity);
    free(by_index), free(timed), free(totals), free(total_names);
}

/* Three significant digits and a unit, right-aligned to `width` columns (µ is two bytes, one column). */
static const char *perflab__duration(char *out, double ns, int width) {
    const char *unit = "ns";
    char text[24];
    if (ns >= 1e9) ns /= 1e9, unit = "s";
    else if (ns >= 1e6) ns /= 1e6, unit = "ms";
    else if (ns >= 1e3) ns /= 1e3, unit = "\xc2\xb5s";
    int length = snprintf(text, sizeof text, "%.*f %s", ns == 0 ? 0 : ns < 10 ? 2 : ns < 100 ? 1 : 0, ns, unit);
    int columns = length - (unit[0] == '\xc2');
    snprintf(out, 32, "%*s%s", columns < width ? width - columns : 0, "", text);
    return out;
}

/* A gauge value as the Rust table writes it: whole numbers as they are,
 * others with one decimal from 1000 up, else up to four. */
static const char *perflab__gauge_number(char *out, size_t size, double x) {
    double magnitude = x < 0 ? -x : x;
    if (magnitude < 1e15 && (double)(long long)x == x) snprintf(out, size, "%.0f", x);
    else if (magnitude >= 1000) snprintf(out, size, "%.1f", x);
    else {
        size_t n = (size_t)snprintf(out, size, "%.4f", x);
        while (n > 0 && out[n - 1] == '0') out[--n] = 0;
        if (n > 0 && out[n - 1] == '.') out[--n] = 0;
    }
    return out;
}

/* Characters, not bytes, so that names line up as in the Rust table. */
static int perflab__columns(const char *text) {
    int columns = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) columns += (*c & 0xC0) != 0x80;
    return columns;
}

/* The table PERFLAB_TABLE=1 asks for, written to stderr in one piece. */
static void perflab__print(const perflab__report *r) {
    char *text = NULL, a[32], b[32], c[32], d[32], e[32], g[32], label[64];
    size_t length = 0;
    int width = 4;
    FILE *f = open_memstream(&text, &length);
    if (!f) f = stderr;
    fprintf(f, "perflab: session `%s`, wall %s", r->program, perflab__duration(a, (double)r->wall_ns, 0));
    if (r->has_cpu) fprintf(f, ", process cpu %s", perflab__duration(a, (double)r->cpu_ns, 0));
    fprintf(f, "; timer %s, one span costs %s (measured at start-up)\n", perflab__timer_tsc ? "tsc" : "clock_monotonic",
            perflab__duration(b, r->span_cost_ns, 0));
    for (size_t i = 0; i < r->n_spans; i++) {
        int n = (int)strlen(r->sites[r->spans[i].first]->name);
        width = n > width ? (n < 48 ? n : 48) : width;
    }
    if (r->n_spans)
        fprintf(f, "%-*s  %-5s %9s %9s %9s %10s %9s %9s %9s %9s\n", width, "span", "kind", "calls", "self", "incl",
                "incl/wall*", "mean", "p50", "p95", "p99");
    for (size_t i = 0; i < r->n_spans; i++) {
        const perflab__span_row *s = &r->spans[i];
        const perflab_site *site = r->sites[s->first];
        if (s->calls == 0) {
            fprintf(f, "%-*.*s  never entered (%s:%u)\n", width, width, site->name, site->file, site->line);
            continue;
        }
        fprintf(f, "%-*.*s  %-5s %9llu %s %s %9.1f%% %s %s %s %s\n", width, width, site->name,
                site->kind == PERFLAB_KIND_FUNCTION ? "fn" : "span", (unsigned long long)s->calls,
                perflab__duration(a, (double)s->self_ns, 9), perflab__duration(b, (double)s->inclusive_ns, 9),
                (double)s->inclusive_ns * 100 / (double)(r->wall_ns ? r->wall_ns : 1), perflab__duration(c, s->mean_ns, 9),
                perflab__duration(d, (double)s->p50_ns, 9), perflab__duration(e, (double)s->p95_ns, 9),
                perflab__duration(g, (double)s->p99_ns, 9));
    }
    if (r->n_spans)
        fprintf(f, "* incl/wall: inclusive time over the session's wall time. Times of several threads add up, so it can exceed 100%%.\n"
                   "  self excludes spans entered inside; p50/p95/p99 are within 1.6%% (histogram), mean exact.\n");
    fprintf(f, "%-16s  %9s %9s %9s %9s %9s %12s\n", "thread", "wall", "cpu", "preempted", "blocked", "in spans", "unattributed");
    int unsplit = 0;
    for (size_t i = 0; i < r->n_threads; i++) {
        const perflab__thread_row *t = &r->threads[i];
        uint64_t rest = t->wall_ns - t->attributed_ns;
        char e[32], g[32];
        unsplit |= !t->has_split;
        perflab__thread_label(label, sizeof label, t);
        fprintf(f, "%-16s  %s %s %s %s %s %s %5.1f%%%s\n", label, perflab__duration(a, (double)t->wall_ns, 9),
                t->has_cpu ? perflab__duration(b, (double)t->cpu_ns, 9) : "        -",
                t->has_split ? perflab__duration(e, (double)t->preempted_ns, 9) : "        -",
                t->has_split ? perflab__duration(g, (double)t->blocked_ns, 9) : "        -",
                perflab__duration(c, (double)t->attributed_ns, 9), perflab__duration(d, (double)rest, 12),
                (double)rest * 100 / (double)(t->wall_ns ? t->wall_ns : 1), t->ended ? "  (ended)" : "");
    }
    if (r->n_threads) {
        fprintf(f, "* wall = cpu + preempted (ready to run, waiting for a CPU) + blocked (sleeping, I/O, locks, channels).\n");
        if (unsplit)
            fprintf(f, "  A `-` under preempted and blocked: the system keeps no scheduler statistics (/proc/thread-self/schedstat), so the waiting is not split.\n");
    }
    /* As wide as the longest name (in columns, as for gauges), like the Rust table. */
    width = 7;
    for (size_t i = 0; i < r->n_counters; i++) {
        int n = perflab__columns(r->sites[r->counters[i].first]->name);
        width = n > width ? n : width;
    }
    if (r->n_counters) fprintf(f, "%-*s  %12s %14s\n", width, "counter", "events", "total");
    for (size_t i = 0; i < r->n_counters; i++) {
        const char *name = r->sites[r->counters[i].first]->name;
        fprintf(f, "%s%*s  %12llu %14llu\n", name, width - perflab__columns(name), "",
                (unsigned long long)r->counters[i].events, (unsigned long long)r->counters[i].total);
    }
    width = 5;
    for (size_t i = 0; i < r->n_gauges; i++) {
        int n = perflab__columns(r->sites[r->gauges[i].first]->name);
        width = n > width ? n : width;
    }
    if (r->n_gauges) fprintf(f, "%-*s  %9s %11s %11s %11s %11s\n", width, "gauge", "samples", "last", "min", "mean", "max");
    for (size_t i = 0; i < r->n_gauges; i++) {
        const perflab__gauge_row *g = &r->gauges[i];
        const char *name = r->sites[g->first]->name;
        char last[352], min[352], mean[352], max[352];
        fprintf(f, "%s%*s  %9llu %11s %11s %11s %11s\n", name, width - perflab__columns(name), "",
                (unsigned long long)g->samples, perflab__gauge_number(last, sizeof last, g->last),
                perflab__gauge_number(min, sizeof min, g->min),
                perflab__gauge_number(mean, sizeof mean, g->mean),
                perflab__gauge_number(max, sizeof max, g->max));
    }
    if (r->n_warnings) fputs("warnings:\n", f);
    for (size_t i = 0; i < r->n_warnings; i++) fprintf(f, "  ! [%s] %s\n", r->warnings[i].kind, r->warnings[i].message);
    if (f != stderr) {
        fclose(f);
        fwrite(text, 1, length, stderr);
        free(text);
    }
}

static void perflab__read_program(char *out, size_t size) {
    FILE *f = fopen("/proc/self/cmdline", "r");
    char arg0[4096] = "";
    size_t n = f ? fread(arg0, 1, sizeof arg0 - 1, f) : 0;
    if (f) fclose(f);
    arg0[n] = 0;
    const char *slash = strrchr(arg0, '/'), *name = slash ? slash + 1 : arg0;
    snprintf(out, size, "%s", *name ? name : perflab__first_comm);
}

static void perflab__at_exit(void) {
    /* A forked child's exit is not the end of the session it inherited. */
    if (getpid() != perflab__pid || __atomic_exchange_n(&perflab__reported, 1, __ATOMIC_ACQ_REL)) return;
    uint64_t end_ticks = perflab__ticks(), pair_ticks = 0, pair_ns = 0, process_cpu = 0, own_cpu = 0;
    int has_own_cpu = perflab__clock_ns(CLOCK_THREAD_CPUTIME_ID, &own_cpu);
    perflab__report report;
    memset(&report, 0, sizeof report);
    report.has_cpu = perflab__has_process_cpu && perflab__clock_ns(CLOCK_PROCESS_CPUTIME_ID, &process_cpu);
    report.cpu_ns = report.has_cpu && process_cpu > perflab__start_process_cpu ? process_cpu - perflab__start_process_cpu : 0;
    if (perflab__timer_tsc) { /* ns per tick over the whole session: long, hence precise */
        perflab__clock_pair(&pair_ticks, &pair_ns);
        if (pair_ticks > perflab__pair_ticks && pair_ns > perflab__pair_ns)
            perflab__ns_per_tick = (double)(pair_ns - perflab__pair_ns) / (double)(pair_ticks - perflab__pair_ticks);
    }
    report.wall_ns = perflab__ns(end_ticks > perflab__session_start_ticks ? end_ticks - perflab__session_start_ticks : 0);
    report.span_cost_ns = (double)(uint64_t)(perflab__span_cost_ticks * (perflab__timer_tsc ? perflab__ns_per_tick : 1.0) * 1000 + 0.5) / 1000;
    perflab__read_program(report.program, sizeof report.program);
    if (perflab__collect_sites(&report) && perflab__collect_threads(&report, end_ticks, has_own_cpu, own_cpu)) {
        uint64_t calls = 0;
        perflab__sum_spans(&report);
        for (size_t i = 0; i < report.n_spans; i++) calls += report.spans[i].calls;
        report.instrumentation_ns = (uint64_t)((double)calls * report.span_cost_ns + 0.5);
        perflab__find_warnings(&report);
        if (perflab__profile_path) perflab__write_document(perflab__profile_path, &report, perflab__write_json, "profile", "PERFLAB_PROFILE");
        if (perflab__trace_path) perflab__write_document(perflab__trace_path, &report, perflab__write_trace_json, "trace", "PERFLAB_TRACE");
        if (perflab__print_table) perflab__print(&report);
    } else {
        fprintf(stderr, "perflab: out of memory at exit, so no profile was written%s%s\n",
                perflab__profile_path ? " to " : "", perflab__profile_path ? perflab__profile_path : "");
    }
    for (size_t i = 0; i < report.n_warnings; i++) free(report.warnings[i].subject), free(report.warnings[i].message);
    free(report.warnings), free(report.sites), free(report.group), free(report.spans), free(report.counters), free(report.gauges), free(report.threads);
}

#ifdef __cplusplus
}
#pragma GCC diagnostic pop
#endif
#endif /* PERFLAB_IMPLEMENTATION */
