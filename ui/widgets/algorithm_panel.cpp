#include "ui/widgets/algorithm_panel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "tuners/registry.h"
#include "ui/models/settings_model.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {

AlgorithmPanel::AlgorithmPanel(QWidget* parent)
    : QWidget(parent),
      m_list(new QListWidget(this)),
      m_settingsView(nullptr),
      m_settingsTitle(new QLabel(this)),
      m_helpLabel(new QLabel(this)),
      m_checkedLabel(new QLabel(this)),
      m_errorLabel(makeMessageLabel(QStringLiteral("settingsError"), MessageKind::Error, this)) {
  m_list->setObjectName(QStringLiteral("algorithmList"));
  for (const TunerInfo& info : tunerRegistry().all()) {
    auto* item = new QListWidgetItem(QString::fromStdString(info.name), m_list);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
    item->setToolTip(QString::fromStdString(info.description));
    auto* model = new SettingsModel(info.name, info.defaults(), this);
    connect(model, &SettingsModel::validityChanged, this, [this] {
      // Every refused value is listed, checked or not: it is as typed, and would race as such.
      QStringList all;
      for (const SettingsModel* m : m_models) all << m->errors();
      showMessage(m_errorLabel, all.join(QLatin1Char('\n')));
      emit changed();
    });
    m_models.push_back(model);
  }
  // The names flow in rows, so nine algorithms take three lines rather than nine.
  m_list->setFlow(QListView::LeftToRight);
  m_list->setWrapping(true);
  m_list->setResizeMode(QListView::Adjust);
  const QFontMetrics fm = m_list->fontMetrics();
  m_list->setGridSize(
      QSize(fm.horizontalAdvance(QStringLiteral("exhaustive")) + 44, fm.height() + 8));
  fitList();
  m_list->setToolTip(tr("Check the algorithms to race; click one to see its settings"));
  m_settingsView = makeTableView(m_models.empty() ? nullptr : m_models.front(),
                                 QStringLiteral("settingsTable"), this);
  m_settingsView->setEditTriggers(QAbstractItemView::AllEditTriggers);
  m_settingsView->setSelectionBehavior(QAbstractItemView::SelectItems);
  m_settingsView->horizontalHeader()->setSectionResizeMode(SettingsModel::HelpColumn,
                                                           QHeaderView::Stretch);
  // The meaning wraps, each row as tall as its lines: on one line it elided to "config…" in the
  // room a 1024-pixel window leaves the form. A handful of rows, so sizing them to their contents
  // costs nothing. Narrower still, the column goes and every meaning is listed below the table
  // (fitMeanings); else the current setting's meaning, or its error, is spelled out there.
  m_settingsView->setWordWrap(true);
  m_settingsView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_settingsView->horizontalHeader()->setStretchLastSection(true);
  m_helpLabel->setObjectName(QStringLiteral("settingHelp"));
  m_helpLabel->setWordWrap(true);
  m_helpLabel->setTextFormat(Qt::RichText);
  m_helpLabel->setStyleSheet(QStringLiteral("QLabel { color: #424242; }"));
  m_settingsTitle->setObjectName(QStringLiteral("settingsTitle"));
  m_settingsTitle->setWordWrap(true);
  auto* defaultsButton = new QPushButton(tr("Restore defaults"), this);
  defaultsButton->setObjectName(QStringLiteral("restoreDefaults"));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_list);
  m_checkedLabel->setObjectName(QStringLiteral("checkedAlgorithms"));
  m_checkedLabel->setWordWrap(true);
  layout->addWidget(m_checkedLabel);
  layout->addWidget(m_settingsTitle);
  // As tall as the algorithm's settings (none to four), leaving the rest to the budget below;
  // the form scrolls, not the table. Squeezed (it was Maximum), the table wrapped its meanings,
  // grew a scroll bar, which took the width they had wrapped to, and relaid itself out for as long
  // as the window stood: 90% of a core, idle, on the Runs page at 1280x800.
  m_settingsView->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  m_settingsView->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  m_settingsView->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(m_settingsView);
  layout->addWidget(m_helpLabel);
  layout->addWidget(m_errorLabel);
  layout->addWidget(defaultsButton, 0, Qt::AlignRight);

  connect(m_list, &QListWidget::currentRowChanged, this, &AlgorithmPanel::showSettings);
  connect(m_list, &QListWidget::itemChanged, this, [this] {
    showChecked();
    emit changed();
  });
  connect(defaultsButton, &QPushButton::clicked, this, [this] {
    const int row = m_list->currentRow();
    if (row >= 0) m_models[static_cast<std::size_t>(row)]->restoreDefaults();
  });
  // The settings shown first are the default algorithm's, the one a race runs unless told.
  if (!showSettingsOf(QString::fromStdString(tunerRegistry().defaultTuner().name)))
    m_list->setCurrentRow(0);
  showChecked();
}

void AlgorithmPanel::showChecked() {
  const QStringList names = checkedNames();
  m_checkedLabel->setText(
      names.isEmpty()
          ? tr("None checked: check the algorithms to race.")
          : tr("%1 checked: %2").arg(names.size()).arg(names.join(QStringLiteral(", "))));
}

QStringList AlgorithmPanel::algorithmNames() const {
  QStringList names;
  for (int i = 0; i < m_list->count(); ++i) names << m_list->item(i)->text();
  return names;
}

QStringList AlgorithmPanel::checkedNames() const {
  QStringList names;
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->checkState() == Qt::Checked) names << m_list->item(i)->text();
  return names;
}

