// Makes the runtime write as many kinds of events as it can in about a second:
// allocations of every size and generation, induced and compacting GCs, pinning,
// finalizers, a GC heap dump, tiered JIT with OSR, dynamic methods, generics, a
// collectible AssemblyLoadContext, exceptions with filters, lock contention,
// Monitor.Wait, the thread pool with socket and file I/O, timers, and two
// EventSources of its own: one manifest-based with every parameter type
// EventSource supports, one self-describing (arrays, an [EventData] type, a
// TraceLogging-style Write<T>), with nested activities. `workload N` repeats N rounds.
// `workload cpu` instead spins for about 2 s on 2 named threads in a few nested methods (for sampled
// stacks: tests/dotnet/stacks_check.sh) while the main thread waits for them.
// `workload gcbench` instead runs an ordinary allocation-heavy program for about 1.5 s on 2 threads
// (GcBench below: binary trees, string and dictionary churn, large arrays, a few caught exceptions),
// for the GC, JIT and exception reports (tests/dotnet/report_check.sh).
// `workload crash` runs a round and then fails fast (exit status 134, SIGABRT); `workload exit N` runs a
// round and exits with status N; `workload wait` runs a
// round a second until it is killed (tests/dotnet/trace_cli.sh).
// `workload stress SECONDS` throws, allocates and compiles dynamic methods on 8 threads for that long
// (a profiler decoding every event it is given: tests/dotnet/inproc_check.sh).
using System.Diagnostics.Tracing;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Loader;

if (args.Length > 0 && args[0] == "cpu") {
  Console.WriteLine($"workload: cpu, checksum {Cpu.Run(TimeSpan.FromSeconds(2), 2)}");
  return;
}
if (args.Length > 0 && args[0] == "crash") {
  // For clretw-trace's exit status: some events, then a crash the OS reports as SIGABRT (134).
  Workload.Round(0);
  Console.Error.WriteLine("workload: crashing on purpose");
  Environment.FailFast("workload: crashing on purpose");
}
if (args.Length > 1 && args[0] == "exit") {
  // For clretw-trace's exit status: some events, then a clean exit with this status.
  Workload.Round(0);
  Console.WriteLine($"workload: exiting with {args[1]}");
  Environment.Exit(int.Parse(args[1]));
}
if (args.Length > 0 && args[0] == "wait") {
  // Runs until killed (for -n, --dport and stopping events): one round of events a second.
  for (int round = 0; ; round++) { Workload.Round(round); Thread.Sleep(1000); }
}
if (args.Length > 1 && args[0] == "stress") {
  Console.WriteLine($"workload: stress, checksum {Stress.Run(TimeSpan.FromSeconds(double.Parse(args[1])), 8)}");
  return;
}
if (args.Length > 0 && args[0] == "gcbench") {
  long sum = GcBench.Run(TimeSpan.FromSeconds(1.5));
  Console.WriteLine($"workload: gcbench, checksum {sum}, server GC {GCSettings.IsServerGC}, latency {GCSettings.LatencyMode}, {GC.CollectionCount(0)} GCs");
  return;
}
int rounds = args.Length > 0 && int.TryParse(args[0], out var r) ? r : 1;
long checksum = 0;
for (int round = 0; round < rounds; round++) checksum += Workload.Round(round);
Console.WriteLine($"workload: {rounds} round(s), checksum {checksum}");

enum Color { Red = 1, Green = 2, Blue = 3 }

[Flags]
enum Options : uint { None = 0, Fast = 1, Safe = 2, Big = 0x80000000 }

