// The replay datasets as shipped: counts from the datasets' README, the space they span, the T4
// and Kernel Tuner versions of one run agreeing, and the measurer answering from the file.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "io/replay_dataset.h"
#include "replay/replay_measurer.h"
#include "space/discrete_param.h"

namespace opevo {
namespace {

std::string dataset(const std::string& relative) {
  return std::string(OPEVO_DATASETS_DIR) + "/" + relative;
}

// Loaded once per file: the suite reads each big file a single time.
const ReplayDataset& loaded(const std::string& relative) {
  static std::map<std::string, std::shared_ptr<const ReplayDataset>> cache;
  auto& slot = cache[relative];
  if (!slot) slot = std::make_shared<const ReplayDataset>(loadReplayDataset(dataset(relative)));
  return *slot;
}

std::map<TrialStatus, std::size_t> statusCounts(const ReplayDataset& ds) {
  std::map<TrialStatus, std::size_t> counts;
  for (const auto& [c, m] : ds.table) ++counts[m.status];
  return counts;
}

// Values of a configuration by parameter name, for comparing files whose orders differ.
std::map<std::string, std::string> named(const SearchSpace& space, const Config& c) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < space.dims(); ++i)
    out[space.param(i).name()] = space.param(i).format(c[i]);
  return out;
}

void expectConsistent(const ReplayDataset& ds) {
  ASSERT_NE(ds.space.explicitPoints(), nullptr);
  EXPECT_EQ(ds.space.explicitPoints()->size(), ds.table.size());
  EXPECT_TRUE(ds.complete);
  double best = 0;
  for (const auto& [c, m] : ds.table) {
    EXPECT_TRUE(ds.space.contains(c));
    EXPECT_TRUE(ds.space.satisfies(c));
    if (m.status == TrialStatus::Ok) {
      EXPECT_GT(m.speed, 0);
      EXPECT_GT(m.medianMs, 0);
      EXPECT_FALSE(m.timesMs.empty());
      EXPECT_TRUE(m.message.empty());
      best = std::max(best, m.speed);
    } else {
      EXPECT_EQ(m.speed, 0);
      EXPECT_FALSE(m.message.empty());
    }
  }
  EXPECT_EQ(ds.bestSpeed, best);
  EXPECT_EQ(ds.table.at(ds.bestConfig).speed, best);
  Rng rng(7);
  for (int i = 0; i < 50; ++i) {
    const auto c = ds.space.randomValid(rng);
    ASSERT_TRUE(c.has_value());
    EXPECT_TRUE(ds.table.count(*c));
  }
}

