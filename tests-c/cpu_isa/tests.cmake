# The CPU ISA controls (dnnl_set_max_cpu_isa, dnnl_get_effective_cpu_isa, the ISA hints),
# through the API and through ONEDNN_MAX_CPU_ISA. Included from tests-c/CMakeLists.txt.
dnnl_c_test(cpu_isa_max SOURCES cpu_isa/max_isa.c LABELS "api;cpu" EXPECT_OUTPUT "^ok$")
target_link_libraries(cpu_isa_max PRIVATE m)
dnnl_c_test(cpu_isa_env SOURCES cpu_isa/max_isa.c LABELS "api;cpu" ARGS env
            ENVIRONMENT "ONEDNN_MAX_CPU_ISA=sse41" EXPECT_OUTPUT "^ok$")
target_link_libraries(cpu_isa_env PRIVATE m)
# The verbose header's ISA line names the effective ISA, within the limit (upstream's text).
dnnl_c_test(cpu_isa_verbose_header SOURCES cpu_isa/max_isa.c LABELS "api;cpu" ARGS env
            ENVIRONMENT "ONEDNN_MAX_CPU_ISA=sse41" "ONEDNN_VERBOSE=1"
            EXPECT_OUTPUT "^onednn_verbose,v1,info,cpu,isa:Intel SSE4\\.1$" "^ok$")
target_link_libraries(cpu_isa_verbose_header PRIVATE m)
