// The known traps of CLR event decoding, pinned with payloads written byte by
// byte (independently of the encoder): on the built-in decoders always, and on
// decoders generated from the real ClrEtwAll.runtime-main.man when ../shared
// is present.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "clretw/catalog.h"
#include "clretw/dotnet_runtime.h"
#include "clretw/dotnet_runtime_rundown.h"
#include "clretw/format.h"
#ifdef CLRETW_HAVE_RUNTIME_MAIN
#include "clretw/runtime_main/events.h"
#endif

using namespace clretw;

namespace {

struct Bytes8 {
  std::vector<std::uint8_t> b;
  ByteWriter w{b};
  Bytes8& u8(std::uint8_t v) { return w.put(v), *this; }
  Bytes8& u16(std::uint16_t v) { return w.put(v), *this; }
  Bytes8& u32(std::uint32_t v) { return w.put(v), *this; }
  Bytes8& u64(std::uint64_t v) { return w.put(v), *this; }
  Bytes8& ptr(std::uint64_t v, unsigned ps) { return w.put_uint(v, ps), *this; }
  Bytes8& str(std::string_view s) {
    put_utf16(w, s);
    return u16(0);
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// Built-in decoders (generated/ from manifest/ClrEtwBuiltin.man)

TEST_CASE("AssemblyLoad v1 inserts BindingID in the middle: v0 and v1 decode each field right") {
  namespace rt = dotnet_runtime;
  Bytes8 v0;
  v0.u64(0x1111).u64(0x2222).u32(0x2).str("System.Private.CoreLib");
  auto a = rt::AssemblyLoadView::verify(v0.b, 0, 8);
  REQUIRE(a);
  CHECK(a->AssemblyID() == 0x1111);
  CHECK(a->AppDomainID() == 0x2222);
  CHECK_FALSE(a->BindingID().has_value());
  CHECK(a->AssemblyFlags() == rt::AssemblyFlagsMap::Dynamic);
  CHECK(a->FullyQualifiedAssemblyName() == "System.Private.CoreLib");
  CHECK_FALSE(a->ClrInstanceID().has_value());
  CHECK(a->trailing_bytes() == 0);

  Bytes8 v1;
  v1.u64(0x1111).u64(0x2222).u64(0x3333).u32(0x2).str("System.Private.CoreLib").u16(7);
  auto b = rt::AssemblyLoadView::verify(v1.b, 1, 8);
  REQUIRE(b);
  CHECK(b->AssemblyID() == 0x1111);
  CHECK(b->BindingID() == 0x3333u);
  CHECK(b->AssemblyFlags() == rt::AssemblyFlagsMap::Dynamic);
  CHECK(b->FullyQualifiedAssemblyName() == "System.Private.CoreLib");
  CHECK(b->ClrInstanceID() == 7);

  // The v1 bytes read as v0 would put BindingID into AssemblyFlags: the version decides.
  auto wrong = rt::AssemblyLoadView::verify(v1.b, 0, 8);
  REQUIRE(wrong);
  CHECK(static_cast<std::uint32_t>(wrong->AssemblyFlags()) == 0x3333);
}

TEST_CASE("StackWalk carries FrameCount frames, not the manifest's count=2") {
  namespace rt = dotnet_runtime;
  for (unsigned ps : {4u, 8u}) {
    CAPTURE(ps);
    Bytes8 p;
    p.u16(3).u8(0).u8(0).u32(5);
    for (std::uint64_t ip = 0; ip < 5; ++ip) p.ptr(0x7FF00000 + ip * 0x10, ps);
    auto v = rt::CLRStackWalkView::verify(p.b, 0, ps);
    REQUIRE(v);
    CHECK(v->FrameCount() == 5);
    REQUIRE(v->Stack().size() == 5);
    CHECK(v->Stack()[0] == 0x7FF00000);
    CHECK(v->Stack()[4] == 0x7FF00040);
    CHECK(v->trailing_bytes() == 0);

    p.b[4] = 6;  // FrameCount says one frame more than the payload holds
    auto bad = rt::CLRStackWalkView::verify(p.b, 0, ps);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == Errc::count_too_large);
    CHECK(bad.error().field == "Stack");
  }
  // The rundown provider's StackWalk (event 0) is fixed too.
  Bytes8 r;
  r.u16(1).u8(0).u8(0).u32(3).u64(1).u64(2).u64(3);
  auto rv = dotnet_runtime_rundown::CLRStackWalkDCStartView::verify(r.b, 0, 8);
  REQUIRE(rv);
  CHECK(rv->Stack().size() == 3);
}

TEST_CASE("BulkType: variable-size elements with type parameters") {
  namespace rt = dotnet_runtime;
  Bytes8 p;
  p.u32(2).u16(3);
  p.u64(0xA0).u64(0xB0).u32(11).u32(0x4).u8(0x11).str("List`1").u32(1).u64(0xC0);
  p.u64(0xA1).u64(0xB1).u32(12).u32(0).u8(0x8).str("\xC3\x9C" "ber").u32(0);
  auto v = rt::BulkTypeView::verify(p.b, 0, 8);
  REQUIRE(v);
  CHECK(v->Count() == 2);
  REQUIRE(v->Values().size() == 2);
  std::vector<std::string> names;
  std::vector<std::size_t> params;
  for (auto e : v->Values()) {
    names.push_back(e.Name().to_utf8());
    params.push_back(e.TypeParameters().size());
  }
  CHECK(names == std::vector<std::string>{"List`1", "\xC3\x9C" "ber"});
  CHECK(params == std::vector<std::size_t>{1, 0});
  CHECK(v->Values()[0].TypeParameters()[0] == 0xC0);
  CHECK(v->Values()[1].TypeID() == 0xA1);
  CHECK(v->Values()[1].CorElementType() == 0x8);

  auto owned = rt::payload::BulkType::decode(p.b, 8);
  REQUIRE(owned);
  REQUIRE(owned->Values.size() == 2);
  CHECK(owned->Values[0].TypeParameters == std::vector<std::uint64_t>{0xC0});
  CHECK(owned->Values[1].Name == "\xC3\x9C" "ber");
  auto again = owned->encode(8);
  REQUIRE(again);
  CHECK(*again == p.b);
}

TEST_CASE("a pointer followed by more fields, at pointer size 4 and 8") {
  namespace rt = dotnet_runtime;
  for (unsigned ps : {4u, 8u}) {
    CAPTURE(ps);
    Bytes8 p;  // GCAllocationTick v3 (built-in layout)
    p.u32(104096).u32(0).u16(3).u64(104096).ptr(0x7FFEA911EA28 & (ps == 4 ? 0xFFFFFFFF : ~0ull), ps);
    p.str("System.Object[]").u32(0).ptr(0x19A00017FE8 & (ps == 4 ? 0xFFFFFFFF : ~0ull), ps);
    auto v = rt::GCAllocationTickView::verify(p.b, 3, ps);
    REQUIRE(v);
    CHECK(v->AllocationAmount64() == 104096u);
    CHECK(v->TypeID() == (0x7FFEA911EA28 & (ps == 4 ? 0xFFFFFFFF : ~0ull)));
    REQUIRE(v->TypeName().has_value());
    CHECK(v->TypeName()->to_utf8() == "System.Object[]");
    CHECK(v->HeapIndex() == 0u);
    CHECK(v->Address() == (0x19A00017FE8 & (ps == 4 ? 0xFFFFFFFF : ~0ull)));
    CHECK(v->consumed() == p.b.size());
  }
}

TEST_CASE("an unknown higher version decodes with the newest layout and reports the extra bytes") {
  namespace rt = dotnet_runtime;
  Bytes8 p;
  p.u32(7).u32(2).u32(1).u32(0).u16(3).u64(99).u32(0xDEADBEEF);  // GCStart v2 + 4 unknown bytes
  auto v = rt::GCStartView::verify(p.b, 9, 8);
  REQUIRE(v);
  CHECK(v->version() == 9);
  CHECK(v->layout_version() == 2);
  CHECK(v->newer_than_manifest());
  CHECK(v->trailing_bytes() == 4);
  CHECK(v->Count() == 7);
  CHECK(v->Reason() == rt::GCReasonMap::Induced);
  CHECK(v->ClientSequenceNumber() == 99u);

  // A payload shorter than its version's fixed part is malformed.
  p.b.resize(20);
  auto short_v2 = rt::GCStartView::verify(p.b, 2, 8);
  REQUIRE_FALSE(short_v2);
  CHECK(short_v2.error().code == Errc::truncated);
  CHECK(short_v2.error().field == "ClientSequenceNumber");
}

TEST_CASE("a map field prints by name; a bitmap with unknown bits prints them in hex") {
  namespace rt = dotnet_runtime;
  Bytes8 gc;
  gc.u32(1).u32(0).u32(4).u32(1).u16(3).u64(0);
  const EventDesc* start = rt::provider.find(1, 2);
  REQUIRE(start);
  CHECK(start->name == "GC/Start");
  std::string text;
  REQUIRE(format_fields(*start->payload, gc.b, 8, text, Format::text));
  CHECK(text == "Count=1 Depth=0 Reason=AllocLarge Type=BackgroundGC ClrInstanceID=3 ClientSequenceNumber=0");
  CHECK(rt::to_string(rt::GCReasonMap::InducedNoForce) == "InducedNoForce");
  CHECK(rt::to_string(static_cast<rt::GCReasonMap>(42)).empty());

  CHECK(rt::to_string(rt::AppDomainFlagsMap::Default | rt::AppDomainFlagsMap::Executable) == "Default, Executable");
  CHECK(rt::to_string(static_cast<rt::AppDomainFlagsMap>(0x41)) == "Default, 0x40");
  Bytes8 ad;
  ad.u64(0x19A783A12A0).u32(0x80000003).str("clrhost").u32(1).u16(3);
  const EventDesc* load = rt::provider.find(156, 1);
  REQUIRE(load);
  std::string json;
  REQUIRE(format_fields(*load->payload, ad.b, 8, json, Format::json));
  CHECK(json == "{\"AppDomainID\":1762953663136,\"AppDomainFlags\":\"Default, Executable, 0x80000000\","
                "\"AppDomainName\":\"clrhost\",\"AppDomainIndex\":1,\"ClrInstanceID\":3}");
}

TEST_CASE("values the runtime names in its sources print by name with the built-in decoders") {
  namespace rt = dotnet_runtime;
  // MethodFlags bits 7-9: the JIT optimization tier, one entry per value, hiding the one-bit entries inside it.
  CHECK(rt::to_string(static_cast<rt::MethodFlagsMap>(0x8 | 0x80)) == "Jitted, MinOptJitted");
  CHECK(rt::to_string(static_cast<rt::MethodFlagsMap>(0x8 | 0x180)) == "Jitted, QuickJitted");
  CHECK(rt::to_string(static_cast<rt::MethodFlagsMap>(0x2 | 0x8 | 0x200)) == "Generic, Jitted, OptimizedTier1");
  CHECK(rt::to_string(static_cast<rt::MethodFlagsMap>(0x280)) == "OptimizedTier1OSR");
  CHECK(rt::to_string(static_cast<rt::MethodFlagsMap>(0x380)) == "InstrumentedTierOptimized");
  CHECK(rt::to_string(static_cast<rt::MethodFlagsMap>(0x8 | 0x400)) == "Jitted, 0x400");
  CHECK(rt::to_string(static_cast<rt::AssemblyFlagsMap>(0x10 | 0x8)) == "Collectible, ReadyToRun");
  CHECK(rt::to_string(static_cast<rt::GCHeapCompactMechanismMap>(0x80000002)) == "compact_high_frag");
  CHECK(rt::to_string(static_cast<rt::GCHeapExpandMechanismMap>(0)) == "not_specified");
  CHECK(rt::to_string(static_cast<rt::GCGlobalMechanismsMap>(0x16)) == "Compaction, Promotion, CardBundles");
  // The rundown provider's MethodFlagsMap has the same names.
  CHECK(dotnet_runtime_rundown::to_string(static_cast<dotnet_runtime_rundown::MethodFlagsMap>(0x188)) == "Jitted, QuickJitted");
}

TEST_CASE("descriptor tables: lookups by GUID and name, display names, keywords") {
  const Catalog& c = clretw::catalog();
  // runtime, rundown, stress, private, Mono profiler, sample profiler, Windows kernel, and the four KernelTraceControl
  // classes PerfView's merged ETL files carry (ImageID, SysConfig, MetaData, WinSat)
  REQUIRE(c.providers.size() == 11);
  const Guid runtime = *Guid::parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
  EventLookup l = c.find(runtime, 1, 2);
  REQUIRE(l);
  CHECK(l.provider->name == "Microsoft-Windows-DotNETRuntime");
  CHECK(l.event->symbol == "GCStart_V2");
  CHECK(l.event->level == 4);
  CHECK(l.event->keywords == 0x1);
  CHECK(c.find("microsoft-windows-dotnetruntimerundown", 144, 0).event->symbol == "MethodDCEndVerbose");
  CHECK_FALSE(c.find(runtime, 65000, 0));
  CHECK(c.find(runtime, 1, 200).event->version == 2);  // newer than known: newest layout
  CHECK(dotnet_runtime::GCStart::id == 1);
  CHECK(dotnet_runtime::GCStart::name == "GC/Start");
  static_assert(std::is_same_v<dotnet_runtime::GCStart::View, dotnet_runtime::GCStartView>);
  constexpr auto k = dotnet_runtime::Keywords::GCKeyword | dotnet_runtime::Keywords::StackKeyword;
  static_assert(static_cast<std::uint64_t>(k) == 0x40000001);
}

// ---------------------------------------------------------------------------
// Decoders generated from the real ClrEtwAll.runtime-main.man

#ifdef CLRETW_HAVE_RUNTIME_MAIN
TEST_CASE("real manifest: AssemblyLoad v0/v1, StackWalk, BulkType, pointers at size 4") {
  namespace rt = runtime_main::dotnet_runtime;
  Bytes8 v0;
  v0.u64(1).u64(2).u32(0x8).str("a");
  auto a0 = rt::AssemblyLoadView::verify(v0.b, 0, 8);
  REQUIRE(a0);
  CHECK_FALSE(a0->BindingID());
  CHECK(a0->AssemblyFlags() == static_cast<rt::AssemblyFlagsMap>(0x8));
  Bytes8 v1;
  v1.u64(1).u64(2).u64(3).u32(0x8).str("a").u16(9);
  auto a1 = rt::AssemblyLoadView::verify(v1.b, 1, 8);
  REQUIRE(a1);
  CHECK(a1->BindingID() == 3u);
  CHECK(a1->FullyQualifiedAssemblyName() == "a");
  CHECK(a1->ClrInstanceID() == 9);

  Bytes8 sw;
  sw.u16(3).u8(0).u8(0).u32(4).u32(10).u32(11).u32(12).u32(13);
  auto s = rt::CLRStackWalkView::verify(sw.b, 0, 4);
  REQUIRE(s);
  REQUIRE(s->Stack().size() == 4);
  CHECK(s->Stack()[3] == 13);

  Bytes8 bt;
  bt.u32(1).u16(3).u64(0xA).u64(0xB).u32(1).u32(0).u8(0x15).str("Dictionary`2").u32(2).u64(0xC).u64(0xD);
  auto b = rt::BulkTypeView::verify(bt.b, 0, 8);
  REQUIRE(b);
  REQUIRE(b->Values().size() == 1);
  CHECK(b->Values()[0].Name() == "Dictionary`2");
  CHECK(b->Values()[0].TypeParameters().size() == 2);
  CHECK(b->Values()[0].TypeParameters()[1] == 0xD);

  // GCAllocationTick v3 at pointer size 4: TypeID is 4 bytes, everything after it moves.
  Bytes8 at;
  at.u32(100).u32(1).u16(3).u64(100).u32(0xAABBCCDD).str("T").u32(2).u32(0x11223344);
  auto t = rt::GCAllocationTickView::verify(at.b, 3, 4);
  REQUIRE(t);
  CHECK(t->AllocationKind() == static_cast<rt::GCAllocationKindMap>(1));
  CHECK(t->TypeID() == 0xAABBCCDDu);
  CHECK(t->TypeName()->to_utf8() == "T");
  CHECK(t->HeapIndex() == 2u);
  CHECK(t->Address() == 0x11223344u);
  CHECK(t->consumed() == at.b.size());
}
#endif
