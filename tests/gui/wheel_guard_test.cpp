// The wheel over a form's fields: it scrolls the form unless the field has the focus.
#include "ui/widgets/wheel_guard.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QWheelEvent>

namespace opevo::ui {
namespace {

// One wheel tick away from the user (scrolling down) sent to the field; whether the field took
// it. A real wheel event (spontaneous) that no widget accepts goes on to the field's parents, the
// scroll area among them; a test's own event is not passed on, so the scrolling itself is checked
// in the window (docs/screenshots).
bool wheelDown(QWidget* w) {
  const QPointF at(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &e);
  return e.isAccepted();
}

struct LongForm {
  QScrollArea area;
  QSpinBox* seed = nullptr;
  QComboBox* schedule = nullptr;
  LongForm() {
    auto* form = new QWidget;
    auto* layout = new QVBoxLayout(form);
    for (int i = 0; i < 30; ++i) layout->addWidget(new QSpinBox);
    seed = new QSpinBox;
    seed->setRange(0, 1000);
    seed->setValue(5);
    layout->addWidget(seed);
    schedule = new QComboBox;
    schedule->addItems({"round-robin", "shuffle"});
    layout->addWidget(schedule);
    area.setWidget(form);
    area.resize(300, 200);
    area.show();
    area.ensureWidgetVisible(seed);
  }
};

TEST(WheelGuard, AnUnfocusedFieldLeavesTheWheelToTheForm) {
  WheelGuard guard;
  qApp->installEventFilter(&guard);
  LongForm f;
  QApplication::processEvents();  // polished: the fields no longer take the focus from the wheel
  EXPECT_EQ(f.seed->focusPolicy(), Qt::StrongFocus);
  EXPECT_FALSE(wheelDown(f.seed)) << "the field kept the wheel from the form";
  EXPECT_FALSE(wheelDown(f.schedule));
  EXPECT_EQ(f.seed->value(), 5) << "the wheel stepped a field it passed over";
  EXPECT_EQ(f.schedule->currentIndex(), 0);
  EXPECT_FALSE(f.seed->hasFocus());

  // Clicked into (focused), the field is the user's to turn.
  f.area.activateWindow();
  f.seed->setFocus();
  QApplication::processEvents();
  if (f.seed->hasFocus()) {  // the offscreen platform gives focus to an active window only
    EXPECT_TRUE(wheelDown(f.seed));
    EXPECT_EQ(f.seed->value(), 4);
  }
  qApp->removeEventFilter(&guard);
}

TEST(WheelGuard, WithoutItTheWheelStepsTheFieldUnderThePointer) {
  LongForm f;  // the fault the guard is there for: the test would pass vacuously otherwise
  QApplication::processEvents();
  EXPECT_TRUE(wheelDown(f.seed));
  EXPECT_EQ(f.seed->value(), 4);
}

}  // namespace
}  // namespace opevo::ui
