#!/usr/bin/env python3
"""Conformance of clretw-dump's ETL reader with TraceEvent's own baselines.

    conformance.py CLRETW_DUMP SHARED_DIR

Reads SHARED_DIR/etl/<name>.etl and <name>.baseline.txt for each trace in TRACES (when SHARED_DIR/etl is
missing it prints "SKIPPED: ../shared/etl not present" and exits 0). A baseline is what TraceEvent's
GeneralParsing test writes: one line "EVENT <ms>: <Provider>/<Event> PID=..; TID=..; PName=..; ProceNum=..;
DataLen=..; field=value; ..." for each of the first 5 events of every type in time order, then one line
"COUNT <Provider>/<Event>:<n>" per type. That test leaves out the "DotNet" provider, the private CLR
provider's events it has no class for, and the MSNT_SystemTrace events the OS parses.

Checks, per trace:
- Every EVENT line of a CLR provider (Microsoft-Windows-DotNETRuntime, -Rundown, -Private): the i-th line of
  a (provider, event) pairs with clretw's i-th event of that type in timestamp order (clretw-dump merges an
  ETL file's buffers by timestamp; we sort again, stably). Compared: ms (to 0.001: the baseline rounds to 3
  decimals, clretw prints 4), PID, TID, ProceNum (clretw's cpu), DataLen (only when the JSON carries a
  "payload_bytes" or "size" key; otherwise counted as not compared), and every field=value.
- Event names: TraceEvent's names that differ from the manifest's "Task/Opcode" go through RENAMES (pairing
  by name through one table rather than by id and version, so that the report speaks TraceEvent's names).
- Every COUNT line of a CLR provider equals clretw's count of that type; every CLR type clretw has must
  have a COUNT line unless NOT_IN_BASELINE lists it.
- The kernel events manifest/WindowsKernel.man describes (KERNEL_DESCRIBED: "Windows Kernel/" EventTrace, the
  logfile header; Process/Start, Stop, DCStart, DCStop, Defunct; Thread/*; Image/Load, Unload, DCStart, DCStop;
  PerfInfo/Sample, SetInterval, CollectionStart, CollectionEnd; StackWalk/Stack and the stack key events) are
  compared the same way, EVENT and COUNT lines, with the rules below. The
  header's PointerSize and NumberOfProcessors are also checked against the first line of clretw-dump --stats.
- The other kernel events the manifest describes (KERNEL_PAYLOAD: DiskIO, Memory/HardFault, TcpIp, UdpIp,
  SystemConfig, process counters, the header's extensions, KernelTraceControl's ImageID events and the merge's
  SysConfig): COUNT lines, and every EVENT line's payload fields by name (KERNEL_FIELD_RENAMES) or as TraceEvent
  computes them (kernel_payload_field); PID, TID and PName are not compared for them, except the PID and PName of
  TcpIp and UdpIp events (the header names no process; the record takes the payload's PID).
- The providers whose manifests were on the recording machine only (METADATA_DESCRIBED: DNS-Client,
  Immersive-Shell, Kernel-EventTracing, Kernel-File, Kernel-Process), which clretw decodes from the trace's
  KernelTraceControl-MetaData descriptions, are compared as the CLR providers are; where TraceEvent has a class
  of its own for one (Kernel-File/Create), its names and computed values go through FIELD_RENAMES and
  kernel_file_field.
- Every compared line's PName: TraceEvent prints the image name without its extension, "Process(<pid>)" when
  TraceLog has no name, "" for pid -1; clretw's "process" (the image name) is normalised the same way.
- DataLen: the size of "payload" (hex) for events clretw does not decode; for decoded kernel events, derived from
  the manifest's template layout, the decoded strings' and SID's lengths and the trailing bytes clretw's note
  reports (derived_datalen); otherwise (CLR events) not compared.
- Lines of other providers are counted as not compared: kernel ones (Windows Kernel, MSNT_SystemTrace,
  KernelTraceControl) by provider/group as "not in manifest/WindowsKernel.man", the others by provider.
- clretw-dump --stats reconciles ("events: N in file, N counted = D decoded + U unknown + 0 malformed", as
  many JSON lines as N) and lists no CLR-provider type as unknown.
Any other difference fails (exit 1), unless EXCUSED lists it with its evidence. Differences print as
"file: line N: Provider/Event: field: baseline 'x' vs clretw 'y'".

Normalisations of field values, each with its reason:
- The 20-character cut: TraceEvent cuts every value longer than 20 characters to 20 plus "...", then writes
  newlines as \\n and carriage returns as \\r; clretw's value, rendered as TraceEvent would, is cut the
  same way and compared as text.
- Integers compare by value: TraceEvent prints them with thousands separators ("65,536") and hex-typed
  ones as 0x.. (32-bit ones padded to 8 digits, 64-bit ones not); clretw's JSON has plain numbers.
- Signed: a negative TraceEvent integer equals clretw's modulo 2^8/2^16/2^32/2^64 (TraceEvent reads some
  unsigned manifest fields as signed: ExceptionHRESULT -2,147,024,894 is the UInt32 0x80070002).
- Booleans: TraceEvent prints True/False, JSON true/false.
- Value maps: clretw prints the manifest's map name; TraceEvent prints its own enum's name, or the bare
  number where its class reads the field as a plain integer, or the number when the flags hold bits its
  enum does not name (AppDomainFlags=268435459 is Default, Executable, 0x10000000). Both sides are turned
  into numbers: clretw's names through MANIFEST_MAPS (the values of the built-in manifest's maps),
  TraceEvent's through TRACEEVENT_ENUMS (its enums' values, where the manifest leaves a field unmapped, as
  the private provider's templates do). A value 0 that no map names is "None" in TraceEvent, "0" in clretw.
- Names TraceEvent's enums give differently from the manifest (NAME_DIFFERENCES): GCSegmentType 3 is the
  manifest's PinnedHeap and TraceEvent's PinnedObjectHeap; GCBucketKind 1 is Plug and PlugsInCondemned.
- Flags compare as sets of names (both join with ", "; a cut value compares as text).
- DateTimes: TraceEvent prints UTC as yy/MM/dd HH:mm:ss.ffffff, clretw ISO 8601; clretw's is reformatted.
- GUIDs compare case-insensitively.
- A field the event's version does not have: TraceEvent prints it empty ("PauseMode=;"), clretw leaves it
  out. Fields of later versions that TraceEvent prints at their default on an older version
  (LATER_FIELDS) compare with that default.
- TraceEvent's own names for fields (FIELD_RENAMES): GCMarkWithType's Bytes is its Promoted.
- Fields TraceEvent computes (computed the same way from clretw's fields in clretw_field): TotalHeapSize and TotalPromoted (HeapStats' sums),
  ModuleILFileName (ModuleILPath's last component), OptimizationTier (MethodFlags' tier bits, Unknown when
  none), FinalizeObject's TypeName (looked up by TypeID in the process's BulkType events of the whole
  trace, as TraceLog does; empty when there are none).
- Struct arrays: TraceEvent flattens the first element as X_0 (BulkType's TypeID_0 and TypeName_0, the
  latter the element's Name).

Kernel rules (TraceEvent's KernelTraceEventParser.cs and TraceLog.cs, as facts; each computes and checks):
- Events TraceLog removes (tracelog_drops): PerfInfo samples of thread 0 not executing a DPC or ISR (Reserved
  bits 0-1); dropped from clretw's side before pairing and counting. Thread/DCStart, DCStop (bookkeeping) and
  the StackWalk events (folded into stacks) have no lines: NOT_IN_BASELINE.
- Names: RENAMES (Image/Unload is clretw's Image/Stop).
- TID_RULES: TraceEvent sets TID -1 on Process events and on Image DCStart/DCStop/Unload; the baseline must show
  -1. PIDs of kernel events: clretw's, and where clretw has -1 for a known thread (it learns a thread's process
  from its first Thread event on; TraceLog over the whole trace, rundown included), the process of the thread's
  next Thread event in clretw's output.
- PName: where clretw names the process only from a later event, that name; a process TraceLog names from no
  Process Start/DCStart/Stop/DCStop event (only Defunct, which clretw reads a name from) is "Process(<pid>)".
- Field names (FIELD_RENAMES): Process PageDirectoryBase = DirectoryTableBase, Thread StartAddr = Affinity (same
  offset, 8 + 4*ptr), EventTrace UtcOffsetMinutes = TimeZoneBias. Process Flags through ProcessFlagsMap.
- Computed (kernel_field): Image BuildTime = 1970-01-01 UTC + TimeDateStamp as UInt32 seconds; Image FileName =
  KernelToUser of clretw's path through the trace's SysConfig VolumeMapping (NtPath -> DosPath) and SystemPaths
  (\\Windows\\ -> Windows directory) events, decoded here from their payload hex, first prefix in trace order;
  PerfInfo/Sample ProcessorNumber = clretw's cpu, ExecutingDPC/ExecutingISR/Priority = bits 0, 1, 3-7 of
  Reserved's low byte, Rank = its high byte; Thread ThreadName = "" when DataLen < 46 + 7*(ptr-4);
  ParentThreadID/ParentProcessID = -1 except on Thread/Start (EXCUSED: the creator is the record header's
  thread, which clretw's JSON replaces with the payload's).
"""
import datetime
import decimal
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