[EventSource(Name = "Clretw-Workload")]
sealed class WorkloadSource : EventSource {
  public static readonly WorkloadSource Log = new();
  [Event(1, Level = EventLevel.Informational)]
  public void RoundStart(int Round, long UtcTicks, string Name) => WriteEvent(1, Round, UtcTicks, Name);
  [Event(2, Level = EventLevel.Informational)]
  public void RoundStop(int Round, long Checksum, double Seconds) => WriteEvent(2, Round, Checksum, Seconds);
  // Every primitive EventSource writes, at its extremes.
  [Event(3, Level = EventLevel.Verbose)]
  public void Primitives(bool Flag, byte U8, sbyte I8, short I16, ushort U16, int I32, uint U32, long I64, ulong U64,
                         float F32, double F64, char Letter, IntPtr Pointer) =>
      WriteEvent(3, Flag, U8, I8, I16, U16, I32, U32, I64, U64, F32, F64, Letter, Pointer);
  // Strings (empty and not ASCII), a Guid, a DateTime and enums.
  [Event(4, Level = EventLevel.Verbose)]
  public void Values(string Text, string Empty, Guid Id, DateTime When, Color Color, Options Options) =>
      WriteEvent(4, Text, Empty, Id, When, Color, Options);
  // Bytes: EventPipe writes no field list for a manifest-based event with a byte[] parameter, so no
  // decoder can name its fields; clretw-dump counts the payload as undescribed.
  [Event(9, Level = EventLevel.Verbose)]
  public void Blob(byte[] Data, int Length) => WriteEvent(9, Data, Length);
  // Nested activities: a Start/Stop pair inside another.
  [Event(5, Level = EventLevel.Informational)]
  public void OuterStart(int Depth) => WriteEvent(5, Depth);
  [Event(6, Level = EventLevel.Informational)]
  public void OuterStop(int Depth) => WriteEvent(6, Depth);
  [Event(7, Level = EventLevel.Informational)]
  public void InnerStart(int Depth, string Name) => WriteEvent(7, Depth, Name);
  [Event(8, Level = EventLevel.Informational)]
  public void InnerStop(int Depth) => WriteEvent(8, Depth);
}

[EventData]
public sealed class Point {
  public int X { get; set; }
  public double Y { get; set; }
  public string Label { get; set; } = "";
}

// Self-describing: EventPipe writes the metadata of every field, arrays and nested types included.
[EventSource(Name = "Clretw-Workload-SelfDescribing")]
sealed class SelfDescribingSource : EventSource {
  public static readonly SelfDescribingSource Log = new();
  SelfDescribingSource() : base(EventSourceSettings.EtwSelfDescribingEventFormat) {}
  [Event(1, Level = EventLevel.Informational)]
  public void Arrays(int[] Numbers, double[] Ratios, string Tag) => WriteEvent(1, Numbers, Ratios, Tag);
  [Event(2, Level = EventLevel.Informational)]
  public void Located(Point Where, long Ticks) => WriteEvent(2, Where, Ticks);
  // TraceLogging style: no method, the event's shape is the anonymous type's, nested types included.
  // (An array member would make EventPipe write no field list at all: arrays are in Arrays above.)
  public void Measured(int round) =>
      Write("Measured", new EventSourceOptions { Level = EventLevel.Informational },
            new { Round = round, Name = "measure " + round, Ratio = 1e300, At = new Point { X = round, Y = 0.5, Label = "at" } });
}

// Enabling the runtime provider's GCHeapCollect keyword (0x800000) from a running process makes the
// runtime walk the heap in an induced GC: the trace's session, which has GCHeapDump on, gets BulkNode,
// BulkEdge, BulkRootEdge and the rest.
sealed class HeapDumpTrigger : EventListener {
  protected override void OnEventSourceCreated(EventSource source) {
    if (source.Name == "Microsoft-Windows-DotNETRuntime") EnableEvents(source, EventLevel.Informational, (EventKeywords)0x800000);
  }
}

sealed class Finalized {
  public static int Count;
  ~Finalized() => Interlocked.Increment(ref Count);
}

static class Workload {
  static readonly object Gate = new();

  public static long Round(int round) {
    var watch = System.Diagnostics.Stopwatch.StartNew();
    WorkloadSource.Log.RoundStart(round, DateTime.UtcNow.Ticks, "round " + round);
    long sum = Allocate() + Jit() + Load() + Exceptions() + Contention() + ThreadPoolWork() + Io() + Sources(round);
    if (round == 0) HeapDump();
    WorkloadSource.Log.RoundStop(round, sum, watch.Elapsed.TotalSeconds);
    return sum;
  }

