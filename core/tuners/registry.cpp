#include "tuners/registry.h"

#include "common/error.h"

namespace opevo {

const TunerInfo* TunerRegistry::find(const std::string& name) const {
  for (const TunerInfo& t : m_tuners)
    if (t.name == name) return &t;
  return nullptr;
}

const TunerInfo& TunerRegistry::defaultTuner() const {
  for (const TunerInfo& t : m_tuners)
    if (t.isDefault) return t;
  return m_tuners.front();
}

const TunerRegistry& tunerRegistry() {
  static const TunerRegistry registry = [] {
    TunerRegistry r;
    registerModelFreeTuners(r);
    registerModelTuners(r);
    return r;
  }();
  return registry;
}

std::unique_ptr<Tuner> makeTuner(const std::string& algorithm, const SearchSpace& space,
                                 std::uint64_t seed,
                                 const std::map<std::string, std::string>& settings) {
  const TunerInfo* info = tunerRegistry().find(algorithm);
  if (!info) {
    std::string known;
    for (const TunerInfo& t : tunerRegistry().all()) known += (known.empty() ? "" : ", ") + t.name;
    throw InputError("unknown algorithm '" + algorithm + "' (known: " + known + ")");
  }
  TunerSettings s = info->defaults();
  s.apply(algorithm, settings);
  return info->make(space, std::move(s), seed);
}

std::string settingOf(const std::string& name, const std::string& algorithm) {
  const auto dot = name.find('.');
  if (dot == std::string::npos) return name;
  const std::string prefix = name.substr(0, dot);
  if (prefix == algorithm) return name.substr(dot + 1);
  if (tunerRegistry().find(prefix))
    throw InputError("setting '" + name + "' belongs to " + prefix + ", but the algorithm is " +
                     algorithm);
  return name;
}

}  // namespace opevo
