#include "ui/controller/network_types.h"

#include <QCoreApplication>
#include <cmath>

#include "net/closing_round_text.h"

namespace opevo::ui {

QString torchLegend(net::TorchForm form, const std::string& unknownForm) {
  // A form a later version stored is named as it was stored.
  if (!unknownForm.empty())
    return QCoreApplication::translate("NetworkWorker", "libtorch %1")
        .arg(QString::fromStdString(unknownForm));
  switch (form) {
    case net::TorchForm::Eager:
      return QCoreApplication::translate("NetworkWorker", "libtorch");
    case net::TorchForm::Frozen:
      return QCoreApplication::translate("NetworkWorker", "libtorch frozen");
  }
  return {};
}

QString contenderLabel(const net::NetworkTuningPlan& p) {
  return QString::fromStdString(p.algorithm + " / " + std::string(schedulerKindName(p.scheduler)) +
                                " / " + std::string(layout::tuningModeName(p.mode)) +
                                (p.templates.any() ? " + " + p.templates.name() : ""));
}

std::vector<std::pair<layout::TuningMode, net::TaskTemplates>> NetworkSpec::tunings() const {
  // Every contender takes the matrix-vector box; the boxes are what was asked, taken as given
  // (net::chosenTaskTemplates with a template named).
  std::vector<std::pair<layout::TuningMode, net::TaskTemplates>> out;
  for (layout::TuningMode mode : modes)
    out.emplace_back(mode, net::TaskTemplates{false, matvecTemplate()});
  // Beside layout tasks on the CPU (as `opevo net tune --template winograd` there), loop tasks
  // on the GPUs.
  if (winograd)
    out.emplace_back(backend == "cpu" ? layout::TuningMode::Joint : layout::TuningMode::Loop,
                     net::TaskTemplates{true, matvecTemplate()});
  return out;
}

QString contenderTunes(const net::NetworkTuningPlan& p, const std::string& planNote) {
  const auto tr = [](const char* text) {
    return QCoreApplication::translate("NetworksPage", text);
  };
  QStringList parts;
  if (p.templates.winograd)
    parts << tr("the stride-1 convolutions on Winograd's template where it pays");
  if (p.templates.matvec) parts << tr("the dense layers on the matrix-vector template");
  const bool others = !parts.isEmpty();
  switch (p.mode) {
    case layout::TuningMode::Loop:
      parts << (others ? tr("the other tasks' loops over plain layouts")
                       : tr("every task's loops over plain layouts"));
      break;
    case layout::TuningMode::Joint:
      parts << (others ? tr("the other tasks' layouts and loops (ALT)")
                       : tr("every task's layouts and loops (ALT)"));
      break;
    case layout::TuningMode::JointNoPropagation:
      parts << (others ? tr("the other tasks' layouts and loops, each tensor converted (ALT-WP)")
                       : tr("every task's layouts and loops, each tensor converted (ALT-WP)"));
      break;
  }
  const QString last = parts.takeLast();
  const QString what = parts.isEmpty() ? last : tr("%1 and %2").arg(parts.join(", "), last);
  QString text = tr("Tunes %1, as net tune --mode %2 --template %3")
                     .arg(what, QString::fromUtf8(layout::tuningModeName(p.mode).data()),
                          QString::fromStdString(p.templates.name()));
  // A run tuned with 1x1 inputs pinned (net tune --pin-inputs; the window does not start one).
  if (p.inputPins) text += QStringLiteral(" --pin-inputs");
  if (planNote.empty()) return text;
  QString note = QString::fromStdString(planNote);
  note[0] = note[0].toUpper();  // a sentence of its own here; `net tune` prints it after "note: "
  return text + QStringLiteral(". ") + note + QLatin1Char('.');
}

QString tuningModeWords(layout::TuningMode mode) {
  switch (mode) {
    case layout::TuningMode::Loop:
      return QCoreApplication::translate("NetworkSetupPanel", "loops");
    case layout::TuningMode::Joint:
      return QCoreApplication::translate("NetworkSetupPanel", "layouts+loops");
    case layout::TuningMode::JointNoPropagation:
      return QCoreApplication::translate("NetworkSetupPanel", "no propagation");
  }
  return QString::fromUtf8(layout::tuningModeName(mode).data());
}

NetworkSnapshot storedSnapshot(const net::StoredNetworkRun& run) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const NetworkRecord& r = run.record;
  NetworkSnapshot s;
  s.network = QString::fromStdString(r.name);
  s.networkText = QString::fromStdString(r.networkJson);
  s.source = r.source;
  s.params = net::paramsFromJson(r.paramsJson, "network run " + std::to_string(r.id) + "'s ");
  ContenderState c;
  c.label = contenderLabel(run.plan);
  c.tunes = contenderTunes(run.plan, run.planNote);
  c.networkId = r.id;
  for (const net::StoredNetworkUnit& u : run.units) {
    c.curveTrials.push_back(u.trials);
    c.curveEstimateMs.push_back(u.estimateMs.value_or(kNaN));
    c.unitTask.push_back(u.task);
    c.unitTrials.push_back(u.unitTrials);
    c.unitClosingFrom.push_back(u.closingFrom);
  }
  for (const net::StoredNetworkTask& t : run.tasks) {
    s.taskNames << QString::fromStdString(t.name);
    c.taskTrials.push_back(t.trials);
    c.taskBestMs.push_back(t.bestMs.value_or(kNaN));
  }
  c.trials = run.trials;
  c.budget = run.plan.trials;
  c.done = run.status == RunStatus::Finished;
  c.sumOfLibrariesMs = run.sumOfReferencesMs.value_or(kNaN);
  c.libraryNetworkMs = run.libraryNetworkMs.value_or(kNaN);
  c.endToEndError = QString::fromStdString(run.endToEndError);
  c.comparison = run.comparison;
  if (const auto& e = run.endToEnd) {
    c.endToEndMs = e->ms;
    c.verified = e->verified;
    c.device = QString::fromStdString(e->device);
    c.checked = outputChecked(c.device, e->referenceMs.has_value());
    if (!c.checked) c.referenceMissing = QString::fromStdString(e->referenceMissing);
    for (const auto& [name, ms] : e->steps) c.stepMs.emplace_back(QString::fromStdString(name), ms);
    // The line the curves were held against, as the race drew it: libtorch on the CPU, the
    // tasks' libraries with the same fixed kernels on a GPU.
    if (e->referenceMs) {
      s.referenceMs = e->referenceMs;
      s.referenceLegend = torchLegend(e->referenceForm, e->unknownReferenceForm);
      s.referenceName = QCoreApplication::translate("NetworkWorker", "%1, %2 threads")
                            .arg(QString::fromStdString(e->referenceName))
                            .arg(e->referenceThreads);
    }
  }
  if (!s.referenceMs && std::isfinite(c.libraryNetworkMs)) {
    s.referenceMs = c.libraryNetworkMs;
    s.referenceLegend = QCoreApplication::translate("NetworkWorker", "libraries");
    s.referenceName = QCoreApplication::translate(
        "NetworkWorker", "the tasks' libraries (each timed alone) + fixed kernels");
  }
  s.contenders.push_back(std::move(c));
  return s;
}

