#include "store/stored_config.h"

#include "common/error.h"

namespace opevo {

Config storedConfig(const SearchSpace& space, const TrialRow& trial, const std::string& run) {
  try {
    return space.parse(trial.config);
  } catch (const InputError& e) {
    throw InputError(run + ": the stored configuration of its trial " + std::to_string(trial.seq) +
                     " does not read (" + e.what() + "; is the database damaged?)");
  }
}

}  // namespace opevo
