#!/usr/bin/env bash
# Records every output gpudiag gives without a GPU into one folder, so two builds can be
# compared byte for byte (a refactoring must leave them identical):
#
#   tests/refactor/snapshot.sh BUILD_DIR OUT_DIR
#   diff -r OUT_BEFORE OUT_AFTER        # nothing = the same behaviour
#
# Covered: report (terminal, --json, --html) and export --perfetto on every recorded fixture
# and on every generated scenario profile, diff between pairs, occupancy, info and monitor
# through the mock driver and NVML, roofline and lab without a GPU, every help text, run's
# no-GPU fallback and the error paths for bad files. Each case leaves NAME.out, NAME.err and
# NAME.rc; the temporary folder's name is replaced by <T> so runs compare.
set -u
B=$(cd "$1" && pwd)
O=$2
G=$B/gpudiag
mkdir -p "$O"
O=$(cd "$O" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$(dirname "$0")/../.."
R=$(pwd)
export NO_COLOR=1 LC_ALL=C.UTF-8 TZ=UTC XDG_CACHE_HOME=$T/cache HOME=$T/home
MOCK=(GPUDIAG_LIBCUDA="$B/libgpudiag_mock_cuda.so" GPUDIAG_LIBNVML="$B/libgpudiag_mock_nvml.so")
NOGPU=(GPUDIAG_LIBCUDA=/nonexistent/libcuda.so.1 GPUDIAG_LIBNVML=/nonexistent/libnvidia-ml.so.1)

norm() { sed -e "s#$T#<T>#g" -e "s#$B#<B>#g" -e "s#$R#<R>#g" "$1"; }
# case NAME cmd...   (files written under $T/files are captured too, as NAME.file.*)
case_() {
  local name=$1; shift
  rm -rf "$T/files"; mkdir -p "$T/files"
  ( cd "$T/files" && "$@" ) >"$T/o" 2>"$T/e"; echo $? >"$O/$name.rc"
  norm "$T/o" >"$O/$name.out"; norm "$T/e" >"$O/$name.err"
  for f in "$T/files"/*; do [ -f "$f" ] && norm "$f" >"$O/$name.file.$(basename "$f")"; done
  return 0
}

P=()
for f in tests/fixtures/*.gpudiag.sqlite; do P+=("$(pwd)/$f"); done
for s in clean idle launch sync pageable default_stream occupancy membound tensor throttle memory comm dropped sample hostile; do
  python3 tests/fixtures/gen_profile.py "$s" "$T/gen_$s.gpudiag.sqlite" >/dev/null 2>&1 && P+=("$T/gen_$s.gpudiag.sqlite")
done
for p in "${P[@]}"; do
  n=$(basename "$p" .gpudiag.sqlite)
  case_ "report.$n" env "${NOGPU[@]}" "$G" report "$p"
  case_ "report_json.$n" env "${NOGPU[@]}" "$G" report "$p" --json
  case_ "report_html.$n" env "${NOGPU[@]}" "$G" report "$p" --html page.html
  case_ "report_html_json.$n" env "${NOGPU[@]}" "$G" report "$p" --json --html page.html
  case_ "export.$n" env "${NOGPU[@]}" "$G" export "$p" --perfetto trace.json
  case_ "export_stdout.$n" env "${NOGPU[@]}" "$G" export "$p" --perfetto -
done
a=$(pwd)/tests/fixtures
for pair in "h200_clean h200_idle" "h200_idle h200_sync" "sample h200_clean" "threads nvtx" "abort sample"; do
  set -- $pair
  case_ "diff.$1.$2" env "${NOGPU[@]}" "$G" diff "$a/$1.gpudiag.sqlite" "$a/$2.gpudiag.sqlite"
  case_ "diff_json.$1.$2" env "${NOGPU[@]}" "$G" diff "$a/$1.gpudiag.sqlite" "$a/$2.gpudiag.sqlite" --json
done
# bad inputs
printf 'not a profile' >"$T/bad.txt"; : >"$T/empty.sqlite"; head -c 20000 "$a/sample.gpudiag.sqlite" >"$T/trunc.sqlite"
for f in "$T/bad.txt" "$T/empty.sqlite" "$T/trunc.sqlite" /nonexistent.sqlite; do
  n=$(basename "$f")
  case_ "bad_report.$n" "$G" report "$f"
  case_ "bad_report_json.$n" "$G" report "$f" --json
  case_ "bad_export.$n" "$G" export "$f" --perfetto x.json
  case_ "bad_diff.$n" "$G" diff "$f" "$a/sample.gpudiag.sqlite"
done
# occupancy: the calculator with no GPU, and through the mock driver
i=0
for args in "--threads 256 --regs 128 --arch sm_90" "--threads 128 --regs 32 --dyn-smem 100K --arch sm_90" \
            "--threads 1024 --regs 64 --arch sm_80 --json" "--threads 64 --regs 255 --smem 40K --arch sm_75" \
            "--threads 256 --regs 32 --arch sm_120 --json" "--threads 128 --regs 32 --dyn-smem 100K --grid 3907 --arch sm_90" \
            "--threads 256 --regs 128 --arch sm_90 --svg occ.svg" "--threads 0 --arch sm_90" "--threads 256 --arch sm_61" \
            "--threads 256 --regs 128" "--threads 2000 --regs 32 --arch sm_90"; do
  i=$((i + 1))
  case_ "occupancy.nogpu.$i" env "${NOGPU[@]}" "$G" occupancy $args
  case_ "occupancy.mock.$i" env "${MOCK[@]}" "$G" occupancy $args
done
case_ "occupancy.mock.grid" env "${MOCK[@]}" "$G" occupancy --threads 128 --regs 32 --grid 3907
case_ "occupancy.mock.grid_json" env "${MOCK[@]}" "$G" occupancy --threads 128 --regs 32 --grid 3907 --json
# info and monitor through the mocks (and their failures)
case_ "info.mock" env "${MOCK[@]}" "$G" info
case_ "info.mock_json" env "${MOCK[@]}" "$G" info --json
case_ "info.mock_dev3" env "${MOCK[@]}" "$G" info --device 3
case_ "info.mock_nonvml" env "${MOCK[@]}" GPUDIAG_LIBNVML=/nonexistent "$G" info --json
case_ "info.mock_cc61" env "${MOCK[@]}" MOCK_CUDA_CC=6.1 "$G" info --json
case_ "info.mock_nodev" env "${MOCK[@]}" MOCK_CUDA_INIT_ERROR=100 "$G" info
case_ "info.nogpu" env "${NOGPU[@]}" "$G" info
case_ "info.nogpu_json" env "${NOGPU[@]}" "$G" info --json
case_ "monitor.nogpu" env "${NOGPU[@]}" "$G" monitor --count 1
case_ "monitor.mock_badcount" env "${MOCK[@]}" "$G" monitor --count -1
# roofline and lab without a GPU, and with the mock (no kernels can run there)
case_ "roofline.nogpu" env "${NOGPU[@]}" "$G" roofline --quick
case_ "roofline.nogpu_show" env "${NOGPU[@]}" "$G" roofline --show
case_ "roofline.nogpu_show_json" env "${NOGPU[@]}" "$G" roofline --show --json
case_ "roofline.mock" env "${MOCK[@]}" "$G" roofline --quick
case_ "roofline.mock_dev5" env "${MOCK[@]}" "$G" roofline --device 5
case_ "lab.list" env "${NOGPU[@]}" "$G" lab
case_ "lab.list_json" env "${NOGPU[@]}" "$G" lab --json
for l in memory coalescing precision launch grid divergence occupancy streams sfu fusion attention nosuch; do
  case_ "lab.nogpu.$l" env "${NOGPU[@]}" "$G" lab "$l" --quick
  case_ "lab.mock.$l" env "${MOCK[@]}" "$G" lab "$l" --quick
done
# run without a GPU: the demo falls back to the shipped sample
case_ "run.nogpu_demo" env "${NOGPU[@]}" "$G" run
case_ "run.nogpu_demo_json" env "${NOGPU[@]}" "$G" run --json
case_ "run.usage" "$G" run --bogus
# help texts and usage errors
case_ "help.main" "$G" --help
case_ "help.none" "$G"
case_ "help.version" "$G" --version
case_ "help.unknown" "$G" frobnicate
for c in info occupancy roofline lab run report export diff monitor; do
  case_ "help.$c" "$G" help "$c"
  case_ "help_flag.$c" "$G" "$c" --help
  case_ "usage_bogus.$c" env "${NOGPU[@]}" "$G" "$c" --bogus-option
done
for l in memory coalescing precision launch grid divergence occupancy streams sfu fusion attention; do
  case_ "help.lab.$l" "$G" lab "$l" --help
done
echo "snapshot: $(ls "$O" | wc -l) files in $O"
