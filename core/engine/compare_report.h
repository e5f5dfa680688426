#pragma once

#include <string>

#include "engine/compare.h"

namespace opevo {

// DIR/trials.csv (every trial), DIR/summary.json (the summary rows). Creates DIR. Throws
// InputError naming the path when it cannot be written.
void writeCompareFiles(const std::string& dir, const SearchSpace& space, const CompareResult& result,
                       const std::string& measurerLabel, const std::string& speedUnit);

// The summary as a Markdown table, one row per (algorithm, budget).
std::string summaryMarkdown(const CompareResult& result, const std::string& speedUnit);

}  // namespace opevo
