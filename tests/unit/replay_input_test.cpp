// Small hand-written dataset files: both formats' mapping of failures and units, and every kind
// of bad input a user may hand the replay reader, which must answer with a one-line InputError
// naming the file and the problem, never crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "file_bytes.h"
#include "io/gzip_file.h"
#include "io/replay_dataset.h"
#include "io/replay_raw.h"

namespace opevo {
namespace {

// A file removed when the test ends; in memory where the system offers it, since writing
// thousands of small files to some disks takes seconds.
class TempFile {
 public:
  explicit TempFile(const std::string& content, bool gzip = false) {
    std::string pattern = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    pattern += "/opevo-replay-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = mkstemp(name.data());
    close(fd);
    m_path = name.data();
    if (gzip) {
      writeGzipped(m_path, content);
    } else {
      std::ofstream(m_path, std::ios::binary) << content;
    }
  }
  ~TempFile() { std::remove(m_path.c_str()); }
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

const std::string kCacheHead = R"({
"device_name": "Test GPU",
"kernel_name": "k",
"tune_params_keys": ["bx", "mode"],
"tune_params": {"bx": [32, 64, 128], "mode": ["fast", "4"]},
"objective": "time",
"cache": {
"32,fast": {"bx": 32, "mode": "fast", "time": 2.0, "times": [1.0, 2.0, 3.0], "compile_time": 10, "GFLOP/s": 50.0, "timestamp": "x"},
"64,fast": {"bx": 64, "mode": "fast", "time": 1.0, "times": [1.0, 1.0], "GFLOP/s": 100.0},
"128,fast": {"bx": 128, "mode": "fast", "time": "CompilationFailedConfig", "compile_time": 5},
"32,4": {"bx": 32, "mode": "4", "time": "InvalidConfig", "times": [1.0]},
"64,4": {"bx": 64, "mode": "4", "time": "RuntimeFailedConfig"})";
const std::string kCache = kCacheHead + "\n}\n}\n";

std::string t4Result(const std::string& config, const std::string& invalidity, int correctness,
                     const std::string& time, const std::string& runtimes) {
  return R"({"timestamp": "t", "configuration": )" + config +
         R"(, "times": {"compilation": 0.5, "framework": 0)" +
         (runtimes.empty() ? "" : ", \"runtimes\": " + runtimes) + R"(}, "invalidity": ")" +
         invalidity + R"(", "correctness": )" + std::to_string(correctness) +
         R"(, "measurements": [{"name": "time", "value": )" + time +
         R"(, "unit": ""}], "objectives": ["time"]})";
}

// Parameters listed zeta first: the reader must keep that order although JSON objects are
// unordered to nlohmann. Times are in seconds here.
std::string t4File(const std::vector<std::string>& results) {
  std::string s =
      R"({"schema_version": "1.0.0", "metadata": {"timeunit": "seconds"}, "results": [)";
  for (std::size_t i = 0; i < results.size(); ++i) s += (i ? ",\n" : "\n") + results[i];
  return s + "\n]}\n";
}

const std::vector<std::string> kT4Results = {
    t4Result(R"({"zeta": 1, "alpha": "a"})", "correct", 1, "0.002", "[0.001, 0.003]"),
    t4Result(R"({"zeta": 2, "alpha": "a"})", "compile", 0, "\"CompilationFailedConfig\"", ""),
    t4Result(R"({"zeta": 1, "alpha": "b"})", "runtime", 0, "\"RuntimeFailedConfig\"", ""),
    t4Result(R"({"zeta": 2, "alpha": "b"})", "timeout", 0, "\"timeout\"", ""),
    t4Result(R"({"zeta": 3, "alpha": "a"})", "correctness", 0, "0.001", "[0.001]"),
    t4Result(R"({"zeta": 3, "alpha": "b"})", "constraints", 0, "\"InvalidConfig\"", ""),
    t4Result(R"({"zeta": 4, "alpha": "a"})", "correct", 0, "0.001", "[0.001]"),
};

const Measurement& at(const ReplayDataset& ds, const std::string& config) {
  return ds.table.at(ds.space.parse(config));
}

// The load fails with an InputError that names the file and mentions each of the words.
void expectInputError(const std::string& path, const std::vector<std::string>& mentions) {
  try {
    loadReplayDataset(path);
    ADD_FAILURE() << path << " was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const auto& m : mentions) EXPECT_NE(what.find(m), std::string::npos) << what;
  }
}

TEST(ReplayInput, KernelTunerCacheMapping) {
  const TempFile file(kCache);
  const ReplayDataset ds = loadReplayDataset(file.path());
  EXPECT_EQ(ds.format, DatasetFormat::KernelTunerCache);
  EXPECT_EQ(ds.label, "replay of real measurements on Test GPU (" +
                          file.path().substr(file.path().rfind('/') + 1) + ")");
  EXPECT_EQ(ds.speedUnit, "GFLOP/s");
  EXPECT_EQ(ds.space.param(0).kind(), ParamKind::Discrete);
  // "4" looks like a number but is a string in the file: it stays a choice.
  EXPECT_EQ(ds.space.param(1).kind(), ParamKind::Choice);
  EXPECT_EQ(ds.space.size(), Count(6));
  EXPECT_EQ(ds.table.size(), 5u);
  const Measurement& first = at(ds, "bx=32; mode=fast");
  EXPECT_EQ(first.status, TrialStatus::Ok);
  EXPECT_EQ(first.speed, 50.0);
  EXPECT_EQ(first.medianMs, 2.0);
  EXPECT_EQ(first.compileMs, 10.0);
  EXPECT_EQ(first.timesMs, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(at(ds, "bx=128; mode=fast").status, TrialStatus::CompileError);
  EXPECT_EQ(at(ds, "bx=128; mode=fast").message, "CompilationFailedConfig");
  EXPECT_EQ(at(ds, "bx=32; mode=4").status, TrialStatus::Rejected);
  EXPECT_EQ(at(ds, "bx=32; mode=4").speed, 0);
  EXPECT_EQ(at(ds, "bx=64; mode=4").status, TrialStatus::RuntimeFault);
  EXPECT_FALSE(ds.space.satisfies(ds.space.parse("bx=128; mode=4")));
  EXPECT_EQ(ds.bestSpeed, 100.0);
  EXPECT_EQ(ds.bestConfig, ds.space.parse("bx=64; mode=fast"));
  EXPECT_TRUE(ds.notes.empty());
}

TEST(ReplayInput, ThroughputNames) {
  for (const char* name : {"GFLOP/s", "GB/s", "TFLOPS", "gflops", "items/s"})
    EXPECT_TRUE(replay::isThroughputName(name)) << name;
  for (const char* name : {"time", "compile_time", "/s", "FLOPS", "flops_per_byte", "timestamp"})
    EXPECT_FALSE(replay::isThroughputName(name)) << name;
}

// No entry succeeded, so no value gives the unit; the file still names its metric, as Kernel
// Tuner's objective, a failed entry's metric key or our T4 export's speed_unit, and that is used
// rather than 1/ms. A file that names none stays in 1/ms.
TEST(ReplayInput, AllFailedKeepsTheMetricTheFileNames) {
  const TempFile objective(R"({"tune_params_keys": ["p"], "objective": "GFLOP/s",
    "cache": {"1": {"p": 1, "time": "RuntimeFailedConfig"}}})");
  EXPECT_EQ(loadReplayDataset(objective.path()).speedUnit, "GFLOP/s");
  const TempFile key(R"({"tune_params_keys": ["p"], "objective": "time",
    "cache": {"1": {"p": 1, "time": "InvalidConfig", "GFLOP/s": "InvalidConfig"}}})");
  EXPECT_EQ(loadReplayDataset(key.path()).speedUnit, "GFLOP/s");
  const TempFile t4(R"({"schema_version": "1.0.0", "metadata": {"speed_unit": "TFLOPS"},
    "results": [)" + t4Result(R"({"p": 1})", "runtime", 0, "\"launch failed\"", "") +
                    "]}");
  EXPECT_EQ(loadReplayDataset(t4.path()).speedUnit, "TFLOPS");
  const TempFile none(R"({"tune_params_keys": ["p"], "objective": "time",
    "cache": {"1": {"p": 1, "time": "RuntimeFailedConfig"}}})");
  EXPECT_EQ(loadReplayDataset(none.path()).speedUnit, "1/ms");
}

