#include "ui/controller/kas_details.h"

#include <QObject>
#include <exception>
#include <nlohmann/json.hpp>

#include "kas/conv_targets.h"
#include "kas/kas_codegen.h"
#include "kas/kas_json.h"
#include "kas/kas_search.h"
#include "kas/kernel_fit.h"
#include "net/network_json.h"
#include "ui/charts/kas_dag_layout.h"

namespace opevo::ui {
namespace {

// A tuned layer's count of trials timed by fewer runs than asked, or failed; empty when none was.
std::string notesOf(const nlohmann::json& layer) {
  const auto notes = layer.find("notes");
  return notes != layer.end() && notes->is_string() ? notes->get<std::string>() : std::string();
}

std::string sourceOf(const kas::MicroDag& dag, const KasCandidateRow& c,
                     const std::string& settingsJson) {
  const auto settings = kas::KasSearchSettings::fromJson(nlohmann::json::parse(settingsJson));
  const std::vector<kas::ConvTarget> targets =
      kas::replaceableConvolutions(net::loadNetwork(settings.network));
  std::string why;
  const auto fit = kas::fitKernel(dag, {targets}, {c.groups}, settings.budget, &why);
  if (!fit)
    throw std::runtime_error("its sizes cannot be solved for " + settings.network +
                             " with G=" + std::to_string(c.groups) + ": " + why);
  // The first tuned layer and its best schedule; before tuning, the first layer's start schedule.
  std::size_t layer = 0;
  std::string schedule, timing = "not tuned yet: the start schedule";
  const auto tuning = nlohmann::json::parse(c.tuningJson, nullptr, false);
  if (tuning.is_array() && !tuning.empty() && tuning[0].is_object()) {
    const auto& t = tuning[0];
    const std::string name = t.value("layer", std::string());
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (targets[i].name == name) layer = i;
    schedule = t.value("schedule", std::string());
    char text[320];
    std::snprintf(text, sizeof text, "tuned over %d trials: %.4f ms,\n// against %.4f ms for %s",
                  t.value("trials", 0), t.value("ms", 0.0), t.value("conv_ms", 0.0),
                  t.value("conv", std::string("the convolution")).c_str());
    timing = text;
    // How many trials were timed by fewer runs than asked, or failed, the header says too.
    if (const std::string notes = notesOf(t); !notes.empty()) timing += "\n// " + notes;
    // The other tuned layers' figures and notes: the source is the first's, but a layer timed by
    // one run alone or whose trials failed is as much the kernel's as the first.
    if (tuning.size() > 1) timing += "\n// the other tuned layers:";
    for (std::size_t i = 1; i < tuning.size(); ++i) {
      const auto& other = tuning[i];
      if (!other.is_object()) continue;
      std::snprintf(text, sizeof text, "\n// %s: %.4f ms against %.4f ms, over %d trials",
                    other.value("layer", std::string("?")).c_str(), other.value("ms", 0.0),
                    other.value("conv_ms", 0.0), other.value("trials", 0));
      timing += text;
      if (const std::string notes = notesOf(other); !notes.empty()) timing += "; " + notes;
    }
  }
  const kas::ConvTarget& target = targets.at(layer);
  const SearchSpace space = kas::kasScheduleSpace(target.height, target.width);
  const Config config =
      schedule.empty() ? space.startPoint().value_or(space.first()) : space.parse(schedule);
  const std::string header =
      "// Kernel #" + std::to_string(c.seq) + " (" + c.hash + "), G=" + std::to_string(c.groups) +
      ", at " + target.name + " (x" + std::to_string(target.count) +
      "): C=" + std::to_string(target.channels) + ", H=" + std::to_string(target.height) +
      ", W=" + std::to_string(target.width) + "\n// schedule " + space.format(config) + "\n// " +
      timing + "\n\n";
  return header + kas::generateKasCpuKernel(dag, fit->solutions[0].layers.at(layer).shapes,
                                            kas::kasSchedule(space, config));
}

}  // namespace

KasDetails kasDetails(const KasCandidateRow& c, const std::string& settingsJson,
                      const QFont& font) {
  KasDetails d;
  d.seq = c.seq;
  kas::MicroDag dag;
  try {
    dag = kas::kernelFromJson(nlohmann::json::parse(c.kernelJson),
                              "kernel #" + std::to_string(c.seq));
  } catch (const std::exception& e) {
    d.error = QObject::tr("Kernel #%1 cannot be read: %2").arg(c.seq).arg(e.what());
    return d;
  }
  try {
    d.layout = layoutKasDag(dag, font);
  } catch (const std::exception& e) {
    d.error = QObject::tr("Kernel #%1 cannot be drawn: %2").arg(c.seq).arg(e.what());
  }
  try {
    d.source = QString::fromStdString(sourceOf(dag, c, settingsJson));
  } catch (const std::exception& e) {
    d.error = QObject::tr("No source for kernel #%1: %2").arg(c.seq).arg(e.what());
  }
  return d;
}

}  // namespace opevo::ui
