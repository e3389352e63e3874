# gpudiag monitor against the mock NVML: a line per sample, JSON Lines, decoded reasons.
source "$(dirname "$0")/lib.sh" "$@"

expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" monitor --count 3 --interval 0.05
[ "$(grep -c 'software power cap' "$T/out")" -eq 3 ] && ok || bad "expected 3 sample lines"
expect_out "clock-event reasons"
expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" monitor --count 2 --interval 0.05 --json
[ "$(wc -l <"$T/out")" -eq 2 ] && ok || bad "expected 2 JSON lines"
python3 -c '
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
assert all(r["clock_event_mask"]==4 and r["throttling"] and r["power_w"]==690.123 for r in rows)
assert rows[0]["pcie_rx_bytes_per_s"] is None
assert rows[1]["t"] >= rows[0]["t"] + 0.04' "$T/out" && ok || bad "JSON lines content"
expect_rc 3 -- env "${NOGPU_ENV[@]}" "$GD" monitor --count 1; expect_err "NVML absent"; expect_one_line_err
expect_rc 2 -- env "${MOCK_ENV[@]}" "$GD" monitor --interval 0; expect_one_line_err
expect_rc 3 -- env "${MOCK_ENV[@]}" "$GD" monitor --device 5 --count 1; expect_one_line_err
finish
