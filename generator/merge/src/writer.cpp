#include "clretw/gen/writer.h"

#include <algorithm>
#include <map>
#include <vector>

#include "clretw/format.h"
#include "clretw/text.h"

namespace clretw::gen {

namespace {

std::string hex(std::uint64_t v) {
  std::string s;
  append_hex(s, v);
  return s;
}

void escape(std::string& out, std::string_view s) {
  static constexpr Escaper kXml({{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\n', "&#10;"},
                                 {'\t', "&#9;"}, {'\r', "&#13;"}});
  kXml.append(out, s);
}

class Writer {
 public:
  std::string run(const Manifest& m) {
    out_ = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
    comment(0, m.note);
    out_ +=
        "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\" "
        "xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\" "
        "xmlns:xs=\"http://www.w3.org/2001/XMLSchema\">\n";
    open(1, "instrumentation");
    open(2, "events");
    for (const Provider& p : m.providers) provider(p);
    close(2, "events");
    close(1, "instrumentation");
    open(1, "localization");
    line(2, "<resources culture=\"en-US\">");
    open(3, "stringTable");
    for (const auto& [id, value] : strings_) {
      std::string s = "<string id=\"";
      escape(s, id);
      s += "\" value=\"";
      escape(s, value);
      s += "\"/>";
      line(4, s);
    }
    close(3, "stringTable");
    close(2, "resources");
    close(1, "localization");
    out_ += "</instrumentationManifest>\n";
    return std::move(out_);
  }

 private:
  // An element under construction: <name a="v" ...
  class Tag {
   public:
    explicit Tag(std::string_view name) : text_("<" + std::string(name)) {}
    Tag& attr(std::string_view name, std::string_view value) {
      if (value.empty()) return *this;
      text_ += ' ';
      text_ += name;
      text_ += "=\"";
      escape(text_, value);
      text_ += '"';
      return *this;
    }
    std::string closed() const { return text_ + "/>"; }
    std::string opened() const { return text_ + ">"; }

   private:
    std::string text_;
  };

  void line(int depth, std::string_view text) {
    out_.append(static_cast<std::size_t>(depth) * 4, ' ');
    out_ += text;
    out_ += '\n';
  }
  void open(int depth, std::string_view name) { line(depth, "<" + std::string(name) + ">"); }
  void close(int depth, std::string_view name) { line(depth, "</" + std::string(name) + ">"); }

  // A note as a comment; "--" may not appear inside one.
  void comment(int depth, const std::string& note) {
    if (note.empty()) return;
    std::string text = note;
    for (std::size_t i; (i = text.find("--")) != std::string::npos;) text.replace(i, 2, "- -");
    if (text.back() == '-') text += ' ';
    if (text.find('\n') == std::string::npos) {
      line(depth, "<!-- " + text + " -->");
      return;
    }
    line(depth, "<!--");
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      const std::string_view l = std::string_view(text).substr(start, end - start);
      if (l.empty()) out_ += '\n';
      else line(depth + 1, l);
      start = end + 1;
    }
    line(depth, "-->");
  }

  // "$(string.ID)" for a message, recorded in the string table; empty when there is none.
  std::string message(const std::string& id, const std::string& text) {
    if (text.empty()) return {};
    strings_.emplace(id, text);
    return "$(string." + id + ")";
  }

  // <name> around an element per item of `list` (`item` writes it at depth + 1, after its note); nothing
  // for an empty list.
  template <class T, class F>
  void section(int depth, std::string_view name, const std::vector<T>& list, F&& item) {
    if (list.empty()) return;
    open(depth, name);
    for (const T& x : list) {
      comment(depth + 1, x.note);
      item(x);
    }
    close(depth, name);
  }

  // A <level>, <opcode> or <keyword>: its name, `number` as attribute `number_name` (value or mask), its
  // symbol and message; `id` is the message's string id.
  template <class T>
  void named(int depth, std::string_view tag, const T& x, std::string_view number_name, const std::string& number,
             const std::string& id) {
    line(depth, Tag(tag)
                    .attr("name", x.name)
                    .attr(number_name, number)
                    .attr("symbol", x.symbol)
                    .attr("message", message(id, x.message))
                    .closed());
  }

  void opcodes(int depth, const std::vector<Opcode>& list, const std::string& scope) {
    section(depth, "opcodes", list, [&](const Opcode& o) {
      named(depth + 1, "opcode", o, "value", std::to_string(o.value), scope + ".Opcode." + o.name);
    });
  }

  void fields(int depth, const std::vector<Field>& list) {
    for (const Field& f : list) {
      comment(depth, f.note);
      if (f.is_struct) {
        line(depth, Tag("struct").attr("name", f.name).attr("count", f.count_text).attr("length", f.length_text).opened());
        fields(depth + 1, f.members);
        close(depth, "struct");
        continue;
      }
      line(depth, Tag("data")
                      .attr("name", f.name)
                      .attr("inType", f.in_type_text)
                      .attr("outType", f.out_type_text)
                      .attr("map", f.map_name)
                      .attr("count", f.count_text)
                      .attr("length", f.length_text)
                      .closed());
    }
  }

  void provider(const Provider& p) {
    const std::string& s = p.name;  // string ids start with the provider's name
    comment(3, p.note);
    line(3, Tag("provider")
                .attr("name", p.name)
                .attr("guid", p.guid_text)
                .attr("symbol", p.symbol)
                .attr("resourceFileName", p.resource_file)
                .attr("messageFileName", p.message_file)
                .attr("message", message(s + ".Provider", p.message))
                .opened());
    section(4, "channels", p.channels, [&](const Channel& c) {
      line(5, Tag(c.imported ? "importChannel" : "channel")
                  .attr("name", c.name)
                  .attr("chid", c.chid)
                  .attr("type", c.type)
                  .attr("symbol", c.symbol)
                  .attr("value", c.value ? std::to_string(*c.value) : std::string())
                  .attr("message", message(s + ".Channel." + c.name, c.message))
                  .closed());
    });
    section(4, "levels", p.levels, [&](const Level& l) {
      named(5, "level", l, "value", std::to_string(l.value), s + ".Level." + l.name);
    });
    section(4, "keywords", p.keywords, [&](const Keyword& k) {
      named(5, "keyword", k, "mask", hex(k.mask), s + ".Keyword." + k.name);
    });
    section(4, "tasks", p.tasks, [&](const Task& t) {
      Tag tag("task");
      tag.attr("name", t.name)
          .attr("value", std::to_string(t.value))
          .attr("symbol", t.symbol)
          .attr("eventGUID", t.event_guid)
          .attr("message", message(s + ".Task." + t.name, t.message));
      if (t.opcodes.empty()) {
        line(5, tag.closed());
        return;
      }
      line(5, tag.opened());
      opcodes(6, t.opcodes, s + ".Task." + t.name);
      close(5, "task");
    });
    opcodes(4, p.opcodes, s);
    section(4, "maps", p.maps, [&](const Map& mp) {
      const char* kind = mp.bitmap ? "bitMap" : "valueMap";
      line(5, Tag(kind).attr("name", mp.name).opened());
      for (const MapEntry& e : mp.entries) {
        comment(6, e.note);
        line(6, Tag("map")
                    .attr("value", hex(e.value))
                    .attr("message", message(s + ".Map." + mp.name + "." + hex(e.value), e.message))
                    .closed());
      }
      close(5, kind);
    });
    section(4, "templates", p.templates, [&](const Template& t) {
      line(5, Tag("template").attr("tid", t.tid).opened());
      fields(6, t.fields);
      close(5, "template");
    });
    section(4, "events", p.events, [&](const Event& e) {
      std::string keywords;
      for (const std::string& k : e.keywords) keywords += (keywords.empty() ? "" : " ") + k;
      line(5, Tag("event")
                  .attr("value", std::to_string(e.value))
                  .attr("version", std::to_string(e.version))
                  .attr("level", e.level)
                  .attr("task", e.task)
                  .attr("opcode", e.opcode)
                  .attr("keywords", keywords)
                  .attr("template", e.template_name)
                  .attr("channel", e.channel)
                  .attr("symbol", e.symbol)
                  .closed());
    });
    close(3, "provider");
  }

  std::string out_;
  std::map<std::string, std::string> strings_;  // id -> text, written sorted by id
};

}  // namespace

std::string write_manifest(const Manifest& manifest) { return Writer().run(manifest); }

}  // namespace clretw::gen
