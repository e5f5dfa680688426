#include "engine/library_words.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace opevo {

namespace {
constexpr const char* kWhichTimedIt = ", which timed it ";
constexpr const char* kFasterThan = "x faster than ";
constexpr const char* kTheFastestDoingEvery = ", the fastest doing every multiply-add";
constexpr const char* kHowChosen = ", the ";
constexpr const char* kLibraryFile = " (lib";
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
  // from_chars, not strtod: the window runs in the user's locale, whose decimal point may be a
  // comma, and the words are written with a point.
  const char* first = description.data() + ratioAt;
  const char* last = description.data() + ratioEnd;
  double slowerBy = 0;
  const auto [end, error] = std::from_chars(first, last, slowerBy);
  if (first == last || error != std::errc() || end != last || !std::isfinite(slowerBy) ||
      !(slowerBy >= 1))
    return std::nullopt;
  return EveryMultiplyAdd{slowerBy, description.substr(nameAt, nameEnd - nameAt)};
}

std::string withoutHowChosen(const std::string& description) {
  const std::size_t at = description.find(kHowChosen);
  if (at == std::string::npos) return description;
  // The library's file (" (libcudnn.so.9)") and whatever follows it (" + epilogue kernel", the
  // fused operators' reference) stay: they say what ran.
  const std::size_t file = description.find(kLibraryFile, at);
  return description.substr(0, at) + (file == std::string::npos ? "" : description.substr(file));
}

}  // namespace opevo
