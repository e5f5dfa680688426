#include "engine/schedule.h"

namespace opevo {

const EnumNames<Schedule, 2>& scheduleNames() {
  static const EnumNames<Schedule, 2> names{
      {{{Schedule::RoundRobin, "round-robin"}, {Schedule::Shuffle, "shuffle"}}}};
  return names;
}

}  // namespace opevo
