#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace opevo {

// A failure reported by XGBoost; what() carries XGBGetLastError's text and the call that failed.
class XgbError : public std::runtime_error {
 public:
  explicit XgbError(const std::string& message) : std::runtime_error(message) {}
};

// Row-major dense matrix of model inputs: rows() configurations by cols() features.
class FeatureMatrix {
 public:
  FeatureMatrix() = default;
  explicit FeatureMatrix(std::size_t cols) : m_cols(cols) {}

  std::size_t rows() const { return m_cols == 0 ? 0 : m_data.size() / m_cols; }
  std::size_t cols() const { return m_cols; }
  const float* data() const { return m_data.data(); }
  const float* row(std::size_t i) const { return m_data.data() + i * m_cols; }
  // Appends one row; its length must equal cols().
  void addRow(const float* values, std::size_t n);
  void clear() { m_data.clear(); }
  void reserveRows(std::size_t n) { m_data.reserve(n * m_cols); }
  std::vector<float>& raw() { return m_data; }

 private:
  std::size_t m_cols = 0;
  std::vector<float> m_data;
};

struct XgbParams {
  // "rank:pairwise" (AutoTVM: only the order of configurations matters) or "reg:squarederror"
  // (Ansor: labels are throughputs normalised to the best).
  std::string objective = "rank:pairwise";
  int maxDepth = 3;
  double eta = 0.3;
  // Fixed, never "all cores": histogram sums are accumulated per thread block, so the thread
  // count is part of what makes a model reproducible.
  int nthread = 1;
  std::uint64_t seed = 0;
  int rounds = 100;
  double minChildWeight = 1;
};

// Gradient-boosted trees over the XGBoost C API. Each train() builds a fresh booster from all the
// data it is given: XGBoost has no incremental training, and the tuners retrain from scratch
// exactly as AutoTVM and Ansor do.
class XgbModel {
 public:
  explicit XgbModel(XgbParams params = {});
  ~XgbModel();
  XgbModel(XgbModel&& other) noexcept;
  XgbModel& operator=(XgbModel&& other) noexcept;
  XgbModel(const XgbModel&) = delete;
  XgbModel& operator=(const XgbModel&) = delete;

  const XgbParams& params() const { return m_params; }
  void setParams(const XgbParams& params) { m_params = params; }

  // Throws std::invalid_argument when the label count does not match the rows or there are no
  // rows, XgbError when XGBoost refuses (e.g. an unknown objective).
  void train(const FeatureMatrix& features, const std::vector<float>& labels);
  // One score per row; higher means predicted faster. Throws std::logic_error before train().
  std::vector<float> predict(const FeatureMatrix& features) const;
  // predict() into a caller's buffer, so hot loops do not allocate.
  void predictInto(const FeatureMatrix& features, std::vector<float>& out) const;

  bool trained() const { return m_booster != nullptr; }
  std::size_t featureCount() const { return m_cols; }

 private:
  void release() noexcept;

  XgbParams m_params;
  void* m_booster = nullptr;  // BoosterHandle; void* keeps xgboost/c_api.h out of this header
  std::size_t m_cols = 0;
};

}  // namespace opevo
