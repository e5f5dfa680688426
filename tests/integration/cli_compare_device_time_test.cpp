// `opevo compare` says what a race's trials would have cost on the device that measured the file,
// as Kernel Tuner's simulation mode charges them (compile_time + benchmark_time +
// verification_time of each entry): its tuning time was only the tuners' own, so time to
// solution could not be compared with Kernel Tuner's, nor between a tuner that measures slow
// kernels and one that does not.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/gzip_file.h"
#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kConvolution = std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz";

struct OutDir {
  fs::path path;
  OutDir() {
    char pattern[] = "/tmp/opevo-device-time-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~OutDir() { fs::remove_all(path); }
};

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      out.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

// Each configuration's cost read from the file here, apart from the program: its cache key
// (values joined by commas) -> compile + benchmark + verification, in seconds.
std::map<std::string, double> costsOfTheFile() {
  const auto root = nlohmann::json::parse(readMaybeGzipped(kConvolution));
  std::map<std::string, double> costs;
  for (const auto& [key, e] : root["cache"].items())
    costs[key] = (e["compile_time"].get<double>() + e["benchmark_time"].get<double>() +
                  e["verification_time"].get<double>()) /
                 1e3;
  return costs;
}

// "block_size_x=16; block_size_y=1; ..." -> "16,1,..."
std::string keyOf(const std::string& config) {
  std::string key;
  std::stringstream parts(config);
  std::string part;
  while (std::getline(parts, part, ';')) {
    if (!key.empty()) key += ',';
    key += part.substr(part.find('=') + 1);
  }
  return key;
}

TEST(CliCompareDeviceTime, EachRunIsChargedWhatTheFileSaysItsTrialsCost) {
  OutDir out;
  const auto r = runProcess(
      OPEVO_CLI, {"compare", "--space", kConvolution, "--algos", "opevo-m,random", "--repeats", "2",
                  "--trials", "30", "--out", out.path.string(), "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;

  const std::map<std::string, double> costs = costsOfTheFile();
  std::ifstream csv(out.path / "trials.csv");
  std::string line;
  std::getline(csv, line);
  const std::vector<std::string> header = fields(line);
  // Every trials.csv's columns (io/trials_csv.h): device_seconds, the agent, the space, last.
  ASSERT_GE(header.size(), 3u) << line;
  ASSERT_EQ(header[header.size() - 3], "device_seconds") << line;
  ASSERT_EQ(header[header.size() - 2], "agent") << line;
  ASSERT_EQ(header.back(), "space") << line;
  const std::size_t deviceColumn = header.size() - 3;
  std::size_t configColumn = 0;
  while (header[configColumn] != "config") ++configColumn;
  std::map<std::string, double> charged;  // by run: the file's costs added up here
  std::map<std::string, double> last;     // by run: its last device_seconds
  int rows = 0;
  while (std::getline(csv, line)) {
    const std::vector<std::string> f = fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    const std::string key = keyOf(f[configColumn]);
    ASSERT_TRUE(costs.count(key)) << key;
    charged[f[1]] += costs.at(key);
    const double seconds = std::stod(f[deviceColumn]);
    EXPECT_EQ(f[header.size() - 2], "") << "this machine replayed it: no agent";
    EXPECT_EQ(f.back(), "replay") << line;
    EXPECT_NEAR(seconds, charged[f[1]], 1e-9 * charged[f[1]]) << line;
    last[f[1]] = seconds;
    ++rows;
  }
  EXPECT_EQ(rows, 2 * 2 * 30);
  ASSERT_EQ(last.size(), 4u);

  std::ifstream jsonFile(out.path / "summary.json");
  const auto summary = nlohmann::json::parse(jsonFile);
  double meanOfRuns = 0;
  for (const auto& [run, seconds] : last) meanOfRuns += seconds / 4;
  double meanOfRows = 0;
  for (const auto& row : summary) {
    EXPECT_EQ(row["target_fraction"], 0.95);
    EXPECT_NE(row["device_time"].get<std::string>().find("benchmark_time"), std::string::npos);
    EXPECT_NEAR(row["dataset_device_seconds"].get<double>(), 12190.447934668744, 1e-6);
    EXPECT_LE(row["mean_device_seconds_to_best"].get<double>(),
              row["mean_device_seconds"].get<double>());
    EXPECT_GE(row["runs_at_target"].get<int>(), 0);
    if (row["trials"] == 30) meanOfRows += row["mean_device_seconds"].get<double>() / 2;
  }
  EXPECT_NEAR(meanOfRows, meanOfRuns, 1e-9 * meanOfRuns);

  EXPECT_NE(r.out.find("| algorithm | trials | device s | s to its best | s to 0.95 of optimum"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("measuring all its 4362 configurations once took 12190 s (3.39 h))"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace opevo::test
