#include "ui/controller/race_definition.h"

#include <QCoreApplication>

#include "common/error.h"
#include "layout/tuning_mode.h"

namespace opevo::ui {

OperatorDefinition raceDefinition(const RaceSpec& spec) {
  // Read for the race's mode, as `opevo tune --mode` reads a file: its space overrides are checked
  // against that mode's template (a joint race of a Conv2D file overriding unroll_c was refused
  // with the loop template's list). Where the file's own template is not the race's (a Winograd
  // file raced as loops or layouts), or it cannot be read in that mode, the target goes first:
  // the file's template gives way to the direct one the loop and joint modes tune (as `tune
  // --template direct`), and a joint space is built on the common one.
  try {
    OperatorDefinition def = loadOperator(spec.operatorRef, spec.mode);
    if (def.target == spec.target) return def;
  } catch (const InputError&) {
    // Said below, where the template given way to says it again if it still stands.
  }
  return withTuningMode(withSpaceTarget(loadOperator(spec.operatorRef), spec.target), spec.mode);
}

std::vector<RaceSpace> racedSpaces(const RaceSpec& spec) {
  std::vector<RaceSpace> spaces{{spec.mode, spec.target}};
  spaces.insert(spaces.end(), spec.alsoIn.begin(), spec.alsoIn.end());
  return spaces;
}

RaceSpec inSpace(RaceSpec spec, const RaceSpace& space) {
  spec.mode = space.mode;
  spec.target = space.target;
  spec.alsoIn.clear();
  return spec;
}

QString acrossSpacesThroughTheCluster(AcrossSpacesRefusal refusal) {
  switch (refusal) {
    case AcrossSpacesRefusal::Form:
      return QCoreApplication::translate(
          "RaceDefinition",
          "A race across spaces measures on this machine: race one space at a time through the "
          "cluster, or untick it.");
    case AcrossSpacesRefusal::Race:
      return QCoreApplication::translate(
          "RaceDefinition",
          "A race across spaces measures on this machine: race one space at a time through the "
          "cluster.");
    case AcrossSpacesRefusal::Resume:
      break;
  }
  return QCoreApplication::translate("RaceDefinition",
                                     "A race across spaces measures on this machine: untick "
                                     "\"Through the cluster's agents\" to resume it");
}

QStringList raceCurveNames(const RaceSpec& spec) {
  QStringList names;
  for (const RaceSpace& space : racedSpaces(spec))
    for (const AlgorithmChoice& a : spec.algorithms)
      names << (spec.alsoIn.empty()
                    ? QString::fromStdString(a.name)
                    : QStringLiteral("%1 (%2)").arg(
                          QString::fromStdString(a.name),
                          QString::fromStdString(layout::spaceModeName(space.mode, space.target))));
  return names;
}

std::vector<RaceData::CurveRuns> raceCurveRuns(const RaceSpec& spec) {
  std::vector<RaceData::CurveRuns> runs;
  for (const RaceSpace& space : racedSpaces(spec))
    for (const AlgorithmChoice& a : spec.algorithms)
      runs.push_back(
          {QString::fromStdString(a.name),
           QString::fromStdString(spec.dataset ? std::string(layout::kReplayModeName)
                                               : layout::spaceModeName(space.mode, space.target))});
  return runs;
}

}  // namespace opevo::ui
