#!/usr/bin/env python3
"""Runs a program under ONEDNN_VERBOSE=all and converts every `primitive,exec` line it
logs into a benchdnn line with upstream's verbose converter (the unmodified copy in
third_party/onednn-verbose-converter, Apache-2.0).

Each line must convert alone, with the converter logging no warning or error, into
exactly one benchdnn case for the driver of the line's primitive kind, that names a
problem (the last argument, not an option). Lines of several sources (concat, sum) must
name each source `src` and give one --stag tag per source (sum: one --sdt data type
each too), and concat's problem one dims entry per source, as upstream's lines do.
No data type or tag option may have an empty part (an operand the converter could not
find under the name it reads); convolution, deconvolution and inner product cases must
give --stag, --wtag and --dtag in every direction; concat and sum, whose destinations
the program leaves to the library, must give --dtag=any. Every kind named with --kinds
must appear.

  converter_check.py --converter DIR --kinds k1,k2,... [--break] -- PROGRAM ARGS...

--break changes one line the way a regression would (a concat line loses its second
source's dims) and exits 0 only when the check then fails: the check is shown able to
fail.
"""
import argparse
import logging
import os
import subprocess
import sys

DRIVERS = {
    "batch_normalization": "bnorm",
    "binary": "binary",
    "concat": "concat",
    "convolution": "conv",
    "deconvolution": "deconv",
    "eltwise": "eltwise",
    "group_normalization": "gnorm",
    "inner_product": "ip",
    "layer_normalization": "lnorm",
    "lrn": "lrn",
    "matmul": "matmul",
    "pooling": "pool",
    "prelu": "prelu",
    "reduction": "reduction",
    "reorder": "reorder",
    "resampling": "resampling",
    "shuffle": "shuffle",
    "softmax": "softmax",
    "sum": "sum",
}


class Collect(logging.Handler):
    """Keeps every record the converter logs."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def fields(line):
    """The comma-separated fields after `onednn_verbose,` (and the timestamp if any)."""
    parts = line.split(",")
    return parts


def exec_lines(output):
    return [l for l in output.splitlines() if l.startswith("onednn_verbose,") and ",primitive,exec," in l]


def kind_of(line):
    parts = line.split(",")
    i = parts.index("exec")
    return parts[i + 2]


def mds_of(line):
    parts = line.split(",")
    i = parts.index("exec")
    return parts[i + 5].split()


def problem_of(line):
    parts = line.split(",")
    return parts[-2]


def convert_one(converter, line):
    """(benchdnn cases by driver, logged records) for one verbose line."""
    from src.benchdnn_generator import InputGenerator  # type: ignore
    from src.dnnl_parser import LogParser  # type: ignore

    logger = logging.getLogger("converter_check")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    collect = Collect()
    logger.handlers = [collect]
    parser = LogParser(logger, [line])
    parser.process(["exec"])
    cases = InputGenerator(logger).generate(parser.get_data(), True)
    return cases, [r for r in collect.records if r.levelno >= logging.WARNING]


def check(converter, lines, kinds):
    problems = []
    seen = set()
    for line in lines:
        kind = kind_of(line)
        seen.add(kind)
        cases, logged = convert_one(converter, line)
        for r in logged:
            problems.append(f"converter {r.levelname.lower()}: {r.getMessage()}\n  line: {line}")
        driver = DRIVERS.get(kind)
        if driver is None:
            problems.append(f"no benchdnn driver known for kind '{kind}'\n  line: {line}")
            continue
        got = cases.get(driver, "").splitlines()
        if len(got) != 1 or set(cases) != {driver}:
            problems.append(f"expected one --{driver} case, got {cases!r}\n  line: {line}")
            continue
        case = got[0]
        last = case.split()[-1]
        if last.startswith("--"):
            problems.append(f"--{driver} case names no problem: {case}\n  line: {line}")
        opts = dict(a.split("=", 1) for a in case.split() if a.startswith("--") and "=" in a)
        # A data type or tag option with an empty part lost an operand's descriptor
        # (`--sdt=:f32`: the converter found no source under the name it reads).
        # Upstream leaves --stat_tag empty when there are no statistics.
        for opt, value in opts.items():
            if (opt.endswith("dt") or opt.endswith("tag")) and opt != "--stat_tag":
                if value == "" or "" in value.split(":"):
                    problems.append(f"{opt} has an empty part: {case}\n  line: {line}")
        if driver in ("conv", "deconv", "ip"):
            for opt in ("--stag", "--wtag", "--dtag"):
                if opt not in opts:
                    problems.append(f"{opt} missing: {case}\n  line: {line}")
        if kind in ("concat", "sum"):
            # The program leaves these destinations to the library: upstream flags
            # such a descriptor `a`, which the converter turns into --dtag=any.
            if opts.get("--dtag") != "any":
                problems.append(f"--dtag is not any: {case}\n  line: {line}")
            nsrc = sum(1 for md in mds_of(line) if not md.startswith("dst:"))
            # Concat's converter gives one --sdt for all sources; sum one each.
            for opt in ("--stag",) if kind == "concat" else ("--sdt", "--stag"):
                if len(opts.get(opt, "").split(":")) != nsrc:
                    problems.append(f"{opt} does not list {nsrc} sources: {case}\n  line: {line}")
            named = sum(1 for md in mds_of(line) if md.startswith("src:"))
            if named != nsrc:
                problems.append(f"{nsrc - named} source(s) not named 'src'\n  line: {line}")
            if kind == "concat" and len(problem_of(line).split(":")) != nsrc:
                problems.append(f"concat problem does not list {nsrc} sources' dims\n  line: {line}")
        print(f"ok --{driver} {case}")
    for kind in kinds:
        if kind not in seen:
            problems.append(f"no exec line of kind '{kind}'")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--converter", required=True)
    ap.add_argument("--kinds", default="")
    ap.add_argument("--break", dest="breaks", action="store_true")
    ap.add_argument("program", nargs="+")
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.converter))

    env = dict(os.environ, ONEDNN_VERBOSE="all")
    run = subprocess.run(args.program, env=env, capture_output=True, text=True, timeout=600)
    if run.returncode == 77:
        print(run.stdout + run.stderr)
        return 77
    if run.returncode != 0:
        print(run.stdout + run.stderr)
        print(f"FAIL: {args.program} exited {run.returncode}")
        return 1
    lines = exec_lines(run.stdout + "\n" + run.stderr)
    kinds = [k for k in args.kinds.split(",") if k]
    if args.breaks:
        concat = [i for i, l in enumerate(lines) if kind_of(l) == "concat"]
        if not concat:
            print("FAIL: no concat line to break")
            return 1
        parts = lines[concat[0]].split(",")
        dims = parts[-2].split(":")
        parts[-2] = ":".join(dims[:1] + dims[2:])
        lines[concat[0]] = ",".join(parts)
        print(f"broken on purpose: {lines[concat[0]]}")
    problems = check(args.converter, lines, kinds)
    for p in problems:
        print(f"FAIL: {p}")
    if args.breaks:
        if problems:
            print("the broken line was caught")
            return 0
        print("FAIL: the broken line was not caught")
        return 1
    if problems:
        return 1
    print(f"{len(lines)} exec lines converted into benchdnn cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