void AlgorithmPanel::setChecked(const QStringList& names) {
  int first = -1;
  for (int i = 0; i < m_list->count(); ++i) {
    const bool on = names.contains(m_list->item(i)->text());
    m_list->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    if (on && first < 0) first = i;
  }
  // The settings shown are those of an algorithm that races, not of one just unchecked.
  const int current = m_list->currentRow();
  if (first >= 0 && (current < 0 || m_list->item(current)->checkState() != Qt::Checked))
    m_list->setCurrentRow(first);
}

bool AlgorithmPanel::showSettingsOf(const QString& name) {
  const int row = static_cast<int>(algorithmNames().indexOf(name));
  if (row < 0) return false;
  m_list->setCurrentRow(row);
  return true;
}

SettingsModel* AlgorithmPanel::settingsModel(const QString& name) const {
  const auto row = algorithmNames().indexOf(name);
  return row < 0 ? nullptr : m_models[static_cast<std::size_t>(row)];
}

void AlgorithmPanel::showSettings(int row) {
  if (row < 0 || row >= static_cast<int>(m_models.size())) return;
  SettingsModel* model = m_models[static_cast<std::size_t>(row)];
  if (m_settingsView->model() != model) {
    QItemSelectionModel* previous = m_settingsView->selectionModel();
    m_settingsView->setModel(model);
    delete previous;  // setModel makes a new one and leaves the old to its owner
  }
  connect(m_settingsView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &AlgorithmPanel::showHelp);
  connect(model, &QAbstractItemModel::dataChanged, this, &AlgorithmPanel::showHelp,
          Qt::UniqueConnection);
  fitMeanings();
  const TunerInfo& info = tunerRegistry().all()[static_cast<std::size_t>(row)];
  m_settingsTitle->setText(tr("<b>%1</b> — %2%3")
                               .arg(QString::fromStdString(info.name),
                                    QString::fromStdString(info.description).toHtmlEscaped(),
                                    model->rowCount() == 0 ? tr(" (no settings)") : QString()));
}

std::vector<AlgorithmChoice> AlgorithmPanel::choices() const {
  std::vector<AlgorithmChoice> list;
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->checkState() == Qt::Checked)
      list.push_back({m_list->item(i)->text().toStdString(),
                      m_models[static_cast<std::size_t>(i)]->changedValues()});
  return list;
}

QStringList AlgorithmPanel::errors() const {
  QStringList list;
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->checkState() == Qt::Checked)
      list << m_models[static_cast<std::size_t>(i)]->errors();
  return list;
}

void AlgorithmPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitList();
  fitMeanings();
}

void AlgorithmPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  fitList();  // a panel restored hidden (another page first) had no width of its own to fit
}

bool AlgorithmPanel::meaningsInTable() const {
  return !m_settingsView->isColumnHidden(SettingsModel::HelpColumn);
}

void AlgorithmPanel::fitMeanings() {
  const QAbstractItemModel* model = m_settingsView->model();
  if (!model) return;
  // What the other columns' texts need, not what they have (the last one shown stretches):
  // hiding the column changes neither that nor the table's viewport (it has no scroll bar).
  const QFontMetrics fm = m_settingsView->fontMetrics();
  const int padding = 2 * fm.averageCharWidth();
  int others = 0;
  for (const int c :
       {SettingsModel::NameColumn, SettingsModel::ValueColumn, SettingsModel::RangeColumn}) {
    int width = fm.horizontalAdvance(model->headerData(c, Qt::Horizontal).toString());
    for (int row = 0; row < model->rowCount(); ++row)
      width = std::max(width, fm.horizontalAdvance(model->index(row, c).data().toString()));
    others += width + padding;
  }
  const int room = m_settingsView->viewport()->width() - others;
  // Shown or hidden, the column changes the form's height, which can show or hide the form's
  // scroll bar and so change this width by a bar's: once hidden, it comes back only with that
  // much more room, or the two would take turns.
  const int need = 20 * fm.averageCharWidth() +
                   (meaningsInTable() ? 0 : style()->pixelMetric(QStyle::PM_ScrollBarExtent));
  const bool fits = room >= need;
  if (fits != meaningsInTable()) m_settingsView->setColumnHidden(SettingsModel::HelpColumn, !fits);
  showHelp();
}

void AlgorithmPanel::showHelp() {
  const auto* model = qobject_cast<const SettingsModel*>(m_settingsView->model());
  if (!model) return;
  // ToolTipRole: the meaning, or why the value typed is refused.
  const auto line = [model](int row) {
    return QStringLiteral("<b>%1</b>: %2")
        .arg(model->index(row, SettingsModel::NameColumn).data().toString().toHtmlEscaped(),
             model->index(row, SettingsModel::HelpColumn)
                 .data(Qt::ToolTipRole)
                 .toString()
                 .toHtmlEscaped());
  };
  QStringList lines;
  if (!meaningsInTable()) {
    for (int row = 0; row < model->rowCount(); ++row) lines << line(row);
  } else if (const QModelIndex current = m_settingsView->currentIndex(); current.isValid()) {
    lines << line(current.row());
  }
  m_helpLabel->setText(lines.join(QStringLiteral("<br>")));
}

void AlgorithmPanel::fitList() {
  const QSize grid = m_list->gridSize();
  if (grid.width() <= 0) return;
  // Three rows until the panel has a width of its own; then as many as the names take. The width
  // is the list's less a scroll bar's, shown or not: from the viewport's, a scroll bar showing
  // once (a narrow moment) took a column away, the rows grew past the height, and the bar stayed.
  const int width =
      m_list->contentsRect().width() - m_list->verticalScrollBar()->sizeHint().width();
  const int columns = width > grid.width() ? std::max(1, width / grid.width()) : 0;
  const int rows = columns ? (m_list->count() + columns - 1) / columns : 3;
  m_list->setFixedHeight(grid.height() * std::max(rows, 1) + 2 * m_list->frameWidth() + 4);
}

}  // namespace opevo::ui
