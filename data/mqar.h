// Multi-query associative recall, MQAR (Arora et al. 2023, "Zoology: Measuring and Improving
// Recall in Efficient Language Models"), laid out as the generator of their repository
// (zoology/data/multiquery_ar.py) lays it out. An example of len tokens over ids 0..V-1 is
//
//   k1 v1 k2 v2 .. kD vD | q v q v ..      (D pairs, then (len - 2D) / 2 slots of two tokens)
//
// with D distinct keys from 1..V/2-1 and D distinct values from V/2..V-1; each key is asked once,
// in a slot drawn without replacement with weight (g+1)^(a-1) for slot g (their power law,
// a = 0.01: early slots are likelier, so most queries sit near the pairs), the slot's first
// token the key and its second the key's value. Every other token of the slots is uniform in
// 0..V-1 (their random_non_queries). Only the values after the queries are targets.
//
// One difference: their inputs hold noise after a query and the value only as a label; ordo's
// stream is its own targets, so the value follows its key in the input, as in the paper's
// own picture of the task ("A 4 B 3 C 6 F 1 E 2 -> A ? C ? F ? E ? B ?"). A later query asks
// another key, so the value seen gives nothing away.
#ifndef ORDO_MQAR_H
#define ORDO_MQAR_H
#include <stdint.h>

#include "framework/rng.h"
#include "sys/error.h"

#define ORDO_MQAR_DEFAULT_VOCAB 256 // zoology's basic example; the paper's sweeps use 8192
#define ORDO_MQAR_DEFAULT_PAIRS 4   // the paper's pairs at length 64
#define ORDO_MQAR_DEFAULT_POWER 0.01
#define ORDO_MQAR_MAX_VOCAB     8192

typedef struct ordo_mqar {
    int vocab;      // V: keys 1..V/2-1, values V/2..V-1
    double power_a; // a of the slots' power law (1: uniform)
} ordo_mqar;

// Whether (len, pairs) is an example m can make: 1 <= pairs <= V/2 - 1 and 4 * pairs <= len
// (zoology's bound: the pairs and a slot per pair); ORDO_ERR_ARG naming the values otherwise.
ordo_status ordo_mqar_check(const ordo_mqar *m, int len, int pairs);

// One example of exactly len tokens with `pairs` pairs (an integer, as a double to fit
// ordo_answers_example), drawn from r, into out[len] and mask[len] (1 at the answers).
// task is an ordo_mqar. Errors: ordo_mqar_check's.
ordo_status ordo_mqar_example(const void *task, int len, double pairs, ordo_rng *r, int32_t *out,
                              uint8_t *mask);

#endif
