#!/usr/bin/env python3
"""A reader of gpudiag's native Perfetto traces (export --perfetto OUT, protobuf), written from
Perfetto's public protos to check the export without Perfetto: it decodes the wire format
generically, replays what trace_processor does with it (packet sequences, incremental state,
the incremental clock, interning, track descriptors, slices, counters, flows) and checks the
structure. Optionally it compares the trace with the JSON export of the same profile and
with the profile itself (SQL).

usage: pftrace.py TRACE [--json TRACE.json] [--profile P.sqlite] [--summary] [--dump]
                        [kernels=N] [flows=N] [unbound=N] [slices=N] [counters=N] [lanes=1]
                        [name=SUBSTRING] [counter=SUBSTRING] [track=SUBSTRING] [arg=KEY]
exit 0 when every check passes; 1 with one line per failure.

Checks (always): the file is a sequence of Trace.packet fields; every packet of a sequence
after its first SEQ_INCREMENTAL_STATE_CLEARED packet; interned ids (event names, categories,
annotation names, annotation string values) defined in their sequence before or in the
packet that uses them, since the last clear; timestamps on clock 64 only after a clock
snapshot of it; every track an event uses described earlier in the file, its parent
described; counter values only on counter tracks, slices never on them; per track, slice
ends balance the begins and slices nest (an end closes the innermost open slice, which must
have begun no later); every flow begun on one slice and terminated on one later slice (but
unbound=N: N flows begun and never terminated, as a corrupt profile's refused rows leave)."""
import collections
import json
import re
import sqlite3
import struct
import sys

# ---- wire format ----


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        if c < 0x80:
            return r, i
        s += 7
        if s > 63:
            raise ValueError("varint longer than 10 bytes at %d" % i)


def fields(b):
    """[(field, wire, value)]: value an int (varint, fixed64 as an unsigned int) or bytes."""
    out, i, n = [], 0, len(b)
    while i < n:
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if f == 0:
            raise ValueError("field number 0")
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            if i + 8 > n:
                raise ValueError("fixed64 past the end")
            v = struct.unpack_from("<Q", b, i)[0]
            i += 8
        elif w == 2:
            ln, i = varint(b, i)
            if i + ln > n:
                raise ValueError("length-delimited field past the end")
            v = bytes(b[i:i + ln])
            i += ln
        elif w == 5:
            v = struct.unpack_from("<I", b, i)[0]
            i += 4
        else:
            raise ValueError("wire type %d" % w)
        out.append((f, w, v))
    return out


def msg(b):
    d = collections.defaultdict(list)
    for f, _w, v in fields(b):
        d[f].append(v)
    return d


def one(d, f, dflt=None):
    return d[f][-1] if f in d and d[f] else dflt


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def text(b):
    return b.decode("utf-8", "replace")


# ---- field numbers (Perfetto's protos) ----
P_TS, P_CLOCK, P_SEQ, P_TE, P_INTERNED, P_FLAGS, P_SNAPSHOT, P_DEFAULTS, P_TD = 8, 58, 10, 11, 12, 13, 6, 59, 60
CLEARED, NEEDS = 1, 2
BOOTTIME = 6
T_BEGIN, T_END, T_INSTANT, T_COUNTER = 1, 2, 3, 4


