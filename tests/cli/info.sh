# gpudiag info end to end against the mock driver and NVML (an H200 under a power cap).
source "$(dirname "$0")/lib.sh" "$@"

expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" info
expect_out "NVIDIA H200 (mock)"; expect_out "sm_90"; expect_out "Hopper"
expect_out "4.81 TB/s"; expect_out "software power cap"; expect_out "60 MiB"
expect_out "FP8"; expect_out "1.07 PFLOP/s"
expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" info --json
json_check "len(d['devices']) == 1"
json_check "d['devices'][0]['identity']['uuid'] == 'GPU-10111213-1415-1617-1819-1a1b1c1d1e1f'"
json_check "d['devices'][0]['identity']['compute_capability'] == '9.0'"
json_check "d['devices'][0]['execution']['max_warps_per_sm'] == 64"
json_check "d['devices'][0]['memory']['l2_bytes'] == 62914560"
json_check "abs(d['devices'][0]['memory']['theoretical_bandwidth_bytes_per_s'] - 2*3201e6*6016/8) < 1e6"
json_check "d['devices'][0]['live']['clock_event_mask'] == 4"
json_check "d['devices'][0]['live']['power_w'] == 690.123"
json_check "d['devices'][0]['links']['pcie'] is None"
json_check "d['devices'][0]['tensor_cores']['fp8'] == 'tensor cores'"
json_check "abs(d['devices'][0]['peaks_flops']['fp32']['cuda_cores'] - 256*132*1980e6) < 1"
json_check "d['devices'][0]['peaks_flops']['fp32']['tensor_cores'] is None"
json_check "abs(d['devices'][0]['peaks_flops']['bf16']['tensor_cores'] - 4096*132*1980e6) < 1"
json_check "d['devices'][0]['sharing']['mig_mode'] == 'disabled'"
expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" info --device 0 --json
json_check "d['devices'][0]['identity']['index'] == 0"
finish
