#!/usr/bin/env python3
"""Measures how many events of each kind the real .NET runtime writes for tests/dotnet/workload, for
clretw-gen config's ranking of the events a setting enables beyond those asked for.

  tools/config-volume.py CLRETW_DUMP [WORKLOAD_DLL] > generator/emit/src/config_volume.inc

For every keyword of the runtime and private providers in manifest/ClrEtwBuiltin.man, runs one round of
the workload under EventPipe with that keyword alone at level 5 (and once with the sample profiler),
counts the events with `clretw-dump --stats` and keeps, per provider and event name, the most any run
produced (one keyword at a time: some keywords change what others write, as GCSampledObjectAllocation*
replaces GC/AllocationTick). Without WORKLOAD_DLL the workload is built into a temporary directory.
Prints the rows of generator/emit/src/config_volume.inc (config.cpp's table), most frequent first per provider.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NS = "{http://schemas.microsoft.com/win/2004/08/events}"
PROVIDERS = ("Microsoft-Windows-DotNETRuntime", "Microsoft-Windows-DotNETRuntimePrivate")
KEPT = PROVIDERS + ("Microsoft-Windows-DotNETRuntimeRundown", "Microsoft-DotNETCore-SampleProfiler")
LINE = re.compile(r"^\s+(\d+)  ([^/]+)/(.*) \(\d+ v\d+(?:, \d+ v\d+)*\)$")


def configs():
    root = ET.parse(os.path.join(ROOT, "manifest", "ClrEtwBuiltin.man")).getroot()
    for provider in root.iter(NS + "provider"):
        if provider.get("name") in PROVIDERS:
            for keyword in provider.iter(NS + "keyword"):
                yield "%s:%s:5" % (provider.get("name"), keyword.get("mask"))
    yield "Microsoft-DotNETCore-SampleProfiler:0x0:5"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    dump = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        dll = sys.argv[2] if len(sys.argv) == 3 else None
        if dll is None:
            project = os.path.join(ROOT, "tests", "dotnet", "workload", "workload.csproj")
            subprocess.run(["dotnet", "build", project, "-c", "Release", "-o", os.path.join(work, "bin"), "--nologo",
                            "-v", "quiet"], check=True, stdout=subprocess.DEVNULL)
            dll = os.path.join(work, "bin", "workload.dll")
        most = {}
        runs = 0
        for config in configs():
            trace = os.path.join(work, "run.nettrace")
            env = dict(os.environ, DOTNET_EnableEventPipe="1", DOTNET_EventPipeOutputPath=trace,
                       DOTNET_EventPipeConfig=config)
            subprocess.run(["dotnet", dll, "1"], env=env, check=True, stdout=subprocess.DEVNULL, timeout=300)
            stats = subprocess.run([dump, "--stats", trace], check=True, capture_output=True, text=True).stdout
            runs += 1
            for line in stats.splitlines():
                m = LINE.match(line)
                if m and m.group(2) in KEPT:
                    key = (m.group(2), m.group(3))
                    most[key] = max(most.get(key, 0), int(m.group(1)))
        version = subprocess.run(["dotnet", "--version"], check=True, capture_output=True, text=True).stdout.strip()
    print("// Made by tools/config-volume.py: events per round of tests/dotnet/workload, the most of %d runs" % runs)
    print("// (one keyword each at level 5), .NET SDK %s. Regenerate rather than edit." % version)
    for (provider, name), count in sorted(most.items(), key=lambda kv: (KEPT.index(kv[0][0]), -kv[1], kv[0][1])):
        print('    {"%s", "%s", %d},' % (provider, name.replace("\\", "\\\\").replace('"', '\\"'), count))


if __name__ == "__main__":
    main()
