#pragma once

#include <cstddef>
#include <string>

namespace opevo::t4 {

// How every message names a result: by its JSON index, "results[2]", which is what a person
// opening the file finds (a count from 1 would name another entry).
std::string resultName(std::size_t index);

// The checks a T4 document gets whichever way it is read, as measurements (the replay reader,
// io/replay_raw.h) or as the run it was exported from (io/run_restore.h), so one bad file is
// refused by both with one message. Throws InputError "PATH: ..." for:
//  - a schema_version other than the ones read here (1.0.0), a metadata that is not an object,
//    a metadata.timeunit that is not a time unit, a metadata text field (device_name,
//    kernel_name, algorithm, ...) of another type;
//  - a result that is not an object, lacks a required field (configuration, times, invalidity,
//    correctness), has another parameter set than results[0], an unknown invalidity, times that
//    are not numbers, measurements that are not a list of named entries, or, when correct, a
//    time measurement that is not a number;
//  - a throughput (GFLOP/s, GB/s) that some correct results have and another lacks (its speed
//    would be in another unit than theirs), or one that does not match its result's time as the
//    others' do (throughput x time is the kernel's work, the same for every configuration).
// Returns the factor from metadata.timeunit to milliseconds. Json is nlohmann::json or
// nlohmann::ordered_json. An empty results list passes: the callers decide whether it may be.
template <class Json>
double checkDocument(const Json& root, const std::string& path);

}  // namespace opevo::t4
