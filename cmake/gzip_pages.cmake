# Compresses each manual page DIR/*.1 into DIR/*.1.gz, as Debian policy §12.1 wants installed
# pages (lintian: uncompressed-manual-page). Run after gen_docs.cmake by the gpudiag_docs
# target (cmake/GpudiagInstall.cmake):
#   cmake -DGZIP=/bin/gzip -DDIR=build/docs-gen/man1 -P gzip_pages.cmake
# gzip -9n: the best compression, and no file name or time stamp inside, so the same page
# always gives the same bytes (reproducible packages; lintian: package-contains-timestamped-gzip).

foreach(v GZIP DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "gzip_pages.cmake: -D${v}=... is required")
  endif()
endforeach()

# a page whose command is gone must not stay behind as a .gz (gen_docs.cmake removes its .1)
file(GLOB old "${DIR}/*.1.gz")
if(old)
  file(REMOVE ${old})
endif()
file(GLOB pages "${DIR}/*.1")
foreach(p ${pages})
  execute_process(COMMAND ${GZIP} -9nc ${p} OUTPUT_FILE ${p}.gz RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip_pages.cmake: gzip ${p} failed (${rc}): ${err}")
  endif()
endforeach()
