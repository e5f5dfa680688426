// The Networks page's choice of the dense layers' template: the matrix-vector one by default on
// the GPUs (net::defaultTaskTemplates, as `opevo net tune`), the direct one on the CPU, and a
// box the user set kept as set, across backends and sessions.

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QSettings>
#include <QTemporaryDir>

#include "ui/controller/network_types.h"
#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

std::optional<bool> specMatvec(const NetworkSetupPanel& panel) {
  QString error;
  const std::optional<NetworkSpec> spec = panel.spec(&error);
  EXPECT_TRUE(spec) << error.toStdString();
  return spec ? spec->matvec : std::nullopt;
}

TEST(NetworkMatVecDefault, TheBoxFollowsTheBackendUntilTheUserSetsIt) {
  NetworkSetupPanel panel;
  QComboBox* backend = panel.backendBox();
  QCheckBox* matvec = panel.matvecBox();
  ASSERT_EQ(backend->currentText(), QStringLiteral("cpu"));
  EXPECT_FALSE(matvec->isChecked());
  EXPECT_EQ(specMatvec(panel), false);
  for (const char* gpu : {"cuda", "hip"}) {
    backend->setCurrentText(QLatin1String(gpu));
    EXPECT_TRUE(matvec->isChecked()) << gpu;
    EXPECT_EQ(specMatvec(panel), true) << gpu;
  }
  backend->setCurrentText(QStringLiteral("cpu"));
  EXPECT_FALSE(matvec->isChecked());
  // Unchecked by hand on a GPU, to race the direct template: it stays so.
  backend->setCurrentText(QStringLiteral("cuda"));
  matvec->click();
  EXPECT_FALSE(matvec->isChecked());
  EXPECT_EQ(specMatvec(panel), false);
  backend->setCurrentText(QStringLiteral("cpu"));
  backend->setCurrentText(QStringLiteral("cuda"));
  EXPECT_FALSE(matvec->isChecked());
  EXPECT_EQ(specMatvec(panel), false);
}

// A race's contenders take the box's choice, or without one the backend's default.
TEST(NetworkMatVecDefault, ASpecWithoutAChoiceTakesTheBackendsDefault) {
  NetworkSpec spec;
  EXPECT_FALSE(spec.matvecTemplate());  // the CPU's
  for (const char* gpu : {"cuda", "hip"}) {
    spec.backend = gpu;
    EXPECT_TRUE(spec.matvecTemplate()) << gpu;
  }
  spec.matvec = false;
  EXPECT_FALSE(spec.matvecTemplate());
  spec.backend = "cpu";
  spec.matvec = true;
  EXPECT_TRUE(spec.matvecTemplate());
}

TEST(NetworkMatVecDefault, TheNextSessionKeepsAChoiceAndShowsADefaultAsTheBackendHasIt) {
  QTemporaryDir dir;
  QSettings settings(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
  {
    NetworkSetupPanel before;  // left at cuda's default
    before.backendBox()->setCurrentText(QStringLiteral("cuda"));
    before.saveState(settings);
  }
  {
    NetworkSetupPanel after;
    after.restoreState(settings);
    EXPECT_TRUE(after.matvecBox()->isChecked());
    // Still a default: it follows the backend.
    after.backendBox()->setCurrentText(QStringLiteral("cpu"));
    EXPECT_FALSE(after.matvecBox()->isChecked());
  }
  {
    NetworkSetupPanel before;  // unchecked by hand on cuda
    before.backendBox()->setCurrentText(QStringLiteral("cuda"));
    before.matvecBox()->click();
    before.saveState(settings);
  }
  {
    NetworkSetupPanel after;
    after.restoreState(settings);
    EXPECT_EQ(after.backendBox()->currentText(), QStringLiteral("cuda"));
    EXPECT_FALSE(after.matvecBox()->isChecked());
  }
  // A session from before the GPUs' default stored the box unchecked, as every backend had it
  // then: not a choice, so cuda's default shows; one that checked it asked for it.
  settings.remove(QStringLiteral("network/matvecChosen"));
  settings.setValue(QStringLiteral("network/matvec"), false);
  {
    NetworkSetupPanel after;
    after.restoreState(settings);
    EXPECT_TRUE(after.matvecBox()->isChecked());
  }
  settings.setValue(QStringLiteral("network/backend"), QStringLiteral("cpu"));
  settings.setValue(QStringLiteral("network/matvec"), true);
  {
    NetworkSetupPanel after;
    after.restoreState(settings);
    EXPECT_TRUE(after.matvecBox()->isChecked());
    after.backendBox()->setCurrentText(QStringLiteral("cuda"));
    after.backendBox()->setCurrentText(QStringLiteral("cpu"));
    EXPECT_TRUE(after.matvecBox()->isChecked()) << "asked for, kept";
  }
}

}  // namespace
}  // namespace opevo::ui
