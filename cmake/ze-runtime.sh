#!/bin/sh
# Runs a Level Zero test program, or skips it (exit 77) with the reason when something
# it needs is not installed. Used by dnnl_ze_test() in DnnlCTest.cmake, which sets
# ZE_ENABLE_ALT_DRIVERS (our driver) and OCL_ICD_VENDORS (Intel's CPU runtime only).
#
#   ze-runtime.sh <loader> <driver> <intel-icd-file> <validation-layer or none> <program> [args...]
#
# Skips when: the loader library is missing; the validation layer (when one is named)
# cannot be found by the dynamic linker; Intel's OpenCL .icd file or the library it
# names is missing. A missing driver is a failure, not a skip: it is built with the
# library, so its absence is a build problem.
set -u
loader=$1 driver=$2 icd=$3 layer=$4
shift 4

skip() {
    echo "SKIP: $1"
    exit 77
}

[ -e "$loader" ] || skip "the Level Zero loader $loader is not installed (apt-get install libze1 libze-dev)"
if [ "$layer" != none ]; then
    found=$(ldconfig -p 2>/dev/null | grep -F "$layer" || true)
    [ -n "$found" ] || skip "the Level Zero validation layer $layer is not installed (apt-get install libze1)"
fi
[ -e "$icd" ] || skip "Intel's CPU OpenCL runtime is not installed: $icd does not exist; install it with: scripts/setup.sh"
lib=$(sed -n '1{s/^[[:space:]]*//;s/[[:space:]]*$//;p;}' "$icd")
case $lib in
    /*) [ -e "$lib" ] || skip "Intel's CPU OpenCL runtime: $icd names $lib, which does not exist" ;;
esac
if [ ! -e "$driver" ]; then
    echo "ze-runtime.sh: the Level Zero driver $driver was not built" >&2
    exit 1
fi
exec "$@"
