#!/usr/bin/env python3
"""Compares clretw-dump --report gc,jit,exceptions --format json with TraceEvent's own analysis.

    compare_reports.py [--require gc,jit,exceptions] CLRETW.jsonl TRACEEVENT.jsonl DIFFERENCES.json

CLRETW.jsonl is clretw-dump's report of one trace (tables gc, jit, exceptions; other tables, the "trace"
key and columns not named here are ignored). TRACEEVENT.jsonl is tests/dotnet/analysis's output for the
same trace: TraceLoadedDotNetRuntime's GCs and JIT'd methods (TraceEvent 4.0.0) and the exceptions
counted per type. Rows are paired and compared:

- gc: per (pid, gc number). generation, type and reason must be equal; pause_ms, suspend_ms,
  heap_after_mb and promoted_mb equal within 1% or 0.05 (ms or MB), whichever is larger; -1 (unknown)
  equals only -1. A number where the other side has a name (type 1 against "BackgroundGC") compares
  through the runtime's GCType and GCReason maps.
- jit: per (pid, tid, method name), start_ms within 0.001 ms (nearest first). tier, il_size and
  native_size must be equal. Rows left over on both sides that agree on (pid, tid, start_ms) are paired
  too, their names being a "method" difference (a form the normalisation below does not cover).
- exceptions: per (pid, type); count must be equal (a type missing on one side counts 0 there).
GCs and methods on one side only are differences of kind "only-clretw" or "only-traceevent".

Method names. TraceEvent names a method Namespace + "." + Name + the signature from its first "(" on
(the calling convention and return type before it dropped), e.g. "System.Text.Foo.Bar(int32,class
System.String)". clretw writes "Namespace.Name(signature)" from the same three event fields; where it
puts the whole signature ("instance void  (int32)") inside the parentheses, the part before the
signature's own "(" is dropped as TraceEvent does. Both names then have runs of white space collapsed to
one space. Nothing else is changed: a name that still differs is reported, not hidden.

Every difference must match an entry of DIFFERENCES.json: {"differences": [ {"table", "field" (a
compared column or "method") or "kind" ("only-clretw", "only-traceevent"), "class", "why", "match":
{COLUMN: REGEX, ...}} ]} (a bare list of entries is accepted too). table, field and kind are regular
expressions (full match); match's regexes are matched (full match) against the row's values as text
(strings as they are, numbers, booleans and null as JSON): COLUMN alone is TraceEvent's value where
TraceEvent has the row, else clretw's; "clretw.COLUMN" and "traceevent.COLUMN" name one side. An
unmatched difference is printed as UNCLASSIFIED and the exit status is 1. Entries that matched nothing
are listed as not seen (the workload may not provoke them every run). --require names tables of which
at least one row must have been compared (else exit 1: an empty report on both sides is no agreement).
"""
import json
import math
import re
import sys
from collections import Counter, defaultdict

GC_TYPES = {0: "NonConcurrentGC", 1: "BackgroundGC", 2: "ForegroundGC"}
GC_REASONS = {0: "AllocSmall", 1: "Induced", 2: "LowMemory", 3: "Empty", 4: "AllocLarge", 5: "OutOfSpaceSOH",
              6: "OutOfSpaceLOH", 7: "InducedNotForced", 8: "Internal", 9: "InducedLowMemory",
              10: "InducedCompacting", 11: "LowMemoryHost", 12: "PMFullGC", 13: "LowMemoryHostBlocking"}
GC_EXACT = ("generation", "type", "reason")
GC_NUMBERS = ("pause_ms", "suspend_ms", "heap_after_mb", "promoted_mb")
JIT_FIELDS = ("tier", "il_size", "native_size")
START_TOLERANCE_MS = 0.001


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"compare_reports: {path}:{n}: not JSON ({e})")
    return rows


