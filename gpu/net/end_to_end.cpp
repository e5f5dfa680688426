#include "net/end_to_end.h"

#include <algorithm>
#include <cmath>

#include "common/median.h"
#include "cpu/cpu_runner.h"
#include "cpu/operator_buffers.h"
#include "net/cuda_network.h"

namespace opevo::net {

double maxNetworkError(const std::vector<float>& out, const std::vector<float>& ref) {
  if (out.size() != ref.size()) return INFINITY;
  double squares = 0;
  for (float r : ref) squares += double(r) * double(r);
  const double rms = ref.empty() ? 0 : std::sqrt(squares / double(ref.size()));
  double worst = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double want = ref[i];
    const double e = std::fabs(double(out[i]) - want) / std::max(1.0 + std::fabs(want), rms);
    if (std::isnan(e)) return INFINITY;
    worst = std::max(worst, e);
  }
  return worst;
}

ReferenceTimes timeReference(const std::string& network, const ParamOverrides& params,
                             const EndToEndOptions& o) {
  ReferenceTimes r;
  if (!o.reference) {
    r.missing = "no libtorch reference: none was asked for";
    return r;
  }
  for (int p = 0; p < kReferenceProcesses; ++p) {
    std::optional<TorchResult> t =
        runTorchReference(network, params, {o.seed, 0, o.warmup, o.runs, o.torchForm}, &r.missing);
    if (!t) break;
    r.medians.push_back(t->ms);
    if (!r.best || t->ms < r.best->ms) r.best = std::move(t);
  }
  return r;
}

EndToEnd runEndToEnd(const std::string& network, const ParamOverrides& params, const Network& net,
                     const TaskGraph& graph, const std::vector<Config>& configs,
                     layout::TuningMode mode, const EndToEndOptions& o,
                     std::optional<ReferenceTimes> reference, TaskTemplates templates) {
  EndToEnd e;
  e.reference = reference ? std::move(*reference) : timeReference(network, params, o);
  CpuNetworkRun run(net, graph, configs, mode, o.seed, templates);
  const std::vector<float> output = run.forward();
  e.timesMs = run.time(o.warmup, o.runs);
  e.ms = median(e.timesMs);
  e.steps = run.stepTimes(std::max(3, o.runs / 4));
  e.adoptedLayouts = run.adoptedLayouts();
  for (const auto& s : e.steps)
    (s.kind == StepKind::Task      ? e.taskMs
     : s.kind == StepKind::Convert ? e.convertMs
                                   : e.fixedMs) += s.ms;
  if (e.reference.best) {
    e.error = maxNetworkError(output, e.reference.best->output);
    e.verified = e.error <= kVerifyTolerance;
  }
  return e;
}

EndToEnd runEndToEndCuda(const Network& net, const TaskGraph& graph,
                         const std::vector<Config>& configs, const EndToEndOptions& o,
                         TaskTemplates templates) {
  EndToEnd e;
  const auto loop = layout::TuningMode::Loop;
  std::vector<float> want;
  {
    CudaNetworkRun reference(buildNetworkProgram(net, graph, configs, loop, o.seed,
                                                 codegen::Backend::Cuda, TaskKernels::Reference,
                                                 templates));
    want = reference.forward();
  }
  CudaNetworkRun run(buildNetworkProgram(net, graph, configs, loop, o.seed, codegen::Backend::Cuda,
                                         TaskKernels::Tuned, templates));
  e.device = run.device();
  e.compileSeconds = run.compileSeconds();
  e.deviceReference =
      "the same network with each task's plain reference kernel (one thread per output element) "
      "on the device";
  e.error = maxNetworkError(run.forward(), want);
  e.verified = e.error <= kVerifyTolerance;
  e.reference.missing = "no libtorch reference on a GPU: " + e.deviceReference + " instead";
  e.timesMs = run.time(o.warmup, o.runs);
  e.ms = median(e.timesMs);
  e.steps = run.stepTimes(std::max(3, o.runs / 4));
  for (const auto& s : e.steps) (s.kind == StepKind::Task ? e.taskMs : e.fixedMs) += s.ms;
  return e;
}

nlohmann::json referenceJson(const EndToEnd& e) {
  if (!e.deviceReference.empty())
    return {{"name", e.deviceReference},
            {"ms", nullptr},
            {"device", e.device},
            {"max_relative_error", e.error}};
  const std::optional<TorchResult>& r = e.reference.best;
  if (!r) return {{"name", nullptr}, {"ms", nullptr}, {"missing", e.reference.missing}};
  return {{"name", torchReferenceName(*r)},
          {"form", torchFormName(r->form)},
          {"ms", r->ms},
          {"process_medians_ms", e.reference.medians},
          {"threads", r->threads},
          {"max_relative_error", e.error}};
}

nlohmann::json endToEndJson(const EndToEnd& e) {
  return {{"end_to_end_ms", e.ms},         {"times_ms", e.timesMs},
          {"fixed_kernels_ms", e.fixedMs}, {"conversions_ms", e.convertMs},
          {"steps", stepsJson(e)},         {"adopted_layouts", e.adoptedLayouts},
          {"verified", e.verified},        {"reference", referenceJson(e)}};
}

nlohmann::json stepsJson(const EndToEnd& e) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : e.steps)
    steps.push_back({{"name", s.name}, {"kind", stepKindName(s.kind)}, {"ms", s.ms}});
  return steps;
}

}  // namespace opevo::net
