#!/usr/bin/env python3
"""The best exact match an order-blind model can reach on ordo's copy task (docs/claims.md, C1).

The copy task (data/corpus.c, ordo_seq_example): n symbols drawn uniformly with replacement
from an alphabet of A (10 by default), <sep>, the same n symbols. Exact match is the
teacher-forced argmax over the whole answer (docs/experiments.md, P3). A model that sees no
order knows at best the multiset of answer symbols still to come (the input's minus the
answer's prefix); given that, the likeliest next symbol is one with the largest count. This
counts, over all A^n inputs, those where that guess is right at every step: an upper bound
for any order-blind predictor. Standard library only; exact, by enumeration.
  scripts/claims_bag_bound.py [A] [n ...]     (default: 10 and n = 1 2 3 4 5 6)
"""
import itertools
import sys
from collections import Counter

A = int(sys.argv[1]) if len(sys.argv) > 1 else 10
ns = [int(x) for x in sys.argv[2:]] or [1, 2, 3, 4, 5, 6]
for n in ns:
    hits = 0
    for seq in itertools.product(range(A), repeat=n):
        left = Counter(seq)
        for s in seq:
            top = max(left.values())
            guess = min(k for k, v in left.items() if v == top)  # ties: any fixed choice does as well
            if guess != s:
                break
            left[s] -= 1
            if not left[s]:
                del left[s]
        else:
            hits += 1
    print("A = %d, n = %d: best order-blind exact match %.4f (%d of %d inputs)" % (A, n, hits / A**n, hits, A**n))
