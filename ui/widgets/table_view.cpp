#include "ui/widgets/table_view.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QTableView>

namespace opevo::ui {

QTableView* makeTableView(QAbstractItemModel* model, const QString& objectName, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setObjectName(objectName);
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->setTextElideMode(Qt::ElideRight);
  // The style's default row is about twice a line of text; tables of numbers read better dense.
  // A fixed height (not ResizeToContents) keeps a 100,000-row table cheap to lay out.
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setHighlightSections(false);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  return view;
}

}  // namespace opevo::ui
