#!/usr/bin/env bash
# GPU tier: the accuracy suite of gpudiag's verdicts, judged on real programs (docs/gpu-tier.md).
# Run from anywhere on the GPU machine; OUT must be set; the binary is $GD (or ./build/gpudiag).
#
#   OUT=dir tests/gpu/accuracy/run.sh [NAME ...]     (names from manifest.tsv; default: all)
#   OUT=dir tests/gpu/accuracy/run.sh --light [NAME ...]   (the same programs under
#                                                    `gpudiag run --light`, in $OUT/accuracy-light)
#   OUT=dir tests/gpu/accuracy/run.sh --metrics [NAME ...] (under `gpudiag run --metrics`, the
#                                                    kernel counters of each kernel's first
#                                                    launches, in $OUT/accuracy-metrics)
#   tests/gpu/accuracy/run.sh --self-test            (the scorer on hand-made reports; no GPU)
#   GD_RUN_EXTRA="--metrics-batch 8": more options for every `gpudiag run` (split on spaces)
#
# Builds the CUDA programs of tests/gpu/accuracy/ with nvcc (-O2 -arch=sm_90, cuBLAS), then runs
# every program of manifest.tsv under `timeout 120 gpudiag run [--light|--metrics] -o
# $OUT/accuracy/NAME.sqlite`, renders `gpudiag report --json` and the terminal report, and
# scores them with score.py:
# planted → its rule must be the top finding; clean → no finding at warning or high; crash →
# the report must state the signal and gpudiag run must exit 128+N. PyTorch programs are
# skipped (SKIP, never a pass) when `python3 -c "import torch"` fails. Each program runs in its
# own scratch folder under $OUT/accuracy/tmp (TMPDIR and HOME-side caches pointed there).
# Output: the table and "accuracy: P/N passed (...)" on stdout, also in $OUT/accuracy/score.txt
# and score.json; profiles (*.sqlite, a few MB each; safe to delete), reports (*.json, *.txt) and
# each program's output (*.run.txt) in $OUT/accuracy (nothing else stays there); the full log in $OUT/accuracy.log.
# With --light the scoring is score.py --light's: a planted program whose rule needs a trace must
# get that rule "insufficient" instead of a verdict. With --metrics, score.py --metrics's: the
# counter-measured rules (uncoalesced, divergence, tensor cores, occupancy) must be on top with
# the kernel counters as their basis, the clean programs must stay clean with the counters on,
# and every run must have profiled launches, none failed; each program gets 240 s, not 120
# (each profiled launch is replayed about 10 times).
# Budget: about 3-4 minutes of GPU time for the 20 programs (--metrics: 300 s for 19 on an H100).
# Exit status: 1 if any program failed (or the build failed), 0 otherwise.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --self-test ]; then
	exec python3 "$HERE/score.py" --self-test
