# Optional comparison libraries (benchmark-only kernels ref.*). Each is found when present and
# announced; without them everything else builds and the tests pass.
set(SPKIT_HAVE_MKL OFF)
set(SPKIT_MKL_STATIC "" CACHE PATH "Link MKL statically from this folder of libmkl_*.a (scripts/build-cpu-static.sh)")
set(SPKIT_HAVE_EIGEN OFF)
set(SPKIT_HAVE_LIBRSB OFF)

if(SPKIT_WITH_EIGEN)
  find_package(Eigen3 3.3 QUIET NO_MODULE)
  if(TARGET Eigen3::Eigen)
    set(SPKIT_HAVE_EIGEN ON)
  endif()
endif()

if(SPKIT_WITH_LIBRSB)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(LIBRSB QUIET IMPORTED_TARGET librsb)
    if(LIBRSB_FOUND)
      set(SPKIT_HAVE_LIBRSB ON)
    endif()
  endif()
endif()

if(SPKIT_WITH_MKL)
  # MKL from PyPI (pip install mkl-devel) puts headers under <prefix>/include and libmkl_rt.so.2
  # under <prefix>/lib; look there and in the usual places. MKL_ROOT overrides.
  set(_spkit_mkl_hints "$ENV{MKL_ROOT}" "$ENV{MKLROOT}")
  find_package(Python3 QUIET COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import sys; print(sys.prefix)"
                    OUTPUT_VARIABLE _spkit_py_prefix OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import site; print(site.getuserbase())"
                    OUTPUT_VARIABLE _spkit_py_user OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    list(APPEND _spkit_mkl_hints "${_spkit_py_prefix}" "${_spkit_py_user}")
  endif()
  list(APPEND _spkit_mkl_hints /usr/local /opt/intel/oneapi/mkl/latest)
  find_path(MKL_INCLUDE_DIR mkl_spblas.h HINTS ${_spkit_mkl_hints} PATH_SUFFIXES include)
  if(SPKIT_MKL_STATIC)
    # Static MKL (the libmkl_*.a of `pip download mkl-static`), for a self-contained spkit on a machine
    # without MKL: LP64 interface, GNU OpenMP threading layer (MKL's threads are then spkit's own
    # libgomp team, sized per call with mkl_set_num_threads_local as with mkl_rt), core.
    set(_spkit_mkl_static_libs)
    foreach(_lib mkl_gf_lp64 mkl_gnu_thread mkl_core)
      if(NOT EXISTS "${SPKIT_MKL_STATIC}/lib${_lib}.a")
        message(FATAL_ERROR "SPKIT_MKL_STATIC=${SPKIT_MKL_STATIC} has no lib${_lib}.a (pip download mkl-static; unzip the wheel)")
      endif()
      list(APPEND _spkit_mkl_static_libs "${SPKIT_MKL_STATIC}/lib${_lib}.a")
    endforeach()
    if(NOT MKL_INCLUDE_DIR)
      message(FATAL_ERROR "SPKIT_MKL_STATIC needs MKL's headers (pip install mkl-include, or MKL_ROOT)")
    endif()
    set(SPKIT_HAVE_MKL ON)
    add_library(spkit_mkl INTERFACE IMPORTED)
    set_target_properties(spkit_mkl PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${MKL_INCLUDE_DIR}"
                          INTERFACE_COMPILE_DEFINITIONS SPKIT_MKL_STATIC
                          INTERFACE_LINK_LIBRARIES "-Wl,--start-group;${_spkit_mkl_static_libs};-Wl,--end-group;gomp;pthread;m;dl")
  else()
    find_library(MKL_RT_LIBRARY NAMES mkl_rt libmkl_rt.so.2 libmkl_rt.so.3 HINTS ${_spkit_mkl_hints} PATH_SUFFIXES lib lib/intel64)
    if(MKL_INCLUDE_DIR AND MKL_RT_LIBRARY)
      set(SPKIT_HAVE_MKL ON)
      add_library(spkit_mkl INTERFACE IMPORTED)
      set_target_properties(spkit_mkl PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${MKL_INCLUDE_DIR}"
                            INTERFACE_LINK_LIBRARIES "${MKL_RT_LIBRARY}")
    endif()
  endif()
endif()

message(STATUS "spkit comparison kernels: MKL=${SPKIT_HAVE_MKL} Eigen=${SPKIT_HAVE_EIGEN} librsb=${SPKIT_HAVE_LIBRSB}")
