# The Debian package: `cpack -G DEB` of this build, its control fields (dpkg-deb -I: every
# shared library the binary needs comes from a package that Depends names; no dependency on
# CUDA, which is loaded at run time and said so in the description), its file list
# (dpkg-deb -c), and the files unpacked with dpkg-deb -x into a temporary root, checked as
# install.sh checks a staged install (tests/cli/install_checks.bash). Installing the package
# into a clean container is not possible here (no container runtime in CI): docs/install.md.
# Skips (77) on a machine without cpack's DEB tools (dpkg-deb).
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/install_checks.bash"

for t in cpack dpkg-deb; do
  command -v $t >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
# cpack installs the build into its own staging folder under -B; the build tree is not written
if (cd "$T" && cpack -G DEB --config "$B/CPackConfig.cmake" -B "$T/pkg") >"$T/cpack.log" 2>&1; then ok; else
  bad "cpack -G DEB failed: $(tail -5 "$T/cpack.log")"; finish; exit
fi
deb=$(ls "$T"/pkg/gpudiag_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] && ok || { bad "no gpudiag_*.deb made"; finish; exit; }

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

rm -rf "$T/root"
dpkg-deb -x "$deb" "$T/root" && ok || bad "dpkg-deb -x failed"
G=$T/root/usr/bin/gpudiag
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
for f in ./usr/bin/gpudiag ./usr/share/gpudiag/sample.gpudiag.sqlite ./usr/share/man/man1/gpudiag.1 \
         ./usr/share/bash-completion/completions/gpudiag ./usr/share/zsh/vendor-completions/_gpudiag; do
  grep -qxF "$f" "$T/files" && ok || bad "the package lacks $f"
done
grep -q '/tests/\|/mock\|fake_cupti\|_test$' "$T/files" && bad "the package holds test files: $(grep '/tests/\|mock\|fake_cupti\|_test$' "$T/files" | head -3)" || ok
check_installed "$T/root/usr"
finish
