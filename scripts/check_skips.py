#!/usr/bin/env python3
"""Lists every skip of a test run and fails on one that scripts/expected-skips.txt
does not expect (run by scripts/test.sh after cargo test and ctest).

    check_skips.py <expected-skips.txt> [--junit <ctest junit xml>] [--rust-log <file>]

A skip is a line a test printed: `SKIP: <reason>` from a C test (read from CTest's
JUnit output; a test that exits 77 counts too, and skips wholly), or
`SKIP <crate>::<test>: <reason>` from a Rust test (tests/skip/mod.rs appends these
to the file named by DNNL_TEST_SKIP_LOG). A C test that exits 77 without a SKIP
line is unexpected: nobody knows why it skipped.

Each line of the list is `<test> | <text> | <why>`: <test> is a CTest name, or
`rust:<crate>::<test>` for a Rust test, and may use shell wildcards; the skip must
print <text> (a substring of its reason); <why> is for the reader. Blank lines and
lines starting with `#` are comments.

Exit status: 0 when every skip is expected, 1 otherwise (or on a malformed list).
"""

import fnmatch
import sys
import xml.etree.ElementTree as ET


def read_list(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3 or not all(parts):
                sys.exit(f"{path}:{n}: expected `<test> | <text> | <why>`, got: {line}")
            entries.append({"test": parts[0], "text": parts[1], "why": parts[2], "line": n, "hits": 0})
    return entries


def c_skips(junit):
    """(test, reason) for every SKIP line, and (test, None) for a silent exit 77."""
    found = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        out = case.findtext("system-out") or ""
        reasons = [line[len("SKIP:"):].strip() for line in out.splitlines() if line.startswith("SKIP:")]
        found += [(name, r) for r in reasons]
        if case.find("skipped") is not None and not reasons:
            found.append((name, None))
    return found


def rust_skips(log):
    found = []
    with open(log, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.startswith("SKIP "):
                continue
            test, _, reason = line[len("SKIP "):].partition(": ")
            found.append(("rust:" + test, reason))
    return found


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    entries = read_list(argv[1])
    skips = []
    args = argv[2:]
    while args:
        opt, value = args[0], args[1] if len(args) > 1 else None
        if value is None:
            sys.exit(f"{opt} needs a value")
        if opt == "--junit":
            skips += c_skips(value)
        elif opt == "--rust-log":
            try:
                skips += rust_skips(value)
            except FileNotFoundError:
                pass  # no Rust test skipped
        else:
            sys.exit(f"unknown option {opt}")
        args = args[2:]

    unexpected = 0
    for test, reason in skips:
        match = None
        if reason is not None:
            for e in entries:
                if fnmatch.fnmatchcase(test, e["test"]) and e["text"] in reason:
                    match = e
                    break
        if match:
            match["hits"] += 1
            print(f"  skipped {test}: {reason}")
        else:
            unexpected += 1
            shown = reason if reason is not None else "(exited 77 without a SKIP: line)"
            print(f"  UNEXPECTED skip {test}: {shown}")
    for e in entries:
        if e["hits"] == 0:
            print(f"  note: expected skip did not happen (list line {e['line']}): {e['test']} | {e['text']}")
    print(f"skips: {len(skips)}, expected {len(skips) - unexpected}, unexpected {unexpected}")
    if unexpected:
        print(f"an unexpected skip fails the run: fix the cause, or add it to {argv[1]} with the reason")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
