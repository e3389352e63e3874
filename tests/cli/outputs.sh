# Output paths: an output never replaces its input, special files are written in place, a
# link keeps pointing where it did, a private file stays private (fileio.h says the rules).
source "$(dirname "$0")/lib.sh" "$@"
export NO_COLOR=1
cp tests/fixtures/h200_sync.gpudiag.sqlite "$T/p.sqlite"
sum=$(cksum <"$T/p.sqlite")
ln -s p.sqlite "$T/alias.sqlite"
# the input named as the output, directly or through a link: refused, the profile untouched
expect_rc 2 -- "$GD" export "$T/p.sqlite" --perfetto "$T/p.sqlite"
expect_err "is the input profile"; expect_one_line_err
expect_rc 2 -- "$GD" export "$T/p.sqlite" --perfetto "$T/alias.sqlite"
[ "$(cksum <"$T/p.sqlite")" = "$sum" ] && ok || bad "export replaced its input"
expect_rc 2 -- "$GD" report "$T/p.sqlite" --html "$T/p.sqlite"
expect_err "is the input profile"; expect_one_line_err
expect_rc 2 -- "$GD" report "$T/p.sqlite" --html "$T/alias.sqlite"
[ "$(cksum <"$T/p.sqlite")" = "$sum" ] && ok || bad "report --html replaced its input"
# --html to a link: the link stays
: >"$T/real.html"; ln -s real.html "$T/page.html"
expect_rc 0 -- "$GD" report "$T/p.sqlite" --html "$T/page.html"
[ -L "$T/page.html" ] && grep -q "<!DOCTYPE html>" "$T/real.html" && ok || bad "report --html replaced the link"
# a symbolic link at the output: the link stays, its target gets the trace
: >"$T/real.json"; ln -s real.json "$T/trace.json"
expect_rc 0 -- "$GD" export "$T/p.sqlite" --perfetto "$T/trace.json"
[ -L "$T/trace.json" ] && ok || bad "the output link was replaced by a file"
python3 -m json.tool "$T/real.json" >/dev/null && ok || bad "the link's target is not the trace"
# a private output stays private
: >"$T/priv.json"; chmod 600 "$T/priv.json"
expect_rc 0 -- "$GD" export "$T/p.sqlite" --perfetto "$T/priv.json"
[ "$(stat -c %a "$T/priv.json")" = 600 ] && ok || bad "mode became $(stat -c %a "$T/priv.json")"
# a FIFO is written in place (a reader gets the trace; the FIFO is still a FIFO)
mkfifo "$T/pipe"
timeout 20 cat "$T/pipe" >"$T/from_pipe.json" &
reader=$!
expect_rc 0 -- timeout 20 "$GD" export "$T/p.sqlite" --perfetto "$T/pipe" --format json
wait $reader
[ -p "$T/pipe" ] && ok || bad "the FIFO was replaced"
python3 -m json.tool "$T/from_pipe.json" >/dev/null && ok || bad "nothing valid came through the FIFO"
# a directory is refused with one line, nothing left behind
mkdir "$T/dir"
expect_rc 1 -- "$GD" export "$T/p.sqlite" --perfetto "$T/dir"
expect_err "is a directory"; expect_one_line_err
[ -z "$(ls "$T/dir")" ] && ok || bad "files left in the directory"
ls "$T" | grep -q '\.tmp\.' && bad "temporary files left: $(ls "$T")" || ok
finish
