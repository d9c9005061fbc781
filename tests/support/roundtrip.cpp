#include "roundtrip.h"

#include <functional>

#include "clretw/format.h"

namespace clretw::test {

void run(const Codec& c, unsigned version, const RecordDesc* reference, Stats& st) {
  ++st.event_versions;
  if (reference) ++st.with_reference;
  if (c.layout) ++st.with_layout;
  auto fail = [&](const std::string& what) {
    if (st.failures.size() < 50) st.failures.push_back(c.label + ": " + what);
  };
  // The view's verify(), checked against the layout engine's verify_generic() on the same bytes.
  auto view = [&](Bytes bytes, unsigned version, unsigned ps, bool with_fields, auto what) {  // what(): the case, named on failure only
    auto quick = c.view(bytes, version, ps, with_fields);
    auto generic = c.view_generic(bytes, version, ps, with_fields);
    if (static_cast<bool>(quick) != static_cast<bool>(generic))
      fail("verify() " + std::string(quick ? "accepted" : "rejected") + " what verify_generic() " +
           (generic ? "accepted" : "rejected") + ": " + what());
    else if (quick && (quick->consumed != generic->consumed || quick->trailing != generic->trailing ||
                       quick->version != generic->version || quick->layout_version != generic->layout_version ||
                       quick->newer != generic->newer))
      fail("verify() and verify_generic() disagree on the layout: " + what());
    else if (quick && with_fields)
      if (auto d = compare(generic->fields, quick->fields); !d.empty()) fail("verify() and verify_generic() read: " + d + ", " + what());
    return quick;
  };
  // check_fields() gives visit_fields()'s answer: through the generated tables (their layout
  // view's check, when they point to one) and through the run-time tables (the layout engine).
  auto check = [&](Bytes bytes, unsigned ps, auto what) {
    struct Ignore final : FieldVisitor {
      void scalar(const Scalar&) override {}
    } ignore;
    const auto walked = visit_fields(*c.record, bytes, ps, ignore);
    for (const RecordDesc* r : {c.record, reference}) {
      if (!r) continue;
      const auto checked = check_fields(*r, bytes, ps);
      const char* tables = r == c.record ? " (generated tables)" : " (run-time tables)";
      if (static_cast<bool>(checked) != static_cast<bool>(walked))
        fail(std::string("check_fields() ") + (checked ? "accepted" : "rejected") + " what visit_fields() " +
             (walked ? "accepted" : "rejected") + tables + ": " + what());
      else if (checked && *checked != *walked)
        fail("check_fields() consumed " + std::to_string(*checked) + ", visit_fields() " + std::to_string(*walked) + tables + ": " + what());
      else if (!checked && checked.error().message() != walked.error().message())
        fail("check_fields() says " + checked.error().message() + ", visit_fields() " + walked.error().message() + tables + ": " + what());
      // A FieldPlan writes what the FieldFormatter writes when visit_fields() drives it, and
      // fails as it does, appending nothing.
      for (Format format : {Format::text, Format::json}) {
        const auto plan = FieldPlan::make(*r, ps, format);
        if (!plan) continue;
        std::string planned = "<", formatted = "<";
        const auto by_plan = plan->format(bytes, planned);
        const auto by_formatter = format_fields(*r, bytes, ps, formatted, format);
        const char* in = format == Format::json ? " in JSON" : " in text";
        if (static_cast<bool>(by_plan) != static_cast<bool>(by_formatter))
          fail(std::string("FieldPlan ") + (by_plan ? "accepted" : "rejected") + " what format_fields() " +
               (by_formatter ? "accepted" : "rejected") + tables + in + ": " + what());
        else if (by_plan && *by_plan != *by_formatter)
          fail("FieldPlan consumed " + std::to_string(*by_plan) + ", format_fields() " + std::to_string(*by_formatter) + tables + in + ": " + what());
        else if (!by_plan && by_plan.error().message() != by_formatter.error().message())
          fail("FieldPlan says " + by_plan.error().message() + ", format_fields() " + by_formatter.error().message() + tables + in + ": " + what());
        else if (planned != formatted)
          fail("FieldPlan wrote " + planned + ", format_fields() " + formatted + tables + in + ": " + what());
        else if (by_plan)
          ++st.planned;
      }
    }
  };
  if (c.layout && !(c.record->layout[0].fixed() && c.record->layout[1].fixed()) && !c.record->check)
    fail("the generated RecordDesc has no check although the struct has a layout view");
  // The record's last field holds the rest of the payload (a win:Binary without a length).
  const bool rest = !c.record->fields.empty() && c.record->fields.back().type == InType::Binary &&
                    c.record->fields.back().length.kind == Extent::Kind::none;
  for (unsigned ps : {4u, 8u}) {
    for (Profile profile : {Profile::empty, Profile::small, Profile::large}) {
      const std::string how =
          " (pointer size " + std::to_string(ps) + ", profile " + std::to_string(static_cast<int>(profile)) + ")";
      DynRecord expected;
      const std::uint64_t seed = std::hash<std::string>{}(c.label) + ps * 7 + static_cast<unsigned>(profile);
      auto encoded = c.make(seed, profile, ps, expected);
      if (!encoded) {
        fail("encode failed" + how + ": " + encoded.error().message());
        continue;
      }
      const std::vector<std::uint8_t>& bytes = *encoded;
      ++st.payloads;
      st.bytes += bytes.size();

      if (auto d = c.decode(bytes, ps, expected); !d.empty()) fail(d + how);

      check(bytes, ps, [&] { return "the payload" + how; });
      auto full = view(bytes, version, ps, true, [&] { return "the payload" + how; });
      if (!full) {
        fail("view rejected a valid payload" + how + ": " + full.error().message());
      } else {
        if (full->consumed != bytes.size() || full->trailing != 0)
          fail("view consumed " + std::to_string(full->consumed) + " of " + std::to_string(bytes.size()) + " bytes" + how);
        if (full->version != version || full->layout_version != version) fail("view version mismatch" + how);
        if (auto d = compare(expected, full->fields); !d.empty()) fail("view: " + d + how);
      }

      // The payload struct's layout view reads the same bytes to the same values.
      if (c.layout) {
        auto lv = c.layout(bytes, ps, true);
        if (!lv) fail("layout view rejected a valid payload" + how);
        else if (lv->consumed != bytes.size() || lv->trailing != 0)
          fail("layout view consumed " + std::to_string(lv->consumed) + " of " + std::to_string(bytes.size()) + " bytes" + how);
        else if (auto d = compare(expected, lv->fields); !d.empty()) fail("layout view: " + d + how);
        // Bytes a newer version appends are skipped.
        std::vector<std::uint8_t> longer = bytes;
        longer.insert(longer.end(), {0xAB, 0xCD, 0xEF});
        check(longer, ps, [&] { return "appended bytes" + how; });
        auto lv2 = c.layout(longer, ps, true);
        if (!lv2 || lv2->trailing != 3 || lv2->consumed != bytes.size()) fail("layout view: appended bytes" + how);
        else if (auto d = compare(expected, lv2->fields); !d.empty()) fail("layout view with appended bytes: " + d + how);
      }

      auto dyn = decode_dynamic(*c.record, bytes, ps);
      if (!dyn) fail("dynamic decoder rejected the payload" + how + ": " + dyn.error().message());
      else if (auto d = compare(expected, *dyn); !d.empty()) fail("dynamic decoder: " + d + how);
      if (reference) {
        auto ref = decode_dynamic(*reference, bytes, ps);
        if (!ref) fail("dynamic decoder (run-time tables) rejected the payload" + how + ": " + ref.error().message());
        else if (auto d = compare(expected, *ref); !d.empty()) fail("dynamic decoder (run-time tables): " + d + how);
      }

      // Every proper prefix is malformed, for the view, decode() and the dynamic decoder - but for one cut
      // inside a last field that holds the rest of the payload (a win:Binary without a length), which is
      // shorter then, not missing.
      std::size_t whole = bytes.size();
      if (rest && !expected.empty()) whole -= expected.back().value.bytes.size();
      for (std::size_t n = 0; n < whole; ++n) {
        const Bytes cut(bytes.data(), n);
        ++st.truncations;
        if (view(cut, version, ps, false, [&] { return "cut to " + std::to_string(n) + " bytes" + how; }))
          fail("view accepted the payload cut to " + std::to_string(n) + " bytes" + how);
        check(cut, ps, [&] { return "cut to " + std::to_string(n) + " bytes" + how; });
        if (c.decodes(cut, ps)) fail("decode accepted the payload cut to " + std::to_string(n) + " bytes" + how);
        if (c.layout && c.layout(cut, ps, false)) fail("layout view accepted the payload cut to " + std::to_string(n) + " bytes" + how);
        if (decode_dynamic(*c.record, cut, ps)) fail("dynamic decoder accepted the payload cut to " + std::to_string(n) + how);
      }

      // A newer runtime: unknown version 255 with appended fields decodes with the newest layout (bytes
      // appended after a field that holds the rest of the payload are that field's).
      if (c.newest && !rest) {
        std::vector<std::uint8_t> longer = bytes;
        longer.insert(longer.end(), {0xAB, 0xCD, 0xEF, 0x01, 0x23});
        auto newer = view(longer, 255, ps, true, [&] { return "version 255 with appended bytes" + how; });
        if (!newer) fail("view rejected a newer version with appended bytes" + how);
        else if (newer->trailing != 5 || !newer->newer || newer->layout_version != version)
          fail("newer version: trailing bytes or layout version wrong" + how);
        else if (auto d = compare(expected, newer->fields); !d.empty()) fail("newer version: " + d + how);
      }
    }
  }
}

}  // namespace clretw::test
