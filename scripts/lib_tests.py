#!/usr/bin/env python3
"""Runs the library's unit tests (the `dnnl` crate's lib test binary) in several
processes at once (run by scripts/test.sh).

    lib_tests.py <test binary> [--jobs N] [-- <filters passed to every process>]

Why: most of those tests' time is OpenCL kernel builds, and the library builds one
program at a time per process (Intel's CPU runtime has crashed inside its compiler
when two threads of one process built at once: src/runtime/ocl/program.rs). One
process therefore keeps one core busy whatever --test-threads says; N processes keep
N cores busy.

Each test runs in a process of its own (starting one costs well under a second),
handed to the next free slot; the longest single test bounds the tail. A passing
test prints one line (its time, and any SKIP lines it wrote); a failing one prints
its whole output. Exits 1 if any test failed (or a process crashed).
"""

import subprocess
import sys
import threading
import time


def main():
    args = sys.argv[1:]
    filters = []
    if "--" in args:
        filters = args[args.index("--") + 1:]
        args = args[: args.index("--")]
    jobs = 2
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = max(1, int(args[i + 1]))
        del args[i : i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    binary = args[0]

    listed = subprocess.run(
        [binary, "--list", "--format", "terse", *filters],
        check=True, capture_output=True, text=True,
    ).stdout
    names = [line[: -len(": test")] for line in listed.splitlines() if line.endswith(": test")]
    queue = list(names)
    print(f"lib_tests: {len(names)} tests, {jobs} processes at once", flush=True)

    lock = threading.Lock()
    failed = []
    started = time.monotonic()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                name = queue.pop(0)
            t0 = time.monotonic()
            run = subprocess.run(
                [binary, "--exact", name],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
            )
            took = time.monotonic() - t0
            passed = run.returncode == 0 and "test result: ok." in run.stdout
            ignored = "test result: ok. 0 passed" in run.stdout
            with lock:
                if passed:
                    print(f"{'ignored' if ignored else 'ok'} {took:6.1f} s  {name}")
                    for line in run.stdout.splitlines():
                        if line.startswith("SKIP"):
                            print(f"   {line}")
                else:
                    print(f"FAILED {took:6.1f} s  {name} (exit {run.returncode}):")
                    print(run.stdout, end="")
                    failed.append(name)
                sys.stdout.flush()

    threads = [threading.Thread(target=worker) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - started
    if failed:
        print(f"lib_tests: FAILED in {', '.join(failed)} ({took:.0f} s)", flush=True)
        sys.exit(1)
    print(f"lib_tests: all {len(names)} tests passed ({took:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
