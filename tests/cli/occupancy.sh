# gpudiag occupancy: values, limiter, advice, sweep, SVG, errors.
source "$(dirname "$0")/lib.sh" "$@"

expect_rc 0 -- "$GD" occupancy --threads 256 --regs 128 --arch sm_90 --json
json_check "d['result']['blocks_per_sm'] == 2 and d['result']['limited_by'] == ['registers']"
json_check "d['result']['active_warps_per_sm'] == 16 and d['result']['occupancy'] == 0.25"
json_check "d['advice'][0]['resource'] == 'registers' and d['advice'][0]['blocks_per_sm_after'] == 3"
json_check "len(d['sweep']) == 32 and d['sweep'][0]['threads_per_block'] == 32"
json_check "d['sweep'][31]['blocks_per_sm'] == 0"
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 128 --arch sm_90
expect_out "registers"; expect_out "25.0 %"; expect_out "block-size sweep"
# shared memory limited, with opt-in dynamic shared memory
expect_rc 0 -- "$GD" occupancy --threads 128 --regs 32 --dyn-smem 100K --arch sm_90 --json
json_check "d['result']['blocks_per_sm'] == 2 and d['result']['limited_by'] == ['shared_memory']"
json_check "d['result']['smem_per_block_bytes'] == 101*1024"
# Ampere has 48 warps on sm_86: 1024-thread blocks fit once
expect_rc 0 -- "$GD" occupancy --threads 1024 --regs 16 --arch sm_86 --json
json_check "d['result']['blocks_per_sm'] == 1 and d['result']['max_warps_per_sm'] == 48"
# with a (mock) device: waves of the guide's add<<<3907, 256>>>
expect_rc 0 -- env "${MOCK_ENV[@]}" "$GD" occupancy --threads 256 --regs 16 --grid 3907 --json
json_check "d['source'] == 'device' and abs(d['result']['waves'] - 3907/1056) < 1e-9"
# SVG chart is well-formed XML
expect_rc 0 -- "$GD" occupancy --threads 256 --regs 64 --arch sm_90 --svg "$T/occ.svg"
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse('$T/occ.svg')" && ok || bad "svg not XML"
# errors: one line, exit 2
expect_rc 2 -- "$GD" occupancy --regs 32 --arch sm_90; expect_one_line_err
expect_rc 2 -- "$GD" occupancy --threads 256 --arch sm_90; expect_one_line_err
expect_rc 2 -- "$GD" occupancy --threads 2048 --regs 32 --arch sm_90; expect_one_line_err
expect_rc 2 -- "$GD" occupancy --threads 256 --regs 300 --arch sm_90; expect_one_line_err
expect_rc 2 -- "$GD" occupancy --threads 256 --regs 32 --arch sm_61; expect_err "known: sm_75"
expect_rc 2 -- "$GD" occupancy --threads 256 --regs 32 --smem lots --arch sm_90; expect_one_line_err
# a launch that cannot run is reported, not an error
expect_rc 0 -- "$GD" occupancy --threads 1024 --regs 128 --arch sm_90
expect_out "cannot run"
# an SVG to an unwritable place fails cleanly and leaves nothing
expect_rc 1 -- "$GD" occupancy --threads 256 --regs 64 --arch sm_90 --svg /nonexistent/dir/x.svg
expect_one_line_err
finish