// Strings that are all integer tuples of one length (our exports' factor parameters) are marked
// as tuples; they stay choices, so a race and a configuration text are as before.
TEST(ReplayInput, IntegerTupleStringsAreMarkedAsTuples) {
  const TempFile file(R"({"tune_params_keys": ["f", "g", "h", "n"],
    "cache": {"a": {"f": "1,4", "g": "1,4", "h": "4", "n": 1, "time": 2},
              "b": {"f": "2,2", "g": "1,2,2", "h": "8", "n": 2, "time": 1}}})");
  const ReplayDataset ds = loadReplayDataset(file.path());
  EXPECT_EQ(ds.tupleValued, (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(ds.space.param(0).kind(), ParamKind::Choice);
  EXPECT_EQ(ds.space.format(ds.bestConfig), "f=2,2; g=1,2,2; h=8; n=2");
}

TEST(ReplayInput, MixedValuesStayDistinctChoices) {
  const TempFile file(R"({"tune_params_keys": ["p"], "tune_params": {"p": ["1", 1, null]},
    "cache": {"a": {"p": "1", "time": 2}, "b": {"p": 1, "time": 1}, "c": {"p": null, "time": 4}}})");
  const ReplayDataset ds = loadReplayDataset(file.path());
  ASSERT_EQ(ds.space.param(0).kind(), ParamKind::Choice);
  EXPECT_EQ(ds.space.param(0).spec(), "choice:\"1\",1,null");
  EXPECT_EQ(ds.table.size(), 3u);
  EXPECT_EQ(ds.space.format(ds.bestConfig), "p=1");
  EXPECT_EQ(ds.speedUnit, "1/ms");
  EXPECT_EQ(ds.bestSpeed, 1.0);
}

