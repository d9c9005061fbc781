// Makes the runtime write as many kinds of events as it can in about a second:
// allocations of every size and generation, induced and compacting GCs, pinning,
// finalizers, tiered JIT with OSR, dynamic methods, generics, a collectible
// AssemblyLoadContext, exceptions with filters, lock contention, Monitor.Wait,
// the thread pool, timers and its own EventSource. `workload N` repeats N rounds.
using System.Diagnostics.Tracing;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Loader;

int rounds = args.Length > 0 && int.TryParse(args[0], out var r) ? r : 1;
long checksum = 0;
for (int round = 0; round < rounds; round++) checksum += Workload.Round(round);
Console.WriteLine($"workload: {rounds} round(s), checksum {checksum}");

[EventSource(Name = "Clretw-Workload")]
sealed class WorkloadSource : EventSource {
  public static readonly WorkloadSource Log = new();
  [Event(1, Level = EventLevel.Informational)]
  public void RoundStart(int Round, long UtcTicks, string Name) => WriteEvent(1, Round, UtcTicks, Name);
  [Event(2, Level = EventLevel.Informational)]
  public void RoundStop(int Round, long Checksum, double Seconds) => WriteEvent(2, Round, Checksum, Seconds);
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
    long sum = Allocate() + Jit() + Load() + Exceptions() + Contention() + ThreadPoolWork();
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
}
