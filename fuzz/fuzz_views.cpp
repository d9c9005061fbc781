// libFuzzer harness: every generated view of the built-in decoders. The input
// picks an event version (2 bytes) and a pointer size (1 byte); the rest is the
// payload. The view and owning decode() must agree whether the payload is
// well-formed; when it is, decode(), the dynamic decoder and every accessor of
// the view must return the same values field by field; so must the payload struct's
// layout view (View<PointerSize>), which decode() reads through, and the layout
// engine's decode_payload_generic(); check_fields() answers as visit_fields(), and a FieldPlan
// writes what format_fields() writes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "clretw/decode.h"
#include "clretw/events.h"
#include "clretw/format.h"
#include "dyn.h"

namespace {

// What the event view made of the payload: its fields when it accepted it, else why not.
struct ViewAnswer {
  bool accepted = false;
  std::size_t consumed = 0;
  clretw::DynRecord fields;
  std::string error;
};

// The checks that depend on the event alone (its view), compiled once per event: the generated
// verify() and the layout engine's verify_generic() must agree.
template <class E>
bool check_event(clretw::Bytes payload, unsigned version, unsigned ps, ViewAnswer& answer, std::string& problem) {
  auto view = E::View::verify(payload, version, ps);
  auto generic = E::View::verify_generic(payload, version, ps);  // the layout engine alone
  if (static_cast<bool>(view) != static_cast<bool>(generic) ||
      (view && (view->consumed() != generic->consumed() || view->layout_version() != generic->layout_version()))) {
    problem = "verify() and verify_generic() disagree";
    return false;
  }
  if (view) answer = ViewAnswer{true, view->consumed(), clretw::test::view_record(*view), {}};
  else answer = ViewAnswer{false, 0, {}, view.error().message()};
  return true;
}

// The checks that depend on the payload struct alone, compiled once per struct (event versions share
// structs): decode(), the layout engine's decode, the dynamic decoder, the layout view, check_fields()
// and a FieldPlan, against each other and against what the event view read.
template <class P>
bool check_payload(clretw::Bytes payload, unsigned ps, const ViewAnswer& view, std::string& problem) {
  // check_fields() (the generated check, else the walk) answers as visit_fields().
  {
    struct Ignore final : clretw::FieldVisitor {
      void scalar(const clretw::Scalar&) override {}
    } ignore;
    const auto walked = clretw::visit_fields(P::record(), payload, ps, ignore);
    const auto checked = clretw::check_fields(P::record(), payload, ps);
    if (static_cast<bool>(walked) != static_cast<bool>(checked) || (walked && *walked != *checked) ||
        (!walked && walked.error().message() != checked.error().message())) {
      problem = "check_fields() and visit_fields() disagree";
      return false;
    }
    // A FieldPlan writes and answers as format_fields() (the visitor).
    for (clretw::Format format : {clretw::Format::text, clretw::Format::json}) {
      const auto plan = clretw::FieldPlan::make(P::record(), ps, format);
      if (!plan) continue;
      std::string planned, formatted;
      const auto by_plan = plan->format(payload, planned);
      const auto by_formatter = clretw::format_fields(P::record(), payload, ps, formatted, format);
      if (static_cast<bool>(by_plan) != static_cast<bool>(by_formatter) || (by_plan && *by_plan != *by_formatter) ||
          (!by_plan && by_plan.error().message() != by_formatter.error().message()) || planned != formatted) {
        problem = "FieldPlan and format_fields() disagree";
        return false;
      }
    }
  }
  auto owned = P::decode(payload, ps);
  // decode() reads through the payload struct's layout view where it has one;
  // the layout engine's decode must agree with it, and the layout view with the event view.
  auto walked = clretw::decode_payload_generic<P>(payload, ps);
  if (static_cast<bool>(owned) != static_cast<bool>(walked)) {
    problem = "decode() and decode_payload_generic() disagree whether the payload is well-formed";
    return false;
  }
  if (owned) {  // field by field: a NaN equals a NaN here, not under operator==
    if (auto d = clretw::test::compare(clretw::test::struct_record(*walked), clretw::test::struct_record(*owned)); !d.empty()) {
      problem = "decode() vs decode_payload_generic(): " + d;
      return false;
    }
  }
  if constexpr (requires { typename P::template View<8>; }) {
    auto check_layout = [&](const auto& layout) {
      if (static_cast<bool>(layout) != view.accepted || (layout && layout->consumed() != view.consumed)) {
        problem = "the layout view and the event view disagree";
        return false;
      }
      if (layout) {
        if (auto d = clretw::test::compare(view.fields, clretw::test::view_record(*layout)); !d.empty()) {
          problem = "layout view vs event view: " + d;
          return false;
        }
      }
      return true;
    };
    // The event view reads a version newer than the manifest knows with its newest layout;
    // the layout view is the layout of this version.
    if (!(ps == 8 ? check_layout(P::template View<8>::verify(payload)) : check_layout(P::template View<4>::verify(payload))))
      return false;
  }
  if (!view.accepted) {
    if (owned) problem = "decode() accepts what the view rejects: " + view.error;
    return problem.empty();
  }
  if (!owned) {
    problem = "the view accepts what decode() rejects: " + owned.error().message();
    return false;
  }
  if (auto d = clretw::test::compare(clretw::test::struct_record(*owned), view.fields); !d.empty()) {
    problem = "view vs decode(): " + d;
    return false;
  }
  auto dynamic = clretw::decode_dynamic(P::record(), payload, ps);
  if (!dynamic) {
    problem = "the dynamic decoder rejects what the view accepts: " + dynamic.error().message();
    return false;
  }
  if (auto d = clretw::test::compare(*dynamic, view.fields); !d.empty()) {
    problem = "view vs dynamic decoder: " + d;
    return false;
  }
  return true;
}

struct Entry {
  std::string label;
  unsigned version;
  bool (*event)(clretw::Bytes payload, unsigned version, unsigned ps, ViewAnswer& answer, std::string& problem);
  bool (*payload)(clretw::Bytes payload, unsigned ps, const ViewAnswer& view, std::string& problem);
};

std::vector<Entry> entries() {
  std::vector<Entry> out;
  clretw::for_each_event_version([&]<class E, class P>(unsigned version) {
    out.push_back({std::string(E::name) + " v" + std::to_string(version), version, &check_event<E>, &check_payload<P>});
  });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<Entry> all = entries();
  if (size < 3) return 0;
  const Entry& e = all[(data[0] | (data[1] << 8)) % all.size()];
  const unsigned ps = (data[2] & 1) ? 4 : 8;
  const clretw::Bytes payload(data + 3, size - 3);
  std::string problem;
  ViewAnswer answer;
  if (!e.event(payload, e.version, ps, answer, problem) || !e.payload(payload, ps, answer, problem)) {
    std::fprintf(stderr, "%s at pointer size %u: %s\n", e.label.c_str(), ps, problem.c_str());
    std::abort();
  }
  return 0;
}
