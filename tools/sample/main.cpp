// clretw-sample: writes a .nettrace of a small simulated .NET application (simulated_app.h),
// built with the generated payload structs and the nettrace writer. The README's demo decodes
// it; --size-mb makes large traces for the memory check; --expect-folded writes what a
// symbolizer should make of its samples, from what was simulated.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "clretw/nettrace.h"
#include "common/guarded_main.h"
#include "common/number_option.h"
#include "sample/simulated_app.h"

namespace {

using namespace clretw;

// Counts bytes written, so the generator knows the file size as it goes.
class CountingBuf : public std::streambuf {
 public:
  explicit CountingBuf(std::streambuf* out) : out_(out) {}
  std::uint64_t count = 0;

 protected:
  int overflow(int c) override {
    if (c != EOF) ++count;
    return out_->sputc(static_cast<char>(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    count += static_cast<std::uint64_t>(n);
    return out_->sputn(s, n);
  }

 private:
  std::streambuf* out_;
};

}  // namespace

int run(int argc, char** argv) {
  std::string output = "sample.nettrace", expect_folded;
  unsigned format = 5, pointer_size = 8;
  double size_mb = 0;
  bool uncompressed = false;
  CLI::App app{"clretw-sample: write a .nettrace of a small simulated .NET application (CLR runtime events, sample-profiler\n"
               "stacks of its methods with their load, unload and rundown events, and an EventSource event), encoded with\n"
               "clretw's generated payload structs."};
  app.add_option("-o,--output", output, "Trace file to write")->capture_default_str();
  app.add_option("--format", format, "nettrace format version: 4, 5 or 6; 3 writes a NetPerf file (.NET Core 2.1/2.2)")
      ->check(tools::whole_number_in({3, 4, 5, 6}))
      ->capture_default_str();
  app.add_option("--pointer-size", pointer_size, "Pointer size of the simulated process")->check(tools::whole_number_in({4, 8}))->capture_default_str();
  app.add_flag("--uncompressed", uncompressed, "Write uncompressed event headers");
  app.add_option("--size-mb", size_mb, "Keep simulating requests until the file is this large (0 to 100000)")
      ->check(tools::real_number("MB", 0, 100000));
  app.add_option("--expect-folded", expect_folded,
                 "Also write the folded stacks a symbolizer should make of the trace's samples: one line per thread and\n"
                 "stack, 'Thread (TID);root frame;...;leaf frame COUNT', sorted");
  app.footer("Exit status: 0 written; 1 the simulation failed; 2 bad usage or a file cannot be written.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  std::ofstream file(output, std::ios::binary);
  if (!file) {
    std::cerr << "clretw-sample: --output: cannot write " << output << "\n";
    return 2;
  }
  std::ofstream expect;
  if (!expect_folded.empty()) {
    expect.open(expect_folded, std::ios::binary);
    if (!expect) {
      std::cerr << "clretw-sample: --expect-folded: cannot write " << expect_folded << "\n";
      return 2;
    }
  }
  CountingBuf counting(file.rdbuf());
  std::ostream out(&counting);
  nettrace::WriterOptions o;
  o.format = format;
  o.pointer_size = pointer_size;
  o.compressed = !uncompressed;
  o.process_id = 4242;
  try {
    sample::SimulatedApp s(out, o, expect.is_open());
    const std::uint64_t limit = static_cast<std::uint64_t>(size_mb * 1024 * 1024);
    do {
      s.requests(100);
      if (!out) {
        std::cerr << "clretw-sample: cannot write " << output << " (disk full?)\n";
        return 2;
      }
    } while (counting.count < limit);
    s.finish();
    out.flush();
    if (expect.is_open()) {
      for (const std::string& line : s.folded()) expect << line << '\n';
      expect.close();
      if (!expect) {
        std::cerr << "clretw-sample: --expect-folded: cannot write " << expect_folded << "\n";
        return 2;
      }
    }
    std::printf("clretw-sample: wrote %llu events (%llu requests, %llu samples) to %s, %.1f MB, nettrace V%u, pointer size %u\n",
                static_cast<unsigned long long>(s.events()), static_cast<unsigned long long>(s.requests()),
                static_cast<unsigned long long>(s.samples()), output.c_str(),
                static_cast<double>(counting.count) / (1024 * 1024), format, pointer_size);
  } catch (const std::exception& e) {
    std::cerr << "clretw-sample: " << e.what() << "\n";
    return 1;
  }
  return file ? 0 : 2;
}

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-sample", run, argc, argv); }
