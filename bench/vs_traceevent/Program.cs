// vs_traceevent count|fields TRACE.nettrace
//   count:  TraceEvent delivers every event (AllEvents, no parser registered) and counts it.
//   fields: the CLR runtime, rundown and private parsers and the dynamic parser (EventSource
//           metadata) are registered, and every field of every event is read with PayloadValue and
//           folded into a checksum, as bench/vs_traceevent/read_all.cpp does with clretw.
// Prints "events N checksum X seconds S".
using System.Diagnostics;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

if (args.Length != 2 || (args[0] != "count" && args[0] != "fields")) {
  Console.Error.WriteLine("usage: vs_traceevent count|fields TRACE.nettrace");
  return 2;
}
var watch = Stopwatch.StartNew();
using var source = new EventPipeEventSource(args[1]);
long events = 0;
ulong sum = 0;
void Mix(ulong v) => sum = (sum ^ v) * 0x100000001b3UL;
void Fold(object? value) {
  switch (value) {
    case null: break;
    case string s: foreach (char c in s) Mix(c); break;
    case bool b: Mix(b ? 1UL : 0UL); break;
    case byte or sbyte or short or ushort or int or uint or long or char: Mix((ulong)Convert.ToInt64(value)); break;
    case ulong u: Mix(u); break;
    case float f: Mix((ulong)BitConverter.DoubleToInt64Bits(f)); break;
    case double d: Mix((ulong)BitConverter.DoubleToInt64Bits(d)); break;
    case Enum e: Mix(Convert.ToUInt64(e)); break;
    case Guid g: foreach (byte x in g.ToByteArray()) Mix(x); break;
    case DateTime t: Mix((ulong)t.Ticks); break;
    case byte[] bytes: foreach (byte x in bytes) Mix(x); break;
    case IDictionary<string, object> fields: foreach (var kv in fields) Fold(kv.Value); break;
    case System.Collections.IEnumerable list: foreach (var item in list) Fold(item); break;
    default: Mix((ulong)value.GetHashCode()); break;
  }
}
if (args[0] == "count") {
  source.AllEvents += e => ++events;
} else {
  void Read(TraceEvent e) {
    ++events;
    var names = e.PayloadNames;
    for (int i = 0; i < names.Length; i++) Fold(e.PayloadValue(i));
  }
  source.Clr.All += Read;
  new ClrRundownTraceEventParser(source).All += Read;
  new ClrPrivateTraceEventParser(source).All += Read;
  source.Dynamic.All += Read;
  source.UnhandledEvents += e => ++events;
}
source.Process();
Console.WriteLine($"events {events} checksum {sum:x16} seconds {watch.Elapsed.TotalSeconds:F3}");
return 0;