TEST(ReplayInput, GzipAndPlainReadAlike) {
  const TempFile plain(kCache), gzip(kCache, true);
  EXPECT_EQ(readMaybeGzipped(gzip.path()), kCache);
  const ReplayDataset a = loadReplayDataset(plain.path());
  const ReplayDataset b = loadReplayDataset(gzip.path());
  EXPECT_EQ(a.table.size(), b.table.size());
  EXPECT_EQ(a.bestSpeed, b.bestSpeed);
}

TEST(ReplayInput, T4Mapping) {
  const TempFile file(t4File(kT4Results), true);
  const ReplayDataset ds = loadReplayDataset(file.path());
  EXPECT_EQ(ds.format, DatasetFormat::T4);
  EXPECT_EQ(ds.space.param(0).name(), "zeta");
  EXPECT_EQ(ds.speedUnit, "1/ms");
  const Measurement& ok = at(ds, "zeta=1; alpha=a");
  EXPECT_EQ(ok.status, TrialStatus::Ok);
  EXPECT_DOUBLE_EQ(ok.speed, 0.5);  // 1 / 2 ms
  EXPECT_EQ(ok.timesMs, (std::vector<double>{1, 3}));
  EXPECT_DOUBLE_EQ(ok.medianMs, 2);
  EXPECT_DOUBLE_EQ(ok.compileMs, 500);
  EXPECT_EQ(at(ds, "zeta=2; alpha=a").status, TrialStatus::CompileError);
  EXPECT_EQ(at(ds, "zeta=2; alpha=a").message, "CompilationFailedConfig");
  EXPECT_EQ(at(ds, "zeta=1; alpha=b").status, TrialStatus::RuntimeFault);
  EXPECT_EQ(at(ds, "zeta=2; alpha=b").status, TrialStatus::Timeout);
  EXPECT_EQ(at(ds, "zeta=3; alpha=a").status, TrialStatus::WrongResult);
  EXPECT_EQ(at(ds, "zeta=3; alpha=a").message, "correctness");
  EXPECT_EQ(at(ds, "zeta=3; alpha=b").status, TrialStatus::Rejected);
  EXPECT_EQ(at(ds, "zeta=3; alpha=b").message, "InvalidConfig");
  EXPECT_EQ(at(ds, "zeta=4; alpha=a").status, TrialStatus::WrongResult);
  EXPECT_EQ(ds.failedCount(), 6u);
  EXPECT_EQ(ds.bestConfig, ds.space.parse("zeta=1; alpha=a"));
  ASSERT_EQ(ds.notes.size(), 1u);  // T4 does not name the device
}

