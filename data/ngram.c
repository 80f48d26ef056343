// Interpolated Witten-Bell n-grams (see ngram.h): a counting pass per gram length into its own
// open-addressing table, then a pass over each table that adds every gram's count to its
// prefix's c(h .) and D(h). Scoring walks from the unigram up the target's context and stops
// at the first context that was never followed by anything (a longer one cannot have been
// either).
#include "data/ngram.h"

#include <stdlib.h>
#include <string.h>

#include "sys/hash.h"

static uint64_t gram_hash(const int32_t *g, int k) {
    return ordo_hash64(g, (size_t)k * sizeof *g);
}

static void table_alloc(ordo_ngram_table *t, int k, size_t cap) {
    *t = (ordo_ngram_table){.k = k, .cap = cap};
    t->keys = ordo_xmalloc(cap * (size_t)k * sizeof *t->keys);
    t->count = ordo_xcalloc(cap, sizeof *t->count);
    t->total = ordo_xcalloc(cap, sizeof *t->total);
    t->distinct = ordo_xcalloc(cap, sizeof *t->distinct);
}

static void table_free(ordo_ngram_table *t) {
    free(t->keys);
    free(t->count);
    free(t->total);
    free(t->distinct);
    memset(t, 0, sizeof *t);
}

// The slot of gram g[0..k) in t: where it is, or the empty slot where it would go.
static size_t table_slot(const ordo_ngram_table *t, const int32_t *g) {
    size_t mask = t->cap - 1, i = (size_t)gram_hash(g, t->k) & mask;
    while (t->count[i] && memcmp(t->keys + i * (size_t)t->k, g, (size_t)t->k * sizeof *g) != 0)
        i = (i + 1) & mask;
    return i;
}

// Doubles t's slots once it is half full (counts only: totals are filled after the counts).
static void table_grow(ordo_ngram_table *t) {
    ordo_ngram_table big;
    table_alloc(&big, t->k, t->cap * 2);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->count[i]) continue;
        size_t j = table_slot(&big, t->keys + i * (size_t)t->k);
        memcpy(big.keys + j * (size_t)t->k, t->keys + i * (size_t)t->k,
               (size_t)t->k * sizeof *t->keys);
        big.count[j] = t->count[i];
    }
    big.used = t->used;
    table_free(t);
    *t = big;
}

static void table_add(ordo_ngram_table *t, const int32_t *g) {
    size_t i = table_slot(t, g);
    if (!t->count[i]) {
        memcpy(t->keys + i * (size_t)t->k, g, (size_t)t->k * sizeof *g);
        if (2 * ++t->used > t->cap) {
            t->count[i] = 1;
            table_grow(t);
            return;
        }
    }
    t->count[i]++;
}

// The slot of g in t, or -1 when g was never counted.
static long table_find(const ordo_ngram_table *t, const int32_t *g) {
    size_t i = table_slot(t, g);
    return t->count[i] ? (long)i : -1;
}

ordo_status ordo_ngram_fit(ordo_ngram *m, const int32_t *ids, size_t n, int V, int N) {
    memset(m, 0, sizeof *m);
    if (N < 1 || N > ORDO_NGRAM_MAX_ORDER)
        return ordo_error(ORDO_ERR_ARG, "n-gram order %d, expected 1..%d", N, ORDO_NGRAM_MAX_ORDER);
    if (V < 1) return ordo_error(ORDO_ERR_ARG, "n-gram vocab %d, expected >= 1", V);
    if (n == 0) return ordo_error(ORDO_ERR_ARG, "n-gram fit: the training stream is empty");
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V)
            return ordo_error(ORDO_ERR_ARG, "n-gram fit: token %zu is id %d, expected 0..%d", i,
                              ids[i], V - 1);
    m->order = N, m->vocab = V;
    for (int k = 1; k <= N; k++) {
        ordo_ngram_table *t = &m->t[k - 1];
        table_alloc(t, k, 1024);
        for (size_t i = 0; i + (size_t)k <= n; i++) table_add(t, ids + i);
    }
    m->total0 = n;
    for (size_t i = 0; i < m->t[0].cap; i++) m->distinct0 += m->t[0].count[i] > 0;
    // each gram h w of length k adds to its prefix h (length k-1, counted: it occurs where h w
    // does): c(h .) += c(h w), D(h) += 1
    for (int k = 2; k <= N; k++) {
        const ordo_ngram_table *t = &m->t[k - 1];
        ordo_ngram_table *pre = &m->t[k - 2];
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->count[i]) continue;
            long j = table_find(pre, t->keys + i * (size_t)k);
            ORDO_ASSERT(j >= 0);
            pre->total[j] += t->count[i];
            pre->distinct[j]++;
        }
    }
    return ORDO_OK;
}

void ordo_ngram_free(ordo_ngram *m) {
    for (int k = 0; k < ORDO_NGRAM_MAX_ORDER; k++) table_free(&m->t[k]);
    memset(m, 0, sizeof *m);
}

void ordo_ngram_probs(const ordo_ngram *m, const int32_t *seq, int k, double *p) {
    int N = m->order;
    const int32_t *w = seq + k;
    long u = table_find(&m->t[0], w);
    double q = 1.0 / m->vocab;
    q = ((u >= 0 ? (double)m->t[0].count[u] : 0) + m->distinct0 * q) /
        ((double)m->total0 + m->distinct0);
    p[0] = q;
    int j = 1;
    for (; j < N && j <= k; j++) { // p_{j+1}: the context of the j tokens before w
        const ordo_ngram_table *ht = &m->t[j - 1];
        long h = table_find(ht, w - j);
        if (h < 0 || ht->total[h] == 0) break;
        long g = table_find(&m->t[j], w - j);
        double c = g >= 0 ? (double)m->t[j].count[g] : 0;
        q = (c + ht->distinct[h] * q) / ((double)ht->total[h] + ht->distinct[h]);
        p[j] = q;
    }
    for (; j < N; j++) p[j] = q;
}
