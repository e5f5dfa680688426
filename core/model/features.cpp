#include "model/features.h"

#include <array>
#include <cmath>
#include <map>

#include "space/discrete_param.h"
#include "space/factor_param.h"

namespace opevo {

namespace {

bool positiveInteger(double v) {
  return v >= 1 && v < 9.0e15 && std::floor(v) == v;
}

// Times 2 divides a positive integer, capped where alignment stops mattering to hardware.
double alignment(double v) {
  if (!positiveInteger(v)) return 0;
  auto n = static_cast<std::uint64_t>(v);
  int twos = 0;
  while (n % 2 == 0 && twos < 12) n /= 2, ++twos;
  return twos;
}

// Worth a feature only where it says more than the value itself: integers, not all powers of two.
bool alignmentInformative(const DiscreteParam& p) {
  bool allPowers = true;
  for (double v : p.values()) {
    if (!positiveInteger(v)) return false;
    const auto n = static_cast<std::uint64_t>(v);
    allPowers = allPowers && (n & (n - 1)) == 0;
  }
  return !allPowers;
}

}  // namespace

FeatureExtractor::FeatureExtractor(const SearchSpace& space) : m_space(&space) {
  const Config first = space.first();
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const Parameter& p = space.param(i);
    const std::size_t n = p.features(first[i]).size();
    for (std::size_t k = 0; k < n; ++k) {
      // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) on "[" + std::to_string(k).
      std::string name = p.name();
      if (n > 1) name.append("[").append(std::to_string(k)).append("]");
      m_names.push_back(std::move(name));
    }
  }
  m_rawCount = m_names.size();

  for (std::size_t i = 0; i < space.dims(); ++i) {
    if (space.param(i).kind() != ParamKind::Discrete) continue;
    if (!alignmentInformative(static_cast<const DiscreteParam&>(space.param(i)))) continue;
    m_alignParams.push_back(i);
    m_names.push_back("align2 " + space.param(i).name());
  }

  std::map<int, std::vector<std::size_t>> byParts;  // parts -> slots, in space order
  for (std::size_t i = 0; i < space.dims(); ++i) {
    if (space.param(i).kind() != ParamKind::Factor) continue;
    const auto& f = static_cast<const FactorParam&>(space.param(i));
    const std::size_t slot = m_factorParams.size();
    m_factorParams.push_back(i);
    m_firstLog.push_back(m_logCount);
    m_logCount += static_cast<std::size_t>(f.parts());
    byParts[f.parts()].push_back(slot);
    for (int length = 1; length < std::max(f.parts(), 2); ++length) {
      for (int begin = 0; begin + length <= f.parts(); ++begin) {
        LogTerm t;
        for (int k = begin; k < begin + length; ++k) t.push_back(m_firstLog[slot] + k);
        m_terms.push_back(std::move(t));
        m_names.push_back("log2 " + f.name() + "[" + std::to_string(begin) +
                          (length > 1 ? ".." + std::to_string(begin + length - 1) : "") + "]");
      }
    }
  }

  for (const auto& [parts, slots] : byParts) {
    if (slots.size() < 2) continue;
    std::string group;
    for (std::size_t slot : slots)
      group += (group.empty() ? "" : ",") + space.param(m_factorParams[slot]).name();
    for (int k = 0; k < parts; ++k) {
      LogTerm t;
      for (std::size_t slot : slots) t.push_back(m_firstLog[slot] + k);
      m_terms.push_back(std::move(t));
      m_names.push_back("log2 prod[" + std::to_string(k) + "](" + group + ")");
    }
    for (int begin = 1; begin + 2 <= parts; ++begin) {
      LogTerm t;
      for (std::size_t slot : slots)
        for (int k = begin; k < parts; ++k) t.push_back(m_firstLog[slot] + k);
      m_terms.push_back(std::move(t));
      m_names.push_back("log2 prod[" + std::to_string(begin) + ".." + std::to_string(parts - 1) +
                        "](" + group + ")");
    }
  }
}

void FeatureExtractor::append(const Config& c, std::vector<float>& out) const {
  // A malformed Config must not be read past its end or silently shift later features.
  if (c.size() != m_space->dims())
    throw std::invalid_argument("configuration does not match the feature layout");
  const std::size_t start = out.size();
  // Leaves out as it was (a matrix keeps whole rows only).
  auto refuse = [&] {
    out.resize(start);
    throw std::invalid_argument("configuration does not match the feature layout");
  };
  for (std::size_t i = 0; i < m_space->dims(); ++i)
    for (double x : m_space->param(i).features(c[i])) out.push_back(static_cast<float>(x));
  if (out.size() - start != m_rawCount) refuse();
  for (std::size_t i : m_alignParams)
    out.push_back(static_cast<float>(
        alignment(static_cast<const DiscreteParam&>(m_space->param(i)).value(c[i]))));
  // Features are taken tens of thousands of times per annealing plan: no allocation for the
  // logs of an ordinary space.
  std::array<double, 64> onStack;
  std::vector<double> onHeap;
  double* logs = onStack.data();
  if (m_logCount > onStack.size()) {
    onHeap.resize(m_logCount);
    logs = onHeap.data();
  }
  std::size_t k = 0;
  for (std::size_t slot = 0; slot < m_factorParams.size(); ++slot) {
    const Vertex& v = c[m_factorParams[slot]];
    const std::size_t end = slot + 1 < m_firstLog.size() ? m_firstLog[slot + 1] : m_logCount;
    if (v.size() != end - k) refuse();
    for (std::int64_t factor : v) logs[k++] = std::log2(static_cast<double>(factor));
  }
  for (const LogTerm& t : m_terms) {
    double sum = 0;
    for (std::size_t index : t) sum += logs[index];
    out.push_back(static_cast<float>(sum));
  }
}

std::vector<float> FeatureExtractor::operator()(const Config& c) const {
  std::vector<float> out;
  out.reserve(size());
  append(c, out);
  return out;
}

void FeatureExtractor::addRow(const Config& c, FeatureMatrix& m) const {
  if (m.cols() != size()) throw std::invalid_argument("feature matrix has the wrong width");
  append(c, m.raw());
}

FeatureMatrix FeatureExtractor::matrix(const std::vector<Config>& configs) const {
  FeatureMatrix m(size());
  m.reserveRows(configs.size());
  for (const Config& c : configs) addRow(c, m);
  return m;
}

}  // namespace opevo
