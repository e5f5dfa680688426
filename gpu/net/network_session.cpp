#include "net/network_session.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "backends/stored_run.h"
#include "codegen/cpu_compiler.h"
#include "common/error.h"
#include "engine/store_recorder.h"
#include "net/chain_choice.h"
#include "net/network_plan.h"
#include "net/untuned_configs.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "store/run_lock.h"
#include "store/store.h"

namespace opevo::net {
namespace {

Network networkOf(const NetworkSource& s) {
  return networkFromText(s.text, s.source, s.params);
}

}  // namespace

BackendOptions taskMeasuringOptions(BackendOptions o, const NetworkTuningPlan& plan,
                                    const Task& task) {
  // An activation as the second operand (attention's keys and values) is timed as the other
  // activations are, not as weights (TimingOptions::activationB).
  o.cpu.timing.coldWeights = plan.coldWeights && task.readsWeights;
  o.cpu.timing.coldActivations = plan.coldActivations;
  o.cpu.timing.activationB = !task.readsWeights;
  return o;
}

NetworkSource storedNetworkSource(const Store& store, std::int64_t id, NetworkRecord* record) {
  std::optional<NetworkRecord> stored = store.network(id);
  if (!stored) throw InputError(store.missingNetworkText(id));
  NetworkSource src;
  src.source = stored->source;
  src.text = stored->networkJson;
  src.params = paramsFromJson(stored->paramsJson, "network run " + std::to_string(id) + "'s ");
  src.backend = stored->backend;
  src.plan = planFromJson(stored->planJson, "network run " + std::to_string(id) + "'s plan: ");
  if (record) *record = std::move(*stored);
  return src;
}

NetworkSession::NetworkSession(Store& store, NetworkSource source, const BackendOptions& options)
    : m_store(store), m_source(std::move(source)), m_network(networkOf(m_source)) {
  // A new run's network must have no dead layer; a stored one resumes as it was stored.
  requireEveryLayerRead(m_network, m_source.source);
  m_graph = extractTasks(m_network);
  if (m_source.plan.mode != layout::TuningMode::Loop && m_source.backend != "cpu")
    throw InputError("tuning mode " + std::string(layout::tuningModeName(m_source.plan.mode)) +
                     ": layout templates exist for the cpu backend only so far (use --mode loop "
                     "on " +
                     m_source.backend + ")");
  if (m_source.plan.templates.winograd)
    requireOwnSpaceBackend(m_source.backend, m_network.name, SpaceTarget::Winograd);
  if (m_source.plan.templates.matvec)
    requireOwnSpaceBackend(m_source.backend, m_network.name, SpaceTarget::MatVec);
  // Only the CPU evicts operands; the GPUs time in their own way, and the stored plan says so.
  if (m_source.backend != "cpu") m_source.plan.coldWeights = m_source.plan.coldActivations = false;
  for (const Task& t : m_graph.tasks)
    m_setups.push_back(makeOperatorMeasurement(
        m_source.backend, taskDefinition(t, m_source.plan.mode, m_source.plan.templates),
        taskMeasuringOptions(options, m_source.plan, t)));
  build({});
  NetworkRecord rec;
  rec.name = m_network.name;
  rec.source = m_source.source;
  rec.networkJson = m_source.text;
  rec.paramsJson = nlohmann::json(m_source.params).dump();
  rec.backend = m_source.backend;
  rec.planJson = planToJson(m_source.plan).dump();
  // All or nothing: a kill in between must not leave a network without its task runs.
  store.inTransaction([&] {
    m_id = store.createNetwork(rec);
    // Held before the commit shows the run: after it, `net delete` saw a running run nobody held
    // (interrupted) and deleted it. The lock is a byte of a file beside the database, not a
    // statement on it, so it takes nothing from this transaction.
    m_locks.push_back(std::make_shared<RunLock>(store.path(), LockedKind::Network, m_id));
    for (std::size_t i = 0; i < m_graph.tasks.size(); ++i) {
      m_recorders[i]->createRuns();
      store.setNetworkTaskRun(m_id, static_cast<int>(i),
                              m_tuning->engine(i).runs().front().storeId);
    }
  });
}

NetworkSession::NetworkSession(Store& store, std::int64_t id, const BackendOptions& backend)
    : m_store(store), m_id(id) {
  // First: a network another process tunes is refused before anything of it is touched.
  m_locks.push_back(std::make_shared<RunLock>(store.path(), LockedKind::Network, id));
  NetworkRecord stored;
  m_source = storedNetworkSource(store, id, &stored);
  if (stored.status == RunStatus::Finished)
    throw InputError("network run " + std::to_string(id) + " has finished; nothing to resume");
  m_network = networkOf(m_source);
  m_graph = extractTasks(m_network);
  if (stored.taskRuns.size() != m_graph.tasks.size())
    throw InputError("network run " + std::to_string(id) + " stores " +
                     std::to_string(stored.taskRuns.size()) + " task runs for " +
                     std::to_string(m_graph.tasks.size()) + " tasks");
  std::vector<EngineOptions> options;
  std::vector<TaskRestore> restores;
  for (std::size_t i = 0; i < m_graph.tasks.size(); ++i) {
    // The stored trials are configurations of the task as it was extracted then.
    const Task& t = m_graph.tasks[i];
    ResumedRun r =
        resumeStoredRun(store, stored.taskRuns[i], taskMeasuringOptions(backend, m_source.plan, t),
                        ResumeAs::NetworkTask);
    // As a new run on this backend stores it (runDefinition: the GPU templates' space on cuda
    // and hip), or as runs stored before spaces had targets did.
    const OperatorDefinition def = taskDefinition(t, m_source.plan.mode, m_source.plan.templates);
    const std::string now = operatorDefinitionToJson(runDefinition(m_source.backend, def)).dump();
    const auto former = formerTaskDefinition(t, m_source.plan.mode, m_source.plan.templates);
    if (now != r.run.operatorJson && operatorDefinitionToJson(def).dump() != r.run.operatorJson &&
        !(former && operatorDefinitionToJson(runDefinition(m_source.backend, *former)).dump() ==
                        r.run.operatorJson))
      throw InputError("network run " + std::to_string(id) + ": task " + t.name +
                       " is no longer the operator its stored run " + std::to_string(r.run.id) +
                       " measured (was this run stored by another version?)");
    EngineOptions eo;
    eo.firstOrder = r.nextOrder;
    options.push_back(eo);
    restores.push_back({r.restored, r.secondsBefore, r.run.id});
    m_locks.push_back(r.lock);
    m_setups.push_back(std::move(r.setup));
  }
  build(options);
  std::vector<UnitRecord> previous;
  for (const NetworkUnitRow& u : store.networkUnits(id))
    previous.push_back({static_cast<std::size_t>(u.task), u.trials});
  m_units = static_cast<int>(previous.size());
  for (const UnitRecord& u : m_tuning->restore(restores, previous))
    store.appendNetworkUnit(id, {++m_units, static_cast<int>(u.task), u.trials});
  m_resumedAt = m_tuning->trials();
  // Marked only now: a resume refused part way (units that do not replay, a task that is no
  // longer its operator) leaves every run as it was stored.
  store.inTransaction([&] {
    for (std::int64_t run : stored.taskRuns) store.setRunStatus(run, RunStatus::Running);
    store.setNetworkStatus(id, RunStatus::Running, "");
  });
}

NetworkSession::~NetworkSession() = default;

void NetworkSession::build(const std::vector<EngineOptions>& options) {
  std::vector<TaskMeasurement> measurements;
  for (const MeasurementSetup& s : m_setups) measurements.push_back({s.space, s.measurer.get()});
  m_tuning =
      std::make_unique<NetworkTuning>(m_graph, std::move(measurements), m_source.plan, options);
  for (std::size_t i = 0; i < m_setups.size(); ++i) {
    const MeasurementSetup& m = m_setups[i];
    m_recorders.push_back(std::make_unique<StoreRecorder>(
        m_store, m_tuning->engine(i),
        RunContext{m.operatorName, m.operatorJson, m.backend, m.measurer->device(),
                   m.measurer->speedUnit(), m.measurer->label()}));
    m_tuning->engine(i).addObserver(*m_recorders.back());  // first: trials committed as they come
  }
}

bool NetworkSession::step() {
  const int before = m_tuning->trials();
  if (!m_tuning->step()) return false;
  const NetworkUnit& u = m_tuning->units().back();
  m_store.appendNetworkUnit(m_id, {++m_units, static_cast<int>(u.task), u.trials - before});
  return true;
}

void NetworkSession::markInterrupted() {
  m_store.inTransaction([&] {
    for (std::size_t i = 0; i < m_graph.tasks.size(); ++i) {
      // A task whose run failed keeps the error its recorder stored (the network went on
      // without it): `opevo show TASKRUN` says why. A resume clears it as the run goes on.
      const RunState& r = m_tuning->engine(i).runs().front();
      m_store.setRunStatus(r.storeId, RunStatus::Interrupted, EndReason::Stopped, r.message);
    }
    m_store.setNetworkStatus(m_id, RunStatus::Interrupted, "");
  });
}

std::vector<Config> NetworkSession::configs() const {
  std::vector<Config> out;
  const auto best = m_tuning->bestConfigs();
  for (std::size_t i = 0; i < m_graph.tasks.size(); ++i)
    out.push_back(best[i] ? *best[i] : untunedConfig(m_tuning->space(i)));
  return out;
}

std::optional<double> NetworkSession::sumOfTasksMs() const {
  const std::optional<double> s = m_tuning->estimateSeconds();
  return s ? std::optional<double>(*s * 1e3) : std::nullopt;
}

void NetworkSession::measureTaskReferences() {
  m_references.assign(m_setups.size(), std::nullopt);
  for (std::size_t i = 0; i < m_setups.size(); ++i) {
    m_references[i] = m_setups[i].measurer->reference();
    const auto& r = m_references[i];
    if (r && r->measurement.status == TrialStatus::Ok)
      m_recorders[i]->setReference(r->library, r->measurement.speed);
  }
}

std::optional<double> NetworkSession::sumOfReferencesMs() const {
  if (m_references.empty()) return std::nullopt;
  double sum = 0;
  for (std::size_t i = 0; i < m_references.size(); ++i) {
    const auto& r = m_references[i];
    if (!r || r->measurement.status != TrialStatus::Ok) return std::nullopt;
    sum += m_graph.tasks[i].weight() * r->measurement.medianMs;
  }
  return sum;
}

nlohmann::json NetworkSession::tasksJson() const {
  nlohmann::json tasks = nlohmann::json::array();
  const auto best = m_tuning->bestConfigs();
  const std::vector<Config> chosen = configs();
  for (std::size_t i = 0; i < m_graph.tasks.size(); ++i) {
    const std::optional<double> s = m_tuning->bestSeconds(i);
    tasks.push_back(
        {{"name", m_graph.tasks[i].name},
         {"weight", m_graph.tasks[i].weightCount()},
         {"trials", m_tuning->engine(i).runs().front().trials},
         {"best_ms", s ? nlohmann::json(*s * 1e3) : nlohmann::json(nullptr)},
         {"config", space(i).format(chosen[i])},
         {"tuned", best[i].has_value()},
         {"layout_constraint", layoutConstraintJson(m_graph, m_tuning->layoutConstraint(i))}});
    if (i < m_references.size()) {
      const auto& r = m_references[i];
      nlohmann::json& t = tasks.back();
      t["reference_library"] = r ? r->library : "";
      const bool ok = r && r->measurement.status == TrialStatus::Ok;
      t["reference_ms"] = ok ? nlohmann::json(r->measurement.medianMs) : nlohmann::json(nullptr);
      if (!ok)
        t["reference_error"] =
            r ? r->measurement.message : "the measurer gave no reference (its worker failed?)";
    }
  }
  return tasks;
}

nlohmann::json NetworkSession::curveJson() const {
  nlohmann::json curve = nlohmann::json::array();
  for (const NetworkUnit& u : m_tuning->units()) {
    curve.push_back({{"trials", u.trials},
                     {"task", m_graph.tasks[u.task].name},
                     {"estimate_ms", std::isfinite(u.objectiveSeconds)
                                         ? nlohmann::json(u.objectiveSeconds * 1e3)
                                         : nlohmann::json(nullptr)}});
    // The twins' closing round, so that `net runs ID` says which units it was (the stored
    // units are plain (task, trials) pairs).
    if (u.closing) {
      nlohmann::json from = nlohmann::json::array();
      for (std::size_t t : u.fromTwins) from.push_back(m_graph.tasks[t].name);
      curve.back()["closing_from"] = from;
    }
  }
  return curve;
}

nlohmann::json NetworkSession::resultJson(const EndToEnd* e) const {
  const NetworkTuningPlan& plan = m_source.plan;
  const std::optional<double> tasksMs = sumOfTasksMs();
  nlohmann::json j{
      {"id", m_id},
      {"network", m_network.name},
      {"params", m_network.params},
      {"backend", m_source.backend},
      {"algorithm", plan.algorithm},
      {"scheduler", schedulerKindName(plan.scheduler)},
      {"mode", layout::tuningModeName(plan.mode)},
      {"trials", m_tuning->trials()},
      {"weights", plan.coldWeights ? "cold" : "warm"},
      {"activations", plan.coldActivations ? "cold" : "warm"},
      {"pin_inputs", plan.inputPins},
      {"sum_of_tasks_ms", tasksMs ? nlohmann::json(*tasksMs) : nlohmann::json(nullptr)},
      {"tasks", tasksJson()},
      {"curve", curveJson()}};
  if (!m_references.empty()) {
    const auto sum = sumOfReferencesMs();
    j["sum_of_references_ms"] = sum ? nlohmann::json(*sum) : nlohmann::json(nullptr);
  }
  if (e) {
    j.update(endToEndJson(*e));
    if (!e->device.empty()) {
      j["device"] = e->device;
      j["compile_seconds"] = e->compileSeconds;
      // What a framework's network would take here: each task's library call (timed alone) and
      // the same fixed kernels.
      if (j.contains("sum_of_references_ms") && !j["sum_of_references_ms"].is_null())
        j["library_network_ms"] = j["sum_of_references_ms"].get<double>() + e->fixedMs;
    }
  } else {
    j["end_to_end_ms"] = nullptr;
    j["verified"] = false;
    j["reference"] = {{"name", nullptr},
                      {"ms", nullptr},
                      {"missing",
                       "not run end to end: `opevo net tune` runs networks end to end after tuning "
                       "on the cpu (tuned on this machine) and cuda backends"}};
  }
  return j;
}

std::string NetworkSession::writeNetworkFile(const TempDir& dir) const {
  // The reference reads the network as it was stored (a file may have changed since).
  const std::string file = dir.path() + "/network.json";
  std::ofstream out(file);
  out << m_source.text;
  out.flush();
  if (!out) throw SystemError("cannot write " + file + ": " + std::strerror(errno));
  return file;
}

ReferenceTimes NetworkSession::timeReference(const EndToEndOptions& options) const {
  TempDir dir("opevo-net");
  return net::timeReference(writeNetworkFile(dir), m_source.params, options);
}

EndToEnd NetworkSession::runEndToEnd(const EndToEndOptions& options,
                                     std::optional<ReferenceTimes> reference) const {
  if (m_source.backend == "cuda")
    return runEndToEndCuda(m_network, m_graph, configs(), options, m_source.plan.templates);
  return runOnCpu(configs(), options, std::move(reference));
}

EndToEnd NetworkSession::runOnCpu(const std::vector<Config>& configs,
                                  const EndToEndOptions& options,
                                  std::optional<ReferenceTimes> reference) const {
  TempDir dir("opevo-net");
  return net::runEndToEnd(writeNetworkFile(dir), m_source.params, m_network, m_graph, configs,
                          m_source.plan.mode, options, std::move(reference),
                          m_source.plan.templates);
}

void NetworkSession::finish(const nlohmann::json& result) {
  m_store.inTransaction([&] {
    for (std::size_t i = 0; i < m_graph.tasks.size(); ++i) {
      const RunState& r = m_tuning->engine(i).runs().front();
      m_store.setRunStatus(r.storeId, RunStatus::Finished, EndReason::Trials, r.message);
    }
    m_store.setNetworkStatus(m_id, RunStatus::Finished, result.dump());
  });
}

Conclusion NetworkSession::conclude(const ConcludeOptions& options) {
  auto announce = [&](ConcludeStep step) {
    if (options.onStep) options.onStep(step);
  };
  const std::string& backend = m_source.backend;
  // On the GPU backends each task against its vendor library is the comparison (libtorch runs
  // on the CPU only); on the CPU it is asked for.
  if (backend != "cpu" || options.taskReferences) {
    announce(ConcludeStep::TaskReferences);
    measureTaskReferences();
  }
  Conclusion c;
  bool untunedIsTuned = false;  // every task's chosen configuration is its untuned one
  std::string untunedError, mixedError;
  std::vector<Config> untuned, mixed;
  std::vector<std::string> mixedUntuned;  // the tasks the mixed network switched to untuned
  std::int64_t untunedRunBy = 0;          // another run's untuned network, shared (untunedRuns)
  NetworkChoice choice = NetworkChoice::Tuned;
  if (options.endToEndHere && backend == "cpu") {
    announce(ConcludeStep::EndToEndOnCpu);
    c.endToEnd = runEndToEnd(options.endToEnd, options.reference);
    if (options.untunedToo) {
      const std::vector<Config> tuned = configs();
      untuned = untunedConfigs(m_graph, m_source.plan.mode, m_source.plan.templates);
      untunedIsTuned = tuned == untuned;
      const UntunedRun* earlier = nullptr;
      if (options.untunedRuns)
        for (const UntunedRun& r : *options.untunedRuns)
          if (r.mode == m_source.plan.mode && r.templates == m_source.plan.templates &&
              r.configs == untuned)
            earlier = &r;
      if (!untunedIsTuned && earlier) {
        c.untuned = earlier->run;
        untunedRunBy = earlier->networkId;
      } else if (!untunedIsTuned) {
        announce(ConcludeStep::UntunedOnCpu);
        // A comparison only: its failure is named in the result, the tuned run still stored.
        try {
          c.untuned = runOnCpu(untuned, options.endToEnd, c.endToEnd->reference);
          if (options.untunedRuns)
            options.untunedRuns->push_back(
                {m_source.plan.mode, m_source.plan.templates, untuned, *c.untuned, m_id});
        } catch (const std::exception& x) {
          untunedError = x.what();
        }
      }
      if (c.untuned) {
        mixed = fasterPerTask(m_graph, tuned, *c.endToEnd, untuned, *c.untuned, &mixedUntuned);
        if (mixed != tuned && mixed != untuned) {
          announce(ConcludeStep::MixedOnCpu);
          try {
            c.mixed = runOnCpu(mixed, options.endToEnd, c.endToEnd->reference);
          } catch (const std::exception& x) {
            mixedError = x.what();
          }
        }
        choice = chooseNetwork(*c.endToEnd, c.mixed ? &*c.mixed : nullptr, &*c.untuned);
      }
    }
  } else if (options.endToEndHere && backend == "cuda") {
    nlohmann::json tuned = resultJson(nullptr);
    tuned["reference"]["missing"] = "the end-to-end run on the device did not finish";
    finish(tuned);
    announce(ConcludeStep::EndToEndOnDevice);
    try {
      c.endToEnd = runEndToEnd(options.endToEnd);
    } catch (const std::exception& x) {
      c.endToEndError = x.what();
    }
  }
  c.result = resultJson(c.endToEnd ? &*c.endToEnd : nullptr);
  if (c.untuned) c.result["untuned"] = endToEndJson(*c.untuned);
  if (untunedRunBy) c.result["untuned_run_by"] = untunedRunBy;
  if (untunedIsTuned) c.result["untuned_is_tuned"] = true;
  if (!untunedError.empty()) c.result["untuned_error"] = untunedError;
  if (c.mixed) c.result["mixed"] = endToEndJson(*c.mixed);
  if (c.mixed || !mixedError.empty()) c.result["mixed_untuned_tasks"] = mixedUntuned;
  if (!mixedError.empty()) c.result["mixed_error"] = mixedError;
  if (c.untuned) {
    c.result["chosen"] = networkChoiceName(choice);
    if (choice != NetworkChoice::Tuned) {
      const std::vector<Config>& set = choice == NetworkChoice::Mixed ? mixed : untuned;
      nlohmann::json texts = nlohmann::json::array();
      // Each in its own space: a resumed run's tuned configurations can be former ones.
      for (std::size_t i = 0; i < set.size(); ++i)
        texts.push_back(formatTaskConfig(m_graph.tasks[i], m_source.plan.mode,
                                         m_source.plan.templates, set[i]));
      c.result["chosen_configs"] = std::move(texts);
    }
  }
  if (!c.endToEndError.empty()) {
    c.result["end_to_end_error"] = c.endToEndError;
    c.result["reference"]["missing"] =
        "the end-to-end run on the device failed: " + c.endToEndError;
  }
  finish(c.result);
  return c;
}

}  // namespace opevo::net
