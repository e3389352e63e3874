# The CUDA toolkit: found or not, and the GPU architectures to build kernels for.
# Included by the top-level CMakeLists.txt after project(); sets
#   GPUDIAG_CUDA          ON when the toolkit (nvcc, the runtime, CUPTI) is there and used
#   GPUDIAG_NO_CUDA_WHY   why not, for the summary message
#   GPUDIAG_LINK_LANG     the linker language of gpudiag's programs (CUDA, or C without it)
#   CMAKE_CUDA_ARCHITECTURES (from GPUDIAG_CUDA_ARCHS)
#
# GPUDIAG_NO_CUDA=ON builds exactly as on a machine without the toolkit (CI checks that build
# this way on the CI machine, which has one). -DCMAKE_CUDA_COMPILER=/nonexistent does the same.

option(GPUDIAG_NO_CUDA "Build as if no CUDA toolkit were installed (what a machine without one builds)" OFF)

include(${CMAKE_CURRENT_LIST_DIR}/GpudiagArchs.cmake)

set(GPUDIAG_CUDA OFF)
set(GPUDIAG_NO_CUDA_WHY "")
if(GPUDIAG_NO_CUDA)
  set(GPUDIAG_NO_CUDA_WHY "GPUDIAG_NO_CUDA=ON")
else()
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA) # leaves a CMAKE_CUDA_COMPILER that was given alone
  if(NOT CMAKE_CUDA_COMPILER)
    set(GPUDIAG_NO_CUDA_WHY "no nvcc on the PATH nor in /usr/local/cuda/bin")
  elseif(NOT EXISTS "${CMAKE_CUDA_COMPILER}")
    set(GPUDIAG_NO_CUDA_WHY "CMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER} does not exist")
  else()
    set(GPUDIAG_CUDA ON)
  endif()
endif()

if(GPUDIAG_CUDA)
  # ---- architectures. Given (-DGPUDIAG_CUDA_ARCHS=...) or cached: used as they are. Else the
  # GPUs of this machine (nvidia-smi, compute capability), those nvcc can build; else, on a
  # machine with no GPU (a build server, CI), the portable set: Turing (sm_75) through
  # Blackwell (sm_120), native code for each and PTX of the newest so a future architecture
  # can still JIT it.
  set(GPUDIAG_PORTABLE_ARCHS "75-real;80-real;86-real;89-real;90-real;100-real;120")
  if(NOT DEFINED CACHE{GPUDIAG_CUDA_ARCHS})
    set(caps "")
    find_program(GPUDIAG_NVIDIA_SMI nvidia-smi)
    if(GPUDIAG_NVIDIA_SMI)
      execute_process(COMMAND ${GPUDIAG_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
      if(NOT rc EQUAL 0)
        set(caps "")
      endif()
    endif()
    execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-arch
                    OUTPUT_VARIABLE nvcc_archs RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
    if(NOT rc EQUAL 0)
      set(nvcc_archs "") # an older nvcc without --list-gpu-arch: every GPU found is trusted
    endif()
    gpudiag_choose_archs(archs how "${caps}" "${nvcc_archs}" "${GPUDIAG_PORTABLE_ARCHS}")
    set(GPUDIAG_CUDA_ARCHS "${archs}" CACHE STRING
        "CUDA architectures to build kernels for (default: the GPUs present, else the portable set)")
    set(GPUDIAG_CUDA_ARCHS_HOW "${how}" CACHE INTERNAL "how GPUDIAG_CUDA_ARCHS was chosen")
    set(GPUDIAG_CUDA_ARCHS_CHOSEN "${archs}" CACHE INTERNAL "what was chosen then")
  endif()
  if(DEFINED GPUDIAG_CUDA_ARCHS_CHOSEN AND GPUDIAG_CUDA_ARCHS STREQUAL GPUDIAG_CUDA_ARCHS_CHOSEN)
    set(how "${GPUDIAG_CUDA_ARCHS_HOW}")
  else()
    set(how "as given by GPUDIAG_CUDA_ARCHS")
  endif()
  list(LENGTH GPUDIAG_CUDA_ARCHS n)
  message(STATUS "gpudiag: CUDA kernels for ${n} architecture(s), ${GPUDIAG_CUDA_ARCHS}: ${how}; "
                 "-DGPUDIAG_CUDA_ARCHS=\"...\" chooses others (portable set: ${GPUDIAG_PORTABLE_ARCHS})")
  set(CMAKE_CUDA_ARCHITECTURES ${GPUDIAG_CUDA_ARCHS})

  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  find_package(CUDAToolkit REQUIRED)
  set(GPUDIAG_LINK_LANG CUDA)
else()
  set(GPUDIAG_LINK_LANG C)
endif()
