// analysis TRACE.nettrace > report.jsonl
// TraceEvent's own analysis of a trace, the reference for clretw-dump --report (tests/dotnet/compare_reports.py):
// TraceLoadedDotNetRuntime's GCs (runtime.GC.GCs) and JIT'd methods (runtime.JIT.Methods) of every process
// with a loaded runtime, and the exceptions thrown, counted per type from Exception/Start (ExceptionThrown_V1):
// TraceLoadedDotNetRuntime has no model of exceptions. One JSON line per row:
//   {"table":"gc","pid","gc","generation","type","reason","start_ms","pause_ms","suspend_ms",
//    "heap_before_mb","heap_after_mb","promoted_mb","complete"}
//   {"table":"jit","pid","tid","method","tier","il_size","native_size","start_ms","jit_ms"}
//   {"table":"exceptions","pid","type","count"}
// Enums by their TraceEvent names (GCType, GCReason, OptimizationTier); doubles in full precision.
using System.Text;
using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

if (args.Length != 1) {
  Console.Error.WriteLine("usage: analysis TRACE.nettrace");
  return 2;
}
using var source = new EventPipeEventSource(args[0]);
source.NeedLoadedDotNetRuntimes();
// pid -> exception type -> count, in the order first seen.
var exceptions = new Dictionary<int, Dictionary<string, long>>();
source.Clr.ExceptionStart += (ExceptionTraceData e) => {
  if (!exceptions.TryGetValue(e.ProcessID, out var byType)) exceptions[e.ProcessID] = byType = new();
  byType[e.ExceptionType] = byType.GetValueOrDefault(e.ExceptionType) + 1;
};
source.Process();

var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16);
int gcs = 0, methods = 0, types = 0;
void Line(Action<Utf8JsonWriter> write) {
  using var buffer = new MemoryStream();
  using (var json = new Utf8JsonWriter(buffer)) {
    json.WriteStartObject();
    write(json);
    json.WriteEndObject();
  }
  output.Write(Encoding.UTF8.GetString(buffer.ToArray()));
  output.Write('\n');
}
// JSON has no literal for NaN and the infinities: written as quoted names, as tests/dotnet/oracle does.
static void Number(Utf8JsonWriter json, string name, double d) {
  if (double.IsFinite(d)) json.WriteNumber(name, d);
  else json.WriteString(name, double.IsNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
}
var pids = new SortedSet<int>(exceptions.Keys);
foreach (var process in source.Processes()) {
  var runtime = process.LoadedDotNetRuntime();
  if (runtime == null) continue;
  int pid = process.ProcessID;
  pids.Add(pid);
  foreach (var gc in runtime.GC.GCs) {
    Line(json => {
      json.WriteString("table", "gc");
      json.WriteNumber("pid", pid);
      json.WriteNumber("gc", gc.Number);
      json.WriteNumber("generation", gc.Generation);
      json.WriteString("type", gc.Type.ToString());
      json.WriteString("reason", gc.Reason.ToString());
      Number(json, "start_ms", gc.StartRelativeMSec);
      Number(json, "pause_ms", gc.PauseDurationMSec);
      Number(json, "suspend_ms", gc.SuspendDurationMSec);
      Number(json, "heap_before_mb", gc.HeapSizeBeforeMB);
      Number(json, "heap_after_mb", gc.HeapSizeAfterMB);
      Number(json, "promoted_mb", gc.PromotedMB);
      json.WriteBoolean("complete", gc.IsComplete);
    });
    ++gcs;
  }
  foreach (var method in runtime.JIT.Methods) {
    Line(json => {
      json.WriteString("table", "jit");
      json.WriteNumber("pid", pid);
      json.WriteNumber("tid", method.ThreadID);
      json.WriteString("method", method.MethodName);
      json.WriteString("tier", method.OptimizationTier.ToString());
      json.WriteNumber("il_size", method.ILSize);
      json.WriteNumber("native_size", method.NativeSize);
      Number(json, "start_ms", method.StartTimeMSec);
      Number(json, "jit_ms", method.CompileCpuTimeMSec);
    });
    ++methods;
  }
}
foreach (int pid in pids) {
  if (!exceptions.TryGetValue(pid, out var byType)) continue;
  foreach (var (type, count) in byType) {
    Line(json => {
      json.WriteString("table", "exceptions");
      json.WriteNumber("pid", pid);
      json.WriteString("type", type);
      json.WriteNumber("count", count);
    });
    ++types;
  }
}
output.Flush();
Console.Error.WriteLine($"analysis: {gcs} GCs, {methods} JIT'd methods, {types} exception types");
return 0;
