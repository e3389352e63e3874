# The top of every report: how the program ended (code, signal) in the terminal, JSON and
# HTML; and no control character from a profile reaches the terminal (a profile can come from
# anywhere: its command line, label, driver and device strings are the sender's).
source "$(dirname "$0")/lib.sh" "$@"
export NO_COLOR=1
F=tests/fixtures
# a crash: SIGABRT, exit status 134
expect_rc 0 -- "$GD" report $F/abort.gpudiag.sqlite
expect_out "the program was killed by signal 6 (SIGABRT"; expect_out "exit status 134"
[ "$(grep -n 'killed by signal' "$T/out" | cut -d: -f1)" -lt "$(grep -n '^VERDICT' "$T/out" | cut -d: -f1)" ] && ok ||
  bad "the exit is not above the verdict"
expect_rc 0 -- "$GD" report $F/abort.gpudiag.sqlite --json
json_check "d['run']['exit_signal'] == 6 and d['run']['exit_code'] == 134 and d['run']['failed'] is True"
json_check "d['run']['pid'] > 0 and d['run']['processes'] >= 1"
expect_rc 0 -- "$GD" report $F/abort.gpudiag.sqlite --html "$T/abort.html"
grep -q "id='run-exit'>The program was killed by signal 6" "$T/abort.html" && ok || bad "HTML lacks the exit line"
# a clean exit
expect_rc 0 -- "$GD" report $F/h200_clean.gpudiag.sqlite --json
json_check "d['run']['exit_code'] == 0 and d['run']['exit_signal'] is None and d['run']['failed'] is False"
json_check "d['verdict']['headline'].startswith('No problem found') and 'start-up' in d['verdict']['headline']"
expect_rc 0 -- "$GD" report $F/h200_clean.gpudiag.sqlite
expect_out "the program exited normally (code 0)"
# hostile strings: ESC sequences (OSC title, cursor moves, CSI as a UTF-8 C1), CR/LF
cp $F/h200_sync.gpudiag.sqlite "$T/h.sqlite"
sqlite3 "$T/h.sqlite" "UPDATE meta SET value = 'evil' || char(27) || ']0;pwned' || char(7) || char(13) || char(10) || 'FAKE VERDICT' WHERE key = 'command_line';
  INSERT OR REPLACE INTO meta(key, value) VALUES ('sample_label', 'label' || char(27) || '[2J' || char(155) || '31m');
  UPDATE meta SET value = '580' || char(27) || '[1A' WHERE key = 'driver_version';
  UPDATE devices SET name = 'H200' || char(27) || '[31m' || char(127);
  UPDATE strings SET value = value || char(27) || '[5m' WHERE id IN (SELECT short_name FROM kernels UNION SELECT name FROM kernels UNION SELECT demangled FROM kernels);" ||
  bad "could not plant the strings"
expect_rc 0 -- "$GD" report "$T/h.sqlite"
if LC_ALL=C grep -q $'\x1b\|\x07\|\r\|\x7f' "$T/out" || LC_ALL=C grep -q $'\xc2\x9b' "$T/out"; then bad "a control character reached the terminal"; else ok; fi
expect_out 'evil\x1b]0;pwned\x07\x0d\x0aFAKE VERDICT'
expect_out 'H200\x1b[31m\x7f'; expect_out 'label\x1b[2J\u009b31m'
[ "$(grep -c 'FAKE VERDICT' "$T/out")" -eq 1 ] && ok || bad "a forged line appeared"
expect_rc 0 -- "$GD" diff $F/h200_sync.gpudiag.sqlite "$T/h.sqlite"
if LC_ALL=C grep -q $'\x1b' "$T/out"; then bad "diff let a control character reach the terminal"; else ok; fi
# JSON keeps the strings exactly (escaped by JSON itself)
expect_rc 0 -- "$GD" report "$T/h.sqlite" --json
json_check "d['command'].startswith('evil\x1b]0;pwned')"
# corrupt rows: left out, counted, said at the top of every view
cp $F/h200_sync.gpudiag.sqlite "$T/bad.sqlite"
sqlite3 "$T/bad.sqlite" "UPDATE kernels SET end = start - 5 WHERE id IN (SELECT id FROM kernels ORDER BY id LIMIT 3)"
expect_rc 0 -- "$GD" report "$T/bad.sqlite"
expect_out "3 rows of this profile were left out as corrupt"
expect_rc 0 -- "$GD" report "$T/bad.sqlite" --json
json_check "d['rejected_rows'] == 3"
expect_rc 0 -- "$GD" report $F/h200_sync.gpudiag.sqlite --json
json_check "d['rejected_rows'] == 0"
# API names as users write them in the Perfetto trace, the recorded one kept in args
expect_rc 0 -- "$GD" export $F/h200_sync.gpudiag.sqlite --perfetto "$T/t.json"
python3 - "$T/t.json" <<'PY' && ok || bad "API slices keep CUPTI's _vNNNN names"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "api"]
assert ev and not any(e["name"].rsplit("_v", 1)[-1].isdigit() for e in ev), ev[:2]
assert any(e["args"]["cupti_name"] != e["name"] for e in ev)
PY
finish
