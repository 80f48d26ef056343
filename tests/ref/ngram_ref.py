#!/usr/bin/env python3
"""An independent interpolated Witten-Bell n-gram and eval's windows, in plain Python, for
tests/eval/test_ngram_ref.c: writes fixtures/ngram_wb.json (deterministic; standard library only).

    /usr/bin/python3 tests/ref/ngram_ref.py      # rewrites tests/ref/fixtures/ngram_wb.json

The model (Chen and Goodman 1998, sec. 2.6), written from the formula, not from ordo's C:
    p_0(w) = 1/V
    p_k(w | h) = (c(h w) + D(h) p_{k-1}(w | h[1:])) / (c(h .) + D(h)),   c(h .) = sum_w c(h w)
    and p_k = p_{k-1} when c(h .) = 0.
The windows are evaluate.h's, from its description: nonoverlap windows at range(0, n - T, S);
sliding windows S apart, each scoring the targets no earlier window scored, the last one placed
at n - 1 - T. A target at window position t is scored with the min(t + 1, order - 1) tokens
before it.
"""
import json
import math
import os
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))

# Sonnet 18 (Shakespeare, 1609; public domain).
TEXT = """Shall I compare thee to a summer's day?
Thou art more lovely and more temperate:
Rough winds do shake the darling buds of May,
And summer's lease hath all too short a date;
Sometime too hot the eye of heaven shines,
And often is his gold complexion dimm'd;
And every fair from fair sometime declines,
By chance or nature's changing course untrimm'd;
But thy eternal summer shall not fade,
Nor lose possession of that fair thou ow'st;
Nor shall death brag thou wander'st in his shade,
When in eternal lines to time thou grow'st:
So long as men can breathe or eyes can see,
So long lives this, and this gives life to thee.
"""


class WittenBell:
    def __init__(self, train, V, N):
        self.V, self.N = V, N
        self.c = Counter()  # c[gram tuple], every length 1..N
        for k in range(1, N + 1):
            for i in range(len(train) - k + 1):
                self.c[tuple(train[i:i + k])] += 1
        self.follow = Counter()  # c(h .) for h of length 0..N-1
        self.kinds = defaultdict(set)  # the distinct w after h
        for g, n in self.c.items():
            self.follow[g[:-1]] += n
            self.kinds[g[:-1]].add(g[-1])

    def p(self, w, h):
        """p_{len(h)+1}(w | h), h a tuple of the tokens before w."""
        lower = 1.0 / self.V if len(h) == 0 else self.p(w, h[1:])
        total = self.follow[h]
        if total == 0:
            return lower
        d = len(self.kinds[h])
        return (self.c[h + (w,)] + d * lower) / (total + d)


def windows(n, T, mode, S):
    """(begin, from) of each window, as evaluate.h describes them."""
    if mode == "nonoverlap":
        return [(b, 0) for b in range(0, n - T, S)]
    out, done, b = [], 0, 0
    while True:
        b = min(b, n - 1 - T)
        out.append((b, max(done - b, 0)))
        done = b + T
        if done >= n - 1:
            return out
        b += S


def level(model, val, targets, T, mode, S):
    N = model.N
    sums, count = [0.0] * N, 0
    wins = windows(len(val), T, mode, S)
    for b, frm in wins:
        for t in range(frm, T):
            y = b + t + 1
            if targets is not None and targets[y] < 0:
                continue
            count += 1
            for order in range(1, N + 1):
                k = min(t + 1, order - 1)
                h = tuple(val[y - k:y]) if k else ()
                sums[order - 1] -= math.log(model.p(val[y], h))
    return {"context": T, "mode": mode, "stride": S, "targets": count, "windows": len(wins),
            "loss": [s / count for s in sums]}


def case(name, train, val, targets, V, N, plans):
    m = WittenBell(train, V, N)
    return {"name": name, "vocab": V, "order": N, "train": train, "val": val,
            "targets": targets, "levels": [level(m, val, targets, *p) for p in plans]}


def lcg_stream(n, V, seed):
    """A stream with some structure: each token mostly follows from the two before it."""
    out, x = [], seed
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        if i >= 2 and x % 4:
            out.append((out[-1] + 2 * out[-2] + 1) % (V - 1))
        else:
            out.append((x >> 8) % (V - 1))
    return out


def main():
    data = list(TEXT.encode())
    cut = len(data) * 4 // 5
    cases = [case("sonnet bytes", data[:cut], data[cut:], None, 256, 4,
                  [(16, "nonoverlap", 16), (16, "sliding", 4), (16, "sliding", 16),
                   (7, "sliding", 3), (50, "nonoverlap", 50)])]
    # a masked stream (every third target not scored) whose val holds an id the training
    # split never has (V - 1)
    train, val = lcg_stream(400, 7, 1), lcg_stream(60, 7, 2)
    val[10] = val[33] = 6
    targets = [v if i % 3 else -1 for i, v in enumerate(val)]
    cases.append(case("masked lcg", train, val, targets, 7, 4,
                      [(5, "nonoverlap", 5), (5, "sliding", 2), (5, "sliding", 1),
                       (1, "sliding", 1)]))
    path = os.path.join(HERE, "fixtures", "ngram_wb.json")
    with open(path, "w") as f:
        json.dump({"made_by": "tests/ref/ngram_ref.py", "cases": cases}, f, indent=0)
        f.write("\n")
    print(path)


if __name__ == "__main__":
    main()
