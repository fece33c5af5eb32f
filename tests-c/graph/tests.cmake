# The graph API (dnnl_graph.h): logical tensors, ops, graphs, partitions,
# compiled partitions, caches; the MLP end to end on the CPU engine and on
# each OpenCL runtime (<name>@pocl, <name>@intel). Graph memory on OpenCL is USM:
# Intel's extension on Intel's runtime, shared virtual memory on PoCL (and NVIDIA);
# <name>@intel-svm runs on Intel's runtime through SVM too (DNNL_OCL_USM=svm).
# Included from tests-c/CMakeLists.txt (paths relative to tests-c/).

# graph_api checks destroyed and NULL handles throughout, which upstream dereferences:
# ours-only (its numbers are checked against Intel's library through graph_mlp's twin
# where that can run).
dnnl_c_test(graph_api SOURCES graph/graph_api.c LABELS "api;cpu;graph;ours-only" TIMEOUT 120)
target_link_libraries(graph_api PRIVATE m)
dnnl_c_test(graph_mlp SOURCES graph/graph_mlp.c LABELS "api;cpu;graph" ARGS cpu TIMEOUT 120)
target_link_libraries(graph_mlp PRIVATE m)
dnnl_c_test(graph_mlp_ocl SOURCES graph/graph_mlp.c LABELS "api;graph" ARGS gpu TIMEOUT 120
            OPENCL)
target_link_libraries(graph_mlp_ocl PRIVATE m)
dnnl_ocl_svm_twin(graph_mlp_ocl ARGS gpu)
# Sizes that do not fit, scalar handles, and the tensors execute accepts
# (ours only: upstream wraps sizes and does not look at execute's tensors).
dnnl_c_test(graph_safety SOURCES graph/graph_safety.c LABELS "api;cpu;graph;ours-only" ARGS cpu
            TIMEOUT 120)
target_link_libraries(graph_safety PRIVATE m)
dnnl_c_test(graph_safety_ocl SOURCES graph/graph_safety.c LABELS "api;graph;ours-only" ARGS gpu
            TIMEOUT 120 OPENCL)
target_link_libraries(graph_safety_ocl PRIVATE m)
dnnl_ocl_svm_twin(graph_safety_ocl ARGS gpu)
# Graph results at realistic sizes (thousands of elements, odd shapes), every output
# element compared within an f32 error bound; backward ops with a random gradient; the
# int8 pattern exact through execute and execute_v2 with a user scratchpad.
dnnl_c_test(graph_numeric SOURCES graph/graph_numeric.c LABELS "api;cpu;graph;ours-only" ARGS cpu
            TIMEOUT 120)
dnnl_c_test(graph_numeric_ocl SOURCES graph/graph_numeric.c LABELS "api;graph;ours-only" ARGS gpu
            TIMEOUT 300 OPENCL)
foreach(t graph_numeric graph_numeric_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()
# The convolution ops and their fusion patterns: partitions and statuses as upstream's
# v3.13 gives them (the @ref twin checks them against Intel's library), and every result
# against a reference in double.
dnnl_c_test(graph_conv SOURCES graph/graph_conv.c LABELS "api;cpu;graph" ARGS cpu TIMEOUT 300)
dnnl_c_test(graph_conv_ocl SOURCES graph/graph_conv.c LABELS "api;graph" ARGS gpu TIMEOUT 300
            OPENCL)
foreach(t graph_conv graph_conv_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()
# The pooling ops (graph_pool: MaxPool, AvgPool, their backward ops, their chains and the
# int8 pattern; Interpolate and InterpolateBackward), the
# normalizations (graph_norm) and the reductions and PReLU (graph_reduce): partitions as upstream's v3.13 makes them (the @ref twin
# checks them against Intel's library), and every result against a reference in double.
foreach(family pool norm reduce)
  dnnl_c_test(graph_${family} SOURCES graph/graph_${family}.c LABELS "api;cpu;graph" ARGS cpu
              TIMEOUT 300)
  dnnl_c_test(graph_${family}_ocl SOURCES graph/graph_${family}.c LABELS "api;graph" ARGS gpu
              TIMEOUT 300 OPENCL)
  foreach(t graph_${family} graph_${family}_ocl)
    target_link_libraries(${t} PRIVATE m)
  endforeach()
endforeach()
# Conformance with oneDNN v3.13 (issue 15), each probed against Intel's library and
# checked again by its @ref twin: how dnnl_graph_op_set_attr_str reads its value, the
# host_scalar logical tensors init accepts, one id with two logical tensors at finalize,
# the constant tensor cache settings, dnnl_graph_make_engine_with_allocator's kinds and
# indices; and a compiled partition refusing a stream of another engine (the @ref twin
# runs what upstream survives: upstream aborts on that stream), on the CPU engine and on
# each OpenCL runtime.
foreach(t attr_str host_scalar_lt dup_id const_cache engine_alloc)
  dnnl_c_test(graph_${t} SOURCES graph/graph_${t}.c LABELS "api;cpu;graph" TIMEOUT 60)
endforeach()
target_link_libraries(graph_engine_alloc PRIVATE ${CMAKE_DL_LIBS})
dnnl_c_test(graph_stream_engine SOURCES graph/graph_stream_engine.c LABELS "api;cpu;graph"
            ARGS cpu TIMEOUT 60)
dnnl_c_test(graph_stream_engine_ocl SOURCES graph/graph_stream_engine.c LABELS "api;graph"
            ARGS gpu TIMEOUT 120 OPENCL)
dnnl_ocl_svm_twin(graph_stream_engine_ocl ARGS gpu)
