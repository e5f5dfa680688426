#pragma once

#include <QFont>
#include <QString>
#include <memory>
#include <string>

#include "store/records.h"

namespace opevo::ui {

struct KasDagLayout;

// What the page shows of one candidate beyond its row: its micro-DAG laid out, and the CPU source
// generated for the best schedule of its first tuned layer (the start schedule while untuned),
// under a header with every tuned layer's figures and notes.
struct KasDetails {
  int seq = 0;
  std::shared_ptr<const KasDagLayout> layout;
  QString source;
  QString error;  // why there is no picture or no source (both may still be partly there)
};

// Solves the kernel's sizes for the search's network again (the search keeps its kernel, not its
// sizes), so it reads the network and runs the budget solver: call it off the GUI thread. Never
// throws; `font` sizes the DAG's boxes.
KasDetails kasDetails(const KasCandidateRow& candidate, const std::string& settingsJson,
                      const QFont& font);

}  // namespace opevo::ui
