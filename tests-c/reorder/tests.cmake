# Reorder, sum and concat through the official API, compared with references
# computed in the tests. Each runs on the CPU engine (<name>) and on every OpenCL
# runtime (<name>_ocl@pocl, <name>_ocl@intel; skipped without a device).
# Included from tests-c/CMakeLists.txt.

foreach(kind reorder sum concat)
    dnnl_c_test(reorder_${kind} SOURCES reorder/${kind}.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
    dnnl_c_test(reorder_${kind}_ocl SOURCES reorder/${kind}.c LABELS "api" OPENCL ARGS gpu
                TIMEOUT 300)
    target_link_libraries(reorder_${kind} PRIVATE m)
    target_link_libraries(reorder_${kind}_ocl PRIVATE m)
endforeach()
