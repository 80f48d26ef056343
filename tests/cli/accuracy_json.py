#!/usr/bin/env python3
"""The accuracy record of `ordo eval` (docs/guide.md, "Scoring a run"), checked the same way
for every answers task by test_recall_tasks_cli.sh and test_context_tasks_cli.sh.

  accuracy_json.py check FILE TASK [KEY=JSON ...]
      the record is TASK's, each KEY holds the JSON value given, and every row has a cell
      per column in [0, 1] (or null, a cell the length cannot hold) whose mean is the row's
      accuracy; for copy/reverse/add, each row's exact match is in [0, 1].
  accuracy_json.py same A B
      the two files hold the same accuracy record (eval --json against the saved eval.json).
Exits 1 naming what differs."""
import json
import sys

# the grid tasks: the per-row cells and the columns they are scored at
GRIDS = {
    "mqar": ("by_pairs", "pairs"),
    "flipflop": ("by_p_ignore", "p_ignore"),
    "selective-copy": ("by_tokens", "tokens"),
    "count": ("by_vars", "vars"),
}


def record(path):
    with open(path) as f:
        return json.load(f)["accuracy"]


def check(path, task, pairs):
    a = record(path)
    assert a["task"] == task, f"{path}: task {a['task']!r}, expected {task!r}"
    for kv in pairs:
        key, want = kv.split("=", 1)
        got = a.get(key)
        if task not in GRIDS and key in ("n", "examples"):  # copy/reverse/add: a value per row
            got = [r[key] for r in a["by_length"]]
            if key == "examples" and len(set(got)) == 1:
                got = got[0]
        assert got == json.loads(want), f"{path}: {key} is {got!r}, expected {want}"
    if task not in GRIDS:
        for r in a["by_length"]:
            assert 0 <= r["exact_match"] <= 1, f"{path}: {r}"
        return
    key, cols = GRIDS[task]
    for r in a["by_length"]:
        cells = [x for x in r[key] if x is not None]
        assert len(r[key]) == len(a[cols]), f"{path}: {len(r[key])} cells, {len(a[cols])} columns"
        assert all(0 <= x <= 1 for x in cells), f"{path}: {r}"
        if cells:
            assert abs(r["accuracy"] - sum(cells) / len(cells)) < 1e-9, f"{path}: mean of {r}"


def main(argv):
    try:
        if argv[1] == "check":
            check(argv[2], argv[3], argv[4:])
        elif argv[1] == "same":
            a, b = (json.dumps(record(p), sort_keys=True) for p in argv[2:4])
            assert a == b, f"{argv[2]} and {argv[3]} hold different accuracy records"
        else:
            raise SystemExit(__doc__)
    except (AssertionError, KeyError, ValueError, OSError) as e:
        print(f"accuracy_json.py: {e!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
