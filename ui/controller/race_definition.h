#pragma once

#include <QStringList>
#include <vector>

#include "ops/operator_json.h"
#include "ui/controller/race_data.h"
#include "ui/controller/race_types.h"

namespace opevo::ui {

// The operator a device race measures, as it tunes it: the direct template's loops or layouts
// (spec.mode), or the loops of the template spec.target names. Throws InputError as loadOperator
// and the spaces do (an operator file that is wrong, a convolution Winograd's template does not
// take).
OperatorDefinition raceDefinition(const RaceSpec& spec);

// Every space the race tunes: spec's own (mode and target), then spec.alsoIn's.
std::vector<RaceSpace> racedSpaces(const RaceSpec& spec);
// spec for one of its spaces alone.
RaceSpec inSpace(RaceSpec spec, const RaceSpace& space);
// The names of the race's curves, algorithm by algorithm in each space in turn (the engine
// worker's algorithm indices): the algorithms' own for one space, else with their space's, as
// History names stored runs of several spaces ("opevo (loop)", "opevo (joint)": curveNames).
QStringList raceCurveNames(const RaceSpec& spec);
// What runs each of those curves is: the algorithm's own name and its space, as a stored run of it
// reads (layout::runModeName: "loop", "joint", "winograd", "replay").
std::vector<RaceData::CurveRuns> raceCurveRuns(const RaceSpec& spec);
// Why a race across spaces, new or resumed, is refused through the cluster (each space's measurer
// would open its own session on the agents), and what to do, as the form, the engine and a resume
// say it: whole sentences, each translated as one.
enum class AcrossSpacesRefusal { Form, Race, Resume };
QString acrossSpacesThroughTheCluster(AcrossSpacesRefusal refusal);

}  // namespace opevo::ui
