#include "ui/widgets/elided_label.h"

#include <QEvent>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QStyle>
#include <QToolTip>

namespace opevo::ui {
namespace {

class ElideFilter : public QObject {
 public:
  ElideFilter(QLabel* label, Qt::TextElideMode mode) : QObject(label), m_mode(mode) {}

  QString shown(const QLabel* label) const {
    return label->fontMetrics().elidedText(label->text(), m_mode, label->contentsRect().width());
  }

  bool eventFilter(QObject* watched, QEvent* event) override {
    auto* label = static_cast<QLabel*>(watched);
    if (event->type() == QEvent::Paint) {
      const QString text = shown(label);
      if (text == label->text()) return false;  // fits: QLabel draws it as ever
      QPainter painter(label);
      label->style()->drawItemText(&painter, label->contentsRect(),
                                   static_cast<int>(label->alignment()), label->palette(),
                                   label->isEnabled(), text, label->foregroundRole());
      return true;
    }
    // The label's own tooltip, if it has one, when the text fits; the whole text when not.
    if (event->type() == QEvent::ToolTip && shown(label) != label->text()) {
      const auto* help = static_cast<QHelpEvent*>(event);
      const QString tip = label->toolTip().isEmpty()
                              ? label->text()
                              : label->text() + QStringLiteral("\n\n") + label->toolTip();
      QToolTip::showText(help->globalPos(), tip, label);
      return true;
    }
    return false;
  }

 private:
  Qt::TextElideMode m_mode;
};

}  // namespace

void elideLabel(QLabel* label, Qt::TextElideMode mode, int minimumChars) {
  label->setWordWrap(false);
  label->setTextFormat(Qt::PlainText);
  // QLabel's minimum is its whole text: a layout could never give it less than that. Its size
  // hint stays the whole text, which it has whenever there is room.
  label->setMinimumWidth(label->fontMetrics().averageCharWidth() * minimumChars);
  label->installEventFilter(new ElideFilter(label, mode));
}

QString shownText(const QLabel* label) {
  for (const QObject* child : label->children())
    if (const auto* filter = dynamic_cast<const ElideFilter*>(child)) return filter->shown(label);
  return label->text();
}

}  // namespace opevo::ui
