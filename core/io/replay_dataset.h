#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/measurement.h"
#include "space/search_space.h"

namespace opevo {

// A brute-forced measurement file (Kernel Tuner cache or T4 results) read into a search space and
// a table of measurements, so tuners can be compared on real hardware data without a device.
struct ReplayDataset {
  std::string path;
  std::string format;      // "kernel_tuner_cache" or "t4"
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
  // Per parameter: a choice whose every value is a tuple of two or more integers of one length
  // ("1,16,16,2": our T4 exports write opevo's factor parameters so). Racing takes them as the
  // choices they are; a display shows them as tuples rather than comma-joined text.
  std::vector<bool> tupleValued;
  // Every configuration of the file, failed ones included (status, the file's reason as message).
  std::unordered_map<Config, Measurement, ConfigHash> table;
  std::string speedUnit;  // the file's throughput metric ("GFLOP/s", "GB/s"), else "1/ms"
  double bestSpeed = 0;
  Config bestConfig;  // empty when no configuration succeeded
  // The file holds every configuration that satisfies the space's known constraints. True for a
  // brute-forced file (the only constraint is membership in the file); false for a tuning run's
  // record (a file that names its algorithm), whose best is not the optimum.
  bool complete = true;
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
ReplayDataset loadReplayDataset(const std::string& path);

}  // namespace opevo
