# Run by CTest (cmake -P; tests/CMakeLists.txt, test package_example): the installed package as another
# project uses it. Installs the build BUILD_DIR into WORK_DIR/prefix, configures examples/ standalone
# against that prefix (find_package(sgemm_steps); a C++-only project, no nvcc), builds it and runs it,
# which exits 77 without a GPU: then only the build and link are tested.
foreach(var BUILD_DIR EXAMPLE_DIR WORK_DIR GENERATOR CXX_COMPILER CUDA_ROOT)
  if(NOT ${var})
    message(FATAL_ERROR "package_test.cmake: pass -D${var}=...")
  endif()
endforeach()

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "package_example: ${step} failed (${rc}): ${command}")
  endif()
endfunction()

# From scratch every time: what an earlier run left must not stand in for a broken package.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(example "${WORK_DIR}/example")
set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" ${config_args})
# The compiler and CUDA toolkit of the build the package comes from; no package registry, so that
# only the prefix can satisfy find_package.
run("configuring examples/" "${CMAKE_COMMAND}" -S "${EXAMPLE_DIR}" -B "${example}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_BUILD_TYPE=${CONFIG}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCUDAToolkit_ROOT=${CUDA_ROOT}" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
    -DCMAKE_FIND_PACKAGE_NO_SYSTEM_PACKAGE_REGISTRY=ON)
file(STRINGS "${example}/CMakeCache.txt" found REGEX "^sgemm_steps_DIR:")
string(FIND "${found}" "=${prefix}/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "package_example: find_package(sgemm_steps) found '${found}', not the package in ${prefix}")
endif()
run("building examples/" "${CMAKE_COMMAND}" --build "${example}" ${config_args})

set(program "${example}/sgemm_example")
if(CONFIG AND EXISTS "${example}/${CONFIG}/sgemm_example")  # multi-config generators
  set(program "${example}/${CONFIG}/sgemm_example")
endif()
execute_process(COMMAND "${program}" RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message(STATUS "package_example: built and linked against the installed package; not run (no CUDA device)")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "package_example: the example built against the installed package failed (${rc})")
else()
  message(STATUS "package_example: built against the installed package, ran and checked its result")
endif()
