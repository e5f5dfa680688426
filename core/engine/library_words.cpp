#include "engine/library_words.h"

#include <cstdio>
#include <cstdlib>

namespace opevo {

namespace {
constexpr const char* kWhichTimedIt = ", which timed it ";
constexpr const char* kFasterThan = "x faster than ";
constexpr const char* kTheFastestDoingEvery = ", the fastest doing every multiply-add";
constexpr const char* kHowChosen = ", the ";
}  // namespace

std::string everyMultiplyAddWords(const EveryMultiplyAdd& direct) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2f", direct.slowerBy);
  return kWhichTimedIt + std::string(ratio) + kFasterThan + direct.name + kTheFastestDoingEvery;
}

std::optional<EveryMultiplyAdd> everyMultiplyAddIn(const std::string& description) {
  const std::size_t at = description.find(kWhichTimedIt);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t ratioAt = at + std::string(kWhichTimedIt).size();
  const std::size_t ratioEnd = description.find(kFasterThan, ratioAt);
  const std::size_t nameAt = ratioEnd + std::string(kFasterThan).size();
  const std::size_t nameEnd =
      ratioEnd == std::string::npos ? ratioEnd : description.find(kTheFastestDoingEvery, nameAt);
  if (nameEnd == std::string::npos || nameEnd == nameAt) return std::nullopt;
  const std::string ratio = description.substr(ratioAt, ratioEnd - ratioAt);
  char* end = nullptr;
  const double slowerBy = std::strtod(ratio.c_str(), &end);
  if (ratio.empty() || end != ratio.c_str() + ratio.size() || !(slowerBy >= 1)) return std::nullopt;
  return EveryMultiplyAdd{slowerBy, description.substr(nameAt, nameEnd - nameAt)};
}

std::string withoutHowChosen(const std::string& description) {
  const std::size_t at = description.find(kHowChosen);
  if (at == std::string::npos) return description;
  // The library's file, in parentheses at the end, stays: it says which library ran.
  const std::size_t file = description.rfind(" (");
  if (file == std::string::npos || file < at || description.back() != ')')
    return description.substr(0, at);
  return description.substr(0, at) + description.substr(file);
}

}  // namespace opevo
