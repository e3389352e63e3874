# Installing (cmake --install, GNUInstallDirs) and the Debian package (cpack -G DEB).
# What goes where (docs/install.md), with the default prefix /usr/local or the .deb's /usr:
#   bin/gpudiag
#   <libdir>/gpudiag/libgpudiag_inject.so     found by gpudiag relative to itself (src/core/paths.h)
#   share/gpudiag/sample.gpudiag.sqlite       likewise
#   share/gpudiag/python/                     the Python instrumentation (src/python/), likewise
#   share/man/man1/gpudiag.1.gz, gpudiag-<command>.1.gz
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
# the pages are installed gzip-compressed (Debian policy §12.1; man reads them so everywhere);
# gzip is Essential on Debian, and without it they are installed as they are
find_program(GPUDIAG_GZIP gzip)
if(GPUDIAG_GZIP)
  set(gzip_pages COMMAND ${CMAKE_COMMAND} -DGZIP=${GPUDIAG_GZIP} -DDIR=${GPUDIAG_DOCS_OUT}/man1
                         -P ${CMAKE_SOURCE_DIR}/cmake/gzip_pages.cmake)
  set(GPUDIAG_MAN_PATTERN "*.1.gz")
else()
  set(gzip_pages "")
  set(GPUDIAG_MAN_PATTERN "*.1")
endif()
add_custom_command(OUTPUT ${GPUDIAG_DOCS_OUT}/stamp
  COMMAND ${CMAKE_COMMAND} -DGPUDIAG=$<TARGET_FILE:gpudiag> -DOUT=${GPUDIAG_DOCS_OUT}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/gen_docs.cmake
  ${gzip_pages}
  DEPENDS gpudiag ${CMAKE_SOURCE_DIR}/cmake/gen_docs.cmake ${CMAKE_SOURCE_DIR}/cmake/gzip_pages.cmake
  COMMENT "gpudiag: manual pages and shell completions from the help texts")
add_custom_target(gpudiag_docs ALL DEPENDS ${GPUDIAG_DOCS_OUT}/stamp)
install(DIRECTORY ${GPUDIAG_DOCS_OUT}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "${GPUDIAG_MAN_PATTERN}")
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
# Maintainer (Debian policy §5.6.2: a name, then an e-mail address in angle brackets). The
# project has no person to name and no mailing list, so the default names the project's
# developers at an address under .invalid (RFC 2606: reserved, never delivered, so no report
# can reach a stranger, as it could at a made-up real-looking domain); whoever builds a
# package to hand to others is its maintainer and sets -DGPUDIAG_DEB_MAINTAINER to
# themselves. docs/install.md, "The Debian package".
set(GPUDIAG_DEB_MAINTAINER "gpudiag developers <noreply@gpudiag.invalid>"
    CACHE STRING "The .deb's Maintainer field: \"Name <address>\" of whoever distributes the package")
set(CPACK_PACKAGE_CONTACT "${GPUDIAG_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${GPUDIAG_DEB_MAINTAINER}")
# the synopsis reads after "gpudiag is a ..." (Debian developer's reference §6.2.2)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "tool that measures NVIDIA GPUs and diagnoses CUDA programs")
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
# The extended description, under the synopsis: what it is for, then each group of commands.
# CPack starts each line with a space; the list's lines start with two (shown verbatim, so the
# indentation stays), and none is longer than 80 columns (lintian).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"gpudiag turns a guide to how NVIDIA GPUs run code (kernels, warps, occupancy,
the memory hierarchy, tensor cores, the roofline, streams, profiling) into
measurements on the GPU at hand and automatic diagnoses of CUDA programs:
 run         profiles any CUDA program, unmodified (PyTorch, JAX, plain CUDA,
             torchrun/mpirun), into one SQLite file and says what holds it
             back, with the numbers that prove it and what to do next
 report, export, diff
             the verdicts and summary of a saved profile (terminal, JSON,
             HTML), a Perfetto trace, what changed between two profiles;
             these need no GPU
 info, occupancy, roofline, lab, monitor
             the device's limits, the occupancy calculator, measured
             ceilings, experiments that reproduce the guide's lessons, a live
             view with throttle reasons decoded
.
${GPUDIAG_DEB_CUDA_NOTE}")
# a developer's tool, like valgrind; nothing depends on it
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# no Homepage field: the project has no public web page
# the package holds stripped files (lintian: unstripped-binary-or-object); cmake --install
# keeps the symbols of the build (RelWithDebInfo by default) unless given --strip
set(CPACK_STRIP_FILES ON)
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