TRACES = ["gcevents", "net.4.5.2.x64"]

CLR_PROVIDERS = ("Microsoft-Windows-DotNETRuntime", "Microsoft-Windows-DotNETRuntimeRundown",
                 "Microsoft-Windows-DotNETRuntimePrivate")

# (provider, TraceEvent's event name) -> clretw's name (the manifest's Task/Opcode), with the reason.
RENAMES = {
    ("Microsoft-Windows-DotNETRuntime", "GC/MarkWithType"):
        ("GC/Mark", "event 202: the manifest's opcode GCMarkWithType displays as Mark; TraceEvent uses "
                    "MarkWithType"),
    ("Microsoft-Windows-DotNETRuntime", "GC/FitBucketInfo"):
        ("GC/GCFitBucketInfo", "event 209: the manifest's opcode displays as GCFitBucketInfo; TraceEvent drops "
                               "the GC prefix"),
    ("Microsoft-Windows-DotNETRuntime", "GC/LOHCompact"):
        ("GC/GCLOHCompact", "event 208: the manifest's opcode displays as GCLOHCompact; TraceEvent drops the GC "
                            "prefix"),
    ("Microsoft-Windows-DotNETRuntime", "GC/GenerationRange"):
        ("GC/GCGenerationRange", "event 23: the manifest's opcode displays as GCGenerationRange; TraceEvent "
                                 "drops the GC prefix"),
    ("Microsoft-Windows-DotNETRuntime", "GC/BulkMovedObjectRanges"):
        ("GC/GCBulkMovedObjectRanges", "event 22: the manifest's opcode displays as GCBulkMovedObjectRanges; "
                                       "TraceEvent drops the GC prefix"),
    ("Microsoft-Windows-DotNETRuntime", "GC/BulkSurvivingObjectRanges"):
        ("GC/GCBulkSurvivingObjectRanges", "event 21: the manifest's opcode displays as "
                                           "GCBulkSurvivingObjectRanges; TraceEvent drops the GC prefix"),
    ("Microsoft-Windows-DotNETRuntime", "GarbageCollection/IncreaseMemoryPressure"):
        ("GC/IncreaseMemoryPressure", "event 200: its task GarbageCollection displays as GC, as for every GC "
                                      "event; TraceEvent uses the task's name for this one event"),
    ("Windows Kernel", "Image/Unload"):
        ("Image/Stop", "hook 0x1402 (Image group, type 2): the manifest's opcode win:Stop displays as Stop; "
                       "TraceEvent names the kernel's type 2 Unload"),
}

# CLR types clretw decodes that the baselines have no line for, with the reason.
NOT_IN_BASELINE = {
    ("Microsoft-Windows-DotNETRuntime", "ClrStack/Walk"):
        "TraceLog folds CLR stack events into the stacks of the events they follow and does not deliver them",
    ("Microsoft-Windows-DotNETRuntime", "Method/MethodILToNativeMap"):
        "TraceLog consumes IL-to-native maps into its method tables and does not deliver them",
    ("Microsoft-Windows-DotNETRuntimeRundown", "Method/MethodDCEndILToNativeMap"):
        "TraceLog consumes rundown IL-to-native maps into its method tables and does not deliver them",
    ("Microsoft-Windows-DotNETRuntimeRundown", "Method/DCStopVerbose"):
        "TraceLog consumes rundown method events into its method tables and does not deliver them",
    ("Windows Kernel", "Thread/DCStart"):
        "TraceLog marks thread rundown events as bookkeeping (TraceLog.cs: bookKeepingEvent = true on DCStart) "
        "and removes them from its stream",
    ("Windows Kernel", "Thread/DCStop"):
        "TraceLog marks thread rundown events as bookkeeping (bookKeepingEvent = true on DCStop) and removes them",
    ("Windows Kernel", "StackWalk/Stack"):
        "TraceLog folds kernel stacks into the events they follow and does not deliver them",
    ("Windows Kernel", "StackWalk/KeyDelete"):
        "TraceLog folds stack key definitions into the stacks of the events that refer to them",
    ("Windows Kernel", "StackWalk/KeyRundown"):
        "TraceLog folds stack key definitions into the stacks of the events that refer to them",
    ("Windows Kernel", "StackWalk/StackKeyKernel"):
        "TraceLog folds stack key references into the stacks of the events they follow",
    ("Windows Kernel", "StackWalk/StackKeyUser"):
        "TraceLog folds stack key references into the stacks of the events they follow",
}

# Providers whose manifests were on the recording machine only: clretw decodes their events from the
# descriptions the merging tool wrote into the trace (KernelTraceControl-MetaData's EventInfo and EventMapInfo
# events). Their EVENT and COUNT lines are compared like the CLR providers'.
METADATA_DESCRIBED = ("Microsoft-Windows-DNS-Client", "Microsoft-Windows-Immersive-Shell",
                      "Microsoft-Windows-Kernel-EventTracing", "Microsoft-Windows-Kernel-File",
                      "Microsoft-Windows-Kernel-Process")

# (event name as clretw gives it, TraceEvent's field) -> clretw's field.
FIELD_RENAMES = {("GC/Mark", "Promoted"): "Bytes",
                 # TraceEvent's own class for Microsoft-Windows-Kernel-File names two fields its own way.
                 ("Create", "IrpPtr"): "Irp", ("Create", "FileAttributes"): "CreateAttributes"}

# (event name as clretw gives it, field) -> TraceEvent's default for versions that lack the field.
LATER_FIELDS = {
    ("GC/AllocationTick", "ObjectSize"): "0",      # version 4's field, shown as 0 on version 3
    ("GC/Start", "ClientSequenceNumber"): "0",     # version 2's field, shown as 0 on version 1
    ("Method/LoadVerbose", "ReJITID"): "0",        # version 2's field, shown as 0 on version 1
    ("Method/UnloadVerbose", "ReJITID"): "0",
    ("GC/HeapStats", "GenerationSize4"): "0",      # version 2's fields, shown as 0 on version 1
    ("GC/HeapStats", "TotalPromotedSize4"): "0",
}