class Trace:
    def __init__(self, path):
        self.fail = []
        self.tracks = {}          # uuid -> {name, parent, counter, pid, process}
        self.slices = []          # dicts: track, ts, dur, name, cat, args, flows_out, flows_in
        self.instants = []
        self.counters = []        # (track uuid, ts, value)
        self.packets = 0
        self.seqs = set()
        self.bytes_by = collections.Counter()
        raw = open(path, "rb").read()
        self.size = len(raw)
        try:
            top = fields(raw)
        except (ValueError, IndexError) as e:
            self.fail.append("not a protobuf Trace: %s" % e)
            return
        state = {}
        events = []  # (ts, file order, seq, kind, data)
        for order, (f, w, pk) in enumerate(top):
            if f != 1 or w != 2:
                self.fail.append("top-level field %d (wire %d) is not Trace.packet" % (f, w))
                continue
            self.packets += 1
            try:
                self.packet(pk, order, state, events)
            except (ValueError, IndexError, KeyError) as e:
                self.fail.append("packet %d: %s" % (order, e))
        self.replay(events)

    def err(self, m):
        if len(self.fail) < 50:
            self.fail.append(m)

    def packet(self, pk, order, state, events):
        d = msg(pk)
        seq = one(d, P_SEQ, 0)
        flags = one(d, P_FLAGS, 0)
        st = state.get(seq)
        if flags & CLEARED:
            st = state[seq] = {"names": {}, "cats": {}, "anames": {}, "strs": {}, "clock": None,
                               "last": None, "defaults": {}}
            self.seqs.add(seq)
        if P_DEFAULTS in d:
            if st is None:
                self.err("packet %d: defaults before the sequence %d was cleared" % (order, seq))
            else:
                dd = msg(one(d, P_DEFAULTS))
                ted = msg(one(dd, 11)) if 11 in dd else {}
                st["defaults"] = {"clock": one(dd, 58), "track": one(ted, 11) if ted else None}
        if P_INTERNED in d:
            if st is None:
                self.err("packet %d: interned data before the sequence %d was cleared" % (order, seq))
                st = {"names": {}, "cats": {}, "anames": {}, "strs": {}, "clock": None, "last": None, "defaults": {}}
            for blob in d[P_INTERNED]:
                idd = msg(blob)
                for f, key in ((1, "cats"), (2, "names"), (3, "anames"), (29, "strs")):
                    for e in idd.get(f, []):
                        m = msg(e)
                        iid, name = one(m, 1), one(m, 2, b"")
                        if iid in st[key] and st[key][iid] != name:
                            self.err("packet %d: %s iid %d redefined" % (order, key, iid))
                        st[key][iid] = name
                        self.bytes_by["interned"] += len(name)
        if P_SNAPSHOT in d:
            if st is None:
                self.err("packet %d: clock snapshot before the sequence was cleared" % order)
            else:
                sd = msg(one(d, P_SNAPSHOT))
                clocks = {}
                for c in sd.get(1, []):
                    cm = msg(c)
                    clocks[one(cm, 1)] = (one(cm, 2, 0), one(cm, 3, 0))
                if 64 in clocks:
                    if not clocks[64][1]:
                        self.err("packet %d: clock 64 is not incremental" % order)
                    if clocks.get(BOOTTIME, (None,))[0] != clocks[64][0]:
                        self.err("packet %d: clock 64 is not BOOTTIME at the snapshot" % order)
                    st["clock"] = clocks[64][0]
        if P_TD in d:
            self.descriptor(msg(one(d, P_TD)), order)
        if P_TE in d:
            if st is None:
                self.err("packet %d: track event on sequence %d before its state was cleared" % (order, seq))
                return
            if not flags & NEEDS and P_INTERNED in d:
                self.err("packet %d: interned data without SEQ_NEEDS_INCREMENTAL_STATE" % order)
            te = msg(one(d, P_TE))
            if P_TS not in d:
                self.err("packet %d: a track event without a timestamp" % order)
                return
            ts = one(d, P_TS)
            clock = one(d, P_CLOCK, st["defaults"].get("clock") or BOOTTIME)
            if clock == 64:
                if st["clock"] is None:
                    self.err("packet %d: timestamp on clock 64 before its snapshot" % order)
                    return
                st["clock"] += ts
                ts = st["clock"]
            elif clock != BOOTTIME:
                self.err("packet %d: timestamp on clock %d" % (order, clock))
            self.event(te, ts, order, seq, st, events, len(pk))

    def descriptor(self, td, order):
        uuid = one(td, 1)
        parent = one(td, 5)
        name = text(one(td, 2, b""))
        pid = None
        if 3 in td:
            pd = msg(one(td, 3))
            pid = one(pd, 1)
            name = text(one(pd, 6, b""))
        if parent is not None and parent not in self.tracks:
            self.err("track %d (%r) described before its parent %d" % (uuid, name, parent))
        old = self.tracks.get(uuid)
        new = {"name": name, "parent": parent, "counter": 8 in td, "pid": pid, "order": order}
        if old and (old["name"], old["parent"], old["counter"]) != (name, parent, new["counter"]):
            self.err("track %d described twice differently" % uuid)
        if not old:
            self.tracks[uuid] = new

    def event(self, te, ts, order, seq, st, events, size):
        typ = one(te, 9, 0)
        track = one(te, 11, st["defaults"].get("track"))
        if track is None:
            self.err("packet %d: event without a track" % order)
            return
        if track not in self.tracks:
            self.err("packet %d: track %d used before it is described" % (order, track))
        if typ == T_COUNTER:
            if 44 not in te:
                self.err("packet %d: a counter without a double value" % order)
            v = struct.unpack("<d", struct.pack("<Q", one(te, 44, 0)))[0]
            events.append((ts, order, seq, "C", (track, v)))
            self.bytes_by["counter"] += size
            return
        if typ == T_END:
            events.append((ts, order, seq, "E", (track,)))
            self.bytes_by["end"] += size
            return
        name = None
        if 10 in te:
            iid = one(te, 10)
            if iid not in st["names"]:
                self.err("packet %d: event name iid %d not defined in sequence %d" % (order, iid, seq))
            name = text(st["names"].get(iid, b"?"))
        elif 23 in te:
            name = text(one(te, 23))
        cats = []
        for c in te.get(3, []):
            if c not in st["cats"]:
                self.err("packet %d: category iid %d not defined" % (order, c))
            cats.append(text(st["cats"].get(c, b"?")))
        args = {}
        for a in te.get(4, []):
            am = msg(a)
            an = one(am, 1)
            if an not in st["anames"]:
                self.err("packet %d: annotation name iid %s not defined" % (order, an))
            key = text(st["anames"].get(an, b"?"))
            if 17 in am:
                si = one(am, 17)
                if si not in st["strs"]:
                    self.err("packet %d: string value iid %d not defined" % (order, si))
                args[key] = text(st["strs"].get(si, b"?"))
            elif 4 in am:
                args[key] = s64(one(am, 4))
            elif 2 in am:
                args[key] = bool(one(am, 2))
            elif 6 in am:
                args[key] = text(one(am, 6))
            else:
                self.err("packet %d: annotation %r without a value" % (order, key))
        ev = {"track": track, "ts": ts, "name": name, "cat": ",".join(cats), "args": args,
              "out": list(te.get(47, [])), "in": list(te.get(48, []))}
        if typ == T_BEGIN:
            events.append((ts, order, seq, "B", ev))
            self.bytes_by["begin"] += size
        elif typ == T_INSTANT:
            events.append((ts, order, seq, "I", ev))
            self.bytes_by["instant"] += size
        else:
            self.err("packet %d: event type %d" % (order, typ))

    def replay(self, events):
        """What trace_processor does after sorting: events by time, then file order."""
        events.sort(key=lambda e: (e[0], e[1]))
        stacks = collections.defaultdict(list)
        flows = {}       # id -> source slice
        ended = set()
        for ts, order, _seq, kind, data in events:
            if kind == "C":
                track, v = data
                if not self.tracks.get(track, {}).get("counter"):
                    self.err("a counter value on track %d, which is not a counter track" % track)
                self.counters.append((track, ts, v))
                continue
            if kind == "E":
                st = stacks[data[0]]
                if not st:
                    self.err("an end at %d on track %d with nothing open" % (ts, data[0]))
                    continue
                s = st.pop()
                s["dur"] = ts - s["ts"]
                continue
            track = data["track"]
            if self.tracks.get(track, {}).get("counter"):
                self.err("a slice on counter track %d" % track)
            if kind == "I":
                data["dur"] = 0
                data["depth"] = len(stacks[track])
                self.instants.append(data)
            else:
                data["depth"] = len(stacks[track])
                data["dur"] = None
                stacks[track].append(data)
                self.slices.append(data)
            for f in data["out"]:
                if f in flows or f in ended:
                    self.err("flow %d begun twice" % f)
                flows[f] = data
            for f in data["in"]:
                if f not in flows:
                    self.err("flow %d terminated at %d without a begin" % (f, ts))
                    continue
                src = flows.pop(f)
                ended.add(f)
                data.setdefault("from", []).append(src)
        for track, st in stacks.items():
            if st:
                self.err("%d slices on track %d never end" % (len(st), track))
        for s in self.slices:
            if s["dur"] is not None and s["dur"] < 0:
                self.err("a slice with a negative duration")
        # nesting: a slice inside its parent (an end closes the innermost open slice)
        self.unbound = len(flows)
        self.nflows = len(ended)

    def path(self, uuid):
        """(process pid or top track name, track name)"""
        t = self.tracks.get(uuid, {})
        p = self.tracks.get(t.get("parent"), {}) if t.get("parent") is not None else {}
        if p.get("pid") is not None:
            return (p["pid"], t.get("name"))
        m = re.search(r"\(pid (-?\d+)", p.get("name") or "")  # a pid no ProcessDescriptor holds
        return (int(m.group(1)) if m else p.get("name"), t.get("name"))


