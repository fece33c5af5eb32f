# Memory descriptor tests (dnnl_memory_desc_*). Included from tests-c/CMakeLists.txt.

dnnl_c_test(memory_desc_create SOURCES memory_desc/create.c LABELS "api;cpu")
dnnl_c_test(memory_desc_all_tags SOURCES memory_desc/all_tags.c LABELS "api;cpu")
dnnl_c_test(memory_desc_query SOURCES memory_desc/query.c LABELS "api;cpu")
dnnl_c_test(memory_desc_transform SOURCES memory_desc/transform.c LABELS "api;cpu")
dnnl_c_test(memory_desc_sparse SOURCES memory_desc/sparse.c LABELS "api;cpu")
dnnl_c_test(memory_desc_blob SOURCES memory_desc/blob.c LABELS "api;cpu")
dnnl_c_test(memory_desc_invalid SOURCES memory_desc/invalid.c LABELS "api;cpu")
dnnl_c_test(memory_desc_size_overflow SOURCES memory_desc/size_overflow.c LABELS "api;cpu")
dnnl_c_test(memory_desc_ours_only SOURCES memory_desc/ours_only.c LABELS "api;cpu;ours-only")

# With upstream's library at hand, compare everything it says about memory
# descriptors with what we say (LD_LIBRARY_PATH=DNNL_REFERENCE_LIBDIR must
# also find the libraries upstream's needs).
if(DNNL_REFERENCE_LIBDIR)
  add_executable(memory_desc_differential memory_desc/differential.c)
  target_link_libraries(memory_desc_differential PRIVATE dnnl)
  target_link_options(memory_desc_differential PRIVATE -Wl,--enable-new-dtags)
  add_test(NAME memory_desc_vs_reference
           COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:memory_desc_differential>
                   -DREFERENCE=${DNNL_REFERENCE_LIBDIR} -DWORK=${CMAKE_CURRENT_BINARY_DIR}
                   -P ${CMAKE_CURRENT_LIST_DIR}/compare_with_reference.cmake)
  set_tests_properties(memory_desc_vs_reference PROPERTIES LABELS "api;cpu;reference" TIMEOUT 300)
endif()

# The experimental grouped encoding (DNNL_EXPERIMENTAL_GROUPED_MEMORY=1 to see its
# declarations). The reference run skips: upstream's library is built without it.
# memory_desc_grouped@pocl and @intel run the memory part on a GPU engine too.
dnnl_c_test(memory_desc_grouped SOURCES memory_desc/grouped.c LABELS "api;cpu")
dnnl_c_test(memory_desc_grouped_gpu SOURCES memory_desc/grouped.c LABELS "api" OPENCL)
foreach(_t memory_desc_grouped memory_desc_grouped_gpu)
  if(TARGET ${_t})
    target_compile_definitions(${_t} PRIVATE DNNL_EXPERIMENTAL_GROUPED_MEMORY=1)
  endif()
endforeach()
