#pragma once

#include <QString>

class QLabel;
class QWidget;

namespace opevo::ui {

enum class MessageKind { Error, Note };

// A banner for messages about the user's input: red for what was refused, amber for a note.
// Hidden until given text; selectable, so a message can be copied into a bug report.
QLabel* makeMessageLabel(const QString& objectName, MessageKind kind, QWidget* parent);
// Shows the text, or hides the label when the text is empty.
void showMessage(QLabel* label, const QString& text);

}  // namespace opevo::ui
