# Installing (cmake --install, GNUInstallDirs) and the Debian package (cpack -G DEB).
# What goes where (docs/install.md), with the default prefix /usr/local or the .deb's /usr:
#   bin/gpudiag
#   <libdir>/gpudiag/libgpudiag_inject.so     found by gpudiag relative to itself (src/core/paths.h)
#   share/gpudiag/sample.gpudiag.sqlite       likewise
#   share/gpudiag/python/                     the Python instrumentation (src/python/), likewise
#   share/man/man1/gpudiag.1, gpudiag-<command>.1
#   share/bash-completion/completions/gpudiag, share/zsh/vendor-completions/_gpudiag
#   share/doc/gpudiag/                        README.md and docs/*.md
# The manual pages and completions are generated from the help texts of the gpudiag just
# built (cmake/gen_docs.cmake), so they cannot drift from the code.

install(TARGETS gpudiag RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(GPUDIAG_CUDA)
  # keeps its run path to the toolkit's CUPTI (src/capture/CMakeLists.txt)
  install(TARGETS gpudiag_inject LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/gpudiag)
endif()
install(FILES ${CMAKE_SOURCE_DIR}/tests/fixtures/sample.gpudiag.sqlite DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudiag)
# GPUDIAG_PYTHON_FILES: src/python/CMakeLists.txt
list(TRANSFORM GPUDIAG_PYTHON_FILES PREPEND ${CMAKE_SOURCE_DIR}/src/python/ OUTPUT_VARIABLE GPUDIAG_PYTHON_PATHS)
install(FILES ${GPUDIAG_PYTHON_PATHS} DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudiag/python)

set(GPUDIAG_DOCS_OUT ${CMAKE_BINARY_DIR}/docs-gen)
add_custom_command(OUTPUT ${GPUDIAG_DOCS_OUT}/stamp
  COMMAND ${CMAKE_COMMAND} -DGPUDIAG=$<TARGET_FILE:gpudiag> -DOUT=${GPUDIAG_DOCS_OUT}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/gen_docs.cmake
  DEPENDS gpudiag ${CMAKE_SOURCE_DIR}/cmake/gen_docs.cmake
  COMMENT "gpudiag: manual pages and shell completions from the help texts")
add_custom_target(gpudiag_docs ALL DEPENDS ${GPUDIAG_DOCS_OUT}/stamp)
install(DIRECTORY ${GPUDIAG_DOCS_OUT}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1")
set(GPUDIAG_BASH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
    CACHE STRING "Where the bash completion file is installed (relative: under the prefix)")
# Debian's zsh looks in vendor-completions; other systems: set site-functions here
set(GPUDIAG_ZSH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
    CACHE STRING "Where the zsh completion file is installed (relative: under the prefix)")
install(FILES ${GPUDIAG_DOCS_OUT}/completions/gpudiag.bash DESTINATION ${GPUDIAG_BASH_COMPLETION_DIR} RENAME gpudiag)
install(FILES ${GPUDIAG_DOCS_OUT}/completions/_gpudiag DESTINATION ${GPUDIAG_ZSH_COMPLETION_DIR})
file(GLOB GPUDIAG_DOC_FILES ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${GPUDIAG_DOC_FILES} DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- the .deb: cpack -G DEB in the build folder. Depends is computed when the package is
# made, by dpkg-shlibdeps over the gpudiag binary (cmake/GpudiagCPackDeb.cmake); the
# injection library's libcupti is the CUDA toolkit's, no Debian package's, so it is named in
# the description instead.
set(CPACK_PACKAGE_NAME gpudiag)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpudiag maintainers <gpudiag@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure NVIDIA GPUs and diagnose CUDA programs")
if(GPUDIAG_CUDA)
  get_target_property(cupti CUDA::cupti IMPORTED_LOCATION)
  if(NOT cupti)
    set(cupti ${CUDAToolkit_LIBRARY_DIR}/libcupti.so)
  endif()
  get_filename_component(cupti_dir ${cupti} DIRECTORY)
  set(GPUDIAG_DEB_CUDA_NOTE
"The NVIDIA driver (libcuda.so.1, libnvidia-ml.so.1) and the CUDA toolkit's
libraries (libcupti for 'gpudiag run', libcublasLt for the roofline's GEMM
line) are loaded at run time and are not dependencies of this package: every
command starts without them and says what is missing. 'gpudiag run' loads
/usr/${CMAKE_INSTALL_LIBDIR}/gpudiag/libgpudiag_inject.so into the profiled
program, which finds libcupti in ${cupti_dir} (CUDA ${CUDAToolkit_VERSION}, as
built) or through LD_LIBRARY_PATH.")
else()
  set(GPUDIAG_DEB_CUDA_NOTE
"This package was built without the CUDA toolkit: it has no GPU kernels (lab,
roofline, the demo workload) and no injection library (run traces nothing).
The NVIDIA driver is loaded at run time when present.")
endif()
# the extended description, under the summary; CPack starts each line with a space
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"gpudiag measures what a GPU guide teaches on the GPU at hand (limits,
ceilings, occupancy, the labs) and profiles any CUDA program into one SQLite
file with verdicts: what holds it back, the evidence and what to do.
Reading a profile (report, export, diff) needs no GPU.
.
${GPUDIAG_DEB_CUDA_NOTE}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
# the fallback when dpkg-shlibdeps (dpkg-dev) is missing: what it gave on Debian 12 for what
# gpudiag links (libc, libm, libsqlite3, the C++ runtime); tests/cli/install_deb.sh checks it
set(GPUDIAG_DEB_DEPENDS_FALLBACK "libc6 (>= 2.34), libgcc-s1 (>= 3.0), libsqlite3-0 (>= 3.6.1), libstdc++6 (>= 11)")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/GpudiagCPackDeb.cmake CONTENT
"set(GPUDIAG_DEB_BINARY \"$<TARGET_FILE:gpudiag>\")
set(GPUDIAG_DEB_DEPENDS_FALLBACK \"${GPUDIAG_DEB_DEPENDS_FALLBACK}\")
include(\"${CMAKE_SOURCE_DIR}/cmake/GpudiagCPackDeb.cmake\")
")
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/GpudiagCPackDeb.cmake)
include(CPack)
