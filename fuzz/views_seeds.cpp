// Writes fuzz_views' seed corpus: for every event version of the built-in
// decoders and both pointer sizes, a well-formed payload (the round-trip
// tests' filler), prefixed with the harness's selector bytes.
//   fuzz_views_seeds DIR
#include <cstdio>
#include <fstream>
#include <string>

#include "clretw/events.h"
#include "roundtrip.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_views_seeds DIR\n");
    return 2;
  }
  unsigned index = 0, written = 0;
  clretw::for_each_event_version([&]<class E, class P>(unsigned) {
    for (unsigned ps : {4u, 8u}) {
      P p{};
      clretw::test::Filler(index, clretw::test::Profile::small, ps).fill(p);
      auto bytes = p.encode(ps);
      if (!bytes) continue;
      std::ofstream out(std::string(argv[1]) + "/v" + std::to_string(index) + "-" + std::to_string(ps), std::ios::binary);
      const char head[3] = {static_cast<char>(index & 0xFF), static_cast<char>(index >> 8), static_cast<char>(ps == 4)};
      out.write(head, 3);
      out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
      ++written;
    }
    ++index;
  });
  std::printf("fuzz_views_seeds: %u seeds for %u event versions\n", written, index);
  return 0;
}
