# The recurrent primitives (vanilla RNN, LSTM, GRU, LBR-GRU, AUGRU, LBR-AUGRU) through
# the official API. Included from tests-c/CMakeLists.txt (each <area>/tests.cmake is).
#
# rnn_sweep: forward inference and training and backward of the six cells against a
# double-precision reference (directions, layers, iterations, optional states and bias,
# peephole, projection, tnc / ntc / any, f32, bf16, f16, int8 inference, queries); on
# the CPU engine (rnn_sweep, with its @ref run against Intel's library) and on each
# OpenCL runtime (rnn_sweep_ocl@pocl, @intel).
dnnl_c_test(rnn_sweep SOURCES rnn/rnn_sweep.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(rnn_sweep_ocl SOURCES rnn/rnn_sweep.c LABELS "api" OPENCL ARGS gpu TIMEOUT 300)
target_link_libraries(rnn_sweep PRIVATE m)
target_link_libraries(rnn_sweep_ocl PRIVATE m)

# rnn_bad_input: bad descriptors get upstream's status and leave the output untouched
# (its @ref run proves the statuses); execution arguments are checked on ours only.
dnnl_c_test(rnn_bad_input SOURCES rnn/rnn_bad_input.c LABELS "api;cpu" ARGS cpu TIMEOUT 60)
dnnl_c_test(rnn_bad_input_ocl SOURCES rnn/rnn_bad_input.c LABELS "api" OPENCL ARGS gpu TIMEOUT 120)
