#!/usr/bin/env python3
"""Compares clretw-dump --format json --sorted with the TraceEvent oracle, event by event.

    compare.py OURS.jsonl THEIRS.jsonl KNOWN_DIFFERENCES.json

Events are paired per (provider, id, version), in time order (ties by thread). Every field TraceEvent
shows is compared with ours after the normalisations below; every difference must match a row of
KNOWN_DIFFERENCES.json (class clretw-bug, traceevent-bug or manifest-gap, with a reason), else it fails.
Prints the numbers of events, event types and field values compared. Exit 0 when nothing is unclassified.

Normalisations, each with its reason:
- Field names compare case-insensitively: TraceEvent's classes sometimes re-case the manifest's names.
- Integers compare by value: we print map values by name and hex outTypes as "0x..", TraceEvent numbers or names.
- A map value compares by name when TraceEvent gives a name, by number when it gives a number.
- Flags compare as sets of names: both join them with ", ", possibly in another order.
- Doubles compare to 1e-9 relative: both print shortest round-trip forms of the same binary value.
- GUIDs compare lower-case: TraceEvent prints them lower-case, as we do.
- A negative TraceEvent integer equals ours modulo 2^32 (or 2^16, 2^8): its classes read many unsigned
  manifest fields as signed (GCSuspendEEBegin's Count of -1 is the manifest's UInt32 4294967295).
- TraceEvent's "X_0" (the first element of a struct array, flattened) is our first element's X; BulkType's
  element field Name is TypeName_N there (ALIASES).
- Values TraceEvent computes from other fields are computed from ours (DERIVED below), so that they
  compare instead of being excused; FinalizeObject's TypeName, which TraceEvent looks up by TypeID in the
  BulkType events it has seen, is looked up in ours the same way.
- MethodFlags: TraceEvent strips bits 7-9 (the JIT tier) and shows them apart as OptimizationTier; ours names
  the tier inside MethodFlags. The tier names are compared through TIER_NAMES: TraceEvent calls values 6 and 7
  QuickJittedInstrumented and OptimizedTier1Instrumented, the runtime (eventtrace.h) InstrumentedTier and
  InstrumentedTierOptimized.
- TraceEvent's own names for fields (RENAMES): GCMarkWithType's Bytes is its Promoted.
- A map value of 0 that the map does not name prints as 0 here and as None in TraceEvent's enums.
- A field TraceEvent shows as null is one the event's version does not have; ours leaves it out.
- Fields of later versions that TraceEvent shows at their default on an older version (LATER_FIELDS).
- Events pair in time order per (provider, id, version); times compare to 1 microsecond (we print 4 decimals).
- Activity and related activity ids compare as GUIDs, absent when zero in both outputs; they count as fields.
- A DateTime is ISO 8601 UTC with 7 fractional digits in both (our FILETIME, TraceEvent's DateTime.ToString("o")).

A row of KNOWN_DIFFERENCES.json that matched nothing is listed (the workload may not provoke it every run).
"""
import json
import re
import sys
from collections import Counter, defaultdict


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and re.fullmatch(r"-?0x[0-9a-fA-F]+|-?\d+", v):
        return int(v, 0)
    return None


def same(ours, theirs):
    if ours == theirs:
        return True
    a, b = as_int(ours), as_int(theirs)
    if a is not None and b is not None:
        if b < 0 and a >= 0:
            return any(a == b & mask for mask in (0xFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF))
        return a == b
    if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
        return abs(ours - theirs) <= 1e-9 * max(abs(ours), abs(theirs), 1e-300)
    if isinstance(ours, str) and isinstance(theirs, str):
        if ours.lower() == theirs.lower():
            return True
        if ", " in ours or ", " in theirs:
            return set(ours.split(", ")) == set(theirs.split(", "))
    if isinstance(ours, list) and isinstance(theirs, list):
        return len(ours) == len(theirs) and all(same(x, y) for x, y in zip(ours, theirs))
    if isinstance(ours, dict) and isinstance(theirs, dict):
        lo = {k.lower(): v for k, v in ours.items()}
        return all(k.lower() in lo and same(lo[k.lower()], v) for k, v in theirs.items())
    return False


# TraceEvent properties computed from other fields: name -> function of our fields.
DERIVED = {
    "TotalHeapSize": lambda f: sum(as_int(f.get("GenerationSize%d" % g, 0)) or 0 for g in range(5)),
    "TotalPromoted": lambda f: sum(as_int(f.get("TotalPromotedSize%d" % g, 0)) or 0 for g in range(5)),
    "ModuleILFileName": lambda f: str(f.get("ModuleILPath", "")).replace("\\", "/").rsplit("/", 1)[-1],
}

# (event id, TraceEvent's field name) -> the manifest's name.
RENAMES = {(202, "Promoted"): "Bytes"}


# TraceEvent's names for struct-element fields, where they differ from the manifest's.
ALIASES = {"typename": "name"}


TYPE_NAMES = {}  # TypeID -> name, from our BulkType events

# MethodFlags' tier entries in the built-in manifest, as TraceEvent names them.
TIER_NAMES = {"MinOptJitted": "MinOptJitted", "Optimized": "Optimized", "QuickJitted": "QuickJitted",
              "OptimizedTier1": "OptimizedTier1", "OptimizedTier1OSR": "OptimizedTier1OSR",
              "InstrumentedTier": "QuickJittedInstrumented", "InstrumentedTierOptimized": "OptimizedTier1Instrumented"}