  static long Allocate() {
    long sum = 0;
    var keep = new List<object>();
    for (int i = 0; i < 300_000; i++) {
      object o = (i % 3) switch { 0 => new byte[16 + i % 512], 1 => new string('x', 8 + i % 64), _ => new List<int>(i % 16) };
      if (i % 50 == 0) keep.Add(o);
      if (keep.Count > 2_000) keep.Clear();
      sum += i;
    }
    var large = new byte[200_000];                            // large object heap
    var pinned = GC.AllocateArray<long>(1_000, pinned: true);  // pinned object heap
    var handle = GCHandle.Alloc(new byte[64], GCHandleType.Pinned);
    for (int i = 0; i < 200; i++) _ = new Finalized();
    GC.Collect(0);
    GC.Collect(1, GCCollectionMode.Forced, blocking: true);
    GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
    GC.Collect(2, GCCollectionMode.Optimized, blocking: false);  // background GC where the runtime chooses it
    GC.WaitForPendingFinalizers();
    handle.Free();
    return sum + large.Length + pinned.Length + keep.Count;
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long Hot(int n) {  // one call with a long loop: on-stack replacement
    long s = 0;
    for (int i = 0; i < n; i++) s += i % 7;
    return s;
  }

  static T Twice<T>(T value, Func<T, T, T> add) => add(value, value);

  static long Jit() {
    long sum = Hot(20_000_000);
    for (int i = 0; i < 40; i++) sum += Hot(1_000);  // tier-0, then tier-1 after enough calls
    var method = new DynamicMethod("Square", typeof(int), new[] { typeof(int) });
    var il = method.GetILGenerator();
    il.Emit(OpCodes.Ldarg_0);
    il.Emit(OpCodes.Ldarg_0);
    il.Emit(OpCodes.Mul);
    il.Emit(OpCodes.Ret);
    var square = (Func<int, int>)method.CreateDelegate(typeof(Func<int, int>));
    sum += square(12) + Twice(3, (a, b) => a + b) + (long)Twice(1.5, (a, b) => a + b) + Twice("ab", string.Concat).Length;
    return sum;
  }

  static long Load() {
    var context = new AssemblyLoadContext("collectible", isCollectible: true);
    var assembly = context.LoadFromAssemblyPath(Assembly.GetExecutingAssembly().Location);
    long types = assembly.GetTypes().Length;
    var weak = new WeakReference(context);
    context.Unload();
    for (int i = 0; i < 10 && weak.IsAlive; i++) {
      GC.Collect();
      GC.WaitForPendingFinalizers();
    }
    return types;
  }

  static long Exceptions() {
    long caught = 0;
    for (int i = 0; i < 20; i++) {
      try {
        try {
          throw new InvalidOperationException("workload " + i);
        } finally {
          caught++;
        }
      } catch (InvalidOperationException e) when (e.Message.Length > 0) {
        caught++;
      }
    }
    return caught;
  }

  static long Contention() {
    long counter = 0;
    var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() => {
      for (int k = 0; k < 20_000; k++)
        lock (Gate) counter++;
    })).ToList();
    threads.ForEach(t => t.Start());
    threads.ForEach(t => t.Join());
    // Those threads may never overlap on a busy machine; this one asks for the lock while it is held
    // for 50 ms, long past the spinning, so the runtime always reports contention.
    var waiter = new Thread(() => { lock (Gate) counter++; });
    lock (Gate) {
      waiter.Start();
      Thread.Sleep(50);
    }
    waiter.Join();
    lock (Gate) Monitor.Wait(Gate, 5);  // a wait the runtime reports
    using var signal = new ManualResetEvent(false);
    var setter = new Thread(() => { Thread.Sleep(5); signal.Set(); });
    setter.Start();
    signal.WaitOne();
    setter.Join();
    return counter;
  }

  static long ThreadPoolWork() {
    var tasks = Enumerable.Range(0, 64).Select(i => Task.Run(async () => {
      await Task.Delay(1);
      return (long)i;
    })).ToArray();
    Task.WaitAll(tasks);
    return tasks.Sum(t => t.Result);
  }

  static long Io() {  // socket and file I/O completing on the thread pool
    using var listener = new TcpListener(IPAddress.Loopback, 0);
    listener.Start();
    var server = Task.Run(async () => {
      using var peer = await listener.AcceptTcpClientAsync();
      var stream = peer.GetStream();
      var buffer = new byte[4096];
      int n;
      while ((n = await stream.ReadAsync(buffer)) > 0) await stream.WriteAsync(buffer.AsMemory(0, n));
    });
    long echoed = 0;
    using (var client = new TcpClient()) {
      client.Connect((IPEndPoint)listener.LocalEndpoint);
      var stream = client.GetStream();
      var message = new byte[1000];
      var reply = new byte[1000];
      for (int i = 0; i < 20; i++) {
        stream.WriteAsync(message).AsTask().Wait();
        int got = 0;
        while (got < reply.Length) got += stream.ReadAsync(reply.AsMemory(got)).AsTask().Result;
        echoed += got;
      }
    }
    server.Wait();
    var path = Path.Combine(Path.GetTempPath(), $"clretw-workload-{Environment.ProcessId}.bin");
    using (var file = new FileStream(path, FileMode.Create, FileAccess.ReadWrite, FileShare.None, 4096, FileOptions.Asynchronous)) {
      file.WriteAsync(new byte[64 * 1024]).AsTask().Wait();
      file.Position = 0;
      echoed += file.ReadAsync(new byte[64 * 1024]).AsTask().Result;
    }
    File.Delete(path);
    return echoed;
  }

  static long Sources(int round) {
    var log = WorkloadSource.Log;
    log.Primitives(true, byte.MaxValue, sbyte.MinValue, short.MinValue, ushort.MaxValue, int.MinValue, uint.MaxValue,
                   long.MinValue, ulong.MaxValue, 3.25f, -1.0 / 3, 'Ж', new IntPtr(0x7fff12345678L));
    log.Primitives(false, 0, 0, 0, 0, 0, 0, 0, 0, float.NaN, double.PositiveInfinity, '\0', IntPtr.Zero);
    log.Values("héllo, \"wörld\"\n\t€𝄞", "", new Guid("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"),
               new DateTime(2024, 2, 29, 12, 34, 56, 789, DateTimeKind.Utc), Color.Blue, Options.Fast | Options.Big);
    log.Values("", "x", Guid.Empty, new DateTime(1601, 1, 1, 0, 0, 0, DateTimeKind.Utc), (Color)7, Options.None);
    log.Blob(new byte[] { 0, 1, 0x7f, 0x80, 0xff }, 5);
    log.OuterStart(round);
    for (int i = 0; i < 2; i++) {
      log.InnerStart(round, "inner " + i);
      log.InnerStop(round);
    }
    log.OuterStop(round);
    var self = SelfDescribingSource.Log;
    self.Arrays(new[] { 1, -2, int.MaxValue }, new[] { 0.5, -0.0 }, "tag");
    self.Arrays(Array.Empty<int>(), Array.Empty<double>(), "");
    self.Located(new Point { X = -7, Y = 2.5, Label = "here" }, DateTime.UtcNow.Ticks);
    self.Measured(round);
    return round;
  }

  static void HeapDump() {
    using var trigger = new HeapDumpTrigger();
    Thread.Sleep(200);
  }
}

