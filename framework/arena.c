// Bump allocation over a list of chunks. No per-object free: everything goes at reset.
// Deliberately no thread safety: one arena belongs to one training context.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "framework/arena.h"
#include "sys/error.h"

#define ALIGN         64
#define DEFAULT_CHUNK ((size_t)64 << 20)

struct ordo_arena_chunk {
    ordo_arena_chunk *next;
    size_t cap, used;
    char *data;
};

// NULL when the system refuses the memory.
static ordo_arena_chunk *chunk_try(ordo_arena *a, size_t cap) {
    if (cap > SIZE_MAX - ALIGN) return NULL;
    void *data = aligned_alloc(ALIGN, (cap + ALIGN - 1) / ALIGN * ALIGN);
    if (!data) return NULL;
    ordo_arena_chunk *c = ordo_xcalloc(1, sizeof *c);
    c->cap = cap;
    c->data = data;
    a->system_allocs++;
    return c;
}

static ordo_arena_chunk *chunk_new(ordo_arena *a, size_t cap) {
    ordo_arena_chunk *c = chunk_try(a, cap);
    if (!c) ordo_panic(__FILE__, __LINE__, "arena: out of memory");
    return c;
}

static void chunks_free(ordo_arena_chunk *c) {
    while (c) {
        ordo_arena_chunk *n = c->next;
        free(c->data);
        free(c);
        c = n;
    }
}

void ordo_arena_init(ordo_arena *a, size_t chunk_size) {
    memset(a, 0, sizeof *a);
    a->chunk_size = chunk_size ? chunk_size : DEFAULT_CHUNK;
}

void *ordo_arena_alloc(ordo_arena *a, size_t bytes) {
    size_t need = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    if (need == 0) need = ALIGN;
    for (;;) {
        ordo_arena_chunk *c = a->cur;
        if (c && c->cap - c->used >= need) {
            void *p = c->data + c->used;
            c->used += need;
            a->used += need;
            if (a->used > a->high_water) a->high_water = a->used;
            return p;
        }
        if (c && c->next) { // a later chunk kept from an earlier step
            a->cur = c->next;
            a->cur->used = 0;
            continue;
        }
        size_t cap = need > a->chunk_size ? need : a->chunk_size;
        ordo_arena_chunk *n = chunk_new(a, cap);
        if (c)
            c->next = n;
        else
            a->first = n;
        a->cur = n;
    }
}

void *ordo_arena_calloc(ordo_arena *a, size_t bytes) {
    return memset(ordo_arena_alloc(a, bytes), 0, bytes);
}

ordo_status ordo_arena_reserve(ordo_arena *a, size_t bytes) {
    ordo_arena_reset(a);
    if (a->first && a->first->cap >= bytes) return ORDO_OK;
    chunks_free(a->first); // first, so that their memory can serve the new chunk
    a->first = a->cur = chunk_try(a, bytes);
    if (a->first) return ORDO_OK;
    return ordo_error(ORDO_ERR_NOMEM, "cannot allocate %.2f GiB for activations: %s",
                      (double)bytes / (1 << 30), strerror(ENOMEM));
}

void ordo_arena_reset(ordo_arena *a) {
    // The chunks are kept as they are, not merged into one of the high-water size: a
    // step makes the same allocations in the same order, so it fits the chunks the first
    // step made. Merging freed them and touched a new block as large as all of them; when
    // malloc cannot give the freed space back (MALLOC_MMAP_MAX_=0, as PyTorch users run),
    // peak RSS held both (small model: 1769 MB instead of about 1000).
    if (a->first) a->first->used = 0;
    a->cur = a->first;
    a->used = 0;
}

ordo_arena_pos ordo_arena_mark(const ordo_arena *a) {
    return (ordo_arena_pos){.cur = a->cur, .cur_used = a->cur ? a->cur->used : 0, .used = a->used};
}

void ordo_arena_release(ordo_arena *a, ordo_arena_pos m) {
    ORDO_ASSERT(m.used <= a->used);
    if (!m.cur) { // marked before the first allocation since the reset
        ordo_arena_reset(a);
        return;
    }
    // chunks after m.cur are taken up again from their start (ordo_arena_alloc zeroes a
    // chunk's use when it moves on to it)
    a->cur = m.cur;
    a->cur->used = m.cur_used;
    a->used = m.used;
}

void ordo_arena_free(ordo_arena *a) {
    chunks_free(a->first);
    memset(a, 0, sizeof *a);
}
