#include "cli/net_cli.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cpu/cpu_runner.h"
#include "cpu/operator_buffers.h"

namespace opevo::cli {

net::ParamOverrides paramOverrides(const std::vector<std::string>& texts) {
  net::ParamOverrides out;
  for (const std::string& t : texts) out.insert(net::parseParamOverride(t));
  return out;
}

EndToEnd runEndToEnd(const std::string& network, const net::ParamOverrides& params,
                     const net::Network& net, const net::TaskGraph& graph,
                     const std::vector<Config>& configs, const EndToEndOptions& o) {
  EndToEnd e;
  // The reference first, before this process has run any kernel of its own, in several processes
  // (the best median kept): libtorch's time varies between processes here, by 3x at times.
  if (o.reference) {
    for (int p = 0; p < kReferenceProcesses; ++p) {
      std::optional<net::TorchResult> r =
          net::runTorchReference(network, params, {o.seed, 0, o.warmup, o.runs}, &e.missing);
      if (!r) break;
      e.referenceMedians.push_back(r->ms);
      if (!e.reference || r->ms < e.reference->ms) e.reference = std::move(r);
    }
  } else
    e.missing = "no libtorch reference: --no-reference";
  if (o.chatty)
    std::cerr << "building " << graph.tasks.size() << " task kernels and the fixed kernels of "
              << net.name << " (one compiler run)...\n";
  net::CpuNetworkRun run(net, graph, configs, o.seed);
  const std::vector<float> output = run.forward();
  e.timesMs = run.time(o.warmup, o.runs);
  e.ms = median(e.timesMs);
  e.steps = run.stepTimes(std::max(3, o.runs / 4));
  for (const auto& s : e.steps) (s.task ? e.taskMs : e.fixedMs) += s.ms;
  if (e.reference) {
    e.error = maxRelativeError(output, e.reference->output);
    e.verified = e.error <= kVerifyTolerance;
  }
  return e;
}

nlohmann::json referenceJson(const EndToEnd& e) {
  if (!e.reference) return {{"name", nullptr}, {"ms", nullptr}, {"missing", e.missing}};
  return {{"name", "libtorch " + e.reference->version},
          {"ms", e.reference->ms},
          {"process_medians_ms", e.referenceMedians},
          {"threads", e.reference->threads},
          {"max_relative_error", e.error}};
}

void printEndToEnd(const std::string& what, const EndToEnd& e, int runs) {
  std::printf(
      "%s: %.3f ms end to end (median of %d), tasks %.3f ms + fixed kernels %.3f ms "
      "measured one by one\n",
      what.c_str(), e.ms, runs, e.taskMs, e.fixedMs);
  if (e.reference)
    std::printf(
        "libtorch %s, %d threads: %.3f ms (best median of %zu processes); output %s (max relative "
        "error %.2g)\n",
        e.reference->version.c_str(), e.reference->threads, e.reference->ms,
        e.referenceMedians.size(), e.verified ? "matches" : "DIFFERS", e.error);
  else
    std::printf("%s\n", e.missing.c_str());
}

void requireVerified(const EndToEnd& e) {
  if (e.reference && !e.verified)
    throw RunFailed("the network's output differs from libtorch's (max relative error " +
                    std::to_string(e.error) + ")");
}

}  // namespace opevo::cli
