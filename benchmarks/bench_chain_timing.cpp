// How far a task's time in a loop (how tuning times it) is from its time in the network's chain:
// the untuned network program on this CPU (joint mode, as `opevo net run`), checked against
// libtorch, then each task step timed in the chain (`steps`), in a loop with its weights evicted
// before each run, and in a loop with its weights and activations evicted. Figures go to
// docs/results/networks.md.
//
//   bench_chain_timing [NETWORK] [RUNS]   (default mobilenet_v2 20)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/median.h"
#include "common/openmp_waiting.h"
#include "cpu/operator_buffers.h"
#include "net/cpu_network.h"
#include "net/end_to_end.h"
#include "net/network_json.h"
#include "net/torch_reference.h"
#include "net/untuned_configs.h"

int main(int argc, char** argv) {
  using namespace opevo;
  boundOpenMpWaiting(argv);  // times as opevo does (GOMP_SPINCOUNT=1000)
  const std::string network = argc > 1 ? argv[1] : "mobilenet_v2";
  const int runs = argc > 2 ? std::max(3, std::atoi(argv[2])) : 20;
  try {
    const net::Network n = net::loadNetwork(network, {});
    const net::TaskGraph g = net::extractTasks(n);
    const layout::TuningMode mode = layout::TuningMode::Joint;
    net::CpuNetworkRun run(n, g, net::untunedConfigs(g, mode), mode, 1);
    const std::vector<float> output = run.forward();
    // Correct before fast: the chain's output against libtorch's, where libtorch is here.
    std::string missing;
    const auto torch = net::runTorchReference(network, {}, {1, 0, 1, 3}, &missing);
    if (torch) {
      const double error = net::maxNetworkError(output, torch->output);
      std::printf("%s: untuned, joint, checked against %s: max relative error %.2g (%s)\n",
                  network.c_str(), torch->version.c_str(), error,
                  error <= kVerifyTolerance ? "verified" : "FAILED");
      if (!(error <= kVerifyTolerance)) return 1;
    } else {
      std::printf("%s: untuned, joint, not checked (%s)\n", network.c_str(), missing.c_str());
    }
    run.time(3, 5);  // the program's first passes fault its pages in
    const auto chain = run.stepTimes(runs);
    const auto weightsCold = run.taskLoopTimes(runs, true, false);
    const auto allCold = run.taskLoopTimes(runs, true, true);
    // Steps by name in program order; a name's task step comes once per occurrence.
    std::vector<double> chainTask;
    for (const auto& s : chain)
      if (s.kind == net::StepKind::Task) chainTask.push_back(s.ms);
    std::printf("%-28s %10s %12s %12s %8s %8s\n", "task step", "chain ms", "weights cold",
                "all cold", "ratio", "ratio");
    std::vector<double> overWeights, overAll;
    for (std::size_t i = 0; i < chainTask.size(); ++i) {
      overWeights.push_back(chainTask[i] / weightsCold[i].ms);
      overAll.push_back(chainTask[i] / allCold[i].ms);
      std::printf("%-28s %10.4f %12.4f %12.4f %8.2f %8.2f\n", allCold[i].name.c_str(), chainTask[i],
                  weightsCold[i].ms, allCold[i].ms, overWeights.back(), overAll.back());
    }
    const auto range = [](const std::vector<double>& v) {
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      char text[64];
      std::snprintf(text, sizeof text, "%.2f (%.2f-%.2f)", median(v), *lo, *hi);
      return std::string(text);
    };
    std::printf("%zu task steps, chain / loop, median (range): weights cold %s, all cold %s\n",
                chainTask.size(), range(overWeights).c_str(), range(overAll).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_chain_timing: %s\n", e.what());
    return 1;
  }
  return 0;
}
