#pragma once

#include "common/enum_names.h"

namespace opevo {

// How the engine picks the next run to step, among the runs that have measured the fewest trials
// (so a race's runs advance together whatever their batch sizes): in turn, or at random from the
// schedule's seed (with equal batches, each round steps every run once, in a new order). A race
// keeps its schedule in the store (RunRecord::raceSchedule), so a resumed race goes on under it.
enum class Schedule { RoundRobin, Shuffle };
const EnumNames<Schedule, 2>& scheduleNames();

}  // namespace opevo
