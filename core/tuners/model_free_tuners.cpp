#include "tuners/random_tuner.h"
#include "tuners/registry.h"

namespace opevo {

void registerModelFreeTuners(TunerRegistry& r) {
  r.add({"random", "Random search without replacement",
         [] { return TunerSettings{}; },
         [](const SearchSpace& space, TunerSettings s, std::uint64_t seed) {
           return std::make_unique<RandomTuner>(space, std::move(s), seed);
         }});
}

}  // namespace opevo
