# Every command's numeric and string options, walked with 0, -1, empty, huge and garbage
# values: each must be a usage error (exit 2) of exactly one line on stderr naming the option,
# found before any GPU is looked for (the driver and NVML are missing here, so a check that
# came after the GPU's would exit 3 instead). The valid edge values must still pass the
# checks: exit 0 where nothing needs a GPU (occupancy --arch, diff), else 3, the no-GPU error.
# The review found `monitor --count 0` running forever and `--reps 0`, `--size 0`,
# `--only ''` quietly taken as the defaults; those rows are here.
source "$(dirname "$0")/lib.sh" "$@"
F=$(cd "$(dirname "$0")/../fixtures" && pwd)/sample.gpudiag.sqlite
GD=$(cd "$(dirname "$GD")" && pwd)/$(basename "$GD")
cd "$T" || exit 1 # a `run` row that wrongly ran would leave its profile here, not in the tree
export XDG_CACHE_HOME=$T/cache HOME=$T # roofline --show reads an empty cache, not the user's
OCC="occupancy --threads 256 --regs 32 --arch sm_90"
LABS="memory coalescing precision launch grid divergence occupancy streams sfu fusion attention"

# bad ROW: OPTION (as it must appear in the message), then the arguments (shell words)
bad_rows() {
  for v in 0 -1 "''" 1e9 3601 0.049 abc; do echo "--interval|monitor --interval $v"; done
  for v in 0 -1 "''" 1000000001 99999999999 abc 1.5; do echo "--count|monitor --count $v"; done
  for base in "$OCC" "occupancy --threads 256 --regs 32"; do # with --arch, and for the GPU
    for v in 0 -1 "''" 1025 2147483647 99999999999 -2147483648 abc; do echo "--threads|${base/--threads 256/--threads $v}"; done
    for v in -1 256 "''" abc; do echo "--regs|${base/--regs 32/--regs $v}"; done
    for o in smem dyn-smem; do for v in -1 "''" 4G 1e30 abc; do echo "--$o|$base --$o $v"; done; done
    for v in 0 -1 "''" 4G abc; do echo "--max-dyn-smem|$base --max-dyn-smem $v"; done
    for v in -1 101 "''" abc; do echo "--carveout|$base --carveout $v"; done
    for v in -1 17 "''" abc; do echo "--barriers|$base --barriers $v"; done
    for v in 0 -1 "''" 1e30 abc; do echo "--grid|$base --grid $v"; done
    echo "--svg|$base --svg ''"
  done
  echo "--threads|occupancy --threads 0" # the review's case: the range, not "is required"
  echo "--arch|occupancy --threads 256 --regs 32 --arch ''"
  for v in 0 -1 "''" 9 65 99999999999 abc; do echo "--reps|roofline --reps $v"; done
  for v in "''" , dram, ,dram dram,,l2 bogus; do echo "--only|roofline --only $v"; done
  echo "--svg|roofline --svg ''"
  for l in $LABS; do
    for v in 0 -1 "''" 9 65 abc; do echo "--runs|lab $l --runs $v"; done
    for v in 0 -1 "''" 2048G 1e30 abc; do echo "--size|lab $l --size $v"; done
    for o in shape csv svg; do echo "--$o|lab $l --$o ''"; done
  done
  for l in memory coalescing precision launch grid divergence occupancy streams sfu; do
    echo "--shape|lab $l --shape lens=512"
  done
  echo "--size|lab sfu --size 1M"
  echo "--size|lab attention --size 1000" # not a multiple of 64
  echo "--shape|lab fusion --shape hidden=12"
  for v in 0 -1 "''" 99999999999 abc; do echo "--top|diff $F $F --top $v"; done
  echo "--html|report $F --html ''"
  echo "--perfetto|export $F --perfetto ''"
  for v in 0 -1 "''" 100001 abc; do echo "--iters|__demo --iters $v"; done
  # run's own ranges are cmd_run.c's; what the parser owns (empty, garbage) is checked here
  for o in output capture-range api; do echo "--$o|run --$o '' -- true"; done
  for o in nvml-hz delay duration; do for v in "''" abc -1; do echo "--$o|run --$o $v -- true"; done; done
}

# good ROW: the exit code wanted, then the arguments
good_rows() {
  echo "3|monitor --count 1 --interval 0.05"
  echo "3|monitor --count 1000000000 --interval 3600"
  echo "0|occupancy --threads 1 --regs 0 --arch sm_90"
  echo "0|occupancy --threads 1024 --regs 255 --arch sm_90"
  echo "0|$OCC --smem 0 --dyn-smem 0 --carveout 0 --barriers 0 --grid 1"
  echo "0|$OCC --smem 48K --max-dyn-smem 1 --carveout 100 --barriers 16 --grid 9000000000000000000"
  echo "3|occupancy --threads 1024 --regs 255"
  echo "3|roofline --reps 10 --only dram,l2,smem,l1,fma,sfu,mma,wgmma,gemm"
  echo "3|roofline --reps 64 --quick"
  echo "5|roofline --show --reps 10" # no GPU needed; the cache is empty here: "no cached ceilings"
  for l in $LABS; do echo "3|lab $l --runs 10"; echo "3|lab $l --runs 64 --quick"; done
  echo "3|lab memory --size 1M"; echo "3|lab memory --size 1024G"
  echo "3|lab coalescing --size 16M"; echo "3|lab precision --size 1M"
  echo "3|lab launch --size 4"; echo "3|lab launch --size 1G"
  echo "3|lab grid --size 4K"; echo "3|lab grid --size 1600000000"
  echo "3|lab divergence --size 4K"; echo "3|lab divergence --size 1G"
  echo "3|lab occupancy --size 16K"; echo "3|lab occupancy --size 8G"
  echo "3|lab streams --size 64K"; echo "3|lab streams --size 8G"
  echo "3|lab fusion --size 1"; echo "3|lab fusion --size 16M --shape hidden=64"
  echo "3|lab attention --size 512"; echo "3|lab attention --size 16M"
  echo "0|diff $F $F --top 1"
  echo "0|diff $F $F --top 2147483647"
  echo "3|__demo --iters 1"
  echo "3|__demo --iters 100000"
}

while IFS='|' read -r opt args; do
  eval "set -- $args"
  expect_rc 2 -- timeout 20 env "${NOGPU_ENV[@]}" "$GD" "$@" # a loop forever fails, not hangs
  expect_one_line_err
  grep -qF -- "$opt" "$T/err" && ok || bad "'$args': stderr does not name $opt: $(cat "$T/err")"
  [ -s "$T/out" ] && bad "'$args': wrote to stdout on a usage error"
done < <(bad_rows)

while IFS='|' read -r want args; do
  eval "set -- $args"
  expect_rc "$want" -- timeout 20 env "${NOGPU_ENV[@]}" "$GD" "$@"
  grep -q "must be\|needs \|takes no\|is required" "$T/err" && bad "'$args': a valid value refused: $(cat "$T/err")"
done < <(good_rows)

ls "$T"/*.gpudiag.sqlite >/dev/null 2>&1 && bad "a run row ran a program"
finish