TEST(ReplayInput, T4DuplicateKeepsTheLastMeasurement) {
  auto results = kT4Results;
  results.push_back(t4Result(R"({"zeta": 1, "alpha": "a"})", "correct", 1, "0.004", "[0.004]"));
  const TempFile file(t4File(results));
  const ReplayDataset ds = loadReplayDataset(file.path());
  EXPECT_EQ(ds.table.size(), kT4Results.size());
  EXPECT_EQ(ds.space.explicitPoints()->size(), kT4Results.size());
  EXPECT_DOUBLE_EQ(at(ds, "zeta=1; alpha=a").speed, 0.25);
  bool noted = false;
  for (const auto& n : ds.notes) noted = noted || n.find("more than once") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ReplayInput, CacheWithoutClosingBracesIsAccepted) {
  // Still being written: the last complete entry is followed by "}," or "}" and nothing else,
  // or the cache is closed and only the top-level brace is missing.
  for (const std::string& ending : {std::string(",\n"), std::string("\n"), std::string(""),
                                    std::string("\n}\n"), std::string("  ,  \n\n")}) {
    const TempFile file(kCacheHead + ending, true);
    const ReplayDataset ds = loadReplayDataset(file.path());
    EXPECT_EQ(ds.table.size(), 5u) << ending;
    ASSERT_EQ(ds.notes.size(), 1u);
    EXPECT_NE(ds.notes[0].find("closing braces"), std::string::npos);
  }
  // The entry before the last, ending in "},": four entries.
  const std::string cut = kCacheHead.substr(0, kCacheHead.rfind("\n\"64,4\""));
  const TempFile file(cut);
  EXPECT_EQ(loadReplayDataset(file.path()).table.size(), 4u);
}

TEST(ReplayInput, TruncatedInsideAnEntry) {
  const std::string cut = kCacheHead.substr(0, kCacheHead.rfind("\"time\""));
  expectInputError(TempFile(cut, true).path(), {"not valid JSON", "line 12", "truncated"});
  // A T4 file cut after a complete result is not a Kernel Tuner cache: no repair.
  const std::string t4 = t4File(kT4Results);
  expectInputError(TempFile(t4.substr(0, t4.rfind("},\n") + 2)).path(), {"not valid JSON"});
}

TEST(ReplayInput, EveryPrefixFailsCleanlyOrLoads) {
  // Any cut of either format must give a dataset or an InputError: nothing else escapes. One
  // file rewritten in place.
  const TempFile file("");
  for (const std::string& text : {kCache, t4File(kT4Results)}) {
    std::size_t loaded = 0;
    for (std::size_t n = 0; n < text.size(); ++n) {
      std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << text.substr(0, n);
      try {
        loaded += loadReplayDataset(file.path()).table.size() > 0;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(file.path()), std::string::npos) << e.what();
      }
    }
    EXPECT_LT(loaded, 60u);
  }
}

TEST(ReplayInput, EmptyAndNotJson) {
  expectInputError(TempFile("").path(), {"empty"});
  expectInputError(TempFile(" \n\t\n").path(), {"empty"});
  expectInputError(TempFile("", true).path(), {"empty"});
  expectInputError(TempFile("hello, world\n").path(), {"not valid JSON", "line 1, column 1"});
  expectInputError(TempFile(std::string("\x00\x01\xff\xfe binary", 12)).path(), {"not valid JSON"});
  expectInputError(TempFile("{\"cache\": {\n\"a\": 1,,\n}}").path(), {"not valid JSON", "line 2"});
}

// Found while writing the fuzz target (fuzz/corpus/replay_dataset/regression-number-overflow.json):
// a number beyond a double is refused by the JSON parser with out_of_range, not parse_error, and
// escaped as an internal error. It is a one-line InputError quoting the number.
TEST(ReplayInput, NumberBeyondADoubleIsAnInputError) {
  expectInputError(
      TempFile(R"({"tune_params_keys": ["a"], "cache": {"1": {"a": 1, "time": 1e400}}})").path(),
      {"not valid JSON", "number overflow parsing '1e400'"});
  expectInputError(
      TempFile(R"({"tune_params_keys": ["a"], "cache": {"1": {"a": -1e999, "time": 1},)").path(),
      {"not valid JSON", "number overflow parsing '-1e999'"});
}

// A time so small that its speed overflows (1e-320 ms, a denormal) would win every race at an
// infinite speed and could not be exported again: it is refused like a time of 0.
TEST(ReplayInput, ATimeWhoseSpeedOverflowsIsRefused) {
  expectInputError(
      TempFile(R"({"tune_params_keys": ["a"], "cache": {"1": {"a": 1, "time": 1e-320}}})").path(),
      {"cache entry '1'", "expected a positive time and a finite speed"});
}

