#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opevo {

// A folder a command writes its results into (compare's --out), guarded as `opevo export` guards
// its own: a rerun into the same folder once replaced a 1185-row trials.csv with an 11-row one.

// The files among `names` that `folder` already holds (regular files, or links to them).
std::vector<std::string> earlierResults(const std::filesystem::path& folder,
                                        const std::vector<std::string>& names);

// Throws InputError naming them when `folder` holds any of `names`, unless `replace`: then they
// are removed, so that what the folder holds afterwards is this command's alone (a killed rerun
// must not leave the earlier summary beside its own partial trials). `what` names the earlier
// results in the message ("an earlier race's results").
void claimResultsFolder(const std::filesystem::path& folder, const std::vector<std::string>& names,
                        bool replace, const std::string& what);

// Renames a finished `from` to `to` in one step (the file a killed command leaves keeps its
// partial name). Throws ExportWriteError naming `to` and the reason.
void publishResult(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace opevo
