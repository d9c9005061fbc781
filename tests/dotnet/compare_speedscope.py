#!/usr/bin/env python3
"""Compares two speedscope files of one .NET trace sample by sample: dotnet-trace's own conversion
(THEIRS, TraceEvent's SpeedScopeStackSourceWriter) and clretw-dump --format speedscope (OURS).

  compare_speedscope.py THEIRS.json OURS.json SAMPLES.jsonl [--min-agreement 0.99]

SAMPLES.jsonl holds the trace's sample profiler events, one JSON object per line with "tid" and "ms"
(clretw-dump --format json --filter 'Microsoft-DotNETCore-SampleProfiler/*' TRACE). They are the
instants at which both files are read. dotnet-trace writes "evented" profiles that merge consecutive samples
with the same stack into one interval, so the number of samples cannot be read from its file alone.

Threads are matched by the OS thread id: the last integer in a profile's name ("Thread (1234)", "Thread 1234").
For each sample instant t of a thread, each side's sample at t is:
  - evented profile: the interval of the timeline that holds t + PROBE_MS (instants are rounded to 0.1 us);
  - sampled profile with a time unit: sample i starts at startValue + sum(weights[:i]) and is the sample at t
    if it starts within TOLERANCE_MS of t, or else if it holds t + PROBE_MS;
  - sampled profile whose times do not line up with the instants, or without a time unit: its samples in
    order, if it has as many as the thread has instants (or one fewer), are the samples at the instants in
    order (a sample counts its weight if all weights of the profile are whole numbers, taken as a run of
    samples with the same stack; else 1);
  - else the thread's leaves are compared as multisets, counted the same way.
The leaf of a sample is its innermost frame after normalisation. That normalisation is all there is:
  1. Pseudo-frames are skipped from the leaf end: dotnet-trace puts CPU_TIME (ThreadSample type Managed) or
     UNMANAGED_CODE_TIME (type External) on top of every sample (also BLOCKED_TIME, AWAIT_TIME,
     UNKNOWN_ASYNC in other TraceEvent views). In dotnet-trace's file only intervals topped by one of them
     are samples; the others are gaps of about a microsecond or less between one sample's close and the
     next's open.
  2. Root frames are not leaves: "Process64 dotnet (PID) Args: ...", "(Non-Activities)", "Threads",
     "Thread (TID)" / "Thread TID". A stack with nothing else is "(no managed frame)".
  3. The module prefix "Module!" is dropped (dotnet-trace spells one module two ways:
     "System.Private.CoreLib!" for ReadyToRun code, "system.private.corelib!" for code jitted during the trace).
  4. An unresolved frame is "(unresolved)": dotnet-trace writes "?!?"; a bare address ("0x7f..." or
     "module!0x7f...") or "[unknown]"/"?" on our side is the same.
  5. dotnet-trace drops the last sample of each thread (TraceEvent weighs a sample by the time to the thread's
     next one; the last has none). A thread's last instant that only our side has is not counted.
Agreement = instants where both sides have a sample with the same leaf / instants where either has one.
Also printed, not judged: the agreement with signatures ignored (everything from the leaf's "(" on), and,
where samples are paired, how many whole stacks agree (normalised as above: pseudo-frames and root frames
dropped, module prefixes dropped) with the most frequent stack differences and where they start.
Exit 1 if the overall agreement is under --min-agreement, or a side has no samples.
"""
import argparse
import bisect
import collections
import json
import re
import sys

TOLERANCE_MS = 0.05  # a sample starting this close to an instant is the sample at that instant
PROBE_MS = 2e-4      # an interval holds instant t if it holds t + PROBE_MS
PSEUDO = {"CPU_TIME", "UNMANAGED_CODE_TIME", "BLOCKED_TIME", "AWAIT_TIME", "UNKNOWN_ASYNC"}
ROOT = re.compile(r"^(Thread \(\d+\)|Thread \d+|Threads|\(Non-Activities\)|Process(32|64)? .*\(\d+\).*)$")
MODULE = re.compile(r"^[^!(<\[\s]+!(?=.)")
UNRESOLVED = re.compile(r"^(\?|\?!\?|\[unknown\].*|([^!(]+!)?(0x)?[0-9a-fA-F]{6,})$")
TIME_UNITS = {"nanoseconds": 1e-6, "microseconds": 1e-3, "milliseconds": 1.0, "seconds": 1000.0}
NO_SAMPLE = "(no sample)"


