# Runs PROGRAM on our library and on upstream's (LD_LIBRARY_PATH=REFERENCE),
# and fails unless both print the same thing.
execute_process(COMMAND "${PROGRAM}" OUTPUT_VARIABLE ours RESULT_VARIABLE ours_rc)
execute_process(COMMAND ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${REFERENCE}" "${PROGRAM}"
                OUTPUT_VARIABLE upstream RESULT_VARIABLE upstream_rc)
if(NOT ours_rc EQUAL 0 OR NOT upstream_rc EQUAL 0)
  message(FATAL_ERROR "exit codes: ours ${ours_rc}, upstream ${upstream_rc}")
endif()
if(NOT ours STREQUAL upstream)
  file(WRITE "${WORK}/ours.txt" "${ours}")
  file(WRITE "${WORK}/upstream.txt" "${upstream}")
  message(FATAL_ERROR "outputs differ: diff ${WORK}/ours.txt ${WORK}/upstream.txt")
endif()
string(LENGTH "${ours}" n)
message(STATUS "identical outputs (${n} bytes)")
