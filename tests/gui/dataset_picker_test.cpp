#include "ui/widgets/dataset_picker.h"

#include <gtest/gtest.h>

#include <QLabel>

#include "gui_test_support.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {
namespace {

// The bundled gemm/, pnpoly/ and convolution/ datasets are all RTX_2080_Ti.json.gz: the picker
// names the folder too; and pnpoly's best, 0.1246 1/ms, read "0.1" at one decimal.
TEST(DatasetPicker, NamesTheFolderAndTheBestToFourDigits) {
  DatasetPicker picker;
  picker.load(QStringLiteral(OPEVO_DATASETS_DIR "/pnpoly/RTX_2080_Ti.json.gz"));
  ASSERT_TRUE(test::waitUntil([&] { return !picker.loading() && picker.dataset(); }, 60000));
  QString info;
  for (const QLabel* label : picker.findChildren<QLabel*>())
    if (label->text().contains(QStringLiteral("Replay of real measurements"))) info = label->text();
  EXPECT_TRUE(info.contains(QStringLiteral("(pnpoly/RTX_2080_Ti.json.gz)"))) << info.toStdString();
  const double best = picker.dataset()->bestSpeed;
  ASSERT_LT(best, 1.0);
  EXPECT_TRUE(info.contains(QStringLiteral("best %1 1/ms").arg(formatSpeed(best))))
      << info.toStdString();
  EXPECT_FALSE(info.contains(QStringLiteral("best 0.1 "))) << info.toStdString();
}

}  // namespace
}  // namespace opevo::ui
