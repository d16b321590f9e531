/* wordfreq: count word frequencies in generated text and print the most
 * frequent, instrumented with include/perflab.h.
 *
 * Phases: `vocabulary` makes 50,000 distinct words, `generate` builds
 * WORDFREQ_WORDS words (default 2,000,000) from them, `count` puts them in an open-addressing hash table,
 * `top` sorts the distinct words by count, and the ten most frequent are
 * printed. The counter `probe_steps` counts how many slots the table looked
 * at beyond the first, and the gauge `table_fill` is the share of slots in
 * use, sampled every 65,536 words and at the end of `count`.
 *
 * WORDFREQ_TABLE=small halves the table (2^16 slots instead of 2^17), so
 * that it is 70% full instead of 35%: linear probing then looks at more
 * slots per word, `count` slows down and `probe_steps` rises, while `top`
 * scans fewer slots and `generate` does not change. perflab.toml compares
 * the two.
 */
#define PERFLAB_IMPLEMENTATION
#include "perflab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCABULARY 50000

typedef struct entry {
    const char *word; /* NULL: empty slot */
    unsigned long count;
} entry;

static uint32_t fnv1a(const char *word) {
    uint32_t hash = 2166136261u;
    for (; *word; word++) hash = (hash ^ (unsigned char)*word) * 16777619u;
    return hash;
}

/* xorshift64*: the same text on every run, so runs differ only by the code. */
static uint64_t next_random(uint64_t *state) {
    *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
    return *state * 2685821657736338717ull;
}

/* Words of two to four syllables, for example "kelotari". */
static char **make_vocabulary(void) {
    PERFLAB_SCOPE("vocabulary");
    static const char *syllables[] = {"ka", "lo", "ta", "ri", "mensu", "ve", "dor", "qui", "sa", "bel",
                                      "no", "tix", "ar", "pe", "ul", "gro", "fi", "zen", "ho", "ma"};
    uint64_t state = 42;
    char **words = malloc(VOCABULARY * sizeof *words);
    for (int i = 0; i < VOCABULARY; i++) {
        char word[32] = "";
        int parts = 2 + (int)(next_random(&state) % 3);
        for (int p = 0; p < parts; p++) strcat(word, syllables[next_random(&state) % 20]);
        snprintf(word + strlen(word), sizeof word - strlen(word), "%d", i % 97); /* keep them distinct */
        words[i] = strdup(word);
    }
    return words;
}

static const char **generate(char **vocabulary, size_t count) {
    PERFLAB_SCOPE("generate");
    const char **text = malloc(count * sizeof *text);
    uint64_t state = 7;
    for (size_t i = 0; i < count; i++) {
        /* Skewed towards the start of the vocabulary, like real text. */
        uint64_t a = next_random(&state) % VOCABULARY, b = next_random(&state) % VOCABULARY;
        text[i] = vocabulary[a < b ? a : b];
    }
    return text;
}

/* `slots` is a power of two. */
static entry *count_words(const char **text, size_t count, uint32_t slots) {
    PERFLAB_SCOPE("count");
    entry *table = calloc(slots, sizeof *table);
    unsigned long steps = 0, used = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t slot = fnv1a(text[i]) & (slots - 1);
        while (table[slot].word && strcmp(table[slot].word, text[i]) != 0) {
            slot = (slot + 1) & (slots - 1);
            steps++;
        }
        used += table[slot].word == NULL;
        table[slot].word = text[i];
        table[slot].count++;
        /* Probe lengths grow with the fill level, so its course explains `probe_steps`. */
        if ((i & 0xFFFF) == 0xFFFF) PERFLAB_GAUGE("table_fill", (double)used / slots);
    }
    PERFLAB_COUNT("probe_steps", steps);
    PERFLAB_GAUGE("table_fill", (double)used / slots);
    return table;
}

static int by_count(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->word, y->word);
}

static size_t top(entry *table, uint32_t slots) {
    PERFLAB_SCOPE("top");
    size_t distinct = 0;
    for (size_t i = 0; i < slots; i++)
        if (table[i].word) table[distinct++] = table[i];
    qsort(table, distinct, sizeof *table, by_count);
    return distinct;
}

int main(void) {
    const char *words = getenv("WORDFREQ_WORDS"), *table_size = getenv("WORDFREQ_TABLE");
    size_t count = words ? strtoul(words, NULL, 10) : 2000000;
    uint32_t slots = table_size && strcmp(table_size, "small") == 0 ? 1u << 16 : 1u << 17;
    char **vocabulary = make_vocabulary();
    const char **text = generate(vocabulary, count);
    entry *table = count_words(text, count, slots);
    size_t distinct = top(table, slots);
    printf("%zu words, %zu distinct; most frequent:\n", count, distinct);
    for (size_t i = 0; i < 10 && i < distinct; i++) printf("  %-16s %lu\n", table[i].word, table[i].count);
    return 0;
}
