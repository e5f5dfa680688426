#pragma once

#include <QString>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace opevo::ui {

// A read-only, row-selecting table with compact rows, the look every table of the studio shares.
// Columns size to their contents; callers pick the one that stretches.
QTableView* makeTableView(QAbstractItemModel* model, const QString& objectName, QWidget* parent);

}  // namespace opevo::ui