# Maps of the built-in manifest (runtime and rundown providers), for the fields whose value TraceEvent
# prints as a number: (clretw event name, field) -> {name: value}.
_STARTUP_FLAGS = {"CONCURRENT_GC": 0x1, "LOADER_OPTIMIZATION_SINGLE_DOMAIN": 0x2,
                  "LOADER_OPTIMIZATION_MULTI_DOMAIN": 0x4, "LOADER_SAFEMODE": 0x10,
                  "LOADER_SETPREFERENCE": 0x100, "SERVER_GC": 0x1000, "HOARD_GC_VM": 0x2000,
                  "SINGLE_VERSION_HOSTING_INTERFACE": 0x4000, "LEGACY_IMPERSONATION": 0x10000,
                  "DISABLE_COMMITTHREADSTACK": 0x20000, "ALWAYSFLOW_IMPERSONATION": 0x40000,
                  "TRIM_GC_COMMIT": 0x80000, "ETW": 0x100000, "SERVER_BUILD": 0x200000,
                  "ARM": 0x400000}                                               # StartupFlagsMap
_APPDOMAIN_FLAGS = {"Default": 0x1, "Executable": 0x2, "Shared": 0x4}            # AppDomainFlagsMap
MANIFEST_MAPS = {
    ("GC/Mark", "Type"): {"Stack": 0, "Finalizer": 1, "Handle": 2, "Older": 3, "SizedRef": 4,
                          "Overflow": 5, "DependentHandle": 6, "NewFQ": 7, "Steal": 8,
                          "BGC": 9},                                             # GCRootKindMap
    ("AppDomainResourceManagement/ThreadCreated", "Flags"):
        {"GCSpecial": 0x1, "Finalizer": 0x2, "ThreadPoolWorker": 0x4},         # ThreadFlagsMap
    ("Runtime/Start", "StartupFlags"): _STARTUP_FLAGS,
    ("Loader/AppDomainLoad", "AppDomainFlags"): _APPDOMAIN_FLAGS,
    ("Loader/AppDomainUnload", "AppDomainFlags"): _APPDOMAIN_FLAGS,
    ("Loader/AppDomainDCStop", "AppDomainFlags"): _APPDOMAIN_FLAGS,
}

# TraceEvent's enums for fields the private provider's manifest leaves as bare numbers:
# (clretw event name, field) -> {name: value}.
TRACEEVENT_ENUMS = {
    # GCReason: the values the public manifest's GCReasonMap names alike (private GlobalHeapHistory_V1).
    ("GC/GlobalHeapHistory", "Reason"): {"AllocSmall": 0, "Induced": 1, "LowMemory": 2, "Empty": 3,
                                         "AllocLarge": 4, "InducedLowMemory": 9, "InducedCompacting": 10,
                                         "LowMemoryHost": 11, "PMFullGC": 12, "LowMemoryHostBlocking": 13},
    # GC global mechanisms flags: the public manifest's GCGlobalMechanismsMap.
    ("GC/GlobalHeapHistory", "GlobalMechanisms"): {"None": 0, "Concurrent": 0x1, "Compaction": 0x2,
                                                   "Promotion": 0x4, "Demotion": 0x8, "CardBundles": 0x10,
                                                   "Elevation": 0x20},
    # Private GC/PerHeapHistory v2 (.NET Framework, manifest/clr-fixups.xml): the mechanisms the public
    # manifest's GCHeapCompactMechanismMap and GCHeapExpandMechanismMap name; 0 is TraceEvent's not_specified.
    ("GC/PerHeapHistory", "CompactMechanisms"): {"not_specified": 0},
    ("GC/PerHeapHistory", "ExpandMechanisms"): {"not_specified": 0},
    # NgenBind's ReasonCode: the runtime's NGENBINDREJECT_REASON (eventtracebase.h), without its NGEN_BIND_
    # prefix.
    ("NgenBinder/NgenBind", "ReasonCode"): {
        "START_BIND": 0, "NO_INDEX": 1, "SYSTEM_ASSEMBLY_NOT_AVAILABLE": 2, "NO_NATIVE_IMAGE": 3,
        "REJECT_CONFIG_MASK": 4, "FAIL": 5, "INDEX_CORRUPTION": 6, "REJECT_TIMESTAMP": 7,
        "REJECT_NATIVEIMAGE_NOT_FOUND": 8, "REJECT_IL_SIG": 9, "REJECT_LOADER_EVAL_FAIL": 10,
        "MISSING_FOUND": 11, "REJECT_HOSTASM": 12, "REJECT_IL_NOT_FOUND": 13,
        "REJECT_APPBASE_NOT_FILE": 14, "BIND_DEPEND_REJECT_REF_DEF_MISMATCH": 15,
        "BIND_DEPEND_REJECT_NGEN_SIG": 16, "APPLY_EXTERNAL_RELOCS_FAILED": 17,
        "SYSTEM_ASSEMBLY_NATIVEIMAGE_NOT_AVAILABLE": 18, "ASSEMBLY_HAS_DIFFERENT_GRANT": 19,
        "ASSEMBLY_NOT_DOMAIN_NEUTRAL": 20, "NATIVEIMAGE_VERSION_MISMATCH": 21, "LOADFROM_NOT_ALLOWED": 22,
        "DEPENDENCY_HAS_DIFFERENT_IDENTITY": 23},
}

# (field, manifest's name) -> TraceEvent's name for the same number.
NAME_DIFFERENCES = {
    ("Type", "PinnedHeap"): "PinnedObjectHeap",        # GCSegmentTypeMap 3 (GC/CreateSegment)
    ("BucketKind", "Plug"): "PlugsInCondemned",        # GCBucketKindMap 1 (GC/GCFitBucketInfo)
}

KERNEL = "Windows Kernel"
SYSCONFIG = "KernelTraceControl-SysConfig"

# The kernel events manifest/WindowsKernel.man describes, by TraceEvent's "Task/Opcode" name. Their EVENT and
# COUNT lines are compared like the CLR providers' (through RENAMES where clretw's name differs).
KERNEL_DESCRIBED = {"EventTrace", "Process/Start", "Process/Stop", "Process/DCStart", "Process/DCStop",
                    "Process/Defunct", "Thread/Start", "Thread/Stop", "Thread/DCStart", "Thread/DCStop",
                    "Image/Load", "Image/Unload", "Image/DCStart", "Image/DCStop", "PerfInfo/Sample",
                    "PerfInfo/SetInterval", "PerfInfo/CollectionStart", "PerfInfo/CollectionEnd",
                    "StackWalk/Stack", "StackWalk/KeyCreate", "StackWalk/KeyDelete", "StackWalk/KeyRundown",
                    "StackWalk/StackKeyKernel", "StackWalk/StackKeyUser"}

# Providers whose lines are kernel (MOF) events; those not in KERNEL_DESCRIBED are reported by provider/group as
# not in manifest/WindowsKernel.man.
KERNEL_PROVIDERS = (KERNEL, "MSNT_SystemTrace", "KernelTraceControl")

