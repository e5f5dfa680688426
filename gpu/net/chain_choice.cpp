#include "net/chain_choice.h"

#include <map>
#include <stdexcept>

namespace opevo::net {

std::vector<double> taskChainMs(const TaskGraph& graph, const std::vector<StepTime>& steps) {
  std::map<std::string, std::size_t> taskOf;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    for (const Occurrence& o : graph.tasks[i].occurrences) taskOf[o.layer] = i;
  std::vector<double> ms(graph.tasks.size(), 0.0);
  for (const StepTime& s : steps) {
    if (s.kind == StepKind::Fixed) continue;
    if (const auto it = taskOf.find(s.name); it != taskOf.end()) ms[it->second] += s.ms;
  }
  return ms;
}

std::vector<Config> fasterPerTask(const TaskGraph& graph, const std::vector<Config>& a,
                                  const EndToEnd& ranA, const std::vector<Config>& b,
                                  const EndToEnd& ranB, std::vector<std::string>* took) {
  if (a.size() != graph.tasks.size() || b.size() != graph.tasks.size())
    throw std::logic_error("fasterPerTask: a configuration per task");
  const std::vector<double> msA = taskChainMs(graph, ranA.steps);
  const std::vector<double> msB = taskChainMs(graph, ranB.steps);
  std::vector<Config> out = a;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (a[i] != b[i] && msB[i] < msA[i]) {
      out[i] = b[i];
      if (took) took->push_back(graph.tasks[i].name);
    }
  return out;
}

namespace {

// Checked against a reference and matching it, or run without one (--no-reference).
bool usable(const EndToEnd& e) {
  const bool checked = e.reference.best.has_value() || !e.deviceReference.empty();
  return e.verified || !checked;
}

}  // namespace

NetworkChoice chooseNetwork(const EndToEnd& tuned, const EndToEnd* mixed, const EndToEnd* untuned) {
  NetworkChoice choice = NetworkChoice::Tuned;
  double best = tuned.ms / kEndToEndNoise;  // what another must beat
  for (const auto& [c, e] :
       {std::pair{NetworkChoice::Mixed, mixed}, std::pair{NetworkChoice::Untuned, untuned}})
    if (e && usable(*e) && e->ms < best) {
      choice = c;
      best = e->ms;
    }
  return choice;
}

}  // namespace opevo::net
