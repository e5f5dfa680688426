// The Networks page's topological box says what the scheduler pins with layouts propagating, as
// `opevo net tune --help` does: a depthwise convolution is tuned on its producer's channel blocks
// (net/layout_constraints.h), not residuals alone.

#include <gtest/gtest.h>

#include <QCheckBox>

#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

TEST(NetworkTopologicalTooltip, SaysTheResidualAndTheDepthwisePin) {
  const NetworkSetupPanel panel;
  const QString tip = panel.topologicalBox()->toolTip();
  EXPECT_TRUE(tip.contains(QStringLiteral("residual add takes that task's output layout")))
      << tip.toStdString();
  EXPECT_TRUE(tip.contains(
      QStringLiteral("a depthwise convolution is tuned on its producer's channel blocks")))
      << tip.toStdString();
}

}  // namespace
}  // namespace opevo::ui
