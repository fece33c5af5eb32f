# Primitive kinds through the official API, compared with references computed in
# the tests. Each numeric test runs on the CPU engine (<name>) and on every OpenCL
# runtime (<name>_ocl@pocl, <name>_ocl@intel; skipped without a device).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(primitives_eltwise SOURCES primitives/eltwise.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 120)
dnnl_c_test(primitives_eltwise_ocl SOURCES primitives/eltwise.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 300)
dnnl_c_test(primitives_eltwise_args SOURCES primitives/eltwise_args.c LABELS "api;cpu"
            TIMEOUT 60)
# The references use libm.
target_link_libraries(primitives_eltwise PRIVATE m)
target_link_libraries(primitives_eltwise_ocl PRIVATE m)
# Execution arguments checked against the primitive (every kind; wrong sizes,
# types and layouts refused), and the scratchpad (user and library modes).
# Ours alone (upstream does not check execution arguments): ours-only.
dnnl_c_test(primitives_exec_args SOURCES primitives/exec_args.c LABELS "api;cpu;ours-only"
            ARGS cpu TIMEOUT 120)
dnnl_c_test(primitives_exec_args_ocl SOURCES primitives/exec_args.c LABELS "api;ours-only"
            OPENCL ARGS gpu TIMEOUT 300)
target_link_libraries(primitives_exec_args PRIVATE m)
target_link_libraries(primitives_exec_args_ocl PRIVATE m)
