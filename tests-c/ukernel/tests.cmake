# The JIT dump / profiling switches (and, later, the ukernel API). CPU-only: no OpenCL runs.
# Included from tests-c/CMakeLists.txt (each <area>/tests.cmake is).
#
# ukernel_jit_switches: the statuses of dnnl_set_jit_dump / _profiling_flags /
# _profiling_jitdumpdir (its @ref run proves them against Intel's library).
dnnl_c_test(ukernel_jit_switches SOURCES ukernel/jit_switches.c LABELS "api;cpu"
            EXPECT_OUTPUT "^ok$")
