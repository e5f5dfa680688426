#pragma once

#include <string>

namespace opevo {

// The unit a device backend's kernels are timed in: TFLOPS on a GPU, GFLOP/s on a CPU, where
// tuned kernels run at tens to hundreds of GFLOP/s and "0.052 TFLOPS" read as nothing. One unit
// per backend, so a run's trials, its reference, its target and the runs it is compared with are
// all in the same unit. Replays keep their file's unit.
std::string deviceSpeedUnit(const std::string& backend);

// FLOP/s in one unit of `unit`: 1e12 for TFLOPS, 1e9 for GFLOP/s; 0 for a unit that is not a
// FLOP rate (GB/s, 1/ms).
double flopsPerSecondIn(const std::string& unit);

// `flops` done in `ms` milliseconds, in `unit` (a FLOP rate).
double speedIn(const std::string& unit, double flops, double ms);

// A speed as the command line prints it: `digits` significant digits, and no exponent from 1 up
// (printf's %.4g wrote a replay's 10084 GFLOP/s as "1.008e+04"): 10084, 245.3, 3.142, 0.0123.
std::string speedNumber(double speed, int digits = 4);

}  // namespace opevo