TEST(ReplayDataset, ConvolutionCache) {
  const ReplayDataset& ds = loaded("convolution_milo/A100.json.gz");
  EXPECT_EQ(ds.format, DatasetFormat::KernelTunerCache);
  EXPECT_EQ(ds.deviceName, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(ds.kernelName, "convolution_kernel");
  EXPECT_EQ(ds.speedUnit, "GFLOP/s");
  EXPECT_NE(ds.label.find("real measurements on NVIDIA A100-PCIE-40GB"), std::string::npos);
  ASSERT_EQ(ds.space.dims(), 10u);
  EXPECT_EQ(ds.space.param(0).name(), "block_size_x");  // tune_params_keys order
  for (std::size_t i = 0; i < ds.space.dims(); ++i)
    EXPECT_EQ(ds.space.param(i).kind(), ParamKind::Discrete);
  EXPECT_EQ(ds.space.size(), Count(16 * 5 * 4 * 4 * 2 * 2 * 2));
  EXPECT_EQ(ds.table.size(), 4362u);
  EXPECT_EQ(ds.failedCount(), 161u);
  auto counts = statusCounts(ds);
  EXPECT_EQ(counts[TrialStatus::RuntimeFault], 155u);
  EXPECT_EQ(counts[TrialStatus::CompileError], 6u);
  EXPECT_EQ(counts[TrialStatus::Ok], 4201u);
  for (const auto& [c, m] : ds.table) {
    if (m.status == TrialStatus::RuntimeFault) {
      EXPECT_EQ(m.message, "RuntimeFailedConfig");
    } else if (m.status == TrialStatus::CompileError) {
      EXPECT_EQ(m.message, "CompilationFailedConfig");
    }
  }
  EXPECT_TRUE(ds.notes.empty());
  expectConsistent(ds);
}

TEST(ReplayDataset, DedispersionCache) {
  const ReplayDataset& ds = loaded("dedispersion_milo/MI250X.json.gz");
  EXPECT_EQ(ds.table.size(), 11130u);
  EXPECT_EQ(ds.failedCount(), 0u);
  EXPECT_EQ(ds.speedUnit, "GB/s");
  EXPECT_EQ(ds.kernelName, "dedispersion_kernel");
  // The file's device_name is "": the label must not pretend to know the device.
  EXPECT_TRUE(ds.deviceName.empty());
  EXPECT_NE(ds.label.find("unnamed device"), std::string::npos);
  ASSERT_EQ(ds.notes.size(), 1u);
  EXPECT_NE(ds.notes[0].find("device"), std::string::npos);
  expectConsistent(ds);
}

// The README's constraints of the CLBlast Xgemm space, on the parameters' values.
bool gemmConstraintsHold(const SearchSpace& space, const Config& c) {
  auto v = [&](const char* name) {
    const int i = space.indexOf(name);
    return static_cast<long>(static_cast<const DiscreteParam&>(space.param(i)).value(c[i]));
  };
  const long mwg = v("MWG"), nwg = v("NWG"), kwg = v("KWG"), mdimc = v("MDIMC"), ndimc = v("NDIMC"),
             mdima = v("MDIMA"), ndimb = v("NDIMB"), kwi = v("KWI"), vwm = v("VWM"), vwn = v("VWN");
  return kwg % kwi == 0 && mwg % (mdimc * vwm) == 0 && nwg % (ndimc * vwn) == 0 &&
         mwg % (mdima * vwm) == 0 && nwg % (ndimb * vwn) == 0 &&
         kwg % ((mdimc * ndimc) / mdima) == 0 && kwg % ((mdimc * ndimc) / ndimb) == 0;
}

TEST(ReplayDataset, GemmSpaceIsTheConstrainedProduct) {
  const ReplayDataset& ds = loaded("gemm/RTX_2080_Ti.json.gz");
  EXPECT_EQ(ds.deviceName, "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(ds.kernelName, "Xgemm");
  EXPECT_EQ(ds.speedUnit, "GFLOP/s");
  EXPECT_EQ(ds.table.size(), 17956u);
  EXPECT_EQ(ds.failedCount(), 0u);
  ASSERT_EQ(ds.space.size(), Count(82944));
  // Every point of the Cartesian product, in mixed radix: exactly the file's configurations
  // satisfy the space, and they are exactly those meeting the README's constraints.
  std::size_t valid = 0, agree = 0;
  Config c(ds.space.dims(), Vertex{0});
  for (std::uint64_t n = 0; n < 82944; ++n) {
    std::uint64_t rest = n;
    for (std::size_t i = 0; i < ds.space.dims(); ++i) {
      const std::uint64_t size = ds.space.param(i).size().as64();
      c[i] = {static_cast<std::int64_t>(rest % size)};
      rest /= size;
    }
    const bool satisfies = ds.space.satisfies(c);
    valid += satisfies;
    agree += satisfies == gemmConstraintsHold(ds.space, c);
  }
  EXPECT_EQ(valid, 17956u);
  EXPECT_EQ(agree, 82944u);
  expectConsistent(ds);
}

TEST(ReplayDataset, T4MatchesTheKernelTunerCache) {
  const ReplayDataset& t4 = loaded("convolution_milo/A100_T4.json.gz");
  const ReplayDataset& kt = loaded("convolution_milo/A100.json.gz");
  EXPECT_EQ(t4.format, DatasetFormat::T4);
  EXPECT_EQ(t4.speedUnit, "1/ms");  // the T4 file has only the time
  EXPECT_EQ(t4.table.size(), 4362u);
  EXPECT_EQ(t4.space.param(0).name(), "block_size_x");  // file order, not alphabetical
  EXPECT_EQ(t4.space.size(), kt.space.size());
  expectConsistent(t4);

  std::map<std::map<std::string, std::string>, const Measurement*> byName;
  for (const auto& [c, m] : t4.table) byName[named(t4.space, c)] = &m;
  ASSERT_EQ(byName.size(), kt.table.size());
  for (const auto& [c, expected] : kt.table) {
    const auto it = byName.find(named(kt.space, c));
    ASSERT_NE(it, byName.end()) << kt.space.format(c);
    const Measurement& got = *it->second;
    ASSERT_EQ(got.status, expected.status) << kt.space.format(c);
    EXPECT_EQ(got.message, expected.message);
    EXPECT_DOUBLE_EQ(got.compileMs, expected.compileMs);
    if (expected.status != TrialStatus::Ok) continue;
    EXPECT_EQ(got.timesMs, expected.timesMs);
    EXPECT_DOUBLE_EQ(got.medianMs, expected.medianMs);
    // T4 speed is 1/time with time the mean of the runs, as Kernel Tuner's "time" is.
    double mean = 0;
    for (double t : expected.timesMs) mean += t / static_cast<double>(expected.timesMs.size());
    EXPECT_NEAR(1.0 / got.speed, mean, 1e-9 * mean);
  }
  // The fastest by time is the fastest by GFLOP/s: both files name the same best configuration.
  EXPECT_EQ(named(t4.space, t4.bestConfig), named(kt.space, kt.bestConfig));
}

// A T4 file of ours that names its tuner is one run's record: its best is the run's, not an
// optimum (dataset and compare once called its 300 trials "all of them measured").
TEST(ReplayDataset, ATuningRunsRecordIsNotACompleteSpace) {
  const ReplayDataset ds = loadReplayDataset(
      std::string(OPEVO_SOURCE_DIR) +
      "/resources/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz");
  EXPECT_EQ(ds.algorithm, "opevo-m");
  EXPECT_FALSE(ds.complete);
  ASSERT_FALSE(ds.notes.empty());
  EXPECT_NE(ds.notes.back().find("the record of a tuning run (opevo-m, 300 trials)"),
            std::string::npos)
      << ds.notes.back();
}

TEST(ReplayMeasurer, AnswersFromTheFile) {
  auto ds = std::make_shared<const ReplayDataset>(
      loadReplayDataset(dataset("convolution_milo/A100.json.gz")));
  ReplayMeasurer measurer(ds);
  EXPECT_TRUE(measurer.isReplay());
  EXPECT_EQ(measurer.label(), "replay of A100.json.gz (NVIDIA A100-PCIE-40GB, real measurements)");
  EXPECT_EQ(measurer.speedUnit(), "GFLOP/s");
  const std::string prefix = "block_size_x=16; block_size_y=1; tile_size_x=1; tile_size_y=1; ";
  const std::string suffix = "; use_cmem=1; filter_height=15; filter_width=15";
  const Config fastFirst =
      ds->space.parse(prefix + "read_only=0; use_padding=0; use_shmem=0" + suffix);
  const Config failed = ds->space.parse(
      "block_size_x=256; block_size_y=4; tile_size_x=4; tile_size_y=4; read_only=1; "
      "use_padding=0; use_shmem=0" +
      suffix);
  // use_padding=1 with block_size_x=16 is valid, but use_padding=1 needs use_shmem=1 (T1 file).
  const Config absent =
      ds->space.parse(prefix + "read_only=0; use_padding=1; use_shmem=0" + suffix);
  EXPECT_FALSE(ds->space.satisfies(absent));

  const auto answers = measurer.measure({fastFirst, failed, absent, fastFirst});
  ASSERT_EQ(answers.size(), 4u);
  // The first entry of the cache, as written in the file.
  EXPECT_EQ(answers[0].status, TrialStatus::Ok);
  EXPECT_DOUBLE_EQ(answers[0].speed, 1948.1569950129526);
  EXPECT_DOUBLE_EQ(answers[0].compileMs, 918.5990339610726);
  ASSERT_EQ(answers[0].timesMs.size(), 32u);
  EXPECT_DOUBLE_EQ(answers[0].timesMs[0], 3.976191997528076);
  EXPECT_DOUBLE_EQ(answers[0].medianMs, 3.87174391746521);
  EXPECT_EQ(answers[1].status, TrialStatus::RuntimeFault);
  EXPECT_EQ(answers[1].message, "RuntimeFailedConfig");
  EXPECT_EQ(answers[1].speed, 0);
  EXPECT_EQ(answers[2].status, TrialStatus::Rejected);
  EXPECT_EQ(answers[2].message, "not in the dataset");
  EXPECT_EQ(answers[3].speed, answers[0].speed);
}

}  // namespace
}  // namespace opevo
