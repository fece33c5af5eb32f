# The ukernel API (dnnl_ukernel.h) and the JIT dump / profiling switches. CPU-only APIs:
# no OpenCL runs. Included from tests-c/CMakeLists.txt (each <area>/tests.cmake is).
#
# ukernel_jit_switches: the statuses of dnnl_set_jit_dump / _profiling_flags /
# _profiling_jitdumpdir (its @ref run proves them against Intel's library).
dnnl_c_test(ukernel_jit_switches SOURCES ukernel/jit_switches.c LABELS "api;cpu"
            EXPECT_OUTPUT "^ok$")

# ukernel_brgemm: BRGeMM (f32, bf16, f16, u8/s8 x s8 with scales and post-ops) and the
# B-packing transform against plain loops, and bad input with its statuses. Its @ref
# run skips: Intel's wheel is built without ONEDNN_EXPERIMENTAL_UKERNEL.
dnnl_c_test(ukernel_brgemm SOURCES ukernel/brgemm.c LABELS "api;cpu" TIMEOUT 120
            EXPECT_OUTPUT "^bad input: every status as documented$" "^ok$")
target_compile_definitions(ukernel_brgemm PRIVATE DNNL_EXPERIMENTAL_UKERNEL)
target_link_libraries(ukernel_brgemm PRIVATE m ${CMAKE_DL_LIBS})
# The same on the AVX2 and the portable compute paths (the default run takes the best the
# CPU has).
foreach(_isa avx2 sse41)
  add_test(NAME ukernel_brgemm_${_isa} COMMAND ukernel_brgemm)
  set_tests_properties(ukernel_brgemm_${_isa} PROPERTIES LABELS "api;cpu;ours-only"
    ENVIRONMENT "ONEDNN_MAX_CPU_ISA=${_isa}" PASS_REGULAR_EXPRESSION "(^|\n)ok\n" TIMEOUT 120)
endforeach()
