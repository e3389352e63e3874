#!/usr/bin/env bash
# GPU tier, area "accuracy_light": the accuracy suite's programs under `gpudiag run --light`
# (no trace; NVML and the GPU-metrics timeline only), scored by score.py --light
# (tests/gpu/accuracy/run.sh says how). About 2 minutes. Needs $OUT; the binary is $GD.
exec "$(dirname "$0")/accuracy/run.sh" --light "$@"
