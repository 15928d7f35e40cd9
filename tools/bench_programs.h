// npusim-bench's whole-program cases: long host programs through the runtime, with and without
// the checker, to show that a launch costs the same whatever came before it.
//   l  `launches` launches of a 4-block kernel (a store and a few scalar loads per block, no
//      GM) on one stream, then synchronize_device (the reproduction in C++)
//   m  4 streams x `per_stream` launches of 4-block kernels that read a shared GM input and
//      write their stream's GM output, each stream's launch after an event recorded by the
//      next stream's previous launch (so every access is ordered: no findings)
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace npusim::bench {

nlohmann::json run_long_program(std::uint32_t launches, bool check);
nlohmann::json run_event_streams(std::uint32_t per_stream, bool check);

}  // namespace npusim::bench