# (event id, field) that only later versions have; TraceEvent shows them at 0 on older ones.
LATER_FIELDS = {(143, "ReJITID"), (144, "ReJITID"), (141, "ReJITID"), (142, "ReJITID")}


def tier_of(flags):
    names = [n for n in flags.split(", ")] if isinstance(flags, str) else []
    tiers = [TIER_NAMES[n] for n in names if n in TIER_NAMES]
    return tiers[0] if tiers else "Unknown"


def without_tier(flags):
    if not isinstance(flags, str):
        return flags
    rest = [n for n in flags.split(", ") if n not in TIER_NAMES]
    return ", ".join(rest) if rest else "0"


def ours_value(fields, name):
    lower = {k.lower(): v for k, v in fields.items()}
    if name.lower() in lower:
        return lower[name.lower()]
    m = re.fullmatch(r"(.+)_(\d+)", name)
    if m:  # a struct array's element, flattened
        for v in fields.values():
            if isinstance(v, list) and v and isinstance(v[0], dict) and int(m.group(2)) < len(v):
                element = {k.lower(): x for k, x in v[int(m.group(2))].items()}
                for key in (m.group(1).lower(), ALIASES.get(m.group(1).lower())):
                    if key in element:
                        return element[key]
    if name in DERIVED:
        return DERIVED[name](fields)
    if name == "OptimizationTier" and "MethodFlags" in fields:
        return tier_of(fields["MethodFlags"])
    if name == "TypeName" and "TypeID" in fields:
        return TYPE_NAMES.get(as_int(fields["TypeID"]), "<absent>")
    return "<absent>"


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    ours, theirs = load(sys.argv[1]), load(sys.argv[2])
    with open(sys.argv[3], encoding="utf-8") as f:
        known = json.load(f)["differences"]

    def classify(event, field, detail):
        for k in known:
            if re.fullmatch(k["event"], event) and re.fullmatch(k.get("field", ".*"), field or ""):
                return k
        return None

    for e in ours:
        if e["id"] == 15 and e["provider"] == "Microsoft-Windows-DotNETRuntime":
            for element in e["fields"].get("Values", []):
                TYPE_NAMES[as_int(element.get("TypeID"))] = element.get("Name")
    groups_o, groups_t = defaultdict(list), defaultdict(list)
    for e in ours:
        groups_o[(e["provider"], e["id"], e["version"])].append(e)
    for e in theirs:
        groups_t[(e["provider"], e["id"], e["version"])].append(e)
    unclassified, by_class = [], Counter()
    fields = 0
    for key in sorted(set(groups_o) | set(groups_t)):
        go, gt = groups_o.get(key, []), list(groups_t.get(key, []))  # each in its decoder's time order
        name = f"{key[0]}/{key[1]} v{key[2]}"
        if len(go) != len(gt):
            k = classify(name, "(count)", "")
            if k:
                by_class[(k["class"], name, "(count)", k["reason"])] += 1
            else:
                unclassified.append(f"{name}: {len(go)} events here, {len(gt)} in TraceEvent")
            continue
        for i, o in enumerate(go):
            # Events of one timestamp on several threads may come in another order: look a few ahead.
            for j in range(i, min(i + 16, len(gt))):
                if gt[j]["tid"] == o["tid"] and abs(gt[j]["ms"] - o["ms"]) <= 0.001:
                    gt[i], gt[j] = gt[j], gt[i]
                    break
            t = gt[i]
            if abs(o["ms"] - t["ms"]) > 0.001 or o["tid"] != t["tid"]:
                unclassified.append(f"{name}: pairs at {o['ms']} ms (tid {o['tid']}) with {t['ms']} ms (tid {t['tid']})")
                break
            for header in ("activity", "related_activity"):
                fields += 1
                if o.get(header, "").lower() != t.get(header, "").lower():
                    unclassified.append(f"{name} {header}: ours {o.get(header)}, TraceEvent {t.get(header)}")
            for field, value in t.get("fields", {}).items():
                fields += 1
                mine = ours_value(o.get("fields", {}), RENAMES.get((key[1], field), field))
                if field == "MethodFlags":
                    mine = without_tier(mine)
                if (mine == "0" and value == "None") or (mine == "<absent>" and value is None):
                    continue
                if mine == "<absent>" and (key[1], field) in LATER_FIELDS and as_int(value) == 0:
                    continue
                if same(mine, value):
                    continue
                k = classify(name, field, "")
                if k:
                    by_class[(k["class"], name, field, k["reason"])] += 1
                elif len(unclassified) < 400:
                    unclassified.append(f"{name} {field}: ours {json.dumps(mine)[:80]}, TraceEvent {json.dumps(value)[:80]}")
                else:
                    unclassified.append("...")
    types = len(set(groups_o) | set(groups_t))
    print(f"compare: {len(ours)} events here, {len(theirs)} in TraceEvent, {types} event types, {fields} field values compared")
    for (cls, name, field, reason), n in sorted(by_class.items()):
        print(f"  known ({cls}): {name} {field}: {n}x: {reason}")
    used = {reason for (_, _, _, reason) in by_class}
    for k in known:
        if k["reason"] not in used:
            print(f"  not seen this run: {k['event']} {k.get('field', '')}: {k['reason'][:80]}")
    seen = set()
    for u in unclassified:
        if u not in seen:
            print("UNCLASSIFIED: " + u)
            seen.add(u)
    print(f"compare: {len(set(unclassified))} unclassified difference(s)")
    return 1 if unclassified else 0


if __name__ == "__main__":
    sys.exit(main())
