#!/usr/bin/env bash
# CPU tier: the HTML report rendered by a real browser (Debian's headless chromium; .ci/run
# installs it when this file exists), at 1280 and 1920 px, on every recorded fixture
# (tests/fixtures/*.gpudiag.sqlite: a profile added there later is covered too) and on generated
# scenarios (tests/fixtures/gen_profile.py: hostile names, launch-bound, a per-iteration stall,
# start-up then a loop, GPU counters, --metrics, light mode, a PyTorch step with the framework
# view, a 4-rank DDP job with a straggler).
#
# Every page is loaded in an iframe of each width by one harness page whose script measures the
# laid-out page (the report itself has no script: its Content-Security-Policy forbids it) and
# writes what it found into the harness's DOM, which --dump-dom prints. Asserted per page and
# width (docs/html-report.md, "How it is checked"):
#   - not blank: text, the verdict, the timeline SVG with drawn lanes;
#   - no horizontal overflow: the document is no wider than the viewport;
#   - every table fully visible: no table wider than its box (which would scroll), none past
#     the viewport's right edge; every numeric cell on one line (numbers never wrap);
#   - the time axis: at least 3 tick labels, each a number with a unit (or 0);
#   - the legend names every kernel kind and copy kind of the JSON report (summary.by_kind,
#     summary.copies), and nothing else;
#   - the GPU busy figure in the DOM equals the JSON report's summary.gpu_busy_fraction (its
#     data-value to 1e-12, its text as the terminal prints it);
#   - a run whose loop splits into iterations has the per-iteration chart, its slowest marked;
#     the "stall" scenario's slowest is one of the stalled steps.
# Then the hostile page's own DOM: no <script> or <img> element, the names verbatim as text, and
# screenshots (the hostile and stall pages at both widths) that are not blank. With
# GD_HTML_SHOTS=DIR every page is also screenshotted at both widths into DIR, to look at.
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
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars
	--user-data-dir="$T/prof")

