# With no driver, no device or no NVML: one clear line and exit 3 for commands that need a
# GPU; everything that does not need one still works.
source "$(dirname "$0")/lib.sh" "$@"

env "${NOGPU_ENV[@]}" "$GD" info >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 3 ] && ok || bad "info without driver exited $rc"
expect_err "no NVIDIA driver"; expect_one_line_err
expect_rc 3 -- env "${NOGPU_ENV[@]}" "$GD" info --json; expect_one_line_err
expect_rc 3 -- env "${NOGPU_ENV[@]}" "$GD" occupancy --threads 128 --regs 32
expect_err "--arch"; expect_one_line_err
# the calculator itself needs no GPU
expect_rc 0 -- env "${NOGPU_ENV[@]}" "$GD" occupancy --threads 128 --regs 32 --arch sm_80
# a driver that loads but finds no device
expect_rc 3 -- env "${MOCK_ENV[@]}" MOCK_CUDA_INIT_ERROR=100 "$GD" info
expect_err "no CUDA device"; expect_err "CUDA_ERROR_NO_DEVICE"; expect_one_line_err
# a device index that does not exist
expect_rc 3 -- env "${MOCK_ENV[@]}" "$GD" info --device 3; expect_err "no CUDA device 3"; expect_one_line_err
# ... the same check and words for every command that needs a GPU (commands.c gd_need_gpu)
expect_rc 3 -- env "${MOCK_ENV[@]}" "$GD" roofline --device 3; expect_err "roofline: no CUDA device 3 (this machine has 1)"; expect_one_line_err
expect_rc 3 -- env "${MOCK_ENV[@]}" "$GD" lab memory --device 3; expect_err "lab memory: no CUDA device 3"; expect_one_line_err
expect_rc 3 -- env "${MOCK_ENV[@]}" "$GD" occupancy --threads 128 --regs 32 --device 3; expect_err "occupancy: no CUDA device 3"; expect_one_line_err
# driver present, NVML absent: info works, live fields unknown with the reason
expect_rc 0 -- env "${MOCK_ENV[@]}" GPUDIAG_LIBNVML=/nonexistent/nvml.so "$GD" info
expect_out "NVML absent"; expect_out "unknown"
expect_rc 0 -- env "${MOCK_ENV[@]}" GPUDIAG_LIBNVML=/nonexistent/nvml.so "$GD" info --json
json_check "d['devices'][0]['live']['power_w'] is None"
json_check "'NVML absent' in d['devices'][0]['unknown_reasons']['live.power_w']"
json_check "d['devices'][0]['execution']['sm_count'] == 132"
# a GPU of an architecture gpudiag has no table for: the calculator refuses with the reason
# (no guessing), info still shows what the driver reports and says what is unknown
expect_rc 3 -- env "${MOCK_ENV[@]}" MOCK_CUDA_CC=6.1 "$GD" occupancy --threads 128 --regs 32
expect_err "compute capability 6.1"; expect_err "no occupancy table"; expect_one_line_err
expect_rc 0 -- env "${MOCK_ENV[@]}" MOCK_CUDA_CC=6.1 "$GD" info --json
json_check "d['devices'][0]['identity']['compute_capability'] == '6.1'"
json_check "d['devices'][0]['identity']['arch'] is None"
json_check "'no table' in d['devices'][0]['unknown_reasons']['identity.arch']"
json_check "d['devices'][0]['peaks_flops']['fp32']['cuda_cores'] is None"
finish
