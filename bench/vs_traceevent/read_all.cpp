// read_all TRACE: reads every field of every event of a .nettrace with clretw, the way an embedder
// would: the nettrace reader, a Dispatcher with a typed handler for every event of the built-in
// decoders (a verified zero-copy view, then every accessor through View::for_each_field, struct
// arrays element by element, strings unit by unit), and EventSource events through the trace's own
// field lists. Every value is folded into a checksum so that nothing is optimised away.
// Prints "events N checksum X seconds S" for bench/vs_traceevent/run.sh.
#include <bit>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "clretw/decode.h"
#include "clretw/dispatch.h"
#include "clretw/events.h"
#include "clretw/nettrace.h"
#include "clretw/self_describing.h"

namespace {

using namespace clretw;

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(&T::template for_each_field<int (*)(std::string_view, int)>)>> : std::true_type {};

template <class T, class = void>
struct is_range : std::false_type {};
template <class T>
struct is_range<T, std::void_t<decltype(std::declval<const T&>().begin()), typename T::value_type>> : std::true_type {};

struct Fold {
  std::uint64_t sum = 0;

  void mix(std::uint64_t v) noexcept { sum = (sum ^ v) * 0x100000001b3ull; }

  template <class T>
  void operator()(std::string_view, const T& value) {
    add(value);
  }

  template <class T>
  void add(const T& v) {
    if constexpr (is_optional<T>::value) {
      if (v) add(*v);
    } else if constexpr (std::is_enum_v<T>) {
      mix(static_cast<std::uint64_t>(v));
    } else if constexpr (std::is_integral_v<T>) {
      mix(static_cast<std::uint64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      mix(std::bit_cast<std::uint64_t>(static_cast<double>(v)));
    } else if constexpr (std::is_same_v<T, Guid>) {
      mix(v.data1), mix(v.data2), mix(v.data3);
      for (std::uint8_t b : v.data4) mix(b);
    } else if constexpr (std::is_same_v<T, Utf16View>) {
      for (std::size_t i = 0; i < v.size(); ++i) mix(v[i]);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      for (char c : v) mix(static_cast<unsigned char>(c));
    } else if constexpr (std::is_same_v<T, Bytes>) {
      for (std::uint8_t b : v) mix(b);
    } else if constexpr (std::is_same_v<T, SystemTime>) {
      for (std::uint16_t f : {v.year, v.month, v.day_of_week, v.day, v.hour, v.minute, v.second, v.milliseconds}) mix(f);
    } else if constexpr (has_fields<T>::value) {
      v.for_each_field(*this);
    } else if constexpr (is_range<T>::value) {
      for (const auto& element : v) add(element);
    } else {
      static_assert(sizeof(T) == 0, "a field type read_all does not fold");
    }
  }
};

// EventSource events: the fields the trace's metadata declares.
class FoldVisitor final : public FieldVisitor {
 public:
  explicit FoldVisitor(Fold& f) : f_(f) {}
  void scalar(const Scalar& s) override {
    for (std::uint32_t i = 0; i < s.size; ++i) f_.mix(s.data[i]);
  }

 private:
  Fold& f_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_all TRACE.nettrace\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  auto reader = nettrace::Reader::open_file(argv[1]);
  if (!reader) {
    std::fprintf(stderr, "read_all: %s\n", reader.error().message().c_str());
    return 2;
  }
  Fold fold;
  FoldVisitor visitor(fold);
  std::uint64_t events = 0, self_described = 0, unknown = 0, malformed = 0;
  Dispatcher d({&clretw::catalog()});
  for_each_event_version([&]<class E, class P>(unsigned version) {
    if (version != E::latest_version) return;  // one handler per event; its view reads every version
    d.on<E>([&](const typename E::View& view, const EventRecord&) { view.for_each_field(fold); });
  });
  d.on_other([&](const EventRecord& r, EventLookup) {
    if (r.self_description && r.self_description->has_fields()) {
      ++self_described;
      if (!r.self_description->visit(r.payload, visitor)) ++malformed;
    } else {
      ++unknown;
    }
  });
  d.on_malformed([&](const EventRecord&, const Error&) { ++malformed; });
  for (;;) {
    auto next = (*reader)->next();
    if (!next) {
      std::fprintf(stderr, "read_all: %s\n", next.error().message().c_str());
      return 1;
    }
    if (!*next) break;
    ++events;
    d.dispatch(**next);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("events %llu checksum %016llx seconds %.3f (typed %llu, self-described %llu, other %llu, malformed %llu)\n",
              static_cast<unsigned long long>(events), static_cast<unsigned long long>(fold.sum), seconds,
              static_cast<unsigned long long>(d.counts().handled), static_cast<unsigned long long>(self_described),
              static_cast<unsigned long long>(unknown), static_cast<unsigned long long>(malformed));
  return malformed ? 1 : 0;
}
