# Installing the .deb into a clean Debian system, as a user would: `apt-get install
# ./gpudiag_*.deb` in a minimal root file system of the host's own Debian release, made fresh
# by mmdebstrap (--variant=apt: the Essential packages and apt, plus man-db and
# bash-completion) from the Debian mirror the host's apt uses, and entered with chroot inside a
# private mount and PID namespace (its /proc and /dev vanish with the namespace, however the
# command ends). apt resolves the package's Depends from the mirror, so a library missing from
# Depends leaves gpudiag unable to start there; a package doctored to lack libsqlite3-0 shows
# that the check notices. Then, against the installed files only (no source or build tree is
# in there): --version, run with no GPU (the sample profile, labelled), report (text, JSON,
# HTML), export --perfetto, diff, occupancy --arch, info with no GPU, man, bash completion;
# and apt-get remove leaves no gpudiag file. Nothing is kept between runs. docs/install.md.
#
# Skips (77, saying why) where it cannot run: not root, no mmdebstrap (.ci/run installs it)
# or cpack, no unshare, a host that is not Debian, no Debian mirror reachable.
# GPUDIAG_CONTAINER_TEST=require (set by .ci/run) makes each of those a failure, so CI cannot
# go green without this test having run. A sanitizer build is always skipped. About 1 min
# with a fast mirror (30 s of it making the clean system).
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/install_checks.bash"

skip() {
  if [ "${GPUDIAG_CONTAINER_TEST:-}" = require ]; then
    bad "cannot run, and GPUDIAG_CONTAINER_TEST=require: $*"; finish; exit 1
  fi
  echo "SKIP: $*"; exit 77
}

# Every mount of this test lives in a namespace that ends with the command that made it, so
# nothing of $T is mounted here; should something be (a bug), it is unmounted before the
# removal, and rm never crosses into another file system.
cleanup() {
  awk -v t="$T/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
    while read -r m; do umount -l "$m"; done
  rm -rf --one-file-system "$T"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || skip "needs root (mmdebstrap, chroot, mount, dpkg in the clean system)"
# not an obstacle of the machine but of the build, so a skip even where the test is required
if grep -q '^GPUDIAG_SANITIZE:BOOL=ON' "$B/CMakeCache.txt"; then
  echo "SKIP: a sanitizer build, whose package would need the sanitizer runtimes (CI's other passes install theirs)"
  exit 77
fi
for t in cpack dpkg-deb mmdebstrap unshare chroot apt-get apt-config; do
  command -v $t >/dev/null || skip "$t is not installed (.ci/run installs mmdebstrap)"
done
os_id=$(. /etc/os-release 2>/dev/null && echo "${ID:-}")
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ "$os_id" = debian ] && [ -n "$codename" ] ||
  skip "the host is not Debian (/etc/os-release: ID=$os_id), and the clean system is of the host's own release"
unshare -m -p --fork --kill-child true 2>/dev/null || skip "unshare (a mount and PID namespace) is not permitted here"

# The Debian sources the host's apt uses for its release (the release, -updates, -security),
# main only (a Depends that only contrib or non-free could satisfy must fail), one
# "deb URI SUITE main" line each: the clean system comes from the host's mirror, the one
# network place CI may reach. Where apt has fetched the release files, only those whose
# Origin is Debian; before any `apt-get update`, by the suite's name alone.
debian_sources() {
  apt-get indextargets "$@" --format '$(TARGET_OF)|$(IDENTIFIER)|$(COMPONENT)|$(ORIGIN)|$(REPO_URI)|$(RELEASE)' 2>/dev/null |
    awk -F'|' -v c="$codename" '$1 == "deb" && $2 == "Packages" && $3 == "main" &&
      ($4 == "Debian" || $4 == "$(ORIGIN)") && ($6 == c || $6 == c "-updates" || $6 == c "-security") {
        print "deb " $5 " " $6 " main" }' | sort -u
}
debian_sources >"$T/sources"
[ -s "$T/sources" ] || debian_sources --no-release-info >"$T/sources"
[ -s "$T/sources" ] || skip "the host's apt has no Debian source of $codename (apt-get indextargets)"
read -r _ uri suite _ < <(awk -v c="$codename" '$3 == c' "$T/sources")
[ -n "${uri:-}" ] || read -r _ uri suite _ <"$T/sources"
timeout 60 /usr/lib/apt/apt-helper download-file "${uri%/}/dists/$suite/InRelease" "$T/InRelease" >"$T/reach.log" 2>&1 ||
  skip "no Debian mirror reachable: ${uri%/}/dists/$suite/InRelease: $(tail -1 "$T/reach.log")"