# The other kernel events manifest/WindowsKernel.man describes (DiskIO, FileIO names, Memory, TcpIp, UdpIp,
# SystemConfig, the header's extensions, process counters, KernelTraceControl's image identities and the
# merge's SysConfig): TraceEvent's (provider, "Task/Opcode") -> clretw's. Their COUNT lines must match, and every
# EVENT line's payload fields are compared with clretw's i-th event of the type (in time order): by name,
# through KERNEL_FIELD_RENAMES, or computed by kernel_payload_field. PID, TID and PName are not compared (TraceEvent
# moves them around per event; the events above check those rules). Fields TraceEvent computes from other events
# (FileName from a FileKey, IrpFlags and Priority split from one word) are counted as not compared.
KERNEL_PAYLOAD = {
    (KERNEL, "EventTrace/Extension"): (KERNEL, "EventTrace/Extension"),
    (KERNEL, "EventTrace/EndExtension"): (KERNEL, "EventTrace/EndExtension"),
    (KERNEL, "EventTrace/RundownComplete"): (KERNEL, "EventTrace/Suspend"),
    (KERNEL, "Process/PerfCtr"): (KERNEL, "Process/PerfCtr"),
    (KERNEL, "Process/PerfCtrRundown"): (KERNEL, "Process/PerfCtrRundown"),
    (KERNEL, "Memory/HardFault"): (KERNEL, "Memory/HardFault"),
    (KERNEL, "TcpIp/SendIPV6"): (KERNEL, "TcpIp/SendIPV6"),
    (KERNEL, "TcpIp/RecvIPV6"): (KERNEL, "TcpIp/RecvIPV6"),
    (KERNEL, "UdpIp/Send"): (KERNEL, "UdpIp/Send"),
    (KERNEL, "UdpIp/Recv"): (KERNEL, "UdpIp/Recv"),
    (KERNEL, "UdpIp/SendIPV6"): (KERNEL, "UdpIp/SendIPV6"),
    (KERNEL, "UdpIp/RecvIPV6"): (KERNEL, "UdpIp/RecvIPV6"),
    ("MSNT_SystemTrace", "Image/KernelBase"): (KERNEL, "Image/KernelBase"),
    ("MSNT_SystemTrace", "SystemConfig/Platform"): (KERNEL, "SystemConfig/Platform"),
    (KERNEL, "SysConfig/BuildInfo"): (SYSCONFIG, "SysConfig/BuildInfo"),
    (KERNEL, "SysConfig/SystemPaths"): (SYSCONFIG, "SysConfig/SystemPaths"),
    (KERNEL, "SysConfig/UnknownVolume"): (SYSCONFIG, "SysConfig/UnknownVolume"),
    (KERNEL, "SysConfig/VolumeMapping"): (SYSCONFIG, "SysConfig/VolumeMapping"),
    (KERNEL, "SysConfig/Opcode(37)"): (SYSCONFIG, "SysConfig/OsVersion"),
    ("KernelTraceControl", "ImageID"): ("KernelTraceControl", "ImageID"),
    ("KernelTraceControl", "ImageID/DbgID_RSDS"): ("KernelTraceControl", "ImageID/DbgID_RSDS"),
    ("KernelTraceControl", "ImageID/DbgID_ILRSDS"): ("KernelTraceControl", "ImageID/DbgID_ILRSDS"),
    ("KernelTraceControl", "ImageID/FileVersion"): ("KernelTraceControl", "ImageID/FileVersion"),
    ("KernelTraceControl", "ImageID/None"): ("KernelTraceControl", "ImageID/None"),
    # TraceEvent prints no fields of these (their class GUIDs are the providers KernelTraceControl-MetaData
    # and -WinSat of manifest/WindowsKernel.man): their COUNT lines are compared.
    ("KernelTraceControl", "MetaData/EventInfo"): ("KernelTraceControl-MetaData", "MetaData/EventInfo"),
    ("KernelTraceControl", "MetaData/EventMapInfo"): ("KernelTraceControl-MetaData", "MetaData/EventMapInfo"),
}
for _op in ("Read", "Write", "ReadInit", "WriteInit", "FlushBuffers", "FlushInit"):
    KERNEL_PAYLOAD[(KERNEL, "DiskIO/" + _op)] = (KERNEL, "DiskIO/" + _op)
for _op in ("CPU", "PhyDisk", "LogDisk", "NIC", "Services", "Power", "Network", "PnP", "IDEChannel"):
    KERNEL_PAYLOAD[(KERNEL, "SystemConfig/" + _op)] = (KERNEL, "SystemConfig/" + _op)

# TraceEvent's field name -> the manifest's (the kernel's MOF names), per field name.
KERNEL_FIELD_RENAMES = {
    "ProcessID": "ProcessId", "MemoryCount": "PageFaultCount", "TargetID": "TargetId",
    "PDBFileName": "PdbFileName", "FileKey": "FileObject",
}
KERNEL_FIELD_RENAMES_BY_EVENT = {("SysConfig/UnknownVolume", "Value"): "NtPath"}
# Same name, another value: TraceEvent's ProcessName is the name of the event's process, not the payload's string.
# ImageID's ProcessID: TraceEvent's class does not read it from the payload (its accessor is commented out) and
# prints 0, where the payload holds the header's process (4 for the System process's images: checked).
KERNEL_PAYLOAD_NOT_COMPARED = {("SystemConfig/Services", "ProcessName"), ("ImageID", "ProcessID")}


def kernel_payload_field(event, field, ctx):
    """TraceEvent's computed values of the other kernel events, from clretw's fields; NOT_COMPUTED when none."""
    f = event["fields"]
    if field == "context" and "PID" in f:
        return f["PID"] | (f["size"] << 32)  # UdpIp v2: TraceEvent reads PID and size as one pointer
    if field in ("ElapsedTimeMSec", "DiskServiceTimeMSec") and "HighResResponseTime" in f and ctx.get("perf_freq"):
        # QPC ticks -> ms, printed as .NET's N3 does (half away from zero).
        ms = decimal.Decimal(f["HighResResponseTime"] * 1000) / decimal.Decimal(ctx["perf_freq"])
        return str(ms.quantize(decimal.Decimal("0.001"), rounding=decimal.ROUND_HALF_UP))
    if field == "IrpFlags" and "IrpFlags" in f:
        return f["IrpFlags"] & ~(7 << 17)   # TraceEvent leaves out the I/O priority (bits 17-19)
    if field == "PhysicalAddr" and f.get(field, 0) >= 1 << 63:
        return f[field] - (1 << 64)           # TraceEvent reads it as a signed 64-bit number
    if field in ("BuildTime",) and "TimeDateStamp" in f:
        t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=f["TimeDateStamp"] & 0xFFFFFFFF)
        return t.strftime("%y/%m/%d %H:%M:%S.%f")
    return NOT_COMPUTED

# TraceEvent's PID/TID of kernel events (its FixupData, KernelTraceEventParser.cs), where they differ from the
# header's: (clretw event name) -> rule. "-1": TraceEvent sets the thread to -1 (Process events keep the header's
# thread as ParentThread; Image DCStart/DCStop/Unload "have no useful thread"); the baseline must show -1 and
# clretw's header thread is not compared. PIDs of these events come from the payload on both sides.
TID_RULES = {
    "Process/Start": "-1", "Process/Stop": "-1", "Process/DCStart": "-1", "Process/DCStop": "-1",
    "Process/Defunct": "-1", "Image/Stop": "-1", "Image/DCStart": "-1", "Image/DCStop": "-1",
}

# Kernel field names: TraceEvent's -> the manifest's (MOF) names, with the reason. Keyed like FIELD_RENAMES.
for _e in ("Process/Start", "Process/Stop", "Process/DCStart", "Process/DCStop", "Process/Defunct"):
    # Process_V4's DirectoryTableBase (offset 2*ptr+16): TraceEvent calls it PageDirectoryBase.
    FIELD_RENAMES[(_e, "PageDirectoryBase")] = "DirectoryTableBase"
    MANIFEST_MAPS[(_e, "Flags")] = {"PackageFullName": 0x1, "Wow64": 0x2, "Protected": 0x4}  # ProcessFlagsMap
for _e in ("Thread/Start", "Thread/Stop", "Thread/DCStart", "Thread/DCStop"):
    # TraceEvent's StartAddr reads the pointer at HostOffset(24, 4) = 8 + 4*ptr, which Thread_V3 names Affinity
    # (TraceEvent keeps the v2 layout's name; every baseline StartAddr is 0x000000ff, an affinity mask).
    FIELD_RENAMES[(_e, "StartAddr")] = "Affinity"
# TRACE_LOGFILE_HEADER's TimeZoneInformation.Bias (offset 56 + 2*ptr): TraceEvent's UTCOffsetMinutes.
FIELD_RENAMES[("EventTrace", "UtcOffsetMinutes")] = "TimeZoneBias"