// Sampled stacks worth comparing: each thread runs Cpu.Outer -> Cpu.Middle -> Cpu.LeafA / Cpu.LeafB
// (never inlined), and Cpu.Sort, which spends its time in System.Private.CoreLib (Array.Sort).
static class Cpu {
  public static long Run(TimeSpan duration, int threads) {
    long total = 0;
    var workers = Enumerable.Range(0, threads).Select(i => new Thread(() => {
      long s = Outer(duration, i);
      Interlocked.Add(ref total, s);
    }) { Name = "cpu-" + i }).ToList();
    workers.ForEach(t => t.Start());
    workers.ForEach(t => t.Join());
    return total;
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long Outer(TimeSpan duration, int seed) {
    var watch = System.Diagnostics.Stopwatch.StartNew();
    long sum = 0;
    var data = new int[4096];
    while (watch.Elapsed < duration) {
      sum += Middle(seed++);
      sum += Sort(data, seed);
    }
    return sum;
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long Middle(int seed) => (seed & 1) == 0 ? LeafA(200_000) : LeafB(100_000);

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long LeafA(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += i % 7;
    return s;
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long LeafB(int n) {
    double s = 0;
    for (int i = 1; i < n; i++) s += Math.Sqrt(i);
    return (long)s;
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static long Sort(int[] data, int seed) {
    uint x = (uint)seed * 2654435761u;
    for (int i = 0; i < data.Length; i++) data[i] = (int)(x = x * 1664525u + 1013904223u);
    Array.Sort(data);
    return data[0];
  }
}

// A generic allocation-heavy program, not shaped to any analysis: one thread runs the Benchmarks Game's
// binary-trees (a long-lived tree, then many short-lived trees of every depth), the other churns strings
// through a dictionary and keeps a few large arrays alive in turn (the large object heap); both parse
// text now and then, some of it malformed (FormatException), and look up keys that may be gone
// (KeyNotFoundException), catching what is thrown. Each repeats its work until the time is up.
static class GcBench {
  public static long Run(TimeSpan duration) {
    var deadline = System.Diagnostics.Stopwatch.StartNew();
    long trees = 0, churn = 0;
    var workers = new[] {
      new Thread(() => trees = Trees(deadline, duration)) { Name = "gcbench-trees" },
      new Thread(() => churn = Churn(deadline, duration)) { Name = "gcbench-churn" },
    };
    foreach (var w in workers) w.Start();
    foreach (var w in workers) w.Join();
    return trees + churn;
  }

  sealed class Node {
    public Node? Left, Right;
    public int Check() => 1 + (Left == null ? 0 : Left.Check() + Right!.Check());
  }

  static Node Tree(int depth) =>
      depth == 0 ? new Node() : new Node { Left = Tree(depth - 1), Right = Tree(depth - 1) };

  static long Trees(System.Diagnostics.Stopwatch clock, TimeSpan duration) {
    const int minDepth = 4, maxDepth = 16;
    long sum = 0;
    var rest = new List<Node>();  // trees kept for a while: they reach the older generations
    do {
      sum += Tree(maxDepth + 1).Check();
      var longLived = Tree(maxDepth);
      for (int depth = minDepth; depth <= maxDepth && clock.Elapsed < duration; depth += 2) {
        int iterations = 1 << (maxDepth - depth + minDepth);
        for (int i = 0; i < iterations; i++) {
          var t = Tree(depth);
          sum += t.Check();
          if (i % 512 == 0) rest.Add(t);
        }
        sum += Parse(depth % 3 == 0 ? "depth " + depth : depth.ToString());
      }
      if (rest.Count > 64) rest.RemoveRange(0, 32);
      sum += longLived.Check();
    } while (clock.Elapsed < duration);
    return sum + rest.Count;
  }

  static long Churn(System.Diagnostics.Stopwatch clock, TimeSpan duration) {
    var words = new Dictionary<string, List<int>>();
    var large = new byte[4][];
    var random = new Random(12345);
    long sum = 0;
    for (int round = 0; clock.Elapsed < duration; round++) {
      for (int i = 0; i < 20_000; i++) {
        int k = random.Next(50_000);
        string key = "key-" + k.ToString("x") + "/" + (k % 17);
        if (!words.TryGetValue(key, out var list)) words[key] = list = new List<int>();
        list.Add(i);
        if (list.Count > 8) words.Remove(key);
      }
      sum += string.Join(",", words.Keys.Take(100)).Length;
      large[round % large.Length] = new byte[120_000 + 50_000 * (round % 20)];
      sum += large[round % large.Length].Length;
      if (round % 64 == 0) sum += Lookup(words, "key-" + round.ToString("x") + "/" + (round % 17));
      if (round % 64 == 32) sum += Parse("round " + round);
      if (words.Count > 40_000) words.Clear();
    }
    return sum + words.Count;
  }

  static long Parse(string text) {
    try {
      return int.Parse(text, System.Globalization.CultureInfo.InvariantCulture);
    } catch (FormatException) {
      return -1;
    }
  }

  static long Lookup(Dictionary<string, List<int>> words, string key) {
    try {
      return words[key].Count;
    } catch (KeyNotFoundException) {
      return 0;
    }
  }
}

// Many threads at once, each in a loop of what makes the runtime write events: exceptions thrown and
// caught, allocations that fill generation 0 quickly (and some that live longer), and a new dynamic
// method compiled now and then. The checksum depends only on the work done.
static class Stress {
  public static long Run(TimeSpan duration, int threads) {
    long total = 0;
    var clock = System.Diagnostics.Stopwatch.StartNew();
    var workers = Enumerable.Range(0, threads).Select(t => new Thread(() => {
      long sum = 0;
      var keep = new List<byte[]>();
      for (int i = 0; clock.Elapsed < duration; i++) {
        try {
          if (i % 3 == 0) throw new InvalidOperationException("stress " + i);
          sum += i & 7;
        } catch (InvalidOperationException e) {
          sum += e.Message.Length & 1;
        }
        var b = new byte[64 + i % 4096];
        if (i % 97 == 0) keep.Add(b);
        if (keep.Count > 512) keep.Clear();
        if (i % 500 == 0) {
          var m = new DynamicMethod("Add" + i, typeof(int), new[] { typeof(int) });
          var il = m.GetILGenerator();
          il.Emit(OpCodes.Ldarg_0);
          il.Emit(OpCodes.Ldc_I4, i);
          il.Emit(OpCodes.Add);
          il.Emit(OpCodes.Ret);
          sum += ((Func<int, int>)m.CreateDelegate(typeof(Func<int, int>)))(1) & 1;
        }
      }
      Interlocked.Add(ref total, sum > 0 ? 1 : 0);
    }) { Name = "stress-" + t }).ToList();
    workers.ForEach(w => w.Start());
    workers.ForEach(w => w.Join());
    return total;
  }
}
