#include "tuners/ansor_tuner.h"
#include "tuners/autotvm_tuner.h"
#include "tuners/opevo_model_tuner.h"
#include "tuners/registry.h"

namespace opevo {

void registerModelTuners(TunerRegistry& r) {
  r.add({"opevo-m",
         "OpEvo guided by a cost model: many q-walk children, an XGBoost model measures only the "
         "most promising",
         &OpEvoModelTuner::defaultSettings,
         [](const SearchSpace& space, TunerSettings s, std::uint64_t seed) {
           return std::make_unique<OpEvoModelTuner>(space, std::move(s), seed);
         },
         /*isDefault=*/true});
  r.add({"autotvm",
         "AutoTVM: XGBoost rank model, parallel simulated annealing, diversity-aware batches",
         &AutoTvmTuner::defaultSettings,
         [](const SearchSpace& space, TunerSettings s, std::uint64_t seed) {
           return std::make_unique<AutoTvmTuner>(space, std::move(s), seed);
         }});
  r.add({"ansor", "Ansor-style evolutionary search on an XGBoost cost model",
         &AnsorTuner::defaultSettings,
         [](const SearchSpace& space, TunerSettings s, std::uint64_t seed) {
           return std::make_unique<AnsorTuner>(space, std::move(s), seed);
         }});
}

}  // namespace opevo