# Differences that stay, each with its evidence: (baseline's Provider/Event, field) -> reason. "*" stands for
# every field of the event. An excuse that matched nothing is printed.
EXCUSED = {
    ("Microsoft-Windows-DotNETRuntime/GC/HeapStats", "Depth"):
        "no GCHeapStats version has a Depth field: DataLen 94 (v1) and 110 (v2) are exactly the manifest's "
        "fields (8 UInt64 generation sizes/promotions, 2 UInt64 finalization, 3 UInt32 counts, UInt16 "
        "ClrInstanceID, v2: 2 UInt64 for generation 4; checked); TraceEvent fills Depth from the GC it tracks",
}

# Thread/Start's ParentThreadID/ParentProcessID: TraceEvent's are the Start event's header thread and process (the
# creator); clretw replaces both with the payload's (the created thread), so the JSON no longer carries them.
EXCUSED[("Windows Kernel/Thread/Start", "ParentThreadID")] = (
    "the creator thread is the record header's ThreadId, which clretw's JSON replaces with the payload's "
    "TThreadId; checked that clretw's Thread events put that thread in process ParentProcessID")
EXCUSED[("Windows Kernel/Thread/Start", "ParentProcessID")] = (
    "the creator process is the record header's ProcessId, which clretw's JSON replaces with the payload's "
    "ProcessId; checked that clretw's Thread events put thread ParentThreadID in that process")

ABSENT = object()


def parse_baseline(path):
    events, counts = [], []
    with open(path, encoding="utf-8-sig") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if line.startswith("COUNT "):
                key, _, n = line[6:].rpartition(":")
                provider, _, name = key.partition("/")
                counts.append((lineno, provider, name, int(n)))
                continue
            m = re.match(r"EVENT ([\d,]+\.\d+): (.+?) PID=(-?\d+); TID=(-?\d+); PName=(.*?); "
                         r"ProceNum=(\d+); DataLen=(\d+); (.*)$", line)
            if not m:
                continue
            provider, _, name = m.group(2).partition("/")
            fields = []
            for piece in m.group(8).split("; "):
                if not piece:
                    continue
                fm = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)$", piece, re.S)
                if fm:
                    fields.append([fm.group(1), fm.group(2)])
                elif fields:  # a value holding "; "
                    fields[-1][1] += "; " + piece
            if fields and fields[-1][1].endswith(";"):
                fields[-1][1] = fields[-1][1][:-1]
            events.append({"line": lineno, "ms": float(m.group(1).replace(",", "")), "provider": provider,
                           "name": name, "pid": int(m.group(3)), "tid": int(m.group(4)), "pname": m.group(5),
                           "cpu": int(m.group(6)), "datalen": int(m.group(7)), "fields": fields})
    return events, counts


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        s = v.strip()
        if re.fullmatch(r"-?0x[0-9a-fA-F]+", s):
            return int(s, 16)
        if re.fullmatch(r"-?\d{1,3}(,\d{3})*|-?\d+", s):
            return int(s.replace(",", ""))
    return None


def names_to_number(value, table):
    """'A, B, 0x10' -> number through table; None when a name is unknown."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    total = 0
    for name in value.split(", "):
        n = as_int(name)
        if n is None:
            if name not in table:
                return None
            n = table[name]
        total |= n
    return total


def number_to_names(number, table):
    """TraceEvent's rendering of a flags enum: names of the set bits, ascending."""
    if number == 0:
        return next((k for k, v in table.items() if v == 0), "0")
    names = [k for k, v in sorted(table.items(), key=lambda kv: kv[1]) if v and number & v == v]
    rest = number
    for k in names:
        rest &= ~table[k]
    return ", ".join(names) if names and not rest else str(number)


def render(v):
    """clretw's JSON value as TraceEvent would print it (before the cut)."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return "{:,}".format(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z", v)
        if m:
            frac = (m.group(7) or "").ljust(6, "0")[:6]
            return "%s/%s/%s %s:%s:%s.%s" % (m.group(1)[2:], m.group(2), m.group(3), m.group(4),
                                             m.group(5), m.group(6), frac)
        return v
    return json.dumps(v)


def cut(s):
    if len(s) > 20:
        s = s[:20] + "..."
    return s.replace("\n", "\\n").replace("\r", "\\r")


def same_value(event, field, b, c):
    """Does TraceEvent's printed b equal clretw's JSON value c (after the normalisations)?"""
    if c is ABSENT:
        return b == ""
    if b.endswith("...") and len(b) == 23:  # cut: compare as text, with map names rendered as TraceEvent's
        if isinstance(c, int) and (event, field) in TRACEEVENT_ENUMS:
            c = number_to_names(c, TRACEEVENT_ENUMS[(event, field)])
        if isinstance(c, str):
            c = NAME_DIFFERENCES.get((field, c), c)
        return cut(render(c)) == b
    if isinstance(c, bool):
        return render(c) == b
    bi, ci = as_int(b), as_int(c)
    if bi is not None and ci is None and (event, field) in MANIFEST_MAPS:
        ci = names_to_number(c, MANIFEST_MAPS[(event, field)])
    if bi is None and ci is not None and (event, field) in TRACEEVENT_ENUMS:
        bi = names_to_number(b, TRACEEVENT_ENUMS[(event, field)])
    if bi is not None and ci is not None:
        if bi == ci:
            return True
        if bi < 0 <= ci:
            return any(ci == bi & mask for mask in (0xFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF))
        return False
    if b == "None" and ci == 0:
        return True
    if isinstance(c, str):
        c = NAME_DIFFERENCES.get((field, c), c)
        r = render(c)
        if r == b:
            return True
        if re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", r) and r.lower() == b.lower():
            return True
        if ", " in r or ", " in b:
            return set(r.split(", ")) == set(b.split(", "))
        return False
    return cut(render(c)) == b


def tier_of(flags):
    tiers = ["MinOptJitted", "Optimized", "QuickJitted", "OptimizedTier1", "OptimizedTier1OSR",
             "InstrumentedTier", "InstrumentedTierOptimized"]
    names = flags.split(", ") if isinstance(flags, str) else []
    found = [n for n in names if n in tiers]
    return found[0] if found else "Unknown"


NOT_COMPUTED = object()


def signed32(v):
    return v - (1 << 32) if v >= 1 << 31 else v


def utf16_strings(payload_hex):
    """The NUL-terminated UTF-16 strings of an undecoded payload (SysConfig VolumeMapping: NtPath, DosPath)."""
    return bytes.fromhex(payload_hex).decode("utf-16le", errors="replace").split("\0")


def kernel_to_user(path, mapping):
    """TraceEvent's KernelToUser: the first mapping (in trace order) whose NT prefix starts the path,
    compared case-insensitively, is replaced by its DOS path."""
    for nt, dos in mapping:
        if nt and path[:len(nt)].lower() == nt.lower():
            return dos + path[len(nt):]
    return path


def kernel_field(event, name, field, ctx):
    """Values TraceEvent computes for kernel events, computed the same way from clretw's fields."""
    f = event["fields"]
    if name in ("Image/Stop", "Image/DCStart", "Image/DCStop", "Image/Load"):
        if field == "BuildTime" and "TimeDateStamp" in f:
            # PEHeader.TimeDateStampToDate: seconds since 1970-01-01 UTC of the UInt32 stamp (0 -> 1970, and
            # -1,726,546,814 -> 2051, so unsigned).
            t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=f["TimeDateStamp"] & 0xFFFFFFFF)
            return t.strftime("%Y-%m-%dT%H:%M:%S.0000000Z")
        if field == "FileName" and "FileName" in f:
            # KernelToUser through the trace's SysConfig VolumeMapping events (NtPath -> DosPath, decoded here from
            # their payload) and SystemPaths (\Windows\ -> its Windows directory).
            return kernel_to_user(f["FileName"], ctx["volumes"])
    if name == "PerfInfo/Sample" and "Reserved" in f:
        # SampledProfileTraceData: the byte at HostOffset(10, 1) (Reserved's low byte): bit 0 ExecutingDPC,
        # bit 1 ExecutingISR, bits 3-7 Priority; the next byte Rank. ProcessorNumber: the header's processor.
        low, high = f["Reserved"] & 0xFF, (f["Reserved"] >> 8) & 0xFF
        value = {"ExecutingDPC": bool(low & 1), "ExecutingISR": bool(low & 2), "Priority": (low >> 3) & 0x1F,
                 "Rank": high, "ProcessorNumber": event.get("cpu", -1)}.get(field, NOT_COMPUTED)
        return value
    if name.startswith("Thread/"):
        if field == "ThreadName":
            # Version 3 has a name only when DataLen >= HostOffset(46, 7) (74 with 8-byte pointers).
            return "" if derived_datalen(event, ctx["pointer_size"]) < 46 + 7 * (ctx["pointer_size"] - 4) \
                else NOT_COMPUTED
        if field in ("ParentThreadID", "ParentProcessID") and name != "Thread/Start":
            return -1   # FixupData leaves them -1 on Stop (it keeps the header's ids), DCStart and DCStop
    return NOT_COMPUTED