std::vector<std::string> closingFrom(const net::NetworkUnit& unit, const net::TaskGraph& graph) {
  std::vector<std::string> from;
  if (!unit.closing) return from;
  for (const std::size_t t : unit.fromTwins)
    from.push_back(t < graph.tasks.size() ? graph.tasks[t].name : "task " + std::to_string(t));
  return from;
}

QString closingRoundText(const ContenderState& c, const QStringList& taskNames) {
  std::vector<net::ClosingUnit> units;
  for (std::size_t u = 0; u < c.unitClosingFrom.size() && u < c.unitTask.size(); ++u) {
    const int t = c.unitTask[u];
    units.push_back(
        {t >= 0 && t < taskNames.size() ? taskNames[t].toStdString() : "task " + std::to_string(t),
         c.unitClosingFrom[u]});
  }
  return QString::fromStdString(net::closingRoundText(units));
}

std::vector<NetworkTaskInfo> networkTaskInfo(const net::Network& n, const net::TaskGraph& g) {
  std::vector<NetworkTaskInfo> out;
  for (const net::Task& t : g.tasks) {
    NetworkTaskInfo info;
    info.name = QString::fromStdString(t.name);
    const net::Layer* layer = n.find(t.occurrences.front().layer);
    info.kind = QString::fromUtf8(layerKindName(layer->kind).data());
    info.shape = QString::fromStdString(net::formatShape(layer->shape));
    info.weight = t.weight();
    // The task's operator with its fused epilogue, as `opevo net show`'s task table counts it (the
    // layer's own figure left the bias and relu out: 140.6M against the CLI's 140.94).
    info.gflops = t.op.flops() / 1e9;
    for (const net::Occurrence& o : t.occurrences) {
      info.layers << QString::fromStdString(o.layer);
      for (const std::string& f : o.fused) info.layers << QString::fromStdString(f);
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace opevo::ui
