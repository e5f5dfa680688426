#pragma once

#include <string>
#include <vector>

#include "io/replay_dataset.h"

namespace opevo {

// Below this share of its Cartesian space, a file with no description to check it against is
// taken for a search strategy's record rather than a brute-forced space (a random 300 of the
// gemm file's 82944 points is 0.36%, a random 120 of pnpoly's 4092 2.9%; the shipped brute-forced
// files hold 21% to 100%). A brute-forced space more constrained than this needs its description
// to count as complete: no fraction of optimum is given against a best that may be a sample's.
inline constexpr double kSparseShare = 0.1;

// Where a dataset's T1 description is looked for, in order: beside it with its name
// ("A100.json.gz" -> "A100.t1.json"), then in a kernels/ folder beside its folder, named as its
// folder (resources/datasets/gemm/RTX_2080_Ti.json.gz -> resources/datasets/kernels/gemm.json).
std::vector<std::string> descriptionCandidates(const std::string& datasetPath);

// Judges a dataset read whole whose completeness is not already settled (a run's record, a file
// cut short): Checked when it holds every Cartesian point, or when the first description found
// (descriptionCandidates) has the file's parameters and its Conditions select exactly the file's
// configurations; Partial when the description allows configurations the file lacks; Sparse
// when there is no usable description and the file holds under kSparseShare of its Cartesian
// space; else Assumed. A description that excludes some of the file's configurations does not
// describe it and is set aside, with a note. Sets completeness, complete, completenessNote and
// descriptionPath.
void judgeCompleteness(ReplayDataset& ds);

}  // namespace opevo