# the host's apt proxy, if any, for mmdebstrap and, through its apt.conf, for apt in there
aptopts=()
for k in Acquire::http::Proxy Acquire::https::Proxy; do
  v=$(apt-config dump "$k" | sed -n "s/^$k \"\\(.*\\)\";\$/\\1/p")
  [ -n "$v" ] && aptopts+=("--aptopt=$k \"$v\"")
done

# ---- the package, and a copy that lacks libsqlite3-0 in Depends (the check must catch it)
make_deb "$T/pkg" || { finish; exit; }
depends=$(dpkg-deb -f "$deb" Depends)
echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep . >"$T/dep_names"
grep -qx libsqlite3-0 "$T/dep_names" && ok || bad "Depends lacks libsqlite3-0: $depends"
dpkg-deb -R "$deb" "$T/nodeps" && ok || bad "dpkg-deb -R failed"
sed -i -E '/^Depends:/{s/(, )?libsqlite3-0( \([^)]*\))?//; s/^Depends: , /Depends: /}' "$T/nodeps/DEBIAN/control"
grep -q '^Depends:.*libsqlite3' "$T/nodeps/DEBIAN/control" && bad "could not take libsqlite3-0 out of Depends" || ok

# ---- the clean system
R=$T/root
start=$SECONDS
if mmdebstrap --mode=unshare --variant=apt --include=man-db,bash-completion --skip=cleanup/apt/lists \
     "${aptopts[@]}" "$codename" "$R" "$T/sources" >"$T/mmdebstrap.log" 2>&1; then ok; else
  bad "mmdebstrap of $codename from $(paste -sd' ' "$T/sources" | cut -c1-200) failed: $(tail -5 "$T/mmdebstrap.log")"
  finish; exit
