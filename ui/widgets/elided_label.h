#pragma once

#include <Qt>

class QLabel;

namespace opevo::ui {

// Lets a one-line label give up width: it is drawn elided to the room its layout leaves (with an
// ellipsis, never cut mid-letter at the edge) and its whole text is its tooltip while elided. For
// a label whose text others set (the status bar's dataset, set by the Runs page), so it works by
// an event filter rather than a subclass. minimumChars: the width it keeps, in average characters.
void elideLabel(QLabel* label, Qt::TextElideMode mode = Qt::ElideRight, int minimumChars = 16);

// The text an elided label shows at its present width (the whole text when it fits).
QString shownText(const QLabel* label);

}  // namespace opevo::ui
