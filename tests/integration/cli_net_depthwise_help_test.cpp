// `opevo net tune --help` says what the topological scheduler pins in joint mode: the depthwise
// link too, not residuals alone.

#include <gtest/gtest.h>

#include <string>

#include "run_process.h"

namespace opevo::test {
namespace {

TEST(CliNetDepthwiseHelp, TheTopologicalSchedulersHelpSaysTheDepthwisePin) {
  const auto help = runProcess(OPEVO_CLI, {"net", "tune", "--help"});
  ASSERT_EQ(help.status, 0) << help.err;
  // CLI11 wraps the description over lines: its words, one space between each.
  std::string text;
  for (char c : help.out) {
    const bool space = c == '\n' || c == ' ';
    if (!space)
      text += c;
    else if (!text.empty() && text.back() != ' ')
      text += ' ';
  }
  EXPECT_NE(text.find("a depthwise convolution is tuned on its producer's channel blocks"),
            std::string::npos)
      << help.out;
}

}  // namespace
}  // namespace opevo::test
