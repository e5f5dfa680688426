#include "agent/trial_handlers.h"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "backends/cluster_backend.h"
#include "common/error.h"
#include "ops/operator_json.h"
#include "replay/replay_measurer.h"

namespace opevo::agent {
namespace {

cluster::TrialHandler::Answer failed(TrialStatus status, const std::string& why) {
  cluster::TrialHandler::Answer a;
  a.measurement.status = status;
  a.measurement.message = why;
  return a;
}

// A request this agent cannot read: the trial fails, the agent is fine.
class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace

ReplayHandler::ReplayHandler(std::shared_ptr<const ReplayDataset> dataset, int delayMs)
    : m_dataset(std::move(dataset)), m_delayMs(delayMs) {}

cluster::TrialHandler::Answer ReplayHandler::handle(const cluster::TrialRequest& r) {
  if (r.type == cluster::RequestType::Reference)
    return failed(TrialStatus::LaunchError, "a replay has no reference library");
  Config config;
  try {
    config = m_dataset->space.parse(r.config);
  } catch (const std::exception& e) {
    return failed(TrialStatus::LaunchError,
                  "the configuration is not one of the dataset's: " + std::string(e.what()));
  }
  if (m_delayMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(m_delayMs));
  ReplayMeasurer measurer(m_dataset);
  return {measurer.measure({config}).front(), {}};
}

DeviceHandler::DeviceHandler(std::string backend) : m_backend(std::move(backend)) {}

MeasurementSetup& DeviceHandler::setupFor(const cluster::TrialRequest& r) {
  const std::string key = r.task.value("operator", nlohmann::json()).dump() +
                          r.task.value("options", nlohmann::json()).dump();
  if (key == m_key && m_setup.measurer) return m_setup;
  m_key.clear();
  m_setup = {};  // its worker quits before the next one starts
  if (!r.task.contains("operator"))
    throw BadRequest("trial " + r.trialId + ": its task names no operator");
  OperatorDefinition def;
  try {
    def = operatorDefinitionFromJson(r.task["operator"], "trial " + r.trialId + "'s operator");
  } catch (const std::exception& e) {
    throw BadRequest(e.what());
  }
  // Measured in exactly the space the coordinator sent (its run may predate a parameter).
  m_setup = makeOperatorMeasurement(
      m_backend, def, measuringOptionsFromJson(r.task.value("options", nlohmann::json())),
      SpaceChoice::AsGiven);
  m_key = key;
  return m_setup;
}

cluster::TrialHandler::Answer DeviceHandler::handle(const cluster::TrialRequest& r) {
  const std::string backend = r.task["backend"].get<std::string>();
  if (backend != m_backend)
    return failed(TrialStatus::LaunchError,
                  "sent to a " + m_backend + " agent for the " + backend + " backend");
  Config config;
  MeasurementSetup* s = nullptr;
  try {
    s = &setupFor(r);
  } catch (const BadRequest& e) {
    // The request's fault (an operator or configuration this agent cannot read): this trial fails.
    return failed(TrialStatus::LaunchError, e.what());
  } catch (const std::exception& e) {
    // The measurer cannot be built here (a broken compiler, a device that went away): the
    // machine's fault, which the master must not record as the configuration's.
    cluster::TrialHandler::Answer a = failed(TrialStatus::LaunchError, e.what());
    a.agentFault = true;
    return a;
  }
  try {
    if (r.type == cluster::RequestType::Measure) config = s->space->parse(r.config);
  } catch (const std::exception& e) {
    return failed(TrialStatus::LaunchError,
                  "the configuration is not one of the operator's space: " + std::string(e.what()));
  }
  try {
    if (r.type == cluster::RequestType::Reference) {
      const auto ref = s->measurer->reference();
      if (!ref) return failed(TrialStatus::LaunchError, "no reference library for this operator");
      return {ref->measurement, ref->library};
    }
    return {s->measurer->measure({config}).front(), {}};
  } catch (const std::exception& e) {
    // A measurer that throws rather than failing the trial stops a local run: the same here.
    cluster::TrialHandler::Answer a = failed(TrialStatus::LaunchError, e.what());
    a.agentFault = true;
    return a;
  }
}

}  // namespace opevo::agent
