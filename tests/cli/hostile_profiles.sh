# Profiles from other machines and files made to look like profiles (docs/profile-schema.md,
# "Reading untrusted profiles"): report and export read them or refuse them with exit 5 and
# a one-line reason; export leaves no file behind.
source "$(dirname "$0")/lib.sh" "$@"
S=tests/fixtures/sample.gpudiag.sqlite
v() { cp "$S" "$T/v.sqlite" && python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$T/v.sqlite" "$1"; }

# a kernels view over an unbounded recursive query: refused before it runs
v "DROP TABLE kernels; CREATE VIEW kernels AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r) SELECT x AS id FROM r;"
expect_rc 5 -- timeout 20 "$GD" report "$T/v.sqlite"
expect_err "not a gpudiag profile (kernels is not a table)"
expect_one_line_err
expect_rc 5 -- timeout 20 "$GD" export "$T/v.sqlite" --perfetto "$T/o.json"
expect_err "kernels is not a table"
[ ! -e "$T/o.json" ] && ok || bad "export left a file for a view profile"

# schema versions that only look like 1
for ver in 1abc 1.0 +1; do
  v "UPDATE meta SET value='$ver' WHERE key='schema_version';"
  expect_rc 5 -- "$GD" report "$T/v.sqlite"
  expect_err "has profile schema version $ver; this gpudiag reads version 1"
done

# impossible times: left out of the numbers (no negative kernel time, no busy fraction 3.9e10)
v "UPDATE kernels SET start=9200000000000000000, end=-9200000000000000000 WHERE id=(SELECT MIN(id) FROM kernels);
   UPDATE kernels SET end=start-1 WHERE id=(SELECT MAX(id) FROM kernels);"
expect_rc 0 -- "$GD" report "$T/v.sqlite" --json
json_check 'd["summary"]["kernels"] == 4098 and d["summary"]["kernel_ns"] >= 0 and 0 <= d["summary"]["gpu_busy_fraction"] <= 1' 
expect_rc 0 -- "$GD" export "$T/v.sqlite" --perfetto "$T/o.json"
python3 tests/cli/check_trace.py "$T/o.json" >/dev/null && ok || bad "export of impossible times is not valid"
grep -q '\.-' "$T/o.json" && bad "a negative fraction in the export" || ok

# a 16-GPU node
v "$(for d in $(seq 1 15); do echo "INSERT INTO devices (id,name,cc_major,cc_minor,sm_count) VALUES ($d,'NVIDIA H200',9,0,132);"; done)"
expect_rc 0 -- "$GD" report "$T/v.sqlite" --json
json_check 'd["gpu"]["devices"] == 16' 

# a profile cut short
head -c 200000 tests/fixtures/h200_sync.gpudiag.sqlite >"$T/cut.sqlite"
expect_rc 5 -- "$GD" export "$T/cut.sqlite" --perfetto "$T/o2.json"
expect_one_line_err
[ ! -e "$T/o2.json" ] && ok || bad "export left a file for a truncated profile"
finish
