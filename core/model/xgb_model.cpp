#include "model/xgb_model.h"

#include <xgboost/c_api.h>

#include <cstdio>
#include <limits>
#include <utility>

namespace opevo {
namespace {

void check(int status, const char* call) {
  if (status != 0) throw XgbError(std::string("XGBoost ") + call + " failed: " + XGBGetLastError());
}

// Owns one DMatrixHandle for the length of a training call.
class DMatrix {
 public:
  DMatrix(const FeatureMatrix& m, int nthread) {
    // NaN marks a missing value; features are always finite, so nothing is treated as missing.
    check(XGDMatrixCreateFromMat_omp(m.data(), m.rows(), m.cols(),
                                     std::numeric_limits<float>::quiet_NaN(), &m_handle, nthread),
          "XGDMatrixCreateFromMat");
  }
  ~DMatrix() {
    if (m_handle) XGDMatrixFree(m_handle);
  }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  DMatrixHandle get() const { return m_handle; }

 private:
  DMatrixHandle m_handle = nullptr;
};

std::string number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

}  // namespace

void FeatureMatrix::addRow(const float* values, std::size_t n) {
  if (n != m_cols) throw std::invalid_argument("feature row has the wrong length");
  m_data.insert(m_data.end(), values, values + n);
}

XgbModel::XgbModel(XgbParams params) : m_params(std::move(params)) {}

XgbModel::~XgbModel() {
  release();
}

XgbModel::XgbModel(XgbModel&& other) noexcept
    : m_params(std::move(other.m_params)),
      m_booster(std::exchange(other.m_booster, nullptr)),
      m_cols(other.m_cols) {}

XgbModel& XgbModel::operator=(XgbModel&& other) noexcept {
  if (this != &other) {
    release();
    m_params = std::move(other.m_params);
    m_booster = std::exchange(other.m_booster, nullptr);
    m_cols = other.m_cols;
  }
  return *this;
}

void XgbModel::release() noexcept {
  if (m_booster) XGBoosterFree(m_booster);
  m_booster = nullptr;
}

void XgbModel::train(const FeatureMatrix& features, const std::vector<float>& labels) {
  if (features.rows() == 0) throw std::invalid_argument("XgbModel::train: no training rows");
  if (labels.size() != features.rows())
    throw std::invalid_argument("XgbModel::train: " + std::to_string(labels.size()) +
                                " labels for " + std::to_string(features.rows()) + " rows");
  release();
  DMatrix train(features, m_params.nthread);
  check(XGDMatrixSetFloatInfo(train.get(), "label", labels.data(), labels.size()),
        "XGDMatrixSetFloatInfo(label)");
  BoosterHandle booster = nullptr;
  DMatrixHandle cache[] = {train.get()};
  check(XGBoosterCreate(cache, 1, &booster), "XGBoosterCreate");
  m_booster = booster;  // owned from here on, so an exception below frees it
  m_cols = features.cols();
  const std::pair<const char*, std::string> settings[] = {
      {"objective", m_params.objective},
      {"max_depth", std::to_string(m_params.maxDepth)},
      {"eta", number(m_params.eta)},
      {"min_child_weight", number(m_params.minChildWeight)},
      {"nthread", std::to_string(m_params.nthread)},
      {"seed", std::to_string(m_params.seed)},
      // hist: the fastest CPU method for a few thousand dense rows, and deterministic.
      {"tree_method", "hist"},
      {"verbosity", "0"},
  };
  try {
    for (const auto& [name, value] : settings)
      check(XGBoosterSetParam(booster, name, value.c_str()), "XGBoosterSetParam");
    for (int round = 0; round < m_params.rounds; ++round)
      check(XGBoosterUpdateOneIter(booster, round, train.get()), "XGBoosterUpdateOneIter");
  } catch (...) {
    release();
    throw;
  }
}

std::vector<float> XgbModel::predict(const FeatureMatrix& features) const {
  std::vector<float> out;
  predictInto(features, out);
  return out;
}

void XgbModel::predictInto(const FeatureMatrix& features, std::vector<float>& out) const {
  if (!m_booster) throw std::logic_error("XgbModel::predict before train");
  if (features.cols() != m_cols)
    throw std::invalid_argument("XgbModel::predict: " + std::to_string(features.cols()) +
                                " features, trained on " + std::to_string(m_cols));
  out.clear();
  if (features.rows() == 0) return;
  // In-place prediction reads our buffer directly: no DMatrix to build per call, which matters
  // when simulated annealing predicts 128 rows hundreds of times per batch.
  char pointer[32];
  std::snprintf(pointer, sizeof pointer, "%llu",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(features.data())));
  const std::string array = std::string("{\"data\": [") + pointer + ", true], \"shape\": [" +
                            std::to_string(features.rows()) + ", " +
                            std::to_string(features.cols()) +
                            "], \"typestr\": \"<f4\", \"version\": 3}";
  static const char* config =
      "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, "
      "\"strict_shape\": false, \"missing\": NaN, \"cache_id\": 0}";
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* result = nullptr;
  check(
      XGBoosterPredictFromDense(m_booster, array.c_str(), config, nullptr, &shape, &dims, &result),
      "XGBoosterPredictFromDense");
  bst_ulong total = 1;
  for (bst_ulong i = 0; i < dims; ++i) total *= shape[i];
  if (total != features.rows())
    throw XgbError("XGBoost returned " + std::to_string(total) + " predictions for " +
                   std::to_string(features.rows()) + " rows");
  out.assign(result, result + total);
}

}  // namespace opevo