# ---- comparisons ----

def compare_json(tr, path):
    """The JSON export's slices, instants, flows and counters, against the trace's: the same
    sets once the JSON's µs from the run's start are shifted to the profile's ns."""
    fail = []
    doc = json.load(open(path, encoding="utf-8"))
    ev = doc["traceEvents"]
    tname, pname = {}, {}
    for e in ev:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]
        if e.get("ph") == "M" and e["name"] == "process_name":
            pname[e["pid"]] = e["args"]["name"]

    def us_ns(v):
        return round(float(v) * 1000)

    def jkey(pid):
        n = pname.get(pid, "")
        if n.endswith("(NVML)") or n.endswith("(counters)"):
            return n
        return pid

    # the offset: the trace's first slice start minus the JSON's (µs → ns)
    js = [e for e in ev if e.get("ph") in ("X", "i")]
    if not tr.slices and not js:
        off = 0
    elif not tr.slices or not js:
        return ["the JSON has %d slices, the trace %d" % (len(js), len(tr.slices))]
    else:
        off = min(s["ts"] for s in tr.slices + tr.instants) - min(us_ns(e["ts"]) for e in js)

    def norm_args(a):
        return {k: v for k, v in a.items() if k != "recorded_end_ns"}

    def launch(a):
        """the JSON's five launch arguments as the trace's one"""
        if "grid" not in a:
            return a
        a = dict(a)
        a["launch"] = "grid %s · block %s · %d registers · shared memory %d B static + %d B dynamic" % (
            a.pop("grid"), a.pop("block"), a.pop("registers"), a.pop("static_smem"), a.pop("dynamic_smem"))
        return a

    jset = collections.Counter()
    for e in js:
        dur = us_ns(e["dur"]) if e["ph"] == "X" else 0
        jset[(jkey(e["pid"]), tname.get((e["pid"], e["tid"])), us_ns(e["ts"]) + off, dur, e["name"], e.get("cat", ""),
              json.dumps(launch(e.get("args", {})), sort_keys=True))] += 1
    pset = collections.Counter()
    for s in tr.slices + tr.instants:
        p, t = tr.path(s["track"])
        pset[(p, t, s["ts"], s["dur"], s["name"], s["cat"], json.dumps(norm_args(s["args"]), sort_keys=True))] += 1
    if jset != pset:
        a, b = jset - pset, pset - jset
        fail.append("slices differ: %d only in the JSON (e.g. %s), %d only in the trace (e.g. %s)" %
                    (sum(a.values()), next(iter(a), None), sum(b.values()), next(iter(b), None)))
    # flows: (source track, source start) -> (target track, target start)
    starts, ends = {}, {}
    for e in ev:
        if e.get("ph") == "s":
            starts[e["id"]] = (jkey(e["pid"]), tname.get((e["pid"], e["tid"])), us_ns(e["ts"]) + off)
        elif e.get("ph") == "f":
            ends[e["id"]] = (jkey(e["pid"]), tname.get((e["pid"], e["tid"])), us_ns(e["ts"]) + off)
    jf = collections.Counter((starts[i], ends[i]) for i in starts if i in ends)
    pf = collections.Counter()
    for s in tr.slices:
        for src in s.get("from", []):
            pf[(tr.path(src["track"]) + (src["ts"],), tr.path(s["track"]) + (s["ts"],))] += 1
    if jf != pf:
        a, b = jf - pf, pf - jf
        fail.append("flows differ: %d only in the JSON (e.g. %s), %d only in the trace (e.g. %s)" %
                    (sum(a.values()), next(iter(a), None), sum(b.values()), next(iter(b), None)))
    # counters: the JSON rounds to 6 or 9 digits
    jc = sorted((jkey(e["pid"]), e["name"], us_ns(e["ts"]) + off, e["args"]["value"]) for e in ev if e.get("ph") == "C")
    pc = sorted(tr.path(t) + (ts, v) for t, ts, v in tr.counters)
    if len(jc) != len(pc):
        fail.append("counters: %d in the JSON, %d in the trace" % (len(jc), len(pc)))
    else:
        for a, b in zip(jc, pc):
            if a[:3] != b[:3] or abs(a[3] - b[3]) > 1e-5 * max(1.0, abs(b[3])):
                fail.append("counter %s in the JSON, %s in the trace" % (a, b))
                break
    return fail


