// Whether a measured dataset holds every valid configuration of its space: what its best being
// "the optimum", and every fraction of optimum computed from it, rest on.
#include "io/replay_completeness.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "common/error.h"
#include "io/t1_space.h"
#include "space/enumerate.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

// Larger descriptions are not enumerated: loading a dataset must stay quick.
constexpr std::uint64_t kMaxDescriptionPoints = 5'000'000;

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, share >= 0.0995 ? "%.0f%%" : "%.2g%%", 100 * share);
  return text;
}

std::string whereToPut(const std::string& datasetPath) {
  const std::vector<std::string> places = descriptionCandidates(datasetPath);
  std::string text;
  for (std::size_t i = 0; i < places.size(); ++i) text += (i == 0 ? "" : " or ") + places[i];
  return text;
}

// What comparing a dataset with a T1 description found.
struct DescriptionMatch {
  std::string problem;                  // why it does not describe the file; empty when it does
  std::uint64_t allowed = 0, held = 0;  // configurations the Conditions allow; of them in the file
  std::string firstMissing;             // one the file lacks, as the description formats it
};

DescriptionMatch compare(const ReplayDataset& ds, const T1Space& t1) {
  DescriptionMatch out;
  const SearchSpace& mine = ds.space;
  const SearchSpace& theirs = t1.space;
  if (theirs.dims() != mine.dims()) {
    out.problem = "it has " + std::to_string(theirs.dims()) + " parameters, the file " +
                  std::to_string(mine.dims());
    return out;
  }
  // For each description parameter, the file's parameter of that name and, per value, the
  // file's vertex of it (-1: a value the file never uses).
  std::vector<std::size_t> place(theirs.dims());
  std::vector<std::vector<std::int64_t>> vertexOf(theirs.dims());
  for (std::size_t j = 0; j < theirs.dims(); ++j) {
    const Parameter& p = theirs.param(j);
    std::size_t i = 0;
    while (i < mine.dims() && mine.param(i).name() != p.name()) ++i;
    if (i == mine.dims()) {
      out.problem = "the file has no parameter " + p.name();
      return out;
    }
    place[j] = i;
    std::unordered_map<std::string, std::int64_t> byText;
    const auto n = static_cast<std::int64_t>(mine.param(i).size().as64());
    for (std::int64_t v = 0; v < n; ++v) byText.emplace(mine.param(i).format({v}), v);
    const auto m = static_cast<std::int64_t>(p.size().as64());
    for (std::int64_t v = 0; v < m; ++v) {
      const auto it = byText.find(p.format({v}));
      vertexOf[j].push_back(it == byText.end() ? -1 : it->second);
    }
  }
  if (!(theirs.size() <= kMaxDescriptionPoints)) {
    out.problem = "its " + theirs.size().toString() + " Cartesian points are too many to check";
    return out;
  }
  Config c(mine.dims());
  try {
    forEachConfig(theirs, kMaxDescriptionPoints, [&](const Config& t) {
      if (!theirs.satisfies(t)) return true;
      ++out.allowed;
      bool known = true;
      for (std::size_t j = 0; j < t.size(); ++j) {
        const std::int64_t v = vertexOf[j][static_cast<std::size_t>(t[j][0])];
        known = known && v >= 0;
        c[place[j]] = {v < 0 ? 0 : v};
      }
      if (known && ds.table.count(c))
        ++out.held;
      else if (out.firstMissing.empty())
        out.firstMissing = theirs.format(t);
      return true;
    });
  } catch (const InputError& e) {
    out.problem = std::string("its Conditions could not be evaluated: ") + e.what();
    return out;
  }
  // Every configuration of the file must be one the description allows, or it describes
  // another space (another version of the kernel, other parameter values).
  if (out.held < ds.table.size())
    out.problem = std::to_string(ds.table.size() - out.held) + " of the file's " +
                  std::to_string(ds.table.size()) + " configurations are not among the " +
                  std::to_string(out.allowed) + " its Conditions allow";
  return out;
}

}  // namespace

