# Installing: `cmake --install` of this build into a staging DESTDIR (the configured prefix),
# the staged tree then moved elsewhere (nothing but relative paths may tie it together),
# and checked with tests/cli/install_checks.bash: the binary finds its injection library and
# sample profile inside the tree with the build and source trees hidden, a manual page per
# command renders its help text, the bash/zsh completions offer what `gpudiag help` lists,
# and CPU-tier smoke tests pass against the installed binary. docs/install.md.
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/install_checks.bash"

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$B/CMakeCache.txt")
if DESTDIR="$T/stage" cmake --install "$B" >"$T/install.log" 2>&1; then ok; else
  bad "cmake --install failed: $(tail -3 "$T/install.log")"; finish; exit
fi
mkdir -p "$T/moved"
mv "$T/stage$prefix" "$T/moved/prefix" && ok || bad "cannot move the staged $prefix"
check_installed "$T/moved/prefix"
finish
