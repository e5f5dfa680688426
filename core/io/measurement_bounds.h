#pragma once

#include <optional>
#include <string>

namespace opevo {

// What a file may claim a kernel measured. Measurements that enter from files (replay datasets,
// `opevo import`, `opevo import --restore`) are otherwise taken as they are written, and a single
// absurd one (a time of 1e-300 s, 1e308 GFLOP/s) wins every race, tops every table and is kept
// as the best kernel. The bounds are physical, and generous by orders of magnitude, so that no
// real measurement meets them:
//
// A measured time is at least 1 ns (1e-6 ms). Launching a kernel and reading a timer around it
// takes microseconds on a GPU (CUDA events resolve about 0.5 us) and tens of nanoseconds for a
// call on a CPU; the shortest times in the shipped datasets are about 0.5 ms.
constexpr double kShortestMeasuredMs = 1e-6;
// A throughput is at most 1e18 a second (an exa-) of floating-point operations or of bytes:
// 1e6 TFLOPS, about a hundred times the low-precision peak of the fastest single GPU (about
// 1e16 FLOP/s), and far beyond any device's memory bandwidth (several TB/s). A whole
// supercomputer reaches 1e18 FLOP/s; one kernel on one device does not.
constexpr double kFastestPerSecond = 1e18;

// Why `ms`, a measured time in milliseconds, cannot be one: not a finite number, not above 0, or
// under kShortestMeasuredMs; none where it can.
std::optional<std::string> implausibleTimeMs(double ms);

// How many FLOP or bytes a second one unit of a throughput counts (GFLOP/s, GFLOPS, Gflops: 1e9;
// TFLOPS: 1e12; GB/s: 1e9; GiB/s: 2^30), or 0 for a unit of something else (items/s, a score,
// 1/ms), which has no physical bound here.
double perSecondIn(const std::string& unit);

// Why `value`, a throughput in `unit`, cannot have been measured: not a finite number, or more
// than kFastestPerSecond where the unit counts FLOP or bytes; none where it can. (Whether a
// negative one may stand is each reader's: some files write 0 for no speed.)
std::optional<std::string> implausibleThroughput(double value, const std::string& unit);

}  // namespace opevo
