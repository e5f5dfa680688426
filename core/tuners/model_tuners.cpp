#include "tuners/registry.h"

namespace opevo {

// The XGBoost-based tuners (AutoTVM, Ansor-style) are added here by core/model and its tuners.
void registerModelTuners(TunerRegistry&) {}

}  // namespace opevo
