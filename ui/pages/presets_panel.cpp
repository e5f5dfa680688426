#include "ui/pages/presets_panel.h"

#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QResizeEvent>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <exception>
#include <utility>

#include "ops/presets.h"
#include "ui/models/operator_file_model.h"
#include "ui/models/parameter_model.h"
#include "ui/models/preset_model.h"
#include "ui/pages/operator_editor.h"
#include "ui/widgets/display_format.h"
#include "ui/widgets/operator_form.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {
namespace {

void selectRow(QTableView* view, int row) {
  view->selectionModel()->setCurrentIndex(
      view->model()->index(row, 0),
      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

// The other table's choice is the current one now. Its handler ignores the row -1 this reports.
void clearSelection(QTableView* view) {
  view->selectionModel()->clear();
}

}  // namespace

PresetsPanel::PresetsPanel(QWidget* parent)
    : QWidget(parent),
      m_presetModel(new PresetTableModel(this)),
      m_fileModel(new OperatorFileModel(this)),
      m_parameterModel(new ParameterTableModel(this)),
      m_presetView(makeTableView(m_presetModel, QStringLiteral("presetTable"), this)),
      m_fileView(makeTableView(m_fileModel, QStringLiteral("operatorFileTable"), this)),
      m_parameterView(makeTableView(m_parameterModel, QStringLiteral("parameterTable"), this)),
      m_tabs(new QTabWidget(this)),
      m_editor(new OperatorEditor),
      m_titleLabel(new QLabel(tr("Select an operator to see its search space."), this)),
      m_sizeLabel(new QLabel(this)),
      m_templateBox(new SpaceTemplateBox(QStringLiteral("spaceTemplate"), this)) {
  m_titleLabel->setObjectName(QStringLiteral("presetTitle"));
  m_titleLabel->setWordWrap(true);
  m_sizeLabel->setObjectName(QStringLiteral("spaceSizeLabel"));
  m_sizeLabel->setWordWrap(true);
  m_sizeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // Twenty-odd presets and the user's files share the top of the panel with the space or the
  // editor below: both tables scroll, and the splitter between them and the tabs can be moved.
  // Descriptions stretch (and elide, with the full text in the tooltip), never scroll sideways.
  m_presetView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_presetView->horizontalHeader()->setSectionResizeMode(PresetTableModel::DescriptionColumn,
                                                         QHeaderView::Stretch);
  const int row = m_fileView->verticalHeader()->defaultSectionSize();
  m_fileView->setMinimumHeight(m_fileView->horizontalHeader()->sizeHint().height() + 3 * row + 4);
  m_fileView->setToolTip(tr("Your operator files: those in %1 and those opened by hand")
                             .arg(QDir::toNativeSeparators(operatorsDirectory())));
  m_fileView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_fileView->horizontalHeader()->setSectionResizeMode(OperatorFileModel::DescriptionColumn,
                                                       QHeaderView::Stretch);
  m_parameterView->horizontalHeader()->setStretchLastSection(true);
  // The parameters take the rows they need; room below is left for what later pages add here.
  m_parameterView->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  m_parameterView->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
  m_parameterView->setToolTip(
      tr("Click a parameter to see its q-random walk; double-click to see its graph"));

  auto* newButton = new QToolButton(this);
  newButton->setObjectName(QStringLiteral("libraryNew"));
  newButton->setText(tr("New"));
  newButton->setToolTip(tr("A new operator in the editor"));
  newButton->setPopupMode(QToolButton::InstantPopup);
  auto* newMenu = new QMenu(newButton);
  for (OpKind kind : {OpKind::MatMul, OpKind::BatchMatMul, OpKind::Conv2D})
    newMenu->addAction(QString::fromLatin1(opKindName(kind).data()), this,
                       [this, kind] { newOperator(kind); });
  newButton->setMenu(newMenu);
  auto* editButton = new QPushButton(tr("Edit"), this);
  editButton->setObjectName(QStringLiteral("libraryEdit"));
  editButton->setToolTip(tr("The selected operator in the editor (a preset as a copy)"));
  auto* openButton = new QPushButton(tr("Open…"), this);
  openButton->setObjectName(QStringLiteral("libraryOpen"));
  openButton->setToolTip(tr("List an operator file from anywhere (Ctrl+Shift+O)"));

  auto* heading = new QHBoxLayout;
  heading->addWidget(new QLabel(tr("<b>Operators</b>"), this), 1);
  heading->addWidget(newButton);
  heading->addWidget(editButton);
  heading->addWidget(openButton);

  auto* spacePage = new QWidget;
  auto* spaceLayout = new QVBoxLayout(spacePage);
  spaceLayout->addWidget(m_titleLabel);
  auto* templateRow = new QHBoxLayout;
  templateRow->addWidget(new QLabel(tr("Template:"), this));
  templateRow->addWidget(m_templateBox, 1);
  spaceLayout->addLayout(templateRow);
  spaceLayout->addWidget(m_parameterView);
  spaceLayout->addWidget(m_sizeLabel);
  spaceLayout->addStretch(1);
  m_tabs->setObjectName(QStringLiteral("libraryTabs"));
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(spacePage, tr("Space"));
  // The editor scrolls its own fields, keeping its buttons and errors in view.
  m_tabs->addTab(m_editor, tr("Editor"));

  auto* library = new QWidget;
  auto* libraryLayout = new QVBoxLayout(library);
  libraryLayout->setContentsMargins(0, 0, 0, 0);
  libraryLayout->addLayout(heading);
  libraryLayout->addWidget(m_presetView, 3);
  libraryLayout->addWidget(m_fileView, 1);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setObjectName(QStringLiteral("librarySplitter"));
  splitter->addWidget(library);
  splitter->addWidget(m_tabs);
  splitter->setChildrenCollapsible(false);
  splitter->setSizes({345, 400});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(splitter);

  for (QTableView* view : {m_presetView, m_fileView, m_parameterView})
    view->viewport()->installEventFilter(this);
  // The text above shows and goes with the files.
  connect(m_fileModel, &QAbstractItemModel::modelReset, m_fileView->viewport(),
          qOverload<>(&QWidget::update));
  connect(m_fileModel, &QAbstractItemModel::rowsInserted, m_fileView->viewport(),
          qOverload<>(&QWidget::update));
  connect(m_fileModel, &QAbstractItemModel::rowsRemoved, m_fileView->viewport(),
          qOverload<>(&QWidget::update));
  connect(m_presetView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onPresetRow(current.row()); });
  connect(m_fileView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onFileRow(current.row()); });
  connect(m_parameterView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (m_showingParameter || !current.isValid()) return;
            emit parameterChosen(
                QString::fromStdString(m_parameterModel->parameter(current.row())->name()));
          });
  connect(m_templateBox, &QComboBox::currentIndexChanged, this, [this] { showSpace(); });
  connect(editButton, &QPushButton::clicked, this, &PresetsPanel::editSelected);
  connect(openButton, &QPushButton::clicked, this, &PresetsPanel::openFileDialog);
  // A saved edit becomes the current operator, so the rest of the window follows it.
  connect(m_editor, &OperatorEditor::saved, this, [this](const QString& path) { openFile(path); });

  reloadFiles();
}