fi
echo "clean $codename system made in $((SECONDS - start)) s ($(du -sm "$R" | cut -f1) MB) from: $(awk '{print $2 $3}' "$T/sources" | paste -sd' ')"
mkdir -p "$R/tmp/gd"
cp "$deb" "$R/tmp/gd/" && ok || bad "cannot copy the package in"
dpkg-deb -b -Zgzip -z1 "$T/nodeps" "$R/tmp/gd/nodeps.deb" >/dev/null && ok || bad "dpkg-deb -b of the doctored package failed"
cp tests/fixtures/h200_sync.gpudiag.sqlite tests/fixtures/h200_clean.gpudiag.sqlite "$R/tmp/gd/" && ok || bad "cannot copy the fixtures in"
in_deb=/tmp/gd/${deb##*/}

# Runs a command in the clean system: a new mount and PID namespace (whatever is mounted
# there goes with it, even when the command is killed), a fresh /proc, a /dev of the usual
# device nodes only, then chroot with a clean environment. Exit 125: could not enter.
cat >"$T/enter" <<'EOF'
r=$1; shift
mount -t proc proc "$r/proc" && mount -t tmpfs -o mode=0755,nosuid tmpfs "$r/dev" || exit 125
for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r f maj min <<<"$n"
  mknod -m 666 "$r/dev/$f" c "$maj" "$min" || exit 125
done
ln -s /proc/self/fd "$r/dev/fd" && ln -s fd/0 "$r/dev/stdin" && ln -s fd/1 "$r/dev/stdout" &&
  ln -s fd/2 "$r/dev/stderr" || exit 125
# the host's proxy variables, if set, so that apt in there reaches the mirror as apt here does
exec chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive ${http_proxy:+"http_proxy=$http_proxy"} \
  ${https_proxy:+"https_proxy=$https_proxy"} ${no_proxy:+"no_proxy=$no_proxy"} "$@"
EOF
in_root() { unshare -m -p --fork --kill-child --propagation private bash "$T/enter" "$R" "$@"; }
gd() { in_root /usr/bin/gpudiag "$@"; }

expect_rc 0 -- in_root true
[ $fail -eq 0 ] || { finish; exit; }
# what the clean system has before gpudiag; libsqlite3-0 must not be in it, or a Depends
# without it would go unnoticed
in_root dpkg-query -W -f '${Package}\n' >"$T/base" 2>&1
grep -qx libsqlite3-0 "$T/base" && bad "the clean system already has libsqlite3-0: a Depends without it would pass" || ok

# ---- the doctored package: installed without libsqlite3-0, gpudiag cannot start
expect_rc 0 -- in_root dpkg -i /tmp/gd/nodeps.deb
gd --version >"$T/out" 2>"$T/err" && bad "gpudiag started with libsqlite3-0 missing from Depends: the check cannot catch a missing dependency" || ok
expect_err "libsqlite3.so.0"
expect_rc 0 -- in_root dpkg -r gpudiag

# ---- the real package, its Depends resolved from the mirror by apt
start=$SECONDS
expect_rc 0 -- in_root apt-get install -y --no-install-recommends "$in_deb"
[ $fail -eq 0 ] || { tail -20 "$T/out" "$T/err"; finish; exit; }
echo "apt-get install took $((SECONDS - start)) s and added: $(in_root dpkg-query -W -f '${Package}\n' | grep -vxF -f "$T/base" | paste -sd' ')"
mapfile -t dep_names <"$T/dep_names"
in_root dpkg-query -W -f '${db:Status-Abbrev}|${Package}\n' "${dep_names[@]}" gpudiag >"$T/status" 2>&1
while read -r p; do
  grep -qx "ii |$p" "$T/status" && ok || bad "$p (Depends) is not installed: $(grep "|$p\$" "$T/status")"
done < <(cat "$T/dep_names"; echo gpudiag)
expect_rc 0 -- in_root ldd /usr/bin/gpudiag
grep -q "not found" "$T/out" && bad "a library of gpudiag is missing: $(grep 'not found' "$T/out")" || ok

# ---- the installed files, found relative to the binary
lib=$(dpkg-deb -c "$deb" | awk '{ print substr($NF, 2) }' | grep '/gpudiag/libgpudiag_inject\.so$')
sample=/usr/share/gpudiag/sample.gpudiag.sqlite
expect_rc 0 -- gd --version
expect_out "sample profile: $sample"
if [ -n "$lib" ]; then expect_out "injection library: $lib"; else expect_out "injection library: not found"; fi
cp "$T/out" "$T/version"
expect_rc 0 -- gd -V
cmp -s "$T/out" "$T/version" && ok || bad "-V differs from --version"

# ---- run with no GPU (there is no driver in there at all): the installed sample, labelled
expect_rc 0 -- gd run
expect_out "No GPU here, so the demo cannot run. Showing instead a sample profile shipped with gpudiag ($sample)"
expect_out "SAMPLE profile recorded on an NVIDIA H200"

# ---- report of the sample: text, JSON (parsed here), a self-contained HTML page
expect_rc 0 -- gd report "$sample"
expect_out "SAMPLE profile recorded on an NVIDIA H200"
expect_out "VERDICT  21 copies in the main loop used pageable host memory"
expect_rc 0 -- gd report "$sample" --json
json_check "'recorded on an NVIDIA H200' in d['sample_label'] and d['verdict']['top'] == 'pageable_memory'"
expect_rc 0 -- gd report "$sample" --html /tmp/gd/r.html
h=$R/tmp/gd/r.html
head -c 200 "$h" 2>/dev/null | grep -qi '^<!DOCTYPE html>' && grep -q '</html>' "$h" && ok || bad "report --html wrote no HTML page"
grep -q 'SAMPLE profile recorded on an NVIDIA H200' "$h" && ok || bad "the HTML page lacks the sample's label"
grep -qE '(src|href)="(https?:)?//' "$h" && bad "the HTML page loads something from the network: $(grep -oE '(src|href)="(https?:)?//[^"]*' "$h" | head -2)" || ok

# ---- export: the sample's 4100 kernels in the trace (Chrome JSON is checked event by event;
# a Perfetto protobuf trace starts with a TracePacket, field 1 length-delimited: byte 0x0a)
expect_rc 0 -- gd export "$sample" --perfetto /tmp/gd/t.trace
t=$R/tmp/gd/t.trace
case $(head -c 1 "$t" 2>/dev/null | od -An -tx1 | tr -d ' ') in
  7b|5b) python3 tests/cli/check_trace.py "$t" kernels=4100 >"$T/trace.log" 2>&1 && ok || bad "export: $(tail -2 "$T/trace.log")" ;;
  0a) [ "$(stat -c %s "$t")" -gt 100000 ] && ok || bad "export: a protobuf trace of $(stat -c %s "$t") bytes" ;;
  *) bad "export --perfetto wrote neither JSON nor a protobuf trace" ;;
