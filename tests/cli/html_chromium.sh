#!/usr/bin/env bash
# CPU tier: the HTML report rendered by a real browser (Debian's headless chromium; .ci/run
# installs it when this file exists). Checks that the page renders (a screenshot is taken and
# is not blank), that the findings are in the rendered DOM, and that hostile kernel names stay
# text: the DOM must hold no <script> or <img> element and must show the names verbatim.
# Skips when chromium is not installed: exit 77, which CMakeLists.txt sets as this test's
# SKIP_RETURN_CODE, so CTest reports it as skipped rather than passed.
# usage: html_chromium.sh <gpudiag binary> <build dir>
set -u
G=$1
B=""
for c in chromium chromium-browser google-chrome; do command -v $c >/dev/null && { B=$c; break; }; done
if [ -z "$B" ]; then
	echo "SKIP: chromium is not installed (apt-get install chromium); the HTML was not rendered"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPUDIAG_LIBCUDA=/nonexistent GPUDIAG_LIBNVML=/nonexistent NO_COLOR=1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
python3 tests/fixtures/gen_profile.py hostile "$T/hostile.sqlite" || exit 1
python3 tests/fixtures/gen_profile.py launch "$T/launch.sqlite" || exit 1
"$G" report "$T/hostile.sqlite" --html "$T/hostile.html" >/dev/null || bad "report --html (hostile)"
"$G" report "$T/launch.sqlite" --html "$T/launch.html" >/dev/null || bad "report --html (launch)"
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$T/prof")

for page in launch hostile; do
	timeout 120 "$B" "${flags[@]}" --dump-dom "file://$T/$page.html" >"$T/$page.dom" 2>"$T/$page.err" ||
		bad "$page: chromium --dump-dom failed: $(tail -3 "$T/$page.err")"
	timeout 120 "$B" "${flags[@]}" --window-size=1200,2400 --screenshot="$T/$page.png" "file://$T/$page.html" \
		>/dev/null 2>>"$T/$page.err" || bad "$page: screenshot failed"
	[ -s "$T/$page.png" ] && [ "$(stat -c %s "$T/$page.png")" -gt 20000 ] && ok "$page: rendered ($(stat -c %s "$T/$page.png") bytes of PNG)" ||
		bad "$page: screenshot missing or blank"
done
python3 - "$T" <<'PY' && ok "DOM: findings present, hostile names are text" || bad "DOM checks"
import html.parser, sys, os
T = sys.argv[1]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.ids, self.titles = [], [], set(), []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k == "id":
                self.ids.add(v)
            if k == "title":
                self.titles.append(v)
    def handle_data(self, d):
        self.text.append(d)
def parse(name):
    p = P()
    p.feed(open(os.path.join(T, name + ".dom")).read())
    return p
l = parse("launch")
assert "finding-launch_bound" in l.ids and "verdict" in l.ids, l.ids
assert "svg" in l.tags and "rect" in l.tags
assert "Launch-bound" in "".join(l.text)
h = parse("hostile")
assert "script" not in h.tags and "img" not in h.tags, [t for t in h.tags if t in ("script", "img")]
# the full names are the table cells' titles, intact; the cells show the short names
assert '<script>alert("x")</script>' in h.titles, h.titles
assert "</td></tr></table><img src=x onerror=alert(1)>" in h.titles, h.titles
assert "a&b<c>'d'\"e\"" in h.titles, h.titles
assert len([t for t in h.tags if t == "table"]) == 6, "a name broke out of its table"
PY
exit $fail
