# Checks of an installed gpudiag, shared by install.sh (cmake --install into a staging
# DESTDIR) and install_deb.sh (the .deb unpacked with dpkg-deb -x); install_container.sh
# takes make_deb and help_commands from here. Sourced after lib.sh; not a test itself
# (CTest runs tests/cli/*.sh only).
#
# check_installed PREFIX: PREFIX/bin/gpudiag and what it ships, with the build tree out of
# reach: it must find its injection library and sample profile inside PREFIX, relative to
# itself, and the manual pages and completions must match its help texts.

SRC=$(pwd)
B=$(realpath "$BUILD")

# make_deb DIR: `cpack -G DEB` of this build into DIR (cpack stages its own install there; the
# build tree is not written); sets deb to the package. Returns 1, having said why, on failure.
make_deb() {
  deb=
  if (cd "$T" && cpack -G DEB --config "$B/CPackConfig.cmake" -B "$1") >"$T/cpack.log" 2>&1; then ok; else
    bad "cpack -G DEB failed: $(tail -5 "$T/cpack.log")"; return 1
  fi
  deb=$(ls "$1"/gpudiag_*.deb 2>/dev/null | head -1)
  [ -f "$deb" ] && ok || { bad "no gpudiag_*.deb made"; return 1; }
}

# the installed manual page NAME (gpudiag, gpudiag-<command>) under PREFIX: gzip-compressed
# where the build found gzip (cmake/gzip_pages.cmake), else plain; man_text prints it as roff
man_page() {
  local f
  for f in "$1/share/man/man1/$2.1.gz" "$1/share/man/man1/$2.1"; do
    [ -f "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}
man_text() { case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac; }

# the commands `gpudiag help` lists
help_commands() { "$1" help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'; }
# the options of a help text's option tables and usage lines, one a line (what completion
# must offer)
help_options() {
  local t
  t=$(cat)
  { grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' <<<"$t"
    grep -E '^(usage:|      ) gpudiag ' <<<"$t"; } | grep -oE -- '--[a-z][a-z0-9-]*'
}

check_installed() {
  local P=$1 G=$1/bin/gpudiag cuda=1 sample lib cmds c page opt line n
  if [ ! -x "$G" ]; then bad "no executable $G"; return; fi
  ok
  "$G" -V >"$T/v" 2>&1 || bad "gpudiag -V exited $?"
  grep -q "built without the CUDA toolkit" "$T/v" && cuda=0
  sample=$P/share/gpudiag/sample.gpudiag.sqlite
  [ -f "$sample" ] && ok || bad "no $sample"
  grep -qxF "sample profile: $(realpath "$sample")" "$T/v" && ok || bad "-V names another sample profile: $(grep sample "$T/v")"
  # the Python instrumentation of `run --torch` (src/python/), likewise
  [ -f "$P/share/gpudiag/python/sitecustomize.py" ] && [ -f "$P/share/gpudiag/python/_gpudiag_torch.py" ] && ok ||
    bad "no share/gpudiag/python/{sitecustomize,_gpudiag_torch}.py under $P"
  grep -qxF "python instrumentation: $(realpath "$P/share/gpudiag/python" 2>/dev/null)" "$T/v" && ok ||
    bad "-V names another python folder: $(grep python "$T/v")"
  if [ $cuda = 1 ]; then
    lib=$(find "$P" -path '*/gpudiag/libgpudiag_inject.so' | head -1)
    [ -n "$lib" ] && ok || bad "no lib*/gpudiag/libgpudiag_inject.so under $P"
    grep -qxF "injection library: $(realpath "${lib:-/none}")" "$T/v" && ok ||
      bad "-V names another injection library: $(grep injection "$T/v")"
  else
    grep -q "^injection library: not found" "$T/v" && ok || bad "no-CUDA build: -V should find no injection library"
  fi
  # no path of the build tree is compiled in (the binary's read-only strings)
  if command -v readelf >/dev/null; then
    readelf -p .rodata "$G" | grep -qF "$B" && bad "the binary holds the build path $B" || ok
  fi

  # -- with the source and build trees hidden (a private mount namespace, as root): what
  # it finds can only come from PREFIX
  if [ "${T#"$SRC"/}" = "$T" ] && [ "${P#"$SRC"/}" = "$P" ] && unshare -m true 2>/dev/null; then
    unshare -m --propagation private bash -c '
      mount -t tmpfs none "$1" || exit 9
      [ "${2#"$1"/}" != "$2" ] || mount -t tmpfs none "$2" || exit 9
      cd "$3" || exit 9
      G=$4
      [ -z "$(ls -A "$1")" ] || exit 9
      "$G" -V >hid_v 2>&1
      GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent NO_COLOR=1 "$G" run >hid_run 2>hid_run_err; echo $? >hid_run_rc
      if [ "$5" = 1 ]; then
        GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent "$G" run -o hid.sqlite -- true >/dev/null 2>hid_prof_err
        echo $? >hid_prof_rc
      fi
      exit 0' _ "$SRC" "$B" "$T" "$G" "$cuda"
    n=$?
    if [ $n -ne 0 ]; then
      bad "could not hide the trees (unshare/mount: exit $n)"
    else
      cmp -s "$T/v" "$T/hid_v" && ok || bad "-V differs with the trees hidden: $(diff "$T/v" "$T/hid_v" | head -5)"
      [ "$(cat "$T/hid_run_rc")" = 0 ] && ok || bad "run (no GPU, trees hidden) exited $(cat "$T/hid_run_rc"): $(head -c 300 "$T/hid_run_err")"
      grep -qF "Showing instead a sample profile shipped with gpudiag ($(realpath "$sample"))" "$T/hid_run" && ok ||
        bad "run (no GPU, trees hidden) did not show the installed sample: $(head -3 "$T/hid_run")"
      if [ $cuda = 1 ]; then
        [ "$(cat "$T/hid_prof_rc")" = 0 ] && ok || bad "run -- true (trees hidden) exited $(cat "$T/hid_prof_rc")"
        grep -qE 'not found|cannot load the injection' "$T/hid_prof_err" &&
          bad "run -- true (trees hidden): $(head -c 300 "$T/hid_prof_err")" || ok
      fi
    fi
  else
    echo "SKIP: the source and build trees were not hidden (needs root and unshare -m); checked with them in place"
  fi

  # -- a manual page per command: every line of `gpudiag help <command>`, rendered
  cmds=$(help_commands "$G")
  [ -n "$cmds" ] && ok || bad "gpudiag help lists no command"
  man_page "$P" gpudiag >/dev/null && ok || bad "no man1/gpudiag.1(.gz)"
  # compressed as Debian wants (policy §12.1) when the build had gzip, with no name or time
  # stamp in the gzip header (reproducible): FLG (byte 4) without FNAME, MTIME (5-8) zero
  if grep -q '^GPUDIAG_GZIP:FILEPATH=/' "$B/CMakeCache.txt"; then
    for page in "$P"/share/man/man1/gpudiag*.1*; do
      case $page in
        *.1.gz) [ "$(od -An -tx1 -j3 -N5 "$page" | tr -d ' ')" = 0000000000 ] && ok ||
                  bad "${page##*/}: the gzip header holds a name or time stamp (gzip -n)" ;;
        *) bad "${page##*/}: a manual page installed uncompressed" ;;
      esac
    done
  fi
  for c in $cmds; do
    if ! page=$(man_page "$P" "gpudiag-$c"); then bad "no manual page gpudiag-$c.1(.gz)"; continue; fi
    man_text "$page" | grep -q "^gpudiag\\\\-$c \\\\- ." && ok || bad "gpudiag-$c.1: no NAME line"
    if command -v groff >/dev/null; then
      man_text "$page" | groff -k -man -Tutf8 -P-cbou 2>"$T/groff_err" | sed 's/^ *//' >"$T/page"
      [ -s "$T/groff_err" ] && bad "gpudiag-$c.1: groff says $(head -2 "$T/groff_err")"
      n=0
      while IFS= read -r line; do
        line=${line#"${line%%[! ]*}"}
        [ -z "$line" ] && continue
        grep -qxF -- "$line" "$T/page" || { n=$((n + 1)); [ $n -le 2 ] && echo "gpudiag-$c.1 lacks: $line" >&2; }
      done < <("$G" help "$c")
      [ $n -eq 0 ] && ok || bad "gpudiag-$c.1: $n line(s) of 'gpudiag help $c' missing from the rendered page"
    fi
  done
  for page in "$P"/share/man/man1/gpudiag-*.1*; do
    c=${page##*/gpudiag-}; c=${c%.gz}; c=${c%.1}
    echo "$cmds" | grep -qx "$c" && ok || bad "manual page for '$c', which gpudiag help does not list"
  done

  # -- bash completion: every command, each command's options, run's program after --
  local bc=$P/share/bash-completion/completions/gpudiag
  if [ -f "$bc" ]; then
    ok
    complete_words() { bash -c 'source "$1" || exit 9; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpudiag; printf "%s\n" "${COMPREPLY[@]}"' _ "$bc" "$@"; }
    complete_words gpudiag "" >"$T/c_cmds"
    for c in $cmds; do grep -qx "$c" "$T/c_cmds" && ok || bad "bash completion lacks the command $c"; done
    for c in $cmds; do
      complete_words gpudiag "$c" -- >"$T/c_opts"
      "$G" help "$c" | help_options | sort -u >"$T/h_opts"
      while read -r opt; do grep -qxF -- "$opt" "$T/c_opts" || bad "bash completion of '$c' lacks $opt"; done <"$T/h_opts"
      ok
    done
    complete_words gpudiag help "" >"$T/c_help"
    grep -qx report "$T/c_help" && ok || bad "bash completion of 'help' lacks the commands"
    complete_words gpudiag run -- bas >"$T/c_run"
    grep -qx bash "$T/c_run" && ok || bad "bash completion of 'run -- bas' lacks bash"
  else
    bad "no bash completion file $bc"
  fi
  local zc=$P/share/zsh/vendor-completions/_gpudiag
  [ -f "$zc" ] && ok || bad "no zsh completion file $zc"
  if command -v zsh >/dev/null; then
    zsh -n "$zc" && ok || bad "_gpudiag: zsh syntax error"
    for c in $cmds; do grep -q "^    '$c:" "$zc" && ok || bad "_gpudiag lacks the command $c"; done
  else
    echo "SKIP: zsh is not installed; _gpudiag was not parsed"
  fi

  # -- CPU-tier smoke tests against the installed binary (the mocks stay in the build tree)
  for c in help report_header stdout_errors occupancy info outputs; do
    bash "$SRC/tests/cli/$c.sh" "$G" "$B" >"$T/smoke_$c.log" 2>&1 && ok ||
      bad "tests/cli/$c.sh against the installed gpudiag: $(grep -m3 FAIL "$T/smoke_$c.log")"
  done
}
