// The front door: format detection and the nettrace adapter.
#include "clretw/open.h"

#include <cstdio>
#include <cstring>

namespace clretw {

const char* trace_format_name(TraceFormat f) noexcept {
  switch (f) {
    case TraceFormat::nettrace: return "nettrace";
    case TraceFormat::netperf: return "netperf";
    case TraceFormat::etl: return "etl";
    case TraceFormat::unknown: break;
  }
  return "unknown";
}

TraceFormat detect_format(Bytes b) noexcept {
  if (b.size() >= 8 && std::memcmp(b.data(), "Nettrace", 8) == 0) return TraceFormat::nettrace;
  if (b.size() >= 24 && load_le<std::uint32_t>(b.data()) == 20 && std::memcmp(b.data() + 4, "!FastSerialization.1", 20) == 0)
    return TraceFormat::netperf;
  // ETL: a buffer header, then the logfile header event: a SYSTEM32/64 header of kernel group 0, opcode 0.
  if (b.size() >= 80 && load_le<std::uint32_t>(b.data()) >= 80 && (b[74] == 0x01 || b[74] == 0x02) && b[75] == 0xC0 &&
      load_le<std::uint16_t>(b.data() + 78) == 0)
    return TraceFormat::etl;
  return TraceFormat::unknown;
}

Result<std::unique_ptr<TraceSource>> open_trace(const std::string& path, OpenOptions options) {
  std::uint8_t head[80] = {};
  std::size_t got = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    got = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
  } else {
    return Error{Errc::io_error, 0, {}, "cannot open " + path};
  }
  switch (detect_format(Bytes(head, got))) {
    case TraceFormat::nettrace:
    case TraceFormat::netperf: {
      nettrace::ReaderOptions ro;
      ro.sorted = options.sorted;
      auto r = nettrace::Reader::open_file(path, ro);
      if (!r) return std::move(r).error();
      return std::unique_ptr<TraceSource>(new NettraceSource(std::move(*r)));
    }
    case TraceFormat::etl: {
      auto r = etl::Reader::open_file(path);
      if (!r) return std::move(r).error();
      return std::unique_ptr<TraceSource>(std::move(*r));
    }
    case TraceFormat::unknown: break;
  }
  return Error{Errc::bad_format, 0, {},
               got == 0 ? std::string("the file is empty")
                        : "not a trace clretw reads: no nettrace, NetPerf or ETL header in its first " + std::to_string(got) + " bytes"};
}

std::string NettraceSource::summary() const {
  const nettrace::TraceInfo& i = reader_->info();
  return std::string(i.format == 3 ? "netperf" : "nettrace") + " format " + std::to_string(i.format) + ", pointer size " +
         std::to_string(i.pointer_size) + ", pid " + std::to_string(i.process_id);
}

SourceCounts NettraceSource::counts() const {
  const nettrace::Stats& s = reader_->stats();
  SourceCounts c;
  c.events = s.events;
  c.lost_events = s.lost_events;
  c.sequence_points = s.sequence_points;
  return c;
}

}  // namespace clretw
