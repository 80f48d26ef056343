// A chunked bump arena for per-step memory (activations, saved buffers, activation
// grads, tape nodes). Chunks never move while in use; reset keeps them, so after the
// first step a training step allocates nothing from the system.
#ifndef ORDO_ARENA_H
#define ORDO_ARENA_H
#include <stddef.h>

#include "sys/error.h"

typedef struct ordo_arena_chunk ordo_arena_chunk;

typedef struct ordo_arena {
    ordo_arena_chunk *first, *cur;
    size_t chunk_size;    // minimum size of a new chunk
    size_t used;          // bytes handed out since the last reset
    size_t high_water;    // largest `used` seen
    size_t system_allocs; // chunks obtained from malloc, ever (for the no-malloc tests)
} ordo_arena;

// chunk_size 0 picks a default (64 MiB).
void ordo_arena_init(ordo_arena *a, size_t chunk_size);
// 64-byte aligned, uninitialised; never NULL (out of memory is fatal).
void *ordo_arena_alloc(ordo_arena *a, size_t bytes);
// Same, zero-filled.
void *ordo_arena_calloc(ordo_arena *a, size_t bytes);
// Makes sure that allocations of up to `bytes` in all, from now until the next reset and
// again after each reset, need nothing from the system: when the first chunk is smaller, every
// chunk is freed and one of `bytes` takes their place. Drops every allocation (call it where
// a reset would go). ORDO_ERR_NOMEM naming the size when the system refuses the chunk: the
// clean error for a request too large to run, where ordo_arena_alloc would abort mid-way.
ordo_status ordo_arena_reserve(ordo_arena *a, size_t bytes);
// Forgets every allocation and keeps every chunk: a step that allocates what the last
// one did takes nothing from the system.
void ordo_arena_reset(ordo_arena *a);
// A point in the arena's allocations, to go back to: ordo_arena_release(a, ordo_arena_mark(a))
// forgets what was allocated after the mark and keeps every chunk, as a reset does for all.
// What an inference forward uses to free each layer's buffers before the next (models/gpt.c).
typedef struct ordo_arena_pos {
    ordo_arena_chunk *cur;
    size_t cur_used, used;
} ordo_arena_pos;
ordo_arena_pos ordo_arena_mark(const ordo_arena *a);
// Back to mark m, taken since the last reset: later allocations are forgotten (their memory is
// handed out again), earlier ones stay valid.
void ordo_arena_release(ordo_arena *a, ordo_arena_pos m);
void ordo_arena_free(ordo_arena *a);

#endif