// A negative throughput was accepted: a replay printed "trial 1/2 ok -5  best 0 GFLOP/s".
TEST(ReplayInput, ANegativeThroughputIsRefused) {
  expectInputError(TempFile(R"({"tune_params_keys": ["a"], "objective": "GFLOP/s",
      "cache": {"1": {"a": 1, "time": 2.0, "GFLOP/s": 3.0},
                "2": {"a": 2, "time": 2.0, "GFLOP/s": -5}}})")
                       .path(),
                   {"cache entry '2'", "GFLOP/s -5", "a finite speed of 0 or more"});
}

TEST(ReplayInput, UnknownSchema) {
  expectInputError(TempFile(R"({"foo": 1, "bar": [2]})").path(),
                   {"unknown schema", "bar, foo", "Kernel Tuner", "T4"});
  expectInputError(TempFile("[1, 2, 3]").path(), {"unknown schema", "array"});
  expectInputError(std::string(OPEVO_DATASETS_DIR) + "/kernels/convolution_milo.json",
                   {"T1 search-space file", "no measurements"});
  expectInputError(TempFile("42").path(), {"unknown schema", "number"});
  expectInputError(TempFile(R"({"format": "opevo-network-run", "version": 1, "tasks": []})").path(),
                   {"network run archive", "opevo net restore"});
}

TEST(ReplayInput, T4MissingRequiredFields) {
  for (const std::string field : {"configuration", "times", "invalidity", "correctness"}) {
    nlohmann::json result = nlohmann::json::parse(kT4Results[0]);
    result.erase(field);
    const TempFile file(t4File({kT4Results[1], result.dump()}));
    expectInputError(file.path(), {"results[1]", "required field '" + field + "'"});
  }
}

TEST(ReplayInput, MalformedFields) {
  auto withEntry = [](const std::string& entry) {
    return kCacheHead + ",\n\"x\": " + entry + "\n}\n}\n";
  };
  expectInputError(TempFile(withEntry(R"({"bx": 32, "mode": "x", "time": {}})")).path(),
                   {"cache entry 'x'", "'time'", "object"});
  expectInputError(TempFile(withEntry(R"({"bx": 32, "time": 1.0})")).path(),
                   {"cache entry 'x'", "'mode'", "missing"});
  expectInputError(
      TempFile(withEntry(R"({"bx": 32, "mode": "x", "time": 1, "times": "a"})")).path(),
      {"'times'", "array of numbers"});
  expectInputError(TempFile(withEntry("[1]")).path(), {"cache entry 'x'", "array"});
  expectInputError(TempFile(R"({"tune_params_keys": ["a"], "cache": {}})").path(),
                   {"no configurations"});
  expectInputError(TempFile(R"({"tune_params_keys": "a", "cache": {}})").path(),
                   {"tune_params_keys"});
  expectInputError(TempFile(t4File({t4Result(R"({"a": 1})", "weird", 0, "1", "")})).path(),
                   {"results[0].invalidity is 'weird'"});
  expectInputError(TempFile(t4File({t4Result(R"({"a": 1})", "correct", 1, "0", "[0]")})).path(),
                   {"results[0]", "positive time"});
  expectInputError(
      TempFile(t4File({kT4Results[0], t4Result(R"({"zeta": 1})", "correct", 1, "1", "")})).path(),
      {"results[1].configuration lacks the parameter 'alpha', which results[0]'s has"});
  std::string badUnit = t4File(kT4Results);
  badUnit.replace(badUnit.find("seconds"), 7, "fortnights");
  expectInputError(TempFile(badUnit).path(), {"timeunit 'fortnights'"});
}

TEST(ReplayInput, UnreadableFiles) {
  expectInputError("/nonexistent/dir/data.json.gz", {"cannot open", "No such file"});
  expectInputError("/tmp", {"directory"});
  // A gzip stream cut in half must not pass for a smaller dataset.
  const TempFile whole(kCache + std::string(20000, ' '), true);
  const std::string bytes = test::fileBytes(whole.path());
  const TempFile cut(bytes.substr(0, bytes.size() / 2));
  expectInputError(cut.path(), {"is not a valid gzip file (it ends early: the file is damaged or "
                                "truncated)"});
  // A damaged byte: zlib's "f: incorrect data check" in words, the file named once.
  std::string garbled = bytes;
  garbled[garbled.size() - 6] ^= 0x5a;
  const TempFile bad(garbled);
  try {
    loadReplayDataset(bad.path());
    ADD_FAILURE() << "a damaged gzip file was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "'" + bad.path() +
                                         "' is not a valid gzip file (its data check failed: the "
                                         "file is damaged or truncated)");
  }
}

}  // namespace
}  // namespace opevo
