#include "ui/widgets/message_label.h"

#include <QLabel>

namespace opevo::ui {

QLabel* makeMessageLabel(const QString& objectName, MessageKind kind, QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setObjectName(objectName);
  label->setWordWrap(true);
  label->setTextFormat(Qt::PlainText);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // The same colours as the Spaces page's messages, so refusals look alike everywhere. The text's
  // colour is set with the background's: under a dark palette the palette's light text would
  // vanish on the light banner.
  label->setStyleSheet(
      kind == MessageKind::Error
          ? QStringLiteral("QLabel { color: #8e0000; background: #fdecea; border: 1px solid "
                           "#e57373; padding: 6px; }")
          : QStringLiteral(
                "QLabel { color: #3e2723; background: #fff8e1; border: 1px solid #ffcc80; "
                "padding: 6px; }"));
  label->hide();
  return label;
}

void showMessage(QLabel* label, const QString& text) {
  label->setText(text);
  label->setVisible(!text.isEmpty());
}

}  // namespace opevo::ui