void PresetsPanel::reloadFiles() {
  m_fileModel->setDirectory(operatorsDirectory());
}

void PresetsPanel::showEvent(QShowEvent* event) {
  m_fileModel->refresh();
  QWidget::showEvent(event);
  // Qt scrolls a view to a row made current while hidden as it is shown, before the layout has
  // given it its size: C2 (row 7) and reduce_order (row 11) stayed below the tables' edges.
  if (std::exchange(m_scrollOnShow, false))
    QMetaObject::invokeMethod(this, &PresetsPanel::scrollToSelection, Qt::QueuedConnection);
}

void PresetsPanel::scrollToSelection() {
  for (QTableView* view : {m_presetView, m_fileView, m_parameterView})
    if (view->currentIndex().isValid() && view->selectionModel()->isSelected(view->currentIndex()))
      view->scrollTo(view->currentIndex(), QAbstractItemView::EnsureVisible);
}

QString PresetsPanel::emptyFilesText() const {
  if (m_fileModel->rowCount() > 0) return {};
  return tr("Your operator files are listed here: every .json in %1, and any opened with "
            "File > Open operator file… (Ctrl+Shift+O) or Open… above. New or Edit saves one "
            "there.")
      .arg(QDir::toNativeSeparators(operatorsDirectory()));
}