fi
MODE=()    # the option of `gpudiag run` and of score.py: --light, --metrics or none
SUFFIX=
LIMIT=120  # s per program
case ${1:-} in
--light | --metrics)
	MODE=("$1")
	SUFFIX=-${1#--}
	[ "$1" = --metrics ] && LIMIT=240
	shift
	;;
esac
: "${OUT:?set OUT}"
OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd) || exit 2 # absolute before the cd below
cd "$HERE/../../.." || exit 2
G=${GD:-${GPUDIAG:-./build/gpudiag}}
case $G in /*) ;; *) G=$PWD/$G ;; esac
A=$OUT/accuracy$SUFFIX
BIN=$A/tmp/bin # binaries stay out of what comes back: removed at the end
LOG=$OUT/accuracy$SUFFIX.log
rm -rf "$A/tmp"
mkdir -p "$A" "$BIN"
: >"$LOG"
exec 3>&1 >>"$LOG" 2>&1
say() { echo "$*"; echo "$*" >&3; }
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
[ -x "$G" ] || { say "accuracy: no gpudiag binary at $G"; exit 2; }
date -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
"$G" --version
t0=$(date +%s)

# the CUDA programs: one binary per .cu, built in parallel (a failed build fails that program,
# not the suite)
for src in "$HERE"/*.cu; do
	n=$(basename "$src" .cu)
	rm -f "$BIN/$n"
	nvcc -O2 -arch=sm_90 -I"$HERE" "$src" -lcublas -o "$BIN/$n" || say "accuracy: cannot build $src" &
done
wait
echo "built in $(($(date +%s) - t0)) s"

have_torch=0
if python3 -c "import torch" 2>/dev/null; then have_torch=1; fi

want=("$@")
selected() {
	[ ${#want[@]} -eq 0 ] && return 0
	local w
	for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

# a copy of the manifest holding the programs scored in this run
M=$A/manifest.tsv
: >"$M"
while IFS=$'\t' read -r name kind expected cmd; do
	case $name in '' | '#'*) continue ;; esac
	selected "$name" || continue
	printf '%s\t%s\t%s\t%s\n' "$name" "$kind" "$expected" "$cmd" >>"$M"
	rm -f "$A/$name".{json,txt,rc,status,run.txt,sqlite}
	cmd=${cmd//@BIN@/$BIN}
	cmd=${cmd//@SRC@/$HERE}
	read -ra argv <<<"$cmd"
	if [ "${argv[0]}" = python3 ] && [ $have_torch = 0 ]; then
		echo "skip: python3 cannot import torch" >"$A/$name.status"
		say "SKIP $name: python3 cannot import torch"
		continue
	fi
	if [ "${argv[0]#"$BIN"/}" != "${argv[0]}" ] && [ ! -x "${argv[0]}" ]; then
		echo "error: build failed" >"$A/$name.status"
		say "FAIL $name: its program did not build"
		continue
	fi
	echo "=== $name ($kind, expected $expected): ${argv[*]}"
	scratch=$A/tmp/$name
	rm -rf "$scratch"
	mkdir -p "$scratch"
	s=$(date +%s.%N)
	# the scratch folder is the working directory and TMPDIR, so no program writes elsewhere
	# (nor Python's bytecode of residual_mlp.py, the module two programs share); Hugging Face
	# stays offline (the GPT-2 program builds its model from a config)
	(cd "$scratch" && TMPDIR=$scratch XDG_CACHE_HOME=$scratch/cache HF_HOME=$scratch/hf HF_HUB_OFFLINE=1 \
		TRANSFORMERS_OFFLINE=1 MPLCONFIGDIR=$scratch/mpl PYTHONDONTWRITEBYTECODE=1 \
		timeout $LIMIT "$G" run "${MODE[@]}" ${GD_RUN_EXTRA:-} -o "$A/$name.sqlite" -- "${argv[@]}") >"$A/$name.run.txt" 2>&1
	rc=$?
	echo "$rc" >"$A/$name.rc"
	tail -n 40 "$A/$name.run.txt"
	if [ -f "$A/$name.sqlite" ]; then
		"$G" report "$A/$name.sqlite" --json >"$A/$name.json" 2>>"$LOG"
		"$G" report "$A/$name.sqlite" --no-color >"$A/$name.txt" 2>>"$LOG"
	else
		echo "error: gpudiag run wrote no profile (exit $rc)" >"$A/$name.status"
	fi
	el=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$s" "$(date +%s.%N)")
	echo "$name: gpudiag run exit $rc, ${el} s, profile $(du -k "$A/$name.sqlite" 2>/dev/null | cut -f1) KiB"
	rm -rf "$scratch"
done <"$HERE/manifest.tsv"

rm -rf "$A/tmp"
echo "total $(($(date +%s) - t0)) s"
{
	echo
	echo "accuracy suite${SUFFIX:+ (${SUFFIX#-} mode)} ($(($(date +%s) - t0)) s; log $LOG; profiles and reports in $A)"
	python3 "$HERE/score.py" "${MODE[@]}" "$M" "$A"
	echo "rc=$?" >"$A/score.rc"
} | tee -a "$LOG" >&3
rc=$(sed -n 's/^rc=//p' "$A/score.rc")
rm -f "$A/score.rc"
exit "${rc:-1}"
