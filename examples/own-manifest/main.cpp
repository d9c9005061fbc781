// A consumer with its own manifest (shop.man): clretw_generate() makes its decoders at
// build time. This program writes a .nettrace with the shop's events, using the generated
// payload structs, reads it back with the generated views, and checks that what it read is
// what it wrote. Usage: shop [FILE.nettrace]
#include <clretw/describe.h>  // EventDescriber, format_event
#include <clretw/dispatch.h>  // Dispatcher
#include <clretw/nettrace.h>  // nettrace::Reader, nettrace::Writer
#include <shop/events/events.h>  // generated from shop.man by clretw_generate()

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace es = shop::events::example_shop;

namespace {

constexpr unsigned kPointerSize = 8;

struct Order {
  std::uint64_t id;
  const char* customer;
  double amount;
  es::PaymentMap payment;
  std::vector<std::uint32_t> items;
};
const std::vector<Order> kOrders = {
    {1001, "Ada", 12.5, es::PaymentMap::Card, {7, 9}},
    {1002, "Grace", 99.0, es::PaymentMap::Invoice, {3}},
    {1003, "Edsger", 0.25, es::PaymentMap::Card, {}},
};

bool write(const std::string& path) {
  std::ofstream file(path, std::ios::binary);
  clretw::nettrace::Writer w(file);
  clretw::nettrace::Metadata placed, miss;
  placed.provider_name = miss.provider_name = std::string(es::provider_name);
  placed.event_id = es::OrderPlaced::id;
  miss.event_id = es::CacheMiss::id;
  const std::uint32_t placed_id = w.define(placed), miss_id = w.define(miss);
  std::int64_t ts = 1'000'000;
  auto emit = [&](std::uint32_t metadata_id, std::vector<std::uint8_t> payload) {
    clretw::nettrace::EventSpec e;
    e.metadata_id = metadata_id;
    e.timestamp = ts += 10'000;
    e.payload = std::move(payload);
    w.event(e);
  };
  for (const Order& o : kOrders) {
    es::payload::OrderPlaced p{.OrderId = o.id, .Customer = o.customer, .Amount = o.amount, .Payment = o.payment,
                                 .ItemCount = static_cast<std::uint16_t>(o.items.size()), .Items = o.items};
    auto bytes = p.encode(kPointerSize);
    if (!bytes) return std::fprintf(stderr, "encode: %s\n", bytes.error().message().c_str()), false;
    emit(placed_id, std::move(*bytes));
    es::payload::CacheMiss m{.Key = "customer/" + std::string(o.customer), .Micros = 40};
    emit(miss_id, *m.encode(kPointerSize));
  }
  w.finish();
  return static_cast<bool>(file);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "shop.nettrace";
  if (!write(path)) return 1;

  auto reader = clretw::nettrace::Reader::open_file(path);
  if (!reader) return std::fprintf(stderr, "%s\n", reader.error().message().c_str()), 1;
  clretw::Dispatcher dispatch({&shop::events::catalog()});
  std::size_t orders = 0, misses = 0, mismatches = 0;
  dispatch.on<es::OrderPlaced>([&](const es::OrderPlacedView& v, const clretw::EventRecord&) {
    const Order& want = kOrders.at(orders++);
    std::printf("order %llu by %s: %.2f (%s), %zu item(s)\n", static_cast<unsigned long long>(v.OrderId()),
                v.Customer().to_utf8().c_str(), v.Amount(), std::string(es::to_string(v.Payment())).c_str(),
                v.Items().size());
    std::vector<std::uint32_t> items(v.Items().begin(), v.Items().end());
    mismatches += v.OrderId() != want.id || v.Customer().to_utf8() != want.customer || v.Amount() != want.amount ||
                  v.Payment() != want.payment || items != want.items;
  });
  // Every other event (here: CacheMiss) through the manifest-driven describer, as JSON.
  clretw::EventDescriber describer({&shop::events::catalog()});
  dispatch.on_other([&](const clretw::EventRecord& r, clretw::EventLookup) {
    std::string line;
    clretw::format_event(r, describer, (*reader)->info().milliseconds(r.timestamp), clretw::LineFormat::json, line);
    std::printf("%s\n", line.c_str());
    misses += line.find("\"name\":\"Cache\"") != std::string::npos && line.find("\"Micros\":40") != std::string::npos;
  });
  dispatch.on_malformed([&](const clretw::EventRecord&, const clretw::Error& e) {
    std::fprintf(stderr, "malformed: %s\n", e.message().c_str());
    ++mismatches;
  });
  while (true) {
    auto event = (*reader)->next();
    if (!event) return std::fprintf(stderr, "%s\n", event.error().message().c_str()), 1;
    if (!*event) break;
    dispatch.dispatch(**event);
  }
  const bool ok = orders == kOrders.size() && misses == kOrders.size() && mismatches == 0;
  std::printf("%s: %zu order(s), %zu cache miss(es) read back%s\n", path.c_str(), orders, misses,
              ok ? ", as written" : ", NOT as written");
  return ok ? 0 : 1;
}
