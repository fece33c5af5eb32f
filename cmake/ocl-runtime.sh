#!/bin/sh
# Runs a test program on one OpenCL runtime only, or skips it (exit 77) with the reason
# when that runtime is not installed. Used by dnnl_c_test(... OPENCL) in DnnlCTest.cmake.
#
#   ocl-runtime.sh <runtime> <icd-file> <icd-dir> <install-hint> <program> [args...]
#
# <icd-dir> holds only a link to <icd-file>; the program runs with OCL_ICD_VENDORS=<icd-dir>.
set -u
rt=$1 icd=$2 dir=$3 hint=$4
shift 4

skip() {
    echo "SKIP: OpenCL runtime '$rt' is not installed: $1; $hint"
    exit 77
}

[ -e "$icd" ] || skip "$icd does not exist"
lib=$(sed -n '1{s/^[[:space:]]*//;s/[[:space:]]*$//;p;}' "$icd")
[ -n "$lib" ] || skip "$icd names no library"
case $lib in
    /*) [ -e "$lib" ] || skip "$icd names $lib, which does not exist" ;;
esac

OCL_ICD_VENDORS=$dir
export OCL_ICD_VENDORS
exec "$@"
