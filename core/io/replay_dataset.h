#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/measurement.h"
#include "space/search_space.h"

namespace opevo {

// How far a dataset's best can be trusted as the optimum of its space. A Kernel Tuner cache holds
// no constraints, so nothing inside it says whether it lists every valid configuration (a brute
// force run) or only those a search strategy visited: only a description of its space, or its
// holding every Cartesian point, can show it.
enum class Completeness {
  Checked,    // every Cartesian point is in the file, or a T1 description beside it selects exactly
              // the file's configurations
  Assumed,    // a brute-forced file with nothing to check it against: taken as complete
  Truncated,  // the file ends without its closing braces (a run still being written)
  Partial,    // its T1 description allows configurations the file does not hold
  Sparse,  // no description, and a small share of its Cartesian space: a search strategy's record?
  RunRecord,  // names the tuner that measured it (our T4 exports): one run's record
};
// Checked and Assumed: the dataset's best is taken as the optimum.
bool isComplete(Completeness completeness);
// Its name in JSON output: "checked", "assumed", "truncated", "partial", "sparse", "run_record".
std::string completenessName(Completeness completeness);
// A few words for a display: "complete (checked): the optimum is known", "not complete: the file
// is cut short".
std::string completenessLabel(Completeness completeness);

// The two kinds of measurement file the replay reads, told apart by their content.
enum class DatasetFormat { KernelTunerCache, T4 };
// Its name in output (opevo dataset's format, an import's settings and message):
// "kernel_tuner_cache", "t4".
std::string datasetFormatName(DatasetFormat format);

// A brute-forced measurement file (Kernel Tuner cache or T4 results) read into a search space and
// a table of measurements, so tuners can be compared on real hardware data without a device.
struct ReplayDataset {
  std::string path;  // the file read: the name given, or the shipped file it named
  DatasetFormat format = DatasetFormat::KernelTunerCache;  // datasetFormatName for output
  std::string deviceName;  // as the file names it; empty when it names none
  std::string kernelName;  // empty when the file names none (T4 files do not, ours do)
  // What a run on the file is stored as (its operator), one name wherever it is raced, tuned or
  // imported: the kernel the file names ("Xgemm"), else the file's name without ".json(.gz)"
  // ("A100_T4"). The device is the run's own column.
  std::string operatorName() const;
  // What produced the measurements, when the file says (our T4 exports' metadata.algorithm: the
  // tuner of the run); empty for a brute-forced file.
  std::string algorithm;
  // The reference library timed in that run and its speed (our T4 exports), when the file says.
  std::string referenceLibrary;
  std::optional<double> referenceSpeed;
  // Each parameter's values, sorted, as a DiscreteParam (all numbers) or ChoiceParam (anything
  // else), and the constraint "is one of the file's configurations", with randomValid() drawing
  // from them in a canonical order (their Kernel Tuner cache keys sorted as text), not the
  // file's: the same measurements in either format are the same space.
  SearchSpace space;
  // The file's configurations in the order it lists them (each at its first appearance): a T4
  // file's is the order its run measured them in, which an import keeps as its trials' order.
  std::vector<Config> fileOrder;
  // Per entry of the file, in its order (a configuration listed twice is two entries): the index
  // in fileOrder of its configuration, and what else a Kernel Tuner cache entry says that only an
  // import keeps (io/run_import.h), read with the rest so the cache is parsed once. An import of
  // a T4 file reads its results' timestamps and times by the index.
  struct FileEntry {
    std::size_t point = 0;
    std::string timestamp;  // as the cache writes it ("2023-12-22 09:54:05.502007+00:00")
    double strategyMs = 0;  // strategy_time: the search strategy's time before it
  };
  std::vector<FileEntry> fileEntries;
  // Per parameter: a choice whose every value is a tuple of two or more integers of one length
  // ("1,16,16,2": our T4 exports write opevo's factor parameters so). Racing takes them as the
  // choices they are; a display shows them as tuples rather than comma-joined text.
  std::vector<bool> tupleValued;
  // Every configuration of the file, failed ones included (status, the file's reason as message).
  std::unordered_map<Config, Measurement, ConfigHash> table;
  std::string speedUnit;  // the file's throughput metric ("GFLOP/s", "GB/s"), else "1/ms"
  double bestSpeed = 0;
  Config bestConfig;  // empty when no configuration succeeded
  // Whether the file holds every valid configuration of its space, so that its best is the
  // optimum (Completeness); judged once the file is read (io/replay_completeness.h).
  Completeness completeness = Completeness::Assumed;
  // completeness is Checked or Assumed: bestSpeed is taken as the optimum, and results give a
  // fraction of it. False for anything else: no fraction of optimum is given.
  bool complete = true;
  // Why, in a sentence for the user: what checked it, or why it is assumed, or what is missing.
  std::string completenessNote;
  // The T1 description the file was checked against, when one was found beside it.
  std::string descriptionPath;
  // Entries whose "time" is not the mean of their own "times" by more than a rounding (Kernel
  // Tuner's objective time can come from another measurement than the runs it lists): ranking
  // follows "time", the median printed beside it follows "times".
  std::size_t timeNotMeanOfTimes = 0;
  // What a replay charges for measuring a configuration, which the file says of each entry, as
  // Kernel Tuner's simulation mode charges it: compiling, benchmarking and verifying (each
  // table measurement's compileMs, and measureMs: the benchmark and the verification; see
  // engine/device_time.h). A sentence naming the file's fields and any an entry lacks.
  std::string deviceTimeNote;
  // Every configuration's cost added up: what measuring the whole file once took, in seconds.
  double deviceSeconds = 0;
  std::string label;  // "replay of real measurements on DEVICE (FILE)"
  // Oddities met while reading, for display: a missing device name, a repaired ending, duplicates.
  std::vector<std::string> notes;

  std::size_t failedCount() const;
};

// Reads a Kernel Tuner cache or a T4 results file, gzip-compressed or plain; the format is
// detected from the content. A Kernel Tuner cache that ends after a complete entry without its
// closing braces (a run still being written) is accepted, with a note. Throws InputError naming
// the file and the problem (and for malformed JSON the line and column) for anything else: an
// unreadable, empty, truncated or non-JSON file, an unknown schema, a missing or mistyped field.
// A relative path that does not exist is looked for among the shipped files (io/shipped_path.h:
// "gemm/RTX_2080_Ti.json.gz", "resources/datasets/...") and `path` is then the file found; when
// none holds it the message lists every place looked at.
ReplayDataset loadReplayDataset(const std::string& path);

}  // namespace opevo
