// oracle TRACE.nettrace > events.jsonl
// Every event TraceEvent delivers, in order, as {"provider","id","version","name","ms","pid","tid","fields"}:
// the CLR runtime, rundown and private parsers and the dynamic parser (EventSource metadata) are
// registered, so TraceEvent parses what it can; events it cannot parse are written with "unparsed": true.
using System.Text;
using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

if (args.Length != 1) {
  Console.Error.WriteLine("usage: oracle TRACE.nettrace");
  return 2;
}
using var source = new EventPipeEventSource(args[0]);
var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16);
long count = 0;
void Write(TraceEvent e, bool parsed) {
  using var buffer = new MemoryStream();
  using (var json = new Utf8JsonWriter(buffer)) {
    json.WriteStartObject();
    json.WriteString("provider", e.ProviderName);
    json.WriteNumber("id", (int)e.ID);
    json.WriteNumber("version", e.Version);
    json.WriteString("name", e.EventName);
    json.WriteNumber("ms", e.TimeStampRelativeMSec);
    json.WriteNumber("pid", e.ProcessID);
    json.WriteNumber("tid", e.ThreadID);
    if (e.ActivityID != Guid.Empty) json.WriteString("activity", e.ActivityID.ToString());
    if (e.RelatedActivityID != Guid.Empty) json.WriteString("related_activity", e.RelatedActivityID.ToString());
    if (!parsed) json.WriteBoolean("unparsed", true);
    json.WriteStartObject("fields");
    var names = parsed ? e.PayloadNames : Array.Empty<string>();
    for (int i = 0; i < names.Length; i++) {
      object? value;
      try { value = e.PayloadValue(i); } catch (Exception ex) { value = "<" + ex.GetType().Name + ">"; }
      json.WritePropertyName(names[i]);
      WriteValue(json, value);
    }
    json.WriteEndObject();
    json.WriteEndObject();
  }
  output.Write(Encoding.UTF8.GetString(buffer.ToArray()));
  output.Write('\n');
  ++count;
}
// JSON has no literal for NaN and the infinities: both decoders write them as quoted names.
static void WriteDouble(Utf8JsonWriter json, double d) {
  if (double.IsFinite(d)) json.WriteNumberValue(d);
  else json.WriteStringValue(double.IsNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
}
static void WriteValue(Utf8JsonWriter json, object? value) {
  switch (value) {
    case null: json.WriteNullValue(); break;
    case string s: json.WriteStringValue(s); break;
    case bool b: json.WriteBooleanValue(b); break;
    case byte or sbyte or short or ushort or int or uint or long: json.WriteNumberValue(Convert.ToInt64(value)); break;
    case ulong u: json.WriteNumberValue(u); break;
    case float f: WriteDouble(json, f); break;
    case double d: WriteDouble(json, d); break;
    case Enum en: json.WriteStringValue(en.ToString()); break;
    case Guid g: json.WriteStringValue(g.ToString()); break;
    case DateTime t: json.WriteStringValue(t.ToUniversalTime().ToString("o")); break;
    case byte[] bytes: json.WriteStringValue(Convert.ToHexString(bytes)); break;
    case IDictionary<string, object> fields:  // a nested struct (TraceEvent's StructValue)
      json.WriteStartObject();
      foreach (var kv in fields) { json.WritePropertyName(kv.Key); WriteValue(json, kv.Value); }
      json.WriteEndObject();
      break;
    case System.Collections.IDictionary dict:
      json.WriteStartObject();
      foreach (System.Collections.DictionaryEntry kv in dict) { json.WritePropertyName(kv.Key.ToString()!); WriteValue(json, kv.Value); }
      json.WriteEndObject();
      break;
    case System.Collections.IEnumerable list:
      json.WriteStartArray();
      foreach (var item in list) WriteValue(json, item);
      json.WriteEndArray();
      break;
    default: json.WriteStringValue(value.ToString()); break;
  }
}
var clr = source.Clr;
var rundown = new ClrRundownTraceEventParser(source);
var privateParser = new ClrPrivateTraceEventParser(source);
var dynamicParser = source.Dynamic;
clr.All += e => Write(e, true);
rundown.All += e => Write(e, true);
privateParser.All += e => Write(e, true);
dynamicParser.All += e => Write(e, true);
source.UnhandledEvents += e => Write(e, false);
source.Process();
output.Flush();
Console.Error.WriteLine($"oracle: {count} events");
return 0;
