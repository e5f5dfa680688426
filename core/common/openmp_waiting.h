#pragma once

namespace opevo {

// The spin count opevo times under, as GOMP_SPINCOUNT takes it. Exported programs that time a
// kernel or a network set the same (gpu/export/host_program.h), so their figures compare.
inline constexpr const char* kBoundedSpinCount = "1000";

// Bounds how long an idle OpenMP thread spins before it sleeps, for this process and the ones
// it starts (workers, agents' workers, the libtorch timer), by re-executing the program once
// with GOMP_SPINCOUNT=1000; a user's own GOMP_SPINCOUNT or OMP_WAIT_POLICY is left alone.
//
// Why: libgomp's threads spin 300,000 times before they sleep, and a spinning thread holds a
// core that a thread it waits for, or a kernel build of the tuning pipeline, needs. On a 2-core
// machine every trial of a 64x96x128 matmul then read 8.0 ms (0.197 GFLOP/s, two scheduler
// ticks), and a small network 46.5 ms end to end, whenever anything else ran. With 1,000 spins
// the same trials read 5.5-20 GFLOP/s and the network 0.33 ms (10,000 spins: 2.2-3.1 GFLOP/s,
// 2.9 ms); timing loops, whose calls follow each other at once, keep their speed, and MM1's
// 1 GFLOP kernels time as before. What it costs: on an idle machine a chain of tiny kernels
// pays a thread's wake-up per kernel (that network: 0.33 ms against 0.019 ms spinning).
// docs/performance.md has the commands. libgomp reads the variable when it loads, before main,
// hence the re-execution. Not done under valgrind or when started through the dynamic loader;
// set GOMP_SPINCOUNT yourself to debug without it. Call first thing in main; it returns when
// nothing is to be done or the re-execution failed (the program then runs as it would have).
void boundOpenMpWaiting(char** argv);

}  // namespace opevo