def derived_datalen(e, ptr):
    """DataLen of a kernel event clretw decoded: its template's layout (manifest/WindowsKernel.man) with the
    lengths of the decoded strings and SID, plus the trailing bytes clretw's note reports. None when unknown."""
    f = e["fields"]
    name = e["name"]
    def ustr(s):
        return 2 * (len(s) + 1)
    if name == "EventTrace":
        size = 264 + 2 * ptr + ustr(f["SessionName"]) + ustr(f["LogFileName"])
    elif name.startswith("Process/"):
        sid = f.get("UserSID", "")
        sid_size = 4 if not sid else 2 * ptr + 8 + 4 * (len(sid.split("-")) - 3)
        size = (2 * ptr + 20 + sid_size + len(f["ImageFileName"].encode("latin-1", "replace")) + 1
                + ustr(f["CommandLine"]) + ustr(f["PackageFullName"]) + ustr(f["ApplicationId"]))
    elif name.startswith("Thread/"):
        size = 8 + 7 * ptr + 8
    elif name.startswith("Image/"):
        size = 3 * ptr + 32 + ustr(f["FileName"])
    elif name == "PerfInfo/Sample":
        size = ptr + 8
    else:
        return None
    m = re.match(r"(\d+) trailing payload bytes", e.get("note", ""))
    return size + (int(m.group(1)) if m else 0)


# TraceEvent's class for Microsoft-Windows-Kernel-File/Create, from the manifest's fields (only the values the
# baselines hold are named): it splits the NT create options into the disposition (the top byte; NT's FILE_OPEN,
# 1, printed as Win32's OPEN_EXISTING) and the options below it, which it prints through an enum whose names
# are file attributes' (0x20 FILE_ATTRIBUTE_ARCHIVE); ShareAccess through .NET's FileShare; FileName turned into
# a user's path, with \Device\Mup\ (the network redirector) as \\.
NT_DISPOSITIONS = {1: "OPEN_EXISTING"}
KERNEL_FILE_OPTIONS = {0x20: "FILE_ATTRIBUTE_ARCHIVE"}


def kernel_file_field(f, field, ctx):
    if field == "ShareAccess" and "ShareAccess" in f:
        return file_share(f["ShareAccess"])
    if field == "CreateOptions" and "CreateOptions" in f:
        return KERNEL_FILE_OPTIONS.get(f["CreateOptions"] & 0xFFFFFF, f["CreateOptions"] & 0xFFFFFF)
    if field == "CreateDisposition" and "CreateOptions" in f:
        return NT_DISPOSITIONS.get(f["CreateOptions"] >> 24, f["CreateOptions"] >> 24)
    if field == "FileName" and "FileName" in f:
        return kernel_to_user(f["FileName"], ctx["volumes"] + [("\\Device\\Mup\\", "\\\\")])
    return NOT_COMPUTED


def clretw_field(event, name, field, type_names, ctx=None):
    f = event["fields"]
    if event["provider"] == "Microsoft-Windows-Kernel-File" and ctx is not None:
        v = kernel_file_field(f, field, ctx)
        if v is not NOT_COMPUTED:
            return v
    if event["provider"] == KERNEL and ctx is not None:
        v = kernel_field(event, name, field, ctx)
        if v is not NOT_COMPUTED:
            return v
    key = FIELD_RENAMES.get((name, field), field)
    lower = {k.lower(): v for k, v in f.items()}
    if key.lower() in lower:
        return lower[key.lower()]
    if field == "TotalHeapSize" and "GenerationSize0" in f:
        return sum(f.get("GenerationSize%d" % g, 0) for g in range(5))
    if field == "TotalPromoted" and "TotalPromotedSize0" in f:
        return sum(f.get("TotalPromotedSize%d" % g, 0) for g in range(5))
    if field == "ModuleILFileName" and "ModuleILPath" in f:
        return re.split(r"[\\/]", f["ModuleILPath"])[-1]
    if field == "OptimizationTier" and "MethodFlags" in f:
        return tier_of(f["MethodFlags"])
    if field == "TypeName" and "TypeID" in f:
        return type_names.get((event["pid"], f["TypeID"]), "")
    m = re.fullmatch(r"(.+)_(\d+)", field)
    if m:
        for v in f.values():
            if isinstance(v, list) and v and isinstance(v[0], dict) and int(m.group(2)) < len(v):
                element = {k.lower(): x for k, x in v[int(m.group(2))].items()}
                for k in (m.group(1).lower(), "name" if m.group(1) == "TypeName" else None):
                    if k in element:
                        return element[k]
    if (name, field) in LATER_FIELDS:
        return LATER_FIELDS[(name, field)]
    return ABSENT


def excuse_holds(key, pair, ctx=None):
    """The evidence an excuse names, checked where the JSON shows it."""
    if key == ("Microsoft-Windows-DotNETRuntime/GC/HeapStats", "Depth") and pair:
        b, e = pair
        return "Depth" not in e["fields"] and b["datalen"] == {1: 94, 2: 110}.get(e["version"])
    if key in (("Windows Kernel/Thread/Start", "ParentThreadID"), ("Windows Kernel/Thread/Start", "ParentProcessID")) \
            and pair and ctx is not None:
        b, e = pair
        fields = dict(b["fields"])
        return ctx["thread_process"].get(as_int(fields.get("ParentThreadID"))) == as_int(fields.get("ParentProcessID"))
    return pair is None or not key[0].startswith("Windows Kernel/")


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    return p.stdout.decode("utf-8")


NONE32 = 0xFFFFFFFF


def as_id(v):
    """clretw's UInt32 process or thread id as TraceEvent prints it (0xFFFFFFFF is -1)."""
    return -1 if v == NONE32 else v


def compared(provider, name):
    return provider in CLR_PROVIDERS or provider in METADATA_DESCRIBED or (provider == KERNEL and name in KERNEL_DESCRIBED)


def file_share(v):
    """.NET's FileShare flags as Enum.ToString() writes them (ReadWrite = Read | Write), for Kernel-File's
    ShareAccess, which TraceEvent's class prints through that enum."""
    names, rest = [], v
    for name, bit in (("Inheritable", 16), ("Delete", 4), ("ReadWrite", 3), ("Write", 2), ("Read", 1)):
        if rest & bit == bit:
            names.append(name)
            rest &= ~bit
    return ", ".join(reversed(names)) if names and not rest else str(v)


