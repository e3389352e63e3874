#!/usr/bin/env bash
# GPU tier, area "accuracy_metrics": the accuracy suite's programs under `gpudiag run --metrics`
# (the trace and the kernel counters of each kernel's first launches), scored by
# score.py --metrics (tests/gpu/accuracy/run.sh says how). About 5 minutes (300 s on an
# H100). Needs $OUT; the binary is $GD.
exec "$(dirname "$0")/accuracy/run.sh" --metrics "$@"