std::vector<std::string> descriptionCandidates(const std::string& datasetPath) {
  const fs::path path(datasetPath);
  std::string stem = path.filename().string();
  for (const std::string suffix : {".gz", ".json"})
    if (stem.size() > suffix.size() && stem.ends_with(suffix))
      stem.resize(stem.size() - suffix.size());
  const fs::path folder = path.parent_path();
  std::vector<std::string> out = {(folder / (stem + ".t1.json")).string()};
  const std::string folderName = fs::absolute(path).parent_path().filename().string();
  if (!folderName.empty())
    out.push_back((folder / ".." / "kernels" / (folderName + ".json")).lexically_normal().string());
  return out;
}

void judgeCompleteness(ReplayDataset& ds) {
  const auto settle = [&](Completeness c, std::string note) {
    ds.completeness = c;
    ds.complete = isComplete(c);
    ds.completenessNote = std::move(note);
  };
  const std::size_t held = ds.table.size();
  const Count cartesian = ds.space.size();
  if (cartesian == Count(held)) {
    settle(Completeness::Checked, "checked: the file holds all " + std::to_string(held) +
                                      " points of its Cartesian space");
    return;
  }
  for (const std::string& candidate : descriptionCandidates(ds.path)) {
    std::error_code error;
    if (!fs::is_regular_file(candidate, error)) continue;
    DescriptionMatch match;
    try {
      match = compare(ds, importT1(candidate));
    } catch (const InputError& e) {
      match.problem = std::string("it cannot be read: ") + e.what();
    }
    if (!match.problem.empty()) {
      ds.notes.push_back("the T1 description " + candidate + " does not describe this file (" +
                         match.problem + "): set aside");
      continue;
    }
    ds.descriptionPath = candidate;
    if (match.held == match.allowed) {
      settle(Completeness::Checked, "checked: the Conditions of " + candidate +
                                        " select exactly the file's " + std::to_string(held) +
                                        " configurations");
    } else {
      settle(Completeness::Partial,
             "not complete: " + candidate + " allows " + std::to_string(match.allowed) +
                 " configurations and the file holds " + std::to_string(match.held) +
                 " of them (it lacks " + match.firstMissing +
                 ", for one): its best is not the optimum, and no fraction of optimum is given");
    }
    return;
  }
  const double share = static_cast<double>(held) / cartesian.approx();
  const std::string of = std::to_string(held) + " of its " + cartesian.toString() +
                         " Cartesian points (" + percent(share) + ")";
  if (share < kSparseShare) {
    settle(Completeness::Sparse,
           "not taken as complete: the file holds " + of +
               " and no T1 description shows that these are all the valid ones; a Kernel Tuner "
               "run with a search strategy writes only the configurations it visited. Its best "
               "is not taken as the optimum (no fraction of optimum is given). If it is a brute "
               "force of a space this constrained, put the space's T1 description at " +
               whereToPut(ds.path) + " to have it checked");
    return;
  }
  settle(Completeness::Assumed,
         "assumed complete: the file holds " + of +
             " and names no constraints, so nothing here shows that it holds every valid one (a "
             "brute force run writes them all, a search strategy only those it visited). Its "
             "best is taken as the optimum. To check it, put the space's T1 description "
             "(parameters and Conditions) at " +
             whereToPut(ds.path));
}

bool isComplete(Completeness completeness) {
  return completeness == Completeness::Checked || completeness == Completeness::Assumed;
}

std::string completenessName(Completeness completeness) {
  switch (completeness) {
    case Completeness::Checked:
      return "checked";
    case Completeness::Assumed:
      return "assumed";
    case Completeness::Truncated:
      return "truncated";
    case Completeness::Partial:
      return "partial";
    case Completeness::Sparse:
      return "sparse";
    case Completeness::RunRecord:
      return "run_record";
  }
  return {};
}

std::string completenessLabel(Completeness completeness) {
  switch (completeness) {
    case Completeness::Checked:
      return "complete (checked): the optimum is known";
    case Completeness::Assumed:
      return "assumed complete (unchecked): its best is taken as the optimum";
    case Completeness::Truncated:
      return "not complete: the file is cut short";
    case Completeness::Partial:
      return "not complete: its description allows more configurations";
    case Completeness::Sparse:
      return "not taken as complete: a small share of its space";
    case Completeness::RunRecord:
      return "one tuning run's record: no optimum";
  }
  return {};
}

}  // namespace opevo
