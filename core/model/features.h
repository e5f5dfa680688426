#pragma once

#include <string>
#include <vector>

#include "model/xgb_model.h"
#include "space/search_space.h"

namespace opevo {

// The numbers a cost model sees for a configuration of one search space, always in the same
// order and count:
//   - SearchSpace::features (raw factors, permutation indices, discrete values, choice indices);
//   - per factor parameter, log2 of each factor and of each product of 2..nu-1 adjacent factors
//     (adjacent tile levels multiply into what the hardware sees: e.g. vthread*thread*inner is
//     a block's tile);
//   - per group of factor parameters with the same number of parts (e.g. tile_n and tile_m, both
//     [block, vthread, thread, inner]), log2 of the product across the group at each position
//     (blocks in the grid, threads per block, registers per thread) and of each suffix of two
//     or more positions (a block's output tile, a thread's register tile).
//   - per discrete parameter of positive integers that are not all powers of two, the value's
//     alignment: how many times 2 divides it (a block of 128 threads and one of 144 sit side by
//     side in value, but only the first fills whole warps and aligned memory transactions).
// Trees split one feature at a time, so they cannot form a product of two features themselves:
// that is why the products are features. The logs keep equal ratios equally far apart.
class FeatureExtractor {
 public:
  explicit FeatureExtractor(const SearchSpace& space);

  std::size_t size() const { return m_names.size(); }
  // One readable name per feature, e.g. "log2 tile_n[1..2]" or "log2 prod[2](tile_n,tile_m)".
  const std::vector<std::string>& names() const { return m_names; }

  std::vector<float> operator()(const Config& c) const;
  void append(const Config& c, std::vector<float>& out) const;
  void addRow(const Config& c, FeatureMatrix& m) const;
  FeatureMatrix matrix(const std::vector<Config>& configs) const;

 private:
  // A feature that is a sum of log2 factors, as indices into the list of every factor parameter's
  // factors in space order (each log is taken once per configuration, then summed).
  using LogTerm = std::vector<std::size_t>;

  const SearchSpace* m_space;
  std::size_t m_rawCount = 0;
  std::vector<std::size_t> m_factorParams;  // space index of each factor parameter (its slot)
  std::vector<std::size_t> m_firstLog;      // per slot: index of its first factor in that list
  std::size_t m_logCount = 0;
  std::vector<LogTerm> m_terms;
  std::vector<std::size_t> m_alignParams;  // space index of each discrete parameter aligned
  std::vector<std::string> m_names;
};

}  // namespace opevo
