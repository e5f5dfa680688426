#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "space/parameter.h"

namespace opevo {

// One vertex per parameter, in the space's parameter order.
using Config = std::vector<Vertex>;

struct ConfigHash {
  std::size_t operator()(const Config& c) const noexcept;
};

struct ExplicitPoints {
  std::vector<Config> list;
  std::unordered_set<Config, ConfigHash> set;
};

// A known restriction of the space (e.g. threads per block <= 1024). Tuners never propose a
// configuration that breaks one; it is not a trial.
struct Constraint {
  std::string description;
  std::function<bool(const Config&)> holds;
};

// The Cartesian product of parameters, with optional constraints.
class SearchSpace {
 public:
  void add(ParameterPtr parameter);
  // Replaces parameter i by one of the same name whose values are some of its values (a pinned
  // factorization: a network task whose output layout an earlier task chose). Constraints still
  // read it at i. A start point or value-when-absent it no longer holds is dropped. Throws
  // std::invalid_argument for another name or an index out of range.
  void replace(std::size_t i, ParameterPtr parameter);
  void addConstraint(std::string description, std::function<bool(const Config&)> holds);

  // For spaces that are a list of known points (a measured dataset): adds the constraint "is one
  // of these points" and lets randomValid() draw from the list directly, however sparse the
  // list is in the Cartesian product.
  void setExplicitPoints(std::vector<Config> points, std::string description);
  const std::vector<Config>* explicitPoints() const { return m_points ? &m_points->list : nullptr; }

  // A configuration known to be a good place to start (for a template, the blocking a vendor
  // library would choose): tuners that take one try it first. Throws std::invalid_argument when
  // it is not a valid configuration of the space.
  void setStartPoint(Config start);
  const std::optional<Config>& startPoint() const { return m_start; }

  // For a parameter added to a template after configurations of it were stored: the value that
  // means what those configurations meant (how kernels behaved before the parameter existed).
  // parse() gives it to a configuration that lacks the parameter, so runs stored earlier still
  // resume. Throws std::invalid_argument for an unknown parameter or a value outside it.
  void setValueWhenAbsent(std::string_view name, Vertex value);
  // The value parse() gives parameter i when a configuration lacks it, or nullptr.
  const Vertex* valueWhenAbsent(std::size_t i) const;

  std::size_t dims() const { return m_params.size(); }
  const Parameter& param(std::size_t i) const { return *m_params[i]; }
  const ParameterPtr& paramPtr(std::size_t i) const { return m_params[i]; }
  // Index of the parameter with that name, or -1.
  int indexOf(std::string_view name) const;
  const std::vector<Constraint>& constraints() const { return m_constraints; }

  // Size of the product before constraints.
  Count size() const;

  bool contains(const Config& c) const;
  // True when every constraint holds; otherwise the first broken one's description in *broken.
  bool satisfies(const Config& c, std::string* broken = nullptr) const;

  // "tile_n=8,2,4,8; tile_m=..." in parameter order.
  std::string format(const Config& c) const;
  // Accepts format()'s output; throws InputError naming the parameter and the expected form, or
  // naming a parameter given twice.
  Config parse(std::string_view text) const;

  Config random(Rng& rng) const;
  // Uniform over the points that satisfy every constraint, by rejection; nullopt when none is
  // found in maxTries draws.
  std::optional<Config> randomValid(Rng& rng, int maxTries = 100000) const;
  Config first() const;

  // Numbers a cost model sees: every parameter's features, concatenated.
  std::vector<double> features(const Config& c) const;

 private:
  std::vector<ParameterPtr> m_params;
  std::vector<Constraint> m_constraints;
  std::shared_ptr<const ExplicitPoints> m_points;
  std::optional<Config> m_start;
  std::map<std::size_t, Vertex> m_whenAbsent;
};

}  // namespace opevo
