# Installs the build tree to PREFIX, then configures/builds/runs the consumer project against it.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
file(REMOVE_RECURSE ${PREFIX} ${CONSUMER_BUILD})
run(${CMAKE_COMMAND} --install ${SPKIT_BUILD_DIR} --prefix ${PREFIX})
run(${CMAKE_COMMAND} -S ${CONSUMER_SRC} -B ${CONSUMER_BUILD} -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${PREFIX})
run(${CMAKE_COMMAND} --build ${CONSUMER_BUILD})
run(${CONSUMER_BUILD}/consumer)
# spkit bench / spkit report run <prefix>/share/spkit/report.py, which imports its package installed
# beside it (spkit_report): --help imports it all.
find_program(PYTHON3 python3)
if(PYTHON3)
  run(${PYTHON3} ${PREFIX}/share/spkit/report.py --help)
endif()