def number(v):
    """A JSON number, or the oracle's quoted NaN and infinities, as a float; None otherwise."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if v in ("NaN", "Infinity", "-Infinity"):
        return float(v.replace("Infinity", "inf"))
    return None


def close(a, b):
    x, y = number(a), number(b)
    if x is None or y is None:
        return a == b
    if x == y or (math.isnan(x) and math.isnan(y)):
        return True
    if x == -1 or y == -1:  # unknown on one side only
        return False
    return abs(x - y) <= max(0.05, 0.01 * max(abs(x), abs(y)))


def named(value, names):
    return names.get(value, str(value)) if isinstance(value, int) and not isinstance(value, bool) else value


def method_name(name):
    name = re.sub(r"\s+", " ", str(name)).strip()
    open_at = name.find("(")
    if open_at >= 0 and name.endswith(")"):
        inner = name[open_at + 1:-1]
        sig_open = inner.find("(")
        if sig_open >= 0:  # the whole signature inside: keep it from its own "(" on
            name = name[:open_at] + inner[sig_open:]
    return name


def text(v):
    return v if isinstance(v, str) else json.dumps(v)


class Differences:
    def __init__(self, entries):
        self.entries = entries
        self.counts = Counter()      # entry index -> differences it classified
        self.by_class = Counter()
        self.unclassified = []

    def add(self, table, what, ours, theirs, detail):
        """what: ("field", name) or ("kind", name); ours/theirs: the rows (None when absent)."""
        view = {}
        for side, row in (("clretw", ours), ("traceevent", theirs)):
            for k, v in (row or {}).items():
                view[f"{side}.{k}"] = v
        for row in (ours, theirs):  # TraceEvent's value wins where both have the column
            for k, v in (row or {}).items():
                view[k] = v
        for i, e in enumerate(self.entries):
            if not re.fullmatch(e["table"], table):
                continue
            if what[0] not in e or not re.fullmatch(e[what[0]], what[1]):
                continue
            if all(k in view and re.fullmatch(str(rx), text(view[k])) for k, rx in e.get("match", {}).items()):
                self.counts[i] += 1
                self.by_class[e.get("class", "classified")] += 1
                return
        self.unclassified.append(f"{table} {what[0]} {what[1]}: {detail}")


def key_text(row, columns):
    return " ".join(f"{c}={row.get(c)}" for c in columns)


def compare_gcs(ours, theirs, diffs):
    index = defaultdict(list)
    for row in ours:
        index[(row.get("pid"), row.get("gc"))].append(row)
    compared, by_type = 0, Counter()
    for t in theirs:
        mine = index.get((t.get("pid"), t.get("gc")))
        if not mine:
            diffs.add("gc", ("kind", "only-traceevent"), None, t, f"{key_text(t, ('pid', 'gc', 'type', 'generation', 'start_ms'))} is not in clretw's report")
            continue
        o = mine.pop(0)
        compared += 1
        by_type[t.get("type")] += 1
        where = key_text(t, ("pid", "gc", "type", "generation"))
        for field in GC_EXACT:
            a = o.get(field)
            if field in ("type", "reason"):
                a = named(a, GC_TYPES if field == "type" else GC_REASONS)
            if a != t.get(field):
                diffs.add("gc", ("field", field), o, t, f"{where}: clretw {json.dumps(o.get(field))}, TraceEvent {json.dumps(t.get(field))}")
        for field in GC_NUMBERS:
            if not close(o.get(field), t.get(field)):
                diffs.add("gc", ("field", field), o, t, f"{where}: clretw {json.dumps(o.get(field))}, TraceEvent {json.dumps(t.get(field))}")
    for rows in index.values():
        for o in rows:
            diffs.add("gc", ("kind", "only-clretw"), o, None, f"{key_text(o, ('pid', 'gc', 'type', 'generation', 'start_ms'))} is not in TraceEvent's analysis")
    return compared, by_type


def pair_by_start(mine, theirs):
    """Pairs rows whose start_ms agree within the tolerance, nearest first; returns pairs and leftovers."""
    candidates = []
    for i, o in enumerate(mine):
        for j, t in enumerate(theirs):
            a, b = number(o.get("start_ms")), number(t.get("start_ms"))
            if a is not None and b is not None and abs(a - b) <= START_TOLERANCE_MS:
                candidates.append((abs(a - b), i, j))
    used_o, used_t, pairs = set(), set(), []
    for _, i, j in sorted(candidates):
        if i not in used_o and j not in used_t:
            used_o.add(i)
            used_t.add(j)
            pairs.append((mine[i], theirs[j]))
    return pairs, [o for i, o in enumerate(mine) if i not in used_o], [t for j, t in enumerate(theirs) if j not in used_t]


def compare_methods(ours, theirs, diffs):
    def group(rows):
        g = defaultdict(list)
        for row in rows:
            g[(row.get("pid"), row.get("tid"), method_name(row.get("method", "")))].append(row)
        return g
    go, gt = group(ours), group(theirs)
    pairs, left_o, left_t = [], [], []
    for key in set(go) | set(gt):
        p, lo, lt = pair_by_start(go.get(key, []), gt.get(key, []))
        pairs += p
        left_o += lo
        left_t += lt
    # Leftovers of one thread that started together: one method named two ways.
    by_thread_o, by_thread_t = defaultdict(list), defaultdict(list)
    for o in left_o:
        by_thread_o[(o.get("pid"), o.get("tid"))].append(o)
    for t in left_t:
        by_thread_t[(t.get("pid"), t.get("tid"))].append(t)
    renamed = []
    left_o, left_t = [], []
    for key in set(by_thread_o) | set(by_thread_t):
        p, lo, lt = pair_by_start(by_thread_o.get(key, []), by_thread_t.get(key, []))
        renamed += p
        left_o += lo
        left_t += lt
    for o, t, by_name in [(o, t, True) for o, t in pairs] + [(o, t, False) for o, t in renamed]:
        where = f"pid={t.get('pid')} tid={t.get('tid')} start_ms={t.get('start_ms')} {t.get('method')}"
        if not by_name:
            diffs.add("jit", ("field", "method"), o, t, f"{where}: clretw names it {json.dumps(o.get('method'))}")
        for field in JIT_FIELDS:
            if o.get(field) != t.get(field):
                diffs.add("jit", ("field", field), o, t, f"{where}: clretw {json.dumps(o.get(field))}, TraceEvent {json.dumps(t.get(field))}")
    for t in sorted(left_t, key=lambda r: number(r.get("start_ms")) or 0):
        diffs.add("jit", ("kind", "only-traceevent"), None, t,
                  f"pid={t.get('pid')} tid={t.get('tid')} start_ms={t.get('start_ms')} {t.get('method')} ({t.get('tier')}) is not in clretw's report")
    for o in sorted(left_o, key=lambda r: number(r.get("start_ms")) or 0):
        diffs.add("jit", ("kind", "only-clretw"), o, None,
                  f"pid={o.get('pid')} tid={o.get('tid')} start_ms={o.get('start_ms')} {o.get('method')} ({o.get('tier')}) is not in TraceEvent's analysis")
    return len(pairs) + len(renamed)


def compare_exceptions(ours, theirs, diffs):
    def counts(rows):
        c, row_of = Counter(), {}
        for row in rows:
            key = (row.get("pid"), row.get("type"))
            c[key] += row.get("count", 0)
            row_of[key] = row
        return c, row_of
    co, ro = counts(ours)
    ct, rt = counts(theirs)
    for key in sorted(set(co) | set(ct), key=str):
        if co[key] != ct[key]:
            diffs.add("exceptions", ("field", "count"), ro.get(key), rt.get(key),
                      f"pid={key[0]} {key[1]}: clretw {co[key]}, TraceEvent {ct[key]}")
    return len(set(co) | set(ct)), sum(ct.values())


def main():
    argv = sys.argv[1:]
    required = []
    if len(argv) == 5 and argv[0] == "--require":
        required = argv[1].split(",")
        argv = argv[2:]
    if len(argv) != 3 or any(t not in ("gc", "jit", "exceptions") for t in required):
        print(__doc__)
        return 2
    ours, theirs = load(argv[0]), load(argv[1])
    with open(argv[2], encoding="utf-8") as f:
        known = json.load(f)
    entries = known["differences"] if isinstance(known, dict) else known
    for e in entries:
        if "table" not in e or ("field" in e) == ("kind" in e) or not e.get("why"):
            sys.exit(f"compare_reports: {argv[2]}: an entry needs table, field or kind (one), and why: {json.dumps(e)}")
    diffs = Differences(entries)

    def table(rows, name):
        return [r for r in rows if r.get("table") == name]
    gcs, gc_types = compare_gcs(table(ours, "gc"), table(theirs, "gc"), diffs)
    methods = compare_methods(table(ours, "jit"), table(theirs, "jit"), diffs)
    types, thrown = compare_exceptions(table(ours, "exceptions"), table(theirs, "exceptions"), diffs)

    kinds = ", ".join(f"{n} {t}" for t, n in sorted(gc_types.items())) or "none"
    print(f"compare_reports: {gcs} GCs compared ({kinds}) of {len(table(ours, 'gc'))} here and {len(table(theirs, 'gc'))} in TraceEvent; "
          f"{methods} methods compared of {len(table(ours, 'jit'))} here and {len(table(theirs, 'jit'))} in TraceEvent; "
          f"{types} exception types compared ({thrown} exceptions in TraceEvent's count)")
    classes = ", ".join(f"{cls} {n}" for cls, n in sorted(diffs.by_class.items()))
    print(f"compare_reports: classified differences by class: {classes or 'none'}")
    for i, e in enumerate(entries):
        what = e.get("field") or e.get("kind")
        if diffs.counts[i]:
            print(f"  known ({e.get('class', 'classified')}): {e['table']} {what}: {diffs.counts[i]}x: {e['why']}")
        else:
            print(f"  not seen this run: {e['table']} {what}: {e['why'][:80]}")
    for u in diffs.unclassified[:200]:
        print("UNCLASSIFIED: " + u)
    if len(diffs.unclassified) > 200:
        print(f"UNCLASSIFIED: ... and {len(diffs.unclassified) - 200} more")
    print(f"compare_reports: {len(diffs.unclassified)} unclassified difference(s)")
    empty = [t for t, n in (("gc", gcs), ("jit", methods), ("exceptions", types)) if t in required and n == 0]
    for t in empty:
        print(f"compare_reports: nothing of table {t} was compared (--require {t})")
    return 1 if diffs.unclassified or empty else 0


if __name__ == "__main__":
    sys.exit(main())
