#pragma once

#include <string>

#include "space/search_space.h"
#include "store/records.h"

namespace opevo {

// The configuration `trial` stores, in `space`. One that does not read (a damaged database) is
// an InputError naming `run` ("run 1 of runs.db") and the trial, said as the database's: it was
// refused as if the user had typed it ("configuration item 'garbage' has no '='"), naming nothing.
Config storedConfig(const SearchSpace& space, const TrialRow& trial, const std::string& run);

}  // namespace opevo
