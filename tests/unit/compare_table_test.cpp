// The table `opevo compare` prints: one number format per column.
#include <gtest/gtest.h>

#include "engine/race_summary.h"

namespace opevo {
namespace {

// compare's std column mixed "633" with "1.64e+03".
TEST(CompareTable, StdColumnHasOneFormat) {
  const std::vector<SummaryRow> rows = {{"opevo", 50, 10232.0, 633.4, std::nullopt, 5},
                                        {"random", 50, 9000.0, 1642.0, std::nullopt, 5},
                                        {"ga", 50, 9000.0, 0.5, std::nullopt, 5}};
  const std::string md = summaryMarkdown(rows, "GFLOP/s");
  EXPECT_EQ(md.find("e+"), std::string::npos) << md;
  EXPECT_NE(md.find("| 633 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1642 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0.5 |"), std::string::npos) << md;
}

}  // namespace
}  // namespace opevo