bool PresetsPanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize) {
    // A selected row in view stays in view as its table shrinks (the first-run note above the
    // library, shown once History has read the store, took C2's row out of sight).
    for (QTableView* view : {m_presetView, m_fileView, m_parameterView}) {
      if (watched != view->viewport() || !view->currentIndex().isValid()) continue;
      const auto* resize = static_cast<QResizeEvent*>(event);
      const QRect row = view->visualRect(view->currentIndex());
      if (row.top() >= 0 && row.bottom() < resize->oldSize().height() &&
          row.bottom() >= resize->size().height())
        QMetaObject::invokeMethod(
            view, [view] { view->scrollTo(view->currentIndex()); }, Qt::QueuedConnection);
    }
  }
  if (watched == m_fileView->viewport() && event->type() == QEvent::Paint) {
    if (const QString text = emptyFilesText(); !text.isEmpty()) {
      QPainter painter(m_fileView->viewport());
      QColor ink = palette().color(QPalette::WindowText);
      ink.setAlphaF(0.7);
      painter.setPen(ink);
      painter.drawText(m_fileView->viewport()->rect().adjusted(6, 4, -6, -4),
                       Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void PresetsPanel::showParameter(const QString& name) {
  // Reflects a choice made elsewhere; it is not a new choice, so parameterChosen stays quiet.
  m_showingParameter = true;
  QItemSelectionModel* selection = m_parameterView->selectionModel();
  selection->clear();
  for (int r = 0; r < m_parameterModel->rowCount(); ++r) {
    if (QString::fromStdString(m_parameterModel->parameter(r)->name()) == name) {
      selection->setCurrentIndex(m_parameterModel->index(r, 0),
                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      if (!isVisible()) m_scrollOnShow = true;
      break;
    }
  }
  m_showingParameter = false;
}

bool PresetsPanel::selectPreset(const QString& name) {
  const int row = m_presetModel->rowOf(name);
  if (row < 0) return false;
  selectRow(m_presetView, row);
  if (!isVisible()) m_scrollOnShow = true;
  return true;
}

bool PresetsPanel::openFile(const QString& path) {
  const int row = m_fileModel->addFile(path);
  if (!isVisible()) m_scrollOnShow = true;
  // Selected even when it failed to load: its error is then what the space tab shows.
  if (m_fileView->currentIndex().row() == row)
    onFileRow(row);  // loaded again: the current row did not move, yet the operator changed
  else
    selectRow(m_fileView, row);
  return m_fileModel->entry(row).definition != nullptr;
}

void PresetsPanel::openFileDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open operator file"), operatorsDirectory(),
                                   tr("Operator files (*.json);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

QString PresetsPanel::selectedPreset() const {
  return m_preset;
}

QString PresetsPanel::selectedName() const {
  return m_definition ? QString::fromStdString(m_definition->op.name) : QString();
}

void PresetsPanel::newOperator(OpKind kind) {
  if (m_editor->newOperator(kind)) m_tabs->setCurrentIndex(1);
}

void PresetsPanel::editSelected() {
  const bool started = !m_file.isEmpty()     ? m_editor->editFile(m_file)
                       : !m_preset.isEmpty() ? m_editor->editPreset(m_preset)
                                             : false;
  if (started) m_tabs->setCurrentIndex(1);
}

void PresetsPanel::onPresetRow(int row) {
  if (row < 0) return;
  clearSelection(m_fileView);
  const OperatorSpec& op = m_presetModel->preset(row);
  m_preset = QString::fromStdString(op.name);
  m_file.clear();
  try {
    show(std::make_shared<const OperatorDefinition>(
             OperatorDefinition{op, defaultSpace(op), nlohmann::json::object()}),
         tr("preset"));
  } catch (const std::exception& e) {
    // Presets are core's own data, so this means a core bug; say so rather than crash.
    showFailure(tr("%1: cannot build its space: %2")
                    .arg(QString::fromStdString(op.name), QString::fromUtf8(e.what())));
  }
}

void PresetsPanel::onFileRow(int row) {
  if (row < 0) return;
  clearSelection(m_presetView);
  const OperatorFileModel::Entry& e = m_fileModel->entry(row);
  m_preset.clear();
  m_file = e.path;
  if (!e.definition) {
    showFailure(tr("%1 could not be loaded: %2").arg(QFileInfo(e.path).fileName(), e.error));
    return;
  }
  show(e.definition, QFileInfo(e.path).fileName());
}

void PresetsPanel::showFailure(const QString& text) {
  m_definition.reset();
  m_shown.reset();
  m_templateBox->clearOperator();
  m_parameterModel->setSpace(SearchSpace{});
  m_sizeLabel->clear();
  m_titleLabel->setText(text.toHtmlEscaped());
  // No operator, no parameters: the q-walk panel must not go on showing the last one's.
  emit presetSelected(QString(), SearchSpace{});
}

void PresetsPanel::show(std::shared_ptr<const OperatorDefinition> def, const QString& where) {
  m_definition = std::move(def);
  const OperatorSpec& op = m_definition->op;
  m_titleLabel->setText(
      tr("<b>%1</b> (%2): %3 &mdash; %4 per run")
          .arg(QString::fromStdString(op.name).toHtmlEscaped(), where.toHtmlEscaped(),
               QString::fromStdString(op.describe()).toHtmlEscaped(), formatWork(op.flops())));
  // A preset keeps the template chosen for the one before; a file opens in its own.
  m_templateBox->setOperator(
      *m_definition, m_file.isEmpty() ? m_templateBox->current() : ownTemplate(*m_definition));
  showSpace();
  emit operatorChosen(m_definition);
}

void PresetsPanel::showSpace() {
  m_shown = m_templateBox->shown();
  if (!m_shown) return;
  const OperatorSpec& op = m_shown->op;
  const SearchSpace& space = m_shown->space;
  m_parameterModel->setSpace(space);
  QStringList constraints;
  for (const Constraint& c : space.constraints())
    constraints << QString::fromStdString(c.description);
  QString size =
      tr("Total space: <b>%1</b> configurations").arg(groupDigits(space.size().toString()));
  if (!constraints.isEmpty())
    size +=
        tr(" before constraints (%1)").arg(constraints.join(QStringLiteral("; ")).toHtmlEscaped());
  m_sizeLabel->setText(size);
  emit presetSelected(QString::fromStdString(op.name), space);
}

}  // namespace opevo::ui
