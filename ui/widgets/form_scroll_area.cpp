#include "ui/widgets/form_scroll_area.h"

#include <QScrollBar>
#include <algorithm>

namespace opevo::ui {

FormScrollArea::FormScrollArea(QWidget* form, QWidget* parent) : QScrollArea(parent) {
  setWidget(form);
  setWidgetResizable(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

int FormScrollArea::chromeWidth() const {
  // The bar's room is kept whether it shows or not: a form that grows taller (an error message,
  // a longer list) would otherwise lose that width to the bar and be cut after all.
  return 2 * frameWidth() + verticalScrollBar()->sizeHint().width();
}

QSize FormScrollArea::minimumSizeHint() const {
  QSize hint = QScrollArea::minimumSizeHint();
  if (const QWidget* form = widget())
    hint.setWidth(std::max(hint.width(), form->minimumSizeHint().width() + chromeWidth()));
  return hint;
}

}  // namespace opevo::ui
