#include "tuners/settings.h"

#include <cmath>

#include "common/error.h"
#include "space/text.h"

namespace opevo {

void TunerSettings::declare(std::string name, double value, double min, double max, bool integer,
                            std::string help, bool minExclusive, bool maxExclusive) {
  m_settings.push_back(
      {std::move(name), value, min, max, integer, minExclusive, maxExclusive, std::move(help)});
}

void TunerSettings::set(const std::string& tuner, const std::string& name, const std::string& text) {
  for (SettingInfo& s : m_settings) {
    if (s.name != name) continue;
    double value = 0;
    const bool number = parseNumber(text, value);
    const bool inRange = number && (s.minExclusive ? value > s.min : value >= s.min) &&
                         (s.maxExclusive ? value < s.max : value <= s.max);
    if (!number)
      throw InputError(tuner + " setting " + name + "=" + text + " is not a number (" + s.help +
                       ")");
    if (!inRange || (s.integer && std::floor(value) != value)) {
      throw InputError(tuner + " setting " + name + "=" + text + " is out of range (accepted: " +
                       (s.integer ? "an integer" : "a number") + " in " +
                       (s.minExclusive ? "(" : "[") + formatNumber(s.min) + ", " +
                       formatNumber(s.max) + (s.maxExclusive ? ")" : "]") + ": " + s.help + ")");
    }
    s.value = value;
    return;
  }
  std::string known;
  for (const SettingInfo& s : m_settings) known += (known.empty() ? "" : ", ") + s.name;
  throw InputError(tuner + " has no setting '" + name + "' (its settings: " +
                   (known.empty() ? std::string("none") : known) + ")");
}

void TunerSettings::apply(const std::string& tuner,
                          const std::map<std::string, std::string>& values) {
  for (const auto& [name, text] : values) set(tuner, name, text);
}

double TunerSettings::get(const std::string& name) const {
  for (const SettingInfo& s : m_settings)
    if (s.name == name) return s.value;
  throw std::logic_error("undeclared tuner setting " + name);
}

std::string TunerSettings::summary() const {
  std::string s;
  for (const SettingInfo& info : m_settings)
    s += (s.empty() ? "" : " ") + info.name + "=" + formatNumber(info.value);
  return s;
}

}  // namespace opevo
