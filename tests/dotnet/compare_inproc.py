#!/usr/bin/env python3
"""Compares the JSON lines of an in-process EventPipe session (examples/inproc-profiler) with
clretw-dump --format json of a file session of the same process and providers, event for event.

  compare_inproc.py INPROC.jsonl FILE.jsonl [--since NS] [--per-session PROVIDER ...]

Events are grouped by type (provider, id, version) and thread; within a group the two sides must
list the same events in the same order, equal in everything but their time (ms, timestamp: the
in-process callback has no timestamp of the event, so the profiler stamps it when it decodes it)
and processor (neither session records one). A type only one side has is an error.
Documented differences, counted and printed:
  - what the runtime wrote before the profiler's session began (--since: its start on the steady
    clock, which on Linux is the clock a nettrace file's timestamps count): the file session, on
    from the runtime's start, has it; the profiler's, started in its Initialize, cannot;
  - stacks: .NET 10 gives a profiler's session no stack (numStackFrames is 0 for every event), so
    a file event's stack is compared only when the in-process event has one;
  - the providers named with --per-session write events about sessions rather than the program
    (EventPipe's ProcessInfo, written into every session as each one ends, so a synchronous
    session sees one per session): their distinct events must be the same on both sides, not
    their number;
  - what the runtime wrote after the file session ended: in-process events past the file's in their
    group, at its end, all stamped after the file's last event; the profiler's session, stopped at the
    runtime's shutdown, still gets it (the thread pool's YieldProcessorMeasurement, written again
    as each session goes away).
Prints a summary; exit 1 on any difference.
"""
import collections
import json
import sys

IGNORED = ("ms", "timestamp", "cpu")


def load(path, since=None, until=None, unbounded=()):
    groups = collections.OrderedDict()
    count = 0
    before = 0
    last = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                e = json.loads(line)
            except ValueError as err:
                sys.exit(f"{path}:{n}: not JSON: {err}")
            if e["provider"] not in unbounded and ((since is not None and e["timestamp"] < since) or
                                                   (until is not None and e["timestamp"] > until)):
                before += 1
                continue
            count += 1
            if e["provider"] not in unbounded:
                last = e["timestamp"] if last is None else max(last, e["timestamp"])
            key = (e["provider"], e["id"], e["version"])
            rest = {k: v for k, v in e.items() if k not in IGNORED}
            groups.setdefault(key, collections.OrderedDict()).setdefault(e.get("tid"), []).append((n, rest, e["timestamp"]))
    return groups, count, before, last


def main():
    args = sys.argv[1:]
    since = None
    if "--since" in args:
        i = args.index("--since")
        since = int(args[i + 1])
        del args[i:i + 2]
    per_session = set()
    if "--per-session" in args:
        i = args.index("--per-session")
        per_session = set(args[i + 1:])
        args = args[:i]
    if len(args) != 2:
        sys.exit(__doc__)
    filed, n_file, before, last = load(args[1], since, None, per_session)
    inproc, n_in, _, _ = load(args[0], None, None, per_session)
    after = 0
    problems = []
    compared = 0
    stacks_dropped = 0
    for key in sorted(set(inproc) | set(filed)):
        if key[0] not in per_session:
            continue
        # Written by whichever thread ends a session, with its activity: compared without them.
        def content(e):
            return json.dumps({k: v for k, v in e.items() if k not in ("tid", "activity", "related_activity")}, sort_keys=True)
        mine = {content(e) for t in inproc.get(key, {}).values() for _, e, _ in t}
        theirs = {content(e) for t in filed.get(key, {}).values() for _, e, _ in t}
        if mine != theirs:
            problems.append(f"{key}: the distinct events differ: {sorted(mine ^ theirs)[:2]}")
        else:
            print(f"compare_inproc: per session: {key}: {len(mine)} distinct event(s), the same on both sides "
                  f"({sum(len(t) for t in inproc.get(key, {}).values())} in-process, "
                  f"{sum(len(t) for t in filed.get(key, {}).values())} in the file)")
    for key, threads in inproc.items():
        if key[0] in per_session:
            continue
        if key not in filed:
            total = sum(len(v) for v in threads.values())
            problems.append(f"{key}: {total} in-process event(s), none in the file")
            continue
        other = filed[key]
        for tid in sorted(set(threads) | set(other), key=str):
            a, b = threads.get(tid, []), other.get(tid, [])
            # In-process events past the file's are allowed at the end only, and only when stamped after the
            # file's last event: the runtime wrote them after the file session ended.
            extra = a[len(b):]
            if extra and last is not None and all(ts > last for _, _, ts in extra):
                after += len(extra)
                a = a[:len(b)]
            if len(a) != len(b):
                problems.append(f"{key} thread {tid}: {len(a)} in-process event(s), {len(b)} in the file")
            for (la, ea, _), (lb, eb, _) in zip(a, b):
                compared += 1
                if ea.get("stack") is None and eb.get("stack") is not None:
                    eb = {k: v for k, v in eb.items() if k != "stack"}
                    ea = {k: v for k, v in ea.items() if k != "stack"}
                    stacks_dropped += 1
                if ea != eb:
                    diff = sorted(k for k in set(ea) | set(eb) if ea.get(k) != eb.get(k))
                    problems.append(f"{key} thread {tid}: in-process line {la} and file line {lb} differ in {diff}: "
                                    f"{json.dumps({k: ea.get(k) for k in diff})[:300]} against "
                                    f"{json.dumps({k: eb.get(k) for k in diff})[:300]}")
    for key, threads in inproc.items():
        if key not in filed and key[0] not in per_session and last is not None:
            extra = [ts for events in threads.values() for _, _, ts in events]
            if all(ts > last for ts in extra):  # a type the runtime wrote only after the file session ended
                after += len(extra)
                problems[:] = [p for p in problems if not p.startswith(f"{key}: ")]
    for key, threads in filed.items():
        if key not in inproc and key[0] not in per_session:
            problems.append(f"{key}: {sum(len(v) for v in threads.values())} event(s) in the file, none in-process")
    types = len(set(inproc) & set(filed))
    print(f"compare_inproc: {n_in} in-process events, {n_file} in the file; {types} event types in both, "
          f"{compared} events compared field by field")
    if before:
        print(f"compare_inproc: {before} file event(s) from before the profiler's session began")
    if after:
        print(f"compare_inproc: {after} in-process event(s) from after the file session ended")
    if stacks_dropped:
        print(f"compare_inproc: {stacks_dropped} file event(s) have a stack the profiler's session was not given")
    for p in problems[:40]:
        print("DIFFERENT:", p)
    if len(problems) > 40:
        print(f"... and {len(problems) - 40} more")
    if compared == 0:
        print("DIFFERENT: no events to compare")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
