#pragma once

#include <map>
#include <string>
#include <vector>

namespace opevo {

// A tuner's settings: every one named, documented, bounded and changeable from the CLI
// (--set name=value) and the GUI. Values are numbers; integers are checked as such.
struct SettingInfo {
  std::string name;
  double value = 0;
  double min = 0, max = 0;
  bool integer = false;
  bool minExclusive = false, maxExclusive = false;
  std::string help;
};

class TunerSettings {
 public:
  void declare(std::string name, double value, double min, double max, bool integer,
               std::string help, bool minExclusive = false, bool maxExclusive = false);
  // Throws InputError naming the tuner, the setting and the accepted range.
  void set(const std::string& tuner, const std::string& name, const std::string& text);
  void apply(const std::string& tuner, const std::map<std::string, std::string>& values);
  double get(const std::string& name) const;
  int getInt(const std::string& name) const { return static_cast<int>(get(name)); }
  const std::vector<SettingInfo>& all() const { return m_settings; }
  // "lambda=8 rho=8 q=0.5"
  std::string summary() const;

 private:
  std::vector<SettingInfo> m_settings;
};

}  // namespace opevo
