#pragma once

#include <QScrollArea>

namespace opevo::ui {

// The scroll area a page's setup form lives in: it scrolls up and down only, and asks for at least
// the form's narrowest width, so that the splitter beside it cannot squeeze the form. Squeezed, a
// form is laid out wider than its viewport and its labels and buttons are cut at the right edge
// (the Runs page's at 800x600); a horizontal scroll bar instead would hide half of every row.
class FormScrollArea : public QScrollArea {
  Q_OBJECT

 public:
  explicit FormScrollArea(QWidget* form, QWidget* parent = nullptr);

  QSize minimumSizeHint() const override;

 private:
  int chromeWidth() const;  // the frame and the vertical scroll bar
};

}  // namespace opevo::ui
