# Read by cpack when it makes the .deb (CPACK_PROJECT_CONFIG_FILE, cmake/GpudiagInstall.cmake):
# Depends from dpkg-shlibdeps over the gpudiag binary, as Debian's own packages get it; only
# the binary, because the injection library's libcupti comes from the CUDA toolkit, not from
# a Debian package (dpkg-shlibdeps would refuse it).
if(CPACK_GENERATOR STREQUAL "DEB" AND NOT CPACK_DEBIAN_PACKAGE_DEPENDS)
  find_program(GPUDIAG_DPKG_SHLIBDEPS dpkg-shlibdeps)
  set(deps "")
  if(GPUDIAG_DPKG_SHLIBDEPS)
    # dpkg-shlibdeps reads debian/control from the folder it runs in: an empty one will do
    set(tmp "${CPACK_TOPLEVEL_DIRECTORY}/gpudiag-shlibdeps")
    if(NOT CPACK_TOPLEVEL_DIRECTORY)
      set(tmp "${CMAKE_CURRENT_BINARY_DIR}/gpudiag-shlibdeps")
    endif()
    file(MAKE_DIRECTORY "${tmp}/debian")
    file(WRITE "${tmp}/debian/control" "")
    execute_process(COMMAND ${GPUDIAG_DPKG_SHLIBDEPS} -O "-e${GPUDIAG_DEB_BINARY}"
                    WORKING_DIRECTORY "${tmp}" OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE err)
    file(REMOVE_RECURSE "${tmp}")
    if(rc EQUAL 0 AND out MATCHES "shlibs:Depends=([^\n]+)")
      set(deps "${CMAKE_MATCH_1}")
    else()
      message(WARNING "gpudiag: dpkg-shlibdeps failed (${err}); Depends: the fallback list")
    endif()
  endif()
  if(NOT deps)
    set(deps "${GPUDIAG_DEB_DEPENDS_FALLBACK}")
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${deps}")
endif()