def compare_profile(tr, path):
    """Counts and values straight from the profile."""
    fail = []
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    q = lambda s: db.execute(s).fetchall()
    by_cat = collections.Counter(s["cat"] for s in tr.slices)
    for cat, table in (("kernel", "kernels"), ("memcpy", "memcpy"), ("memset", "memset"), ("api", "api")):
        n = q("SELECT count(*) FROM %s WHERE start IS NOT NULL AND end >= start" % table)[0][0]
        if by_cat[cat] != n:
            fail.append("%s slices: %d, the profile has %d" % (cat, by_cat[cat], n))
    # every kernel's start, duration and name by correlation
    ks = {(s["args"].get("correlation"), s["ts"]): s for s in tr.slices if s["cat"] == "kernel"}
    for corr, start, end, name in q("SELECT k.correlation, k.start, k.end, COALESCE(sn.value, n.value, '?') FROM "
                                    "kernels k LEFT JOIN strings n ON n.id = k.name LEFT JOIN strings sn ON "
                                    "sn.id = k.short_name"):
        s = ks.get((corr, start))
        if not s or s["dur"] != end - start or s["name"] != name:
            fail.append("kernel %s at %d: %s" % (corr, start, "missing" if not s else (s["dur"], s["name"])))
            break
    # flows: one per kernel/copy/memset whose API call was recorded
    nf = 0
    for table in ("kernels", "memcpy", "memset"):
        nf += q("SELECT count(*) FROM %s g WHERE g.correlation > 0 AND EXISTS(SELECT 1 FROM api a WHERE "
                "a.pid = g.pid AND a.correlation = g.correlation)" % table)[0][0]
    if nf != tr.nflows:
        fail.append("flows: %d, the profile has %d launches with their API call" % (tr.nflows, nf))
    # NVML counters: the samples' values, scaled as the export says
    cols = [("util_gpu", "GPU utilisation (%)", 1), ("sm_mhz", "SM clock (MHz)", 1), ("power_mw", "power (W)", 1e-3),
            ("mem_used", "memory used (GiB)", 1.0 / 1073741824)]
    pc = collections.defaultdict(list)
    for t, ts, v in tr.counters:
        pc[tr.path(t)].append((ts, v))
    for col, name, sc in cols:
        for dev, in q("SELECT DISTINCT device FROM nvml_samples WHERE %s IS NOT NULL" % col):
            want = sorted((t, v * sc) for t, v in q("SELECT t, %s FROM nvml_samples WHERE device = %d AND %s IS NOT NULL"
                                                      % (col, dev, col)))
            got = sorted(pc.get(("GPU %d (NVML)" % dev, name), []))
            if len(got) != len(want) or any(a[0] != b[0] or abs(a[1] - b[1]) > 1e-9 * max(1, abs(a[1]))
                                            for a, b in zip(want, got)):
                fail.append("NVML %s of GPU %d: %d values in the profile, %d in the trace" % (col, dev, len(want), len(got)))
    return fail


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tr = Trace(sys.argv[1])
    fail = list(tr.fail)
    args = sys.argv[2:]
    want = []
    i = 0
    jpath = ppath = None
    summary = dump = False
    while i < len(args):
        a = args[i]
        if a == "--json":
            jpath = args[i + 1]
            i += 1
        elif a == "--profile":
            ppath = args[i + 1]
            i += 1
        elif a == "--summary":
            summary = True
        elif a == "--dump":
            dump = True
        else:
            want.append(a.split("=", 1))
        i += 1
    kernels = [s for s in tr.slices if s["cat"] == "kernel"]
    unbound = dict(want).get("unbound", "0")
    if not tr.fail and str(getattr(tr, "unbound", 0)) != unbound:
        fail.append("%d flows begun and never terminated, expected %s" % (tr.unbound, unbound))
    names = [s["name"] or "" for s in tr.slices + tr.instants] + [t["name"] for t in tr.tracks.values()] + \
        [v for s in tr.slices for v in s["args"].values() if isinstance(v, str)]
    for k, v in want:
        if k == "kernels" and len(kernels) != int(v):
            fail.append("kernels: %d, expected %s" % (len(kernels), v))
        elif k == "flows" and getattr(tr, "nflows", 0) != int(v):
            fail.append("flows: %d, expected %s" % (getattr(tr, "nflows", 0), v))
        elif k == "slices" and len(tr.slices) != int(v):
            fail.append("slices: %d, expected %s" % (len(tr.slices), v))
        elif k == "counters" and len(tr.counters) != int(v):
            fail.append("counter values: %d, expected %s" % (len(tr.counters), v))
        elif k == "lanes" and not any(t["name"].endswith(" #2") for t in tr.tracks.values()):
            fail.append("no second lane track")
        elif k == "name" and not any(v in n for n in names):
            fail.append("no name contains %r" % v)
        elif k == "counter" and not any(t["counter"] and v in t["name"] for t in tr.tracks.values()):
            fail.append("no counter track %r" % v)
        elif k == "track" and not any(v in t["name"] for t in tr.tracks.values()):
            fail.append("no track %r" % v)
        elif k == "arg" and not any(v in s["args"] for s in tr.slices + tr.instants):
            fail.append("no slice has an argument %r" % v)
        elif k not in ("kernels", "flows", "unbound", "slices", "counters", "lanes", "name", "counter", "track", "arg"):
            fail.append("unknown expectation %r" % k)
    if not tr.fail:
        if jpath:
            fail += compare_json(tr, jpath)
        if ppath:
            fail += compare_profile(tr, ppath)
    if dump:
        for s in sorted(tr.slices + tr.instants, key=lambda s: (s["ts"], s["track"])):
            print(tr.path(s["track"]), s["ts"], s["dur"], s["name"], s["cat"], json.dumps(s["args"], sort_keys=True))
        for t, ts, v in sorted(tr.counters, key=lambda c: (c[1], c[0])):
            print(tr.path(t), ts, v)
    if summary:
        print("bytes: %d; by packet kind: %s" % (tr.size, dict(tr.bytes_by)))
    if fail:
        print("FAIL:", "; ".join(fail[:20]))
        sys.exit(1)
    print("ok: %d packets, %d sequences, %d tracks, %d slices, %d instants, %d counter values, %d flows" %
          (tr.packets, len(tr.seqs), len(tr.tracks), len(tr.slices), len(tr.instants), len(tr.counters),
           getattr(tr, "nflows", 0)))


if __name__ == "__main__":
    main()