def tracelog_drops(e):
    """Events TraceLog removes from its stream (TraceLog.cs, PerfInfoSample): samples of thread 0 (the idle
    process) unless they were executing a DPC or an ISR (SampledProfile's Reserved, bits 0 and 1)."""
    return (e["provider"] == KERNEL and e["name"] == "PerfInfo/Sample" and e["tid"] == 0
            and not e["fields"].get("Reserved", 0) & 3)


def stem(image):
    """TraceEvent's process name: the image file name without its extension."""
    return image.rsplit(".", 1)[0] if "." in image else image


def check_trace(dump, etl, baseline_path, failures, excused_used):
    label = os.path.basename(etl)
    base_events, base_counts = parse_baseline(baseline_path)
    events = [json.loads(l) for l in run([dump, "--format", "json", etl]).splitlines() if l.strip()]
    stats = run([dump, "--stats", etl]).splitlines()
    m = re.search(r"pointer size (\d+), (\d+) processors", stats[0])
    stats_pointer, stats_cpus = (int(m.group(1)), int(m.group(2))) if m else (None, None)

    order = sorted(range(len(events)), key=lambda i: (events[i]["timestamp"], i))
    by_type = defaultdict(list)
    type_names = {}
    figures = Counter()
    # What the kernel rules need from the whole trace (TraceLog sees the whole trace before it delivers events).
    ctx = {"pointer_size": stats_pointer or 8, "volumes": [], "thread_process": {}}
    tracelog_named = set()      # pids TraceLog names: from Process Start/DCStart/Stop/DCStop (not Defunct)
    later_names = defaultdict(list)  # pid -> [(timestamp, clretw's process name)]
    thread_events = defaultdict(list)  # tid -> [(timestamp, its ProcessId in clretw's Thread events)]
    for i in order:
        e = events[i]
        if tracelog_drops(e):
            figures["dropped"] += 1
            continue
        by_type[(e["provider"], e["name"])].append(e)
        if e["name"] == "Type/BulkType":
            for t in e["fields"].get("Values", []):
                type_names[(e["pid"], t.get("TypeID"))] = t.get("Name", "")
        if e["provider"] == KERNEL and e["name"].split("/")[0] == "Process" and "ImageFileName" in e["fields"] \
                and e["name"] != "Process/Defunct":
            tracelog_named.add(e["fields"]["ProcessId"])
        if e["provider"] == KERNEL and e["name"].startswith("Thread/") and "TThreadId" in e["fields"]:
            ctx["thread_process"][e["fields"]["TThreadId"]] = e["fields"]["ProcessId"]
            thread_events[e["fields"]["TThreadId"]].append((e["timestamp"], e["fields"]["ProcessId"]))
        if e.get("process"):
            later_names[e["pid"]].append((e["timestamp"], e["process"]))
        # SysConfig's SystemPaths (SystemDirectory, SystemWindowsDirectory) and VolumeMapping (NtPath, DosPath),
        # of their own class GUID 9b79ee91-..., which manifest/WindowsKernel.man describes as the provider
        # KernelTraceControl-SysConfig.
        if e["provider"] == SYSCONFIG and e.get("status", "decoded") == "decoded":
            f = e["fields"]
            if e["name"] == "SysConfig/VolumeMapping":
                ctx["volumes"].append((f["NtPath"], f["DosPath"]))
            elif e["name"] == "SysConfig/SystemPaths":
                ctx["volumes"].append(("\\Windows\\", f["SystemWindowsDirectory"]))
        if e["provider"] == KERNEL and e["name"] == "EventTrace":
            ctx["perf_freq"] = e["fields"].get("PerfFreq")

    def fail(line, what, field, b, c, pair=None, payload_field=False):
        for key in ((what, field),) + (((what, "*"),) if payload_field else ()):
            if key in EXCUSED and excuse_holds(key, pair, ctx):
                excused_used[key] += 1
                figures["excused"] += 1
                return
        failures.append("%s: line %s: %s: %s: baseline '%s' vs clretw '%s'" % (label, line, what, field, b, c))

    def expected_pname(pid, e):
        """TraceEvent's PName from clretw's process name: '' for pid -1; 'Process(<pid>)' when TraceLog has no
        name; else the image name without extension. TraceLog knows a process's name for the whole trace, clretw
        from its Process event on: an event before it takes the name of the pid's next named event."""
        if pid == -1:
            return ""
        name = e.get("process") if as_id(e["pid"]) == pid else None
        if not name:
            later = [n for t, n in later_names.get(pid, []) if t >= e["timestamp"]]
            if later:
                name = later[0]
                figures["PName from a later event"] += 1
        if name and pid not in tracelog_named:
            figures["PName Process(N) (named only by Defunct)"] += 1
            return "Process(%d)" % pid
        return stem(name) if name else "Process(%d)" % pid

    not_compared = Counter()
    not_compared_counts = Counter()
    seen = Counter()
    payload_lines = []
    for b in base_events:
        if (b["provider"], b["name"]) in KERNEL_PAYLOAD:
            payload_lines.append(b)
            continue
        if not compared(b["provider"], b["name"]):
            not_compared[group_of(b["provider"], b["name"])] += 1
            continue
        name = RENAMES.get((b["provider"], b["name"]), (b["name"],))[0]
        what = "%s/%s" % (b["provider"], b["name"])
        k = seen[(b["provider"], name)]
        seen[(b["provider"], name)] += 1
        ours = by_type.get((b["provider"], name), [])
        if k >= len(ours):
            fail(b["line"], what, "(event)", "present", "absent (%d of this type)" % len(ours))
            continue
        e = ours[k]
        figures["events"] += 1
        if b["provider"] == KERNEL:
            figures["kernel events"] += 1
        if abs(b["ms"] - e["ms"]) > 0.001:
            fail(b["line"], what, "ms", "%.3f" % b["ms"], "%.4f" % e["ms"])
        pid = as_id(e["pid"])
        if pid == -1 and b["provider"] == KERNEL and as_id(e["tid"]) != -1:
            # TraceLog resolves a thread's process over the whole trace (a rundown Thread/DCStart also covers
            # the time before it); clretw from the thread's first Thread event on, -1 before. Rule: the process
            # of the thread's next Thread event in clretw's output.
            later = [q for t, q in thread_events.get(e["tid"], []) if t >= e["timestamp"]]
            if later:
                pid = later[0]
                figures["PID from the thread's later Thread event"] += 1
        checks = [("PID", b["pid"], pid), ("ProceNum", b["cpu"], e.get("cpu", -1)),
                  ("PName", b["pname"], expected_pname(b["pid"], e))]
        if b["provider"] == KERNEL and TID_RULES.get(name) == "-1":
            checks.append(("TID", b["tid"], -1))
            figures["TID by rule (-1)"] += 1
        else:
            checks.append(("TID", b["tid"], as_id(e["tid"])))
        for field, bv, cv in checks:
            figures["fields"] += 1
            if bv != cv:
                fail(b["line"], what, field, bv, cv, (b, e))
        size = e.get("payload_bytes", e.get("size"))
        if size is None and "payload" in e:
            size = len(e["payload"]) // 2
        if size is None and b["provider"] == KERNEL:
            size = derived_datalen(e, ctx["pointer_size"])
            if size is not None:
                figures["DataLen derived"] += 1
        if size is None:
            figures["DataLen not compared"] += 1
        else:
            figures["fields"] += 1
            if size != b["datalen"]:
                fail(b["line"], what, "DataLen", b["datalen"], size, (b, e))
        for field, bv in b["fields"]:
            cv = clretw_field(e, name, field, type_names, ctx)
            figures["fields"] += 1
            if not same_value(name, field, bv, cv):
                fail(b["line"], what, field, bv, "<absent>" if cv is ABSENT else cv, (b, e), payload_field=True)
        if (b["provider"], b["name"]) == (KERNEL, "EventTrace"):
            # The header as clretw decodes it agrees with clretw-dump --stats' first line.
            for field, got in (("PointerSize", stats_pointer), ("NumberOfProcessors", stats_cpus)):
                figures["fields"] += 1
                if e["fields"].get(field) != got:
                    fail(b["line"], what, field + " (--stats)", got, e["fields"].get(field))

    # The other kernel events: payload fields by name (see KERNEL_PAYLOAD).
    seen_payload = Counter()
    for b in payload_lines:
        what = "%s/%s" % (b["provider"], b["name"])
        key = KERNEL_PAYLOAD[(b["provider"], b["name"])]
        k = seen_payload[key]
        seen_payload[key] += 1
        ours = by_type.get(key, [])
        if k >= len(ours):
            fail(b["line"], what, "(event)", "present", "absent (%d of this type)" % len(ours))
            continue
        e = ours[k]
        figures["kernel payload events"] += 1
        if e.get("status", "decoded") != "decoded" or e.get("note"):
            fail(b["line"], what, "(decode)", "decoded, no note", "%s %s" % (e.get("status"), e.get("note")))
        if b["name"].split("/")[0] in ("TcpIp", "UdpIp"):
            # The kernel writes network events with no process in the header: clretw's record, like TraceEvent,
            # takes it from the payload's PID, and the process name with it.
            for field, bv, cv in (("PID", b["pid"], as_id(e["pid"])), ("PName", b["pname"], expected_pname(b["pid"], e))):
                figures["kernel payload fields"] += 1
                if bv != cv:
                    fail(b["line"], what, field, bv, cv, (b, e))
        for field, bv in b["fields"]:
            cname = KERNEL_FIELD_RENAMES_BY_EVENT.get((b["name"], field), KERNEL_FIELD_RENAMES.get(field, field))
            cv = kernel_payload_field(e, field, ctx)
            if cv is NOT_COMPUTED:
                if cname not in e["fields"] or (b["name"], field) in KERNEL_PAYLOAD_NOT_COMPARED:
                    figures["kernel payload fields not compared"] += 1
                    continue
                cv = e["fields"][cname]
            if field == "IrpFlags" and bv != "None" and as_int(bv) is None:
                figures["kernel payload fields not compared"] += 1   # TraceEvent's names of the IRP flags
                continue
            figures["kernel payload fields"] += 1
            if not same_value(b["name"], field, bv, cv):
                fail(b["line"], what, field, bv, cv, (b, e), payload_field=True)

    ours_count = Counter((e["provider"], e["name"]) for e in events if not tracelog_drops(e))
    base_types = set()
    for line, provider, name, n in base_counts:
        if (provider, name) in KERNEL_PAYLOAD:
            key = KERNEL_PAYLOAD[(provider, name)]
            figures["kernel payload counts"] += 1
            if ours_count[key] != n:
                fail(line, "%s/%s" % (provider, name), "(count)", n, ours_count[key])
            continue
        if not compared(provider, name):
            not_compared_counts[group_of(provider, name)] += 1
            continue
        cname = RENAMES.get((provider, name), (name,))[0]
        base_types.add((provider, cname))
        if ours_count[(provider, cname)] != n:
            fail(line, "%s/%s" % (provider, name), "(count)", n, ours_count[(provider, cname)])
        else:
            figures["counts"] += 1
            if provider == KERNEL:
                figures["kernel counts"] += 1
    for (provider, name), n in sorted(ours_count.items()):
        described = provider in CLR_PROVIDERS or provider in METADATA_DESCRIBED or (provider == KERNEL and any(
            RENAMES.get((KERNEL, te), (te,))[0] == name for te in KERNEL_DESCRIBED))
        if described and (provider, name) not in base_types:
            if (provider, name) in NOT_IN_BASELINE:
                figures["types not in baseline (listed)"] += 1
            else:
                fail("-", "%s/%s" % (provider, name), "(count)", "no COUNT line", n)

    # --stats reconciles, and no CLR event is unknown.
    total = None
    for s in stats:
        m = re.match(r"events: (\d+) in file, (\d+) counted = (\d+) decoded \+ (\d+) unknown \+ (\d+) malformed", s)
        if m:
            total = [int(x) for x in m.groups()]
        m = re.match(r"\s*(\d+)\s+(\S.*?)/.* \(.*unknown\)$", s)
        if m and any(s.split(None, 1)[1].startswith(p + "/") for p in CLR_PROVIDERS):
            fail("-", s.split(None, 1)[1], "(stats)", "decoded", "unknown")
    if total is None:
        fail("-", "--stats", "(stats)", "events: line", "absent")
    else:
        infile, counted, decoded, unknown, malformed = total
        if not (infile == counted == decoded + unknown + malformed == len(events) and malformed == 0):
            fail("-", "--stats", "(stats)", "N in file = N counted = D + U + 0 = JSON lines",
                 "%s (JSON lines %d)" % (total, len(events)))
        figures["stats reconciled"] = 1

    print("%s: %d baseline EVENT lines matched (%d of them kernel); %d fields compared (PID, TID, PName, ProceNum, "
          "DataLen, payload fields); DataLen derived from the manifest's layout on %d, not compared on %d; "
          "%d COUNT lines matched (%d kernel); %d types absent from the baseline as listed; %d idle samples "
          "TraceLog drops; %d differences excused" % (
              label, figures["events"], figures["kernel events"], figures["fields"], figures["DataLen derived"],
              figures["DataLen not compared"], figures["counts"], figures["kernel counts"],
              figures["types not in baseline (listed)"], figures["dropped"], figures["excused"]))
    print("  other kernel events (KERNEL_PAYLOAD): %d EVENT lines, %d payload fields compared, %d not compared "
          "(computed by TraceEvent from other events), %d COUNT lines" % (
              figures["kernel payload events"], figures["kernel payload fields"],
              figures["kernel payload fields not compared"], figures["kernel payload counts"]))
    print("  rules applied: TID -1 %d, PID from the thread's later Thread event %d, PName from a later event %d, "
          "PName Process(N) for Defunct-only %d" % (
        figures["TID by rule (-1)"], figures["PID from the thread's later Thread event"],
        figures["PName from a later event"],
        figures["PName Process(N) (named only by Defunct)"]))
    for kind, table in (("EVENT", not_compared), ("COUNT", not_compared_counts)):
        kernel = {k: v for k, v in table.items() if k.split("/")[0] in KERNEL_PROVIDERS}
        other = {k: v for k, v in table.items() if k not in kernel}
        if kernel:
            print("  %s lines not compared (not in manifest/WindowsKernel.man): %s" % (kind, ", ".join(
                "%s %d" % (k, v) for k, v in sorted(kernel.items()))))
        if other:
            print("  %s lines not compared (no built-in manifest for the provider): %s" % (kind, ", ".join(
                "%s %d" % (k, v) for k, v in sorted(other.items()))))


def group_of(provider, name):
    """How lines that are not compared are reported: kernel ones by provider/group, others by provider."""
    if provider in KERNEL_PROVIDERS:
        return "%s/%s" % (provider, name.split("/")[0])
    return provider


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    dump, shared = sys.argv[1], sys.argv[2]
    etl_dir = os.path.join(shared, "etl")
    if not os.path.isdir(etl_dir):
        print("SKIPPED: ../shared/etl not present")
        return 0
    failures = []
    excused_used = Counter()
    for name in TRACES:
        check_trace(dump, os.path.join(etl_dir, name + ".etl"), os.path.join(etl_dir, name + ".baseline.txt"),
                    failures, excused_used)
    for key, n in sorted(excused_used.items()):
        print("excused %d: %s: %s -- %s" % (n, key[0], key[1], EXCUSED[key]))
    for key in sorted(set(EXCUSED) - set(excused_used)):
        print("excuse matched nothing: %s" % (key,))
    for f in failures:
        print(f)
    print("%d differences" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
