# The Debian package: `cpack -G DEB` of this build, its control fields (dpkg-deb -I: every
# shared library the binary needs comes from a package that Depends names; no dependency on
# CUDA, which is loaded at run time and said so in the description), its file list
# (dpkg-deb -c), and the files unpacked with dpkg-deb -x into a temporary root, checked as
# install.sh checks a staged install (tests/cli/install_checks.bash). Installing it with apt
# into a clean Debian system: install_container.sh.
# Skips (77) on a machine without cpack's DEB tools (dpkg-deb).
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/install_checks.bash"

for t in cpack dpkg-deb; do
  command -v $t >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
make_deb "$T/pkg" || { finish; exit; }

dpkg-deb -f "$deb" Package Version Architecture Depends >"$T/fields"
grep -qx "Package: gpudiag" "$T/fields" && ok || bad "Package: $(cat "$T/fields")"
ver=$(sed -n 's/^gpudiag //p;q' < <("$GD" --version))
grep -qx "Version: $ver" "$T/fields" && ok || bad "Version is not $ver: $(grep Version "$T/fields")"
if command -v dpkg >/dev/null; then
  grep -qx "Architecture: $(dpkg --print-architecture)" "$T/fields" && ok || bad "$(grep Architecture "$T/fields")"
fi
depends=$(sed -n 's/^Depends: //p' "$T/fields")
# the package names of Depends, one a line
echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' >"$T/dep_names"
for p in libc6 libsqlite3-0; do
  grep -qxF "$p" "$T/dep_names" && ok || bad "Depends lacks $p: $depends"
done
echo "$depends" | grep -qi "cuda\|nvidia\|cupti" && bad "Depends names CUDA: $depends" || ok
dpkg-deb -f "$deb" Description | grep -q "loaded at run time" && ok || bad "the description does not say CUDA is loaded at run time"
# the other fields, as lintian would check them (lintian itself is too large a download for
# every CI run; docs/install.md records what it says): Maintainer "Name <address>" (policy
# §5.6.2), the configured one; Section and Priority; a synopsis of at most 80 characters that
# is no sentence and does not repeat the name; description lines of at most 80 columns
maint=$(sed -n 's/^GPUDIAG_DEB_MAINTAINER:STRING=//p' "$B/CMakeCache.txt")
[ "$(dpkg-deb -f "$deb" Maintainer)" = "$maint" ] && ok || bad "Maintainer: $(dpkg-deb -f "$deb" Maintainer), configured: $maint"
dpkg-deb -f "$deb" Maintainer | grep -qE '^[^<>@]*[^<>@ ] <[^<>@ ]+@[^<>@ ]+\.[^<>@ ]+>$' && ok ||
  bad "Maintainer is not 'Name <address>': $(dpkg-deb -f "$deb" Maintainer)"
[ "$(dpkg-deb -f "$deb" Section)|$(dpkg-deb -f "$deb" Priority)" = "devel|optional" ] && ok ||
  bad "Section|Priority: $(dpkg-deb -f "$deb" Section)|$(dpkg-deb -f "$deb" Priority)"
syn=$(dpkg-deb -f "$deb" Description | head -1)
[ ${#syn} -le 80 ] && [ "${syn%.}" = "$syn" ] && [ "${syn#gpudiag}" = "$syn" ] && [ "${syn#[Aa] }" = "$syn" ] && ok ||
  bad "synopsis: '$syn' (at most 80 characters, no full stop, not starting with the name or an article)"
dpkg-deb -f "$deb" Description | awk 'NR > 1 && length($0) > 80 { bad = 1; print } END { exit bad }' >"$T/long" && ok ||
  bad "description lines over 80 columns: $(head -2 "$T/long")"

rm -rf "$T/root"
dpkg-deb -x "$deb" "$T/root" && ok || bad "dpkg-deb -x failed"
G=$T/root/usr/bin/gpudiag
# the packaged binaries are stripped (CPACK_STRIP_FILES; lintian: unstripped-binary-or-object)
if command -v readelf >/dev/null; then
  for f in "$G" $(find "$T/root" -name '*.so'); do
    readelf -S "$f" | grep -qE ' \.(symtab|debug_info) ' && bad "${f#"$T/root"} is not stripped" || ok
  done
fi
# every library the binary needs (NEEDED: what it links itself; ldd says where each is), by
# the package that holds it, is in Depends
if command -v dpkg >/dev/null && command -v ldd >/dev/null && command -v readelf >/dev/null; then
  needed=$(readelf -d "$G" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [ -n "$needed" ] && ok || bad "readelf finds no NEEDED library in $G"
  for l in $(for n in $needed; do ldd "$G" | awk -v n="$n" '$1 == n && $2 == "=>" { print $3 }'; done); do
    pkg=$(dpkg -S "$l" 2>/dev/null || dpkg -S "$(realpath "$l")" 2>/dev/null || dpkg -S "${l#/usr}" 2>/dev/null)
    pkg=${pkg%%:*}
    if [ -z "$pkg" ]; then bad "$l (needed by gpudiag) belongs to no package"; continue; fi
    grep -qxF "$pkg" "$T/dep_names" && ok || bad "gpudiag needs $l from $pkg, which Depends lacks: $depends"
  done
  # libc6's version: at least the newest GLIBC_ symbol version the binary uses
  need=$(objdump -T "$G" | grep -oE 'GLIBC_[0-9]+\.[0-9]+' | sed 's/GLIBC_//' | sort -V | tail -1)
  have=$(echo "$depends" | grep -oE 'libc6 \(>= [0-9.]+' | grep -oE '[0-9.]+$')
  [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "${have:-0}" | sort -V | tail -1)" = "${have:-0}" ] && ok ||
    bad "the binary needs GLIBC_$need, Depends says libc6 (>= ${have:-nothing})"
fi
# the file list: what docs/install.md says goes where
dpkg-deb -c "$deb" | awk '{ print $NF }' >"$T/files"
for f in ./usr/bin/gpudiag ./usr/share/gpudiag/sample.gpudiag.sqlite ./usr/share/man/man1/gpudiag.1.gz \
         ./usr/share/bash-completion/completions/gpudiag ./usr/share/zsh/vendor-completions/_gpudiag; do
  grep -qxF "$f" "$T/files" && ok || bad "the package lacks $f"
done
grep -q '/tests/\|/mock\|fake_cupti\|_test$' "$T/files" && bad "the package holds test files: $(grep '/tests/\|mock\|fake_cupti\|_test$' "$T/files" | head -3)" || ok
check_installed "$T/root/usr"
finish
