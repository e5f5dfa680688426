#pragma once

// The twins' closing round of a network run in words (NetworkTuning ends with it: each task with
// twins measures their final best configurations), as `opevo net runs ID` and the Networks page
// say it: "a 1 from twin b; b 2 from twin a, c". One rule, so the window and the command line name
// the round alike.

#include <string>
#include <vector>

namespace opevo::net {

struct StoredNetworkRun;

// One unit of the round: its task, and the twin each of its trials came from.
struct ClosingUnit {
  std::string task;
  std::vector<std::string> from;
};

// "a 1 from twin b": the task, how many configurations it measured and its twins (each named once
// where they follow one another); units joined by "; ". Empty for none.
std::string closingRoundText(const std::vector<ClosingUnit>& units);

// A stored run's round (StoredNetworkUnit::closingFrom); empty when it had none, or was stored
// before the round was kept or without its end.
std::string closingRoundText(const StoredNetworkRun& run);

}  // namespace opevo::net
