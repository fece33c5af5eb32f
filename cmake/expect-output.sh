#!/bin/sh
# Runs a program and checks its exit status and what it prints. Used by
# dnnl_c_test(... EXPECT_EXIT <code> EXPECT_OUTPUT <regex>...) in DnnlCTest.cmake.
#
#   expect-output.sh <exit code> <extended regex>... -- <program> [args...]
#
# The program's output is shown indented ("| "), then each regex (grep -E) must match
# a line of it and the status must be <exit code>. When the program exits 77 but 77 was
# not expected, its SKIP: lines are repeated unindented and this exits 77 too: a skip
# stays a skip, with its reason (scripts/check_skips.py reads SKIP: lines at the start
# of a line, so an expected skip, shown indented, is not counted as one).
set -u
want=$1
shift
regexes=
n=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    n=$((n + 1))
    eval "re_$n=\$1"
    shift
done
[ "${1-}" = "--" ] || { echo "expect-output.sh: no -- before the program" >&2; exit 2; }
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/| /'
if [ "$rc" -eq 77 ] && [ "$want" -ne 77 ]; then
    printf '%s\n' "$out" | grep '^SKIP:'
    exit 77
fi
bad=0
if [ "$rc" -ne "$want" ]; then
    echo "expect-output.sh: exit status $rc, expected $want"
    bad=1
fi
i=1
while [ $i -le $n ]; do
    eval "re=\$re_$i"
    if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
        echo "expect-output.sh: no line matches: $re"
        bad=1
    fi
    i=$((i + 1))
done
exit $bad