# the pages: every fixture, and the generated scenarios
pages=()
for f in "$FIX"/*.gpudiag.sqlite; do
	n=$(basename "$f" .gpudiag.sqlite)
	cp "$f" "$T/$n.sqlite"
	pages+=("$n")
done
for s in hostile launch stall startup_pageable counters metrics light torch ddp_straggler; do
	python3 "$FIX/gen_profile.py" $s "$T/gen_$s.sqlite" || { bad "gen_profile.py $s"; continue; }
	pages+=("gen_$s")
done
for n in "${pages[@]}"; do
	"$G" report "$T/$n.sqlite" --html "$T/$n.html" >/dev/null 2>"$T/$n.err" || bad "$n: report --html failed: $(head -2 "$T/$n.err")"
	"$G" report "$T/$n.sqlite" --json >"$T/$n.json" 2>>"$T/$n.err" || bad "$n: report --json failed"
done

# the harness: each page in an iframe 1280 and 1920 px wide; the script measures them on load
{
	echo "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
	for n in "${pages[@]}"; do
		for w in 1280 1920; do
			echo "<iframe data-page='$n' data-width='$w' src='$n.html' style='width:${w}px;height:1000px;border:0;display:block'></iframe>"
		done
	done
	cat <<'JS'
<pre id='gd-result'></pre>
<script>
function measure(fr) {
  var w = fr.contentWindow, d = fr.contentDocument, r = {page: fr.dataset.page, width: +fr.dataset.width};
  var vw = d.documentElement.clientWidth;
  r.vw = vw; r.sw = d.documentElement.scrollWidth;
  r.text = (d.body.innerText || '').length;
  r.verdict = !!d.getElementById('verdict');
  var tl = d.getElementById('timeline');
  r.timeline_paths = tl ? tl.querySelectorAll('path').length : -1;
  r.tables = [];
  d.querySelectorAll('table').forEach(function (t) {
    var box = t.closest('.tw') || t.parentElement, b = t.getBoundingClientRect();
    r.tables.push({id: t.id || '(no id)', clipped: box.scrollWidth > box.clientWidth + 1, right: b.right, w: b.width});
  });
  r.wrapped = [];
  d.querySelectorAll('td.r').forEach(function (td) {
    var rg = d.createRange(); rg.selectNodeContents(td);
    if (rg.getClientRects().length > 1) r.wrapped.push(td.textContent);
  });
  r.ticks = []; d.querySelectorAll('#timeline .tick').forEach(function (t) { r.ticks.push(t.textContent); });
  r.kinds = []; r.copies = [];
  d.querySelectorAll('#timeline-legend [data-kind]').forEach(function (e) { r.kinds.push(e.dataset.kind); });
  d.querySelectorAll('#timeline-legend [data-copy]').forEach(function (e) { r.copies.push(e.dataset.copy); });
  var busy = d.getElementById('gpu-busy');
  r.busy_value = busy ? busy.getAttribute('data-value') : 'missing';
  r.busy_text = busy ? busy.querySelector('.v').textContent : 'missing';
  r.iterations = !!d.getElementById('iterations');
  var sl = d.querySelector('#iterations #it-slowest + text');
  r.slowest = sl ? sl.textContent : null;
  r.untitled_names = d.querySelectorAll('td.n:not([title])').length;
  return r;
}
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('iframe').forEach(function (fr) {
    try { out.push(measure(fr)); } catch (e) { out.push({page: fr.dataset.page, width: +fr.dataset.width, error: String(e)}); }
  });
  document.getElementById('gd-result').textContent = JSON.stringify(out);
});
</script></body></html>
JS
} >"$T/harness.html"
timeout 300 "$B" "${flags[@]}" --allow-file-access-from-files --window-size=2000,1200 --dump-dom \
	"file://$T/harness.html" >"$T/harness.dom" 2>"$T/harness.err" ||
	bad "chromium --dump-dom of the harness failed: $(tail -3 "$T/harness.err")"

python3 - "$T" "${pages[@]}" <<'PY' || fail=1
import html, json, re, sys
T, pages = sys.argv[1], sys.argv[2:]
dom = open(T + "/harness.dom", encoding="utf-8").read()
m = re.search(r'<pre id="gd-result">(.*?)</pre>', dom, re.S)
if not m or not m.group(1).strip():
    print("FAIL the harness wrote no result (the script did not run?)")
    sys.exit(1)
res = json.loads(html.unescape(m.group(1)))
tick = re.compile(r"^(0|-?\d+(\.\d+)? (ns|µs|ms|s|min))$")
failed = 0
seen = set()
for r in res:
    where = "%s @%d px" % (r["page"], r["width"])
    seen.add((r["page"], r["width"]))
    errs = []
    if "error" in r:
        errs.append("could not be measured: " + r["error"])
    else:
        d = json.load(open("%s/%s.json" % (T, r["page"])))["summary"]
        if r["text"] < 500 or not r["verdict"]:
            errs.append("blank: %d characters of text, verdict %s" % (r["text"], r["verdict"]))
        if r["timeline_paths"] < 1 and not r["page"].startswith("gen_light") and d["kernels"]:
            errs.append("the timeline draws nothing (%d paths)" % r["timeline_paths"])
        if r["sw"] > r["vw"]:
            errs.append("horizontal overflow: the document is %d px wide in a %d px viewport" % (r["sw"], r["vw"]))
        for t in r["tables"]:
            if t["clipped"] or t["right"] > r["vw"] + 0.5:
                errs.append("table %s not fully visible (%.0f px wide, right edge at %.0f of %d)" %
                            (t["id"], t["w"], t["right"], r["vw"]))
        if r["wrapped"]:
            errs.append("numbers wrap: %s" % r["wrapped"][:5])
        if r["untitled_names"]:
            errs.append("%d name cells without the full name in a title" % r["untitled_names"])
        if d["kernels"] or d["copies"]:
            if len(r["ticks"]) < 3 or not all(tick.match(x) for x in r["ticks"]):
                errs.append("time axis: %s" % r["ticks"][:12])
        kinds = sorted(k["kind"] for k in d["by_kind"])
        copies = sorted(c["kind"] for c in d["copies"])
        if sorted(r["kinds"]) != kinds or sorted(r["copies"]) != copies:
            errs.append("legend %s + %s, the report has kinds %s and copies %s" % (r["kinds"], r["copies"], kinds, copies))
        busy = d["gpu_busy_fraction"]
        if busy is None:
            if r["busy_value"] is not None or r["busy_text"] != "unknown":
                errs.append("GPU busy: JSON null, DOM %s / %s" % (r["busy_value"], r["busy_text"]))
        elif r["busy_value"] in (None, "missing") or abs(float(r["busy_value"]) - busy) > 1e-12 or \
                r["busy_text"] != "%.1f %%" % (100 * busy):
            errs.append("GPU busy: JSON %r, DOM %s / %s" % (busy, r["busy_value"], r["busy_text"]))
        loop = d["loop"]
        if loop["iterations"] >= 2:
            want = "slowest: #%d, " % loop["slowest_iteration"]
            if not r["iterations"] or not (r["slowest"] or "").startswith(want):
                errs.append("per-iteration chart: %s, slowest %r (JSON: #%d)" %
                            (r["iterations"], r["slowest"], loop["slowest_iteration"]))
        elif r["iterations"]:
            errs.append("a per-iteration chart without iterations")
        if r["page"] == "gen_stall" and not (loop["iterations"] == 200 and loop["slowest_iteration"] in (38, 88, 138, 188)
                                             and loop["slowest_iteration_ns"] == 3503000):
            errs.append("stall: the stalled steps are not the slowest: %s" % loop)
    if errs:
        failed = 1
        for e in errs:
            print("FAIL %s: %s" % (where, e))
    else:
        print("ok   %s: %d tables fit, %d ticks, legend %s, busy %s" %
              (where, len(r["tables"]), len(r["ticks"]), "+".join(r["kinds"] + r["copies"]) or "-", r["busy_text"]))
missing = [(p, w) for p in pages for w in (1280, 1920) if (p, w) not in seen]
if missing:
    print("FAIL not measured: %s" % missing)
    failed = 1
sys.exit(failed)
PY

# the hostile page's own DOM, and screenshots
timeout 120 "$B" "${flags[@]}" --dump-dom "file://$T/gen_hostile.html" >"$T/hostile.dom" 2>"$T/hostile.err" ||
	bad "hostile: chromium --dump-dom failed: $(tail -3 "$T/hostile.err")"
shots=(gen_hostile gen_stall)
[ -n "${GD_HTML_SHOTS:-}" ] && mkdir -p "$GD_HTML_SHOTS" && shots=("${pages[@]}")
for page in "${shots[@]}"; do
	for w in 1280 1920; do
		png="$T/$page-$w.png"
		timeout 120 "$B" "${flags[@]}" --window-size=$w,2400 --screenshot="$png" "file://$T/$page.html" \
			>/dev/null 2>>"$T/$page.err" || bad "$page @$w: screenshot failed"
		[ -s "$png" ] && [ "$(stat -c %s "$png")" -gt 20000 ] && ok "$page @$w: screenshot ($(stat -c %s "$png") bytes of PNG)" ||
			bad "$page @$w: screenshot missing or blank"
		[ -n "${GD_HTML_SHOTS:-}" ] && cp "$png" "$GD_HTML_SHOTS/"
	done
done
python3 - "$T" <<'PY' && ok "hostile DOM: names are text, nothing broke out" || bad "hostile DOM checks"
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
h = P()
h.feed(open(os.path.join(T, "hostile.dom"), encoding="utf-8").read())
assert "script" not in h.tags and "img" not in h.tags, [t for t in h.tags if t in ("script", "img")]
# the full names are the table cells' titles, intact; the cells show the short names
for name in ('<script>alert("x")</script>', "</td></tr></table><img src=x onerror=alert(1)>", "a&b<c>'d'\"e\""):
    assert name in h.titles, (name, h.titles)
# no name broke out of its table: the page's own tables, and only them
tables = len([t for t in h.tags if t == "table"])
assert tables == 8, "%d tables: a name broke out of its table" % tables
assert "verdict" in h.ids and "timeline" in h.ids
PY
exit $fail