esac

# ---- diff of two recorded profiles: 400 work_kernel launches in one, 100 GEMMs and 2 fills
# in the other (counted in the fixtures)
expect_rc 0 -- gd diff /tmp/gd/h200_sync.gpudiag.sqlite /tmp/gd/h200_clean.gpudiag.sqlite
expect_out "kernels 400 → 102"
grep -qE '^ +work_kernel +.* gone +400 → 0$' "$T/out" && ok || bad "diff: no 'work_kernel ... gone 400 → 0' line"

# ---- occupancy with no GPU: 256 threads x 128 registers = 32 768 of sm_90's 65 536 registers
# a block, so 2 blocks, 16 of 64 warps: 25 %, limited by registers
expect_rc 0 -- gd occupancy --threads 256 --regs 128 --arch sm_90
expect_out "25.0 %"; expect_out "registers"

# ---- info with no GPU: exit 3 and one clear line
expect_rc 3 -- gd info
expect_one_line_err; expect_err "no NVIDIA driver"

# ---- man finds the page where it was installed, and shows the help text
expect_rc 0 -- in_root man -w gpudiag-report
expect_out "/usr/share/man/man1/gpudiag-report.1"
usage=$(gd help report | head -1)
expect_rc 0 -- in_root env MANWIDTH=120 man -P cat gpudiag-report
[ -n "$usage" ] && grep -qF -- "$usage" "$T/out" && ok || bad "man gpudiag-report lacks '$usage'"

# ---- bash completion: bash-completion's loader finds the installed file, which offers the
# commands `gpudiag help` lists
cmds=$(help_commands gd)
expect_rc 0 -- in_root bash -c '. /usr/share/bash-completion/bash_completion && __load_completion gpudiag &&
  complete -p gpudiag && COMP_WORDS=(gpudiag "") && COMP_CWORD=1 && _gpudiag && printf "%s\n" "${COMPREPLY[@]}"'
grep -qE '^complete .*-F _gpudiag gpudiag$' "$T/out" && ok || bad "bash-completion did not load _gpudiag: $(head -3 "$T/out" "$T/err")"
for c in $cmds; do grep -qx "$c" "$T/out" && ok || bad "bash completion lacks the command $c"; done
[ -n "$cmds" ] && ok || bad "gpudiag help lists no command"

# ---- apt-get remove leaves no gpudiag file. Home folders are the user's, never the
# package's (report --html leaves an empty ~/.cache/gpudiag, where roofline caches ceilings).
in_root dpkg-query -L gpudiag >"$T/files" 2>&1
grep -qx /usr/bin/gpudiag "$T/files" && ok || bad "dpkg-query -L gpudiag: $(head -3 "$T/files")"
prune=(\( -path /tmp -o -path /proc -o -path /dev -o -path /root -o -path /home \) -prune -o -name '*gpudiag*' -print)
in_root find / -xdev "${prune[@]}" >"$T/before" 2>&1
grep -qx /usr/share/gpudiag "$T/before" && ok || bad "find sees no /usr/share/gpudiag before the removal"
expect_rc 0 -- in_root apt-get remove -y gpudiag
in_root dpkg-query -W -f '${db:Status-Abbrev}\n' gpudiag >"$T/out" 2>/dev/null
grep -q '^[ir]' "$T/out" && bad "gpudiag is still known to dpkg after apt-get remove: $(cat "$T/out")" || ok
in_root find / -xdev "${prune[@]}" >"$T/after" 2>&1
[ ! -s "$T/after" ] && ok || bad "apt-get remove left: $(head -5 "$T/after" | paste -sd' ')"
mapfile -t files <"$T/files"
in_root bash -c 'for f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done; true' _ "${files[@]}" >"$T/left"
[ ! -s "$T/left" ] && ok || bad "apt-get remove left files of the package: $(head -5 "$T/left" | paste -sd' ')"
finish