def frame(name):
    if UNRESOLVED.match(name):
        return "(unresolved)"
    return MODULE.sub("", name, count=1)


def normalise(names):
    """The normalised stack, root first, of a sample given root first."""
    i = len(names)
    while i > 0 and names[i - 1] in PSEUDO:
        i -= 1
    return tuple(frame(n) for n in names[:i] if not ROOT.match(n))


def leaf(st):
    return st[-1] if st else "(no managed frame)"


def name_only(name):
    """A leaf without its signature (for the diagnostic figure)."""
    return name.split("(", 1)[0] if not name.startswith("(") else name


def thread_id(profile_name):
    ids = re.findall(r"\d+", profile_name)
    return int(ids[-1]) if ids else None


class Side:
    """One file: per thread a timeline of stacks, its samples in order, and its leaves as a multiset."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        self.exporter = data.get("exporter", "?")
        frames = [fr["name"] for fr in data["shared"]["frames"]]
        self.has_pseudo = any(n in PSEUDO for n in frames)
        self.kinds = collections.Counter()
        self.timelines = {}   # tid -> (starts, ends, normalised stacks, exact_start flags)
        self.multisets = {}   # tid -> Counter of leaves, for sampled profiles without a time unit
        self.counts = {}      # tid -> Counter of leaves, for every sampled profile
        self.last_leaf = {}   # tid -> leaf of the last sample, for every sampled profile
        self.seq = {}         # tid -> the normalised stacks in order, a sample of whole weight w counting w times
        self.skipped = []
        for p in data["profiles"]:
            tid = thread_id(p.get("name", ""))
            if tid is None:
                self.skipped.append(p.get("name", ""))
                continue
            self.kinds[p["type"]] += 1
            if p["type"] == "evented":
                self._evented(tid, p, frames)
            else:
                self._sampled(tid, p, frames)

    def _add(self, tid, start, end, st, exact):
        starts, ends, stacks, exacts = self.timelines.setdefault(tid, ([], [], [], []))
        starts.append(start)
        ends.append(end)
        stacks.append(st)
        exacts.append(exact)

    def _evented(self, tid, p, frames):
        stack, last = [], None
        for e in p["events"]:
            at = float(e["at"])
            if last is not None and at > last and stack:
                names = [frames[i] for i in stack]
                if not self.has_pseudo or names[-1] in PSEUDO:
                    self._add(tid, last, at, normalise(names), False)
            if e["type"] == "O":
                stack.append(e["frame"])
            else:
                if not stack or stack[-1] != e["frame"]:
                    raise SystemExit(f"{p['name']}: close of frame {e['frame']} at {at} does not match the open stack")
                stack.pop()
            last = at
        self.timelines.setdefault(tid, ([], [], [], []))

    def _sampled(self, tid, p, frames):
        weights = p.get("weights") or [1] * len(p["samples"])
        whole = all(float(w).is_integer() for w in weights)
        counts = self.counts.setdefault(tid, collections.Counter())
        seq = self.seq.setdefault(tid, [])
        for s, w in zip(p["samples"], weights):
            st = normalise([frames[i] for i in s])
            counts[leaf(st)] += int(w) if whole else 1
            seq.extend([st] * (int(w) if whole else 1))
        if p["samples"]:
            self.last_leaf[tid] = leaf(normalise([frames[i] for i in p["samples"][-1]]))
        factor = TIME_UNITS.get(p.get("unit", "none"))
        if factor is None:
            self.multisets[tid] = counts
            return
        t = float(p.get("startValue", 0)) * factor
        for s, w in zip(p["samples"], weights):
            d = float(w) * factor
            self._add(tid, t, t + d, normalise([frames[i] for i in s]), True)
            t += d
        self.timelines.setdefault(tid, ([], [], [], []))

    def threads(self):
        return set(self.timelines) | set(self.multisets)

    def at(self, tid, t):
        """(stack, index) of the sample at instant t, or (None, None)."""
        starts, ends, stacks, exacts = self.timelines.get(tid, ([], [], [], []))
        i = bisect.bisect_right(starts, t + TOLERANCE_MS) - 1
        if i >= 0 and exacts[i] and abs(starts[i] - t) <= TOLERANCE_MS:
            return stacks[i], i
        # Held by an interval: probed just after t, as the instants are rounded to 0.1 us and an interval
        # of dotnet-trace's closes 1e-7 ms before the next sample's instant.
        probe = t + PROBE_MS
        i = bisect.bisect_right(starts, probe) - 1
        if i >= 0 and probe < ends[i]:
            return stacks[i], i
        return None, None

    def multiset(self, tid, instants):
        """The thread's leaves as a multiset: its own, or read at the instants from its timeline."""
        if tid in self.counts:
            return self.counts[tid]
        counts = collections.Counter()
        for t in instants:
            st, _ = self.at(tid, t)
            if st is not None:
                counts[leaf(st)] += 1
        return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("theirs")
    ap.add_argument("ours")
    ap.add_argument("samples")
    ap.add_argument("--min-agreement", type=float, default=0.99)
    args = ap.parse_args()

    theirs, ours = Side(args.theirs), Side(args.ours)
    instants = collections.defaultdict(list)
    with open(args.samples, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                e = json.loads(line)
                instants[e["tid"]].append(float(e["ms"]))
    for ts in instants.values():
        ts.sort()
    print(f"theirs: {args.theirs}: {theirs.exporter}, {dict(theirs.kinds)} profiles")
    print(f"ours:   {args.ours}: {ours.exporter}, {dict(ours.kinds)} profiles")
    for side, name in ((theirs, "theirs"), (ours, "ours")):
        if side.skipped:
            print(f"{name}: profiles with no thread id in their name, not compared: {side.skipped}")

    tids = sorted(set(instants) | theirs.threads() | ours.threads())
    rows, pairs, name_agree = [], collections.Counter(), 0
    both, whole, stack_pairs = 0, 0, collections.Counter()  # whole stacks, where compared per sample
    total = dict(instants=0, theirs=0, ours=0, agree=0, counted=0, excluded=0, ours_elsewhere=0)
    for tid in tids:
        ts = instants.get(tid, [])
        ours_at, mode, elsewhere = None, "multiset", 0
        if ts and tid in theirs.timelines and tid not in theirs.multisets:
            # In order first: when our samples (runs expanded by their whole weights) are as many as the
            # trace's instants, the k-th is the k-th. Pairing by time is the fallback: with weights of the
            # nominal interval, a timeline of merged runs drifts from the real instants, and a few long runs
            # would still seem to "line up".
            if tid in ours.seq and len(ours.seq[tid]) in (len(ts), len(ts) - 1):
                seq = ours.seq[tid]
                ours_at = lambda k, t, seq=seq: seq[k] if k < len(seq) else None
                mode = "per sample, in order" + (", ours one short" if len(seq) < len(ts) else "")
            elif tid in ours.timelines and tid not in ours.multisets:
                used = {i for i in (ours.at(tid, t)[1] for t in ts) if i is not None}
                n = len(ours.timelines[tid][0])
                # Our times must line up with the trace's instants (else: multisets).
                if n and len(used) >= 0.9 * min(n, len(ts)):
                    ours_at, mode = (lambda k, t, tid=tid: ours.at(tid, t)[0]), "per sample, by time"
                    if tid in ours.seq:
                        elsewhere = n - len(used)
        if ours_at is not None:
            n_t = n_o = agree = counted = excluded = 0
            for k, t in enumerate(ts):
                st_t, st_o = theirs.at(tid, t)[0], ours_at(k, t)
                lt = None if st_t is None else leaf(st_t)
                lo = None if st_o is None else leaf(st_o)
                if lt is None and lo is not None and k == len(ts) - 1:
                    excluded += 1  # normalisation 5
                    continue
                n_t += lt is not None
                n_o += lo is not None
                if lt is None and lo is None:
                    continue
                counted += 1
                if lt == lo:
                    agree += 1
                else:
                    pairs[(lt or NO_SAMPLE, lo or NO_SAMPLE)] += 1
                if lt is not None and lo is not None and name_only(lt) == name_only(lo):
                    name_agree += 1
                if st_t is not None and st_o is not None:
                    both += 1
                    if st_t == st_o:
                        whole += 1
                    else:
                        stack_pairs[(st_t, st_o)] += 1
        else:
            mt, mo = theirs.multiset(tid, ts), collections.Counter(ours.multiset(tid, ts))
            excluded = 0
            last = ours.last_leaf.get(tid)
            if ts and theirs.at(tid, ts[-1])[0] is None and last is not None and mo[last] > 0 and \
               sum(mo.values()) > sum(mt.values()):
                mo[last] -= 1  # normalisation 5: ours' last sample is the thread's last instant
                excluded = 1
            n_t, n_o = sum(mt.values()), sum(mo.values())
            agree = sum((mt & mo).values())
            counted = max(n_t, n_o)
            for lf, n in (mt - mo).items():
                pairs[(lf, "(fewer here)")] += n
            for lf, n in (mo - mt).items():
                pairs[("(fewer here)", lf)] += n
            na_t = collections.Counter({name_only(k): v for k, v in mt.items()})
            na_o = collections.Counter({name_only(k): v for k, v in mo.items()})
            name_agree += sum((na_t & na_o).values())
        rows.append((tid, len(ts), n_t, n_o, agree, counted, mode, excluded, elsewhere))
        for key, v in (("instants", len(ts)), ("theirs", n_t), ("ours", n_o), ("agree", agree),
                       ("counted", counted), ("excluded", excluded), ("ours_elsewhere", elsewhere)):
            total[key] += v

    print(f"{'thread':>8} {'instants':>9} {'theirs':>7} {'ours':>7} {'same leaf':>9} {'agreement':>10}  compared")
    for tid, n, n_t, n_o, agree, counted, mode, excluded, elsewhere in rows:
        pct = f"{100.0 * agree / counted:.2f}%" if counted else "-"
        notes = [mode]
        if excluded:
            notes.append("last sample only ours")
        if elsewhere:
            notes.append(f"{elsewhere} of ours at no instant")
        print(f"{tid:>8} {n:>9} {n_t:>7} {n_o:>7} {agree:>9} {pct:>10}  {', '.join(notes)}")
    overall = total["agree"] / total["counted"] if total["counted"] else 0.0
    print(f"{'all':>8} {total['instants']:>9} {total['theirs']:>7} {total['ours']:>7} {total['agree']:>9} "
          f"{100.0 * overall:>9.2f}%")
    if total["excluded"]:
        print(f"not counted: {total['excluded']} last sample(s) of a thread that only ours has (normalisation 5)")
    if total["ours_elsewhere"]:
        print(f"ours has {total['ours_elsewhere']} sample(s) at no sample instant of the trace")
    if total["counted"]:
        print(f"agreement with signatures ignored: {100.0 * name_agree / total['counted']:.2f}%")
    if both:
        print(f"whole stacks (normalised the same way) agree for {100.0 * whole / both:.2f}% of the {both} samples "
              "both have")
        for (st_t, st_o), n in sorted(stack_pairs.items(), key=lambda kv: -kv[1])[:3]:
            i = next((k for k, (a, b) in enumerate(zip(st_t, st_o)) if a != b), min(len(st_t), len(st_o)))
            print(f"  {n:>6}  from frame {i}: theirs {list(st_t[i:i + 2])}{' ...' if len(st_t) > i + 2 else ''}"
                  f" ({len(st_t)} frames), ours {list(st_o[i:i + 2])}{' ...' if len(st_o) > i + 2 else ''}"
                  f" ({len(st_o)} frames)")
    if pairs:
        print("differing leaves, theirs -> ours, most frequent first:")
        for (lt, lo), n in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {n:>6}  {lt}  ->  {lo}")

    ok = overall >= args.min_agreement and total["theirs"] > 0 and total["ours"] > 0
    verdict = "ok" if ok else "FAIL"
    print(f"{verdict}: leaves agree for {100.0 * overall:.2f}% of {total['counted']} samples "
          f"(at least {100.0 * args.min_agreement:.0f}% needed); samples: dotnet-trace {total['theirs']}, "
          f"clretw-dump {total['ours']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
