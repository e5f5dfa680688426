#include "ui/pages/operator_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QVBoxLayout>
#include <exception>
#include <fstream>

#include "ops/operator_json.h"
#include "ops/operator_problems.h"
#include "ops/presets.h"
#include "ui/models/operator_file_model.h"
#include "ui/widgets/display_format.h"
#include "ui/widgets/message_label.h"

namespace opevo::ui {
namespace {

const OpKind kKinds[] = {OpKind::MatMul, OpKind::BatchMatMul, OpKind::Conv2D};

QString fieldHelp(const QString& field) {
  static const QMap<QString, QString> help{
      {QStringLiteral("batch"), QObject::tr("Batch size (batch_matmul, conv2d)")},
      {QStringLiteral("n"), QObject::tr("Rows of C (C is n x m)")},
      {QStringLiteral("m"), QObject::tr("Columns of C")},
      {QStringLiteral("k"), QObject::tr("Length of the reduction")},
      {QStringLiteral("in_channels"), QObject::tr("Input channels")},
      {QStringLiteral("height"), QObject::tr("Input height")},
      {QStringLiteral("width"), QObject::tr("Input width")},
      {QStringLiteral("out_channels"), QObject::tr("Output channels")},
      {QStringLiteral("kernel_h"), QObject::tr("Kernel height")},
      {QStringLiteral("kernel_w"), QObject::tr("Kernel width")},
      {QStringLiteral("stride"), QObject::tr("Stride, both directions (default 1)")},
      {QStringLiteral("pad"), QObject::tr("Zero padding, every side (default 0)")},
      {QStringLiteral("groups"),
       QObject::tr("Channel groups (default 1); divides both channel counts")}};
  return help.value(field);
}

// A file name from an operator name: letters, digits, '-', '_' and '.' survive.
QString fileNameFor(const QString& name) {
  QString base = name.trimmed();
  base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
  if (base.isEmpty() || base.startsWith(QLatin1Char('.'))) base.prepend(QStringLiteral("operator"));
  return base + QStringLiteral(".json");
}

// The red outline a refused field gets; cleared by an empty sheet.
const char* kMarked = "QLineEdit, QComboBox { border: 2px solid #e57373; }";

}  // namespace

OperatorEditor::OperatorEditor(QWidget* parent)
    : QWidget(parent),
      m_title(new QLabel(this)),
      m_name(new QLineEdit(this)),
      m_kind(new QComboBox(this)),
      m_shapeGrid(new QGridLayout),
      m_transA(new QCheckBox(tr("trans_a (A stored k x n)"), this)),
      m_transB(new QCheckBox(tr("trans_b (B stored m x k)"), this)),
      m_spaceGrid(new QGridLayout),
      m_spaceNote(new QLabel(this)),
      m_kept(new QLabel(this)),
      m_scroll(new QScrollArea(this)),
      m_error(makeMessageLabel(QStringLiteral("editorError"), MessageKind::Error, this)),
      m_size(new QLabel(this)),
      m_status(new QLabel(this)),
      m_saveButton(new QPushButton(tr("&Save"), this)),
      m_saveAsButton(new QPushButton(tr("Save &as…"), this)) {
  m_title->setObjectName(QStringLiteral("editorTitle"));
  m_title->setWordWrap(true);
  m_name->setObjectName(QStringLiteral("editorName"));
  m_name->setToolTip(tr("Shown everywhere; also the file's name when saved"));
  m_kind->setObjectName(QStringLiteral("editorKind"));
  for (OpKind kind : kKinds) m_kind->addItem(QString::fromLatin1(opKindName(kind).data()));
  m_transA->setObjectName(QStringLiteral("shape_trans_a"));
  m_transB->setObjectName(QStringLiteral("shape_trans_b"));
  m_size->setObjectName(QStringLiteral("editorSize"));
  m_size->setWordWrap(true);
  m_size->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status->setObjectName(QStringLiteral("editorStatus"));
  m_status->setWordWrap(true);
  m_saveButton->setObjectName(QStringLiteral("editorSave"));
  m_saveAsButton->setObjectName(QStringLiteral("editorSaveAs"));
  m_spaceNote->setWordWrap(true);
  m_kept->setObjectName(QStringLiteral("editorKept"));
  m_kept->setWordWrap(true);
  m_kept->setTextFormat(Qt::PlainText);
  m_kept->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* top = new QHBoxLayout;
  auto* nameLabel = new QLabel(tr("&Name"), this);
  nameLabel->setBuddy(m_name);
  auto* kindLabel = new QLabel(tr("&Kind"), this);
  kindLabel->setBuddy(m_kind);
  top->addWidget(nameLabel);
  top->addWidget(m_name, 2);
  top->addWidget(kindLabel);
  top->addWidget(m_kind, 1);

  // Plain text fields, not spin boxes: a spin box would clamp "0" or "-3" before core could say
  // what is wrong with it, and the user's text must stay as typed.
  QStringList allFields;
  for (OpKind kind : kKinds)
    for (const QString& f : shapeFields(kind))
      if (!allFields.contains(f)) allFields << f;
  for (const QString& field : allFields) {
    auto* label = new QLabel(field, this);
    auto* edit = new QLineEdit(this);
    edit->setObjectName(QStringLiteral("shape_") + field);
    edit->setToolTip(fieldHelp(field));
    // Core's defaults, so an empty field reads as what it means.
    if (field == QLatin1String("stride")) edit->setPlaceholderText(QStringLiteral("1"));
    if (field == QLatin1String("pad")) edit->setPlaceholderText(QStringLiteral("0"));
    if (field == QLatin1String("groups")) edit->setPlaceholderText(QStringLiteral("1"));
    label->setToolTip(fieldHelp(field));
    label->setBuddy(edit);
    m_shapeLabels[field] = label;
    m_shapeEdits[field] = edit;
    connect(edit, &QLineEdit::textChanged, this, &OperatorEditor::edited);
  }
  auto* shapeBox = new QGroupBox(tr("Shape"), this);
  auto* shapeLayout = new QVBoxLayout(shapeBox);
  shapeLayout->addLayout(m_shapeGrid);
  auto* flags = new QHBoxLayout;
  flags->addWidget(m_transA);
  flags->addWidget(m_transB);
  flags->addStretch(1);
  shapeLayout->addLayout(flags);

  auto* spaceBox = new QGroupBox(tr("Search space"), this);
  auto* spaceLayout = new QVBoxLayout(spaceBox);
  spaceLayout->addWidget(m_spaceNote);
  spaceLayout->addLayout(m_spaceGrid);
  int spaceRow = 0;
  for (OpKind kind : kKinds)
    for (const OverridableParameter& p : overridableParameters(kind)) {
      if (m_spaceEdits.contains(p.name)) continue;
      auto* label = new QLabel(p.name, this);
      auto* edit = new QLineEdit(this);
      edit->setObjectName(QStringLiteral("space_") + p.name);
      edit->setPlaceholderText(p.defaultSpec);
      edit->setToolTip(tr("Empty keeps the template's %1; e.g. discrete:0,256,512 or choice:0,1")
                           .arg(p.defaultSpec));
      label->setBuddy(edit);
      m_spaceGrid->addWidget(label, spaceRow / 2, (spaceRow % 2) * 2);
      m_spaceGrid->addWidget(edit, spaceRow / 2, (spaceRow % 2) * 2 + 1);
      ++spaceRow;
      m_spaceLabels[p.name] = label;
      m_spaceEdits[p.name] = edit;
      connect(edit, &QLineEdit::textChanged, this, &OperatorEditor::edited);
    }

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_status, 1);
  buttons->addWidget(m_saveButton);
  buttons->addWidget(m_saveAsButton);

  // The fields scroll; core's refusal and the buttons stay in view below them. With the whole
  // editor in one scroll area, a conv2d's Save (at 1024x700) and its error box (at 1280x800) were
  // below the fold, and a save that did nothing did not say why where the user could see it.
  auto* fields = new QWidget;
  auto* fieldsLayout = new QVBoxLayout(fields);
  fieldsLayout->setContentsMargins(0, 4, 0, 0);
  fieldsLayout->addWidget(m_title);
  fieldsLayout->addLayout(top);
  fieldsLayout->addWidget(shapeBox);
  fieldsLayout->addWidget(spaceBox);
  fieldsLayout->addWidget(m_kept);
  fieldsLayout->addWidget(m_size);
  fieldsLayout->addStretch(1);
  m_scroll->setWidget(fields);
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  // The error box takes its room from the fields: the field being typed in stays visible.
  m_scroll->viewport()->installEventFilter(this);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_scroll, 1);
  layout->addWidget(m_error);
  // The buttons last, at the bottom edge: the error box comes and goes above them, so they never
  // move (below it, Save jumped ~20 px as a bad value was typed or fixed, and a click aimed
  // where it had been missed it).
  layout->addLayout(buttons);

  connect(m_name, &QLineEdit::textChanged, this, &OperatorEditor::edited);
  connect(m_kind, &QComboBox::currentIndexChanged, this, [this] {
    layOutShape();
    edited();
  });
  connect(m_transA, &QCheckBox::toggled, this, &OperatorEditor::edited);
  connect(m_transB, &QCheckBox::toggled, this, &OperatorEditor::edited);
  connect(m_saveButton, &QPushButton::clicked, this, [this] { save(); });
  connect(m_saveAsButton, &QPushButton::clicked, this, &OperatorEditor::saveAsDialog);

  m_askDiscard = [this] {
    return QMessageBox::question(
               this, tr("Discard changes?"),
               tr("The operator in the editor has unsaved changes. Discard them?"),
               QMessageBox::Discard | QMessageBox::Cancel,
               QMessageBox::Cancel) == QMessageBox::Discard;
  };
  newOperator(OpKind::MatMul);
}

OperatorForm OperatorEditor::form() const {
  OperatorForm f;
  f.name = m_name->text();
  f.kind = kKinds[std::max(0, m_kind->currentIndex())];
  for (auto it = m_shapeEdits.begin(); it != m_shapeEdits.end(); ++it)
    f.shape[it.key()] = it.value()->text();
  f.transA = m_transA->isChecked();
  f.transB = m_transB->isChecked();
  for (auto it = m_spaceEdits.begin(); it != m_spaceEdits.end(); ++it)
    f.space[it.key()] = it.value()->text();
  f.file = m_file;
  return f;
}

void OperatorEditor::fitFields() {
  // A scroll area sizes its widget by sizeHint, which guesses a wrapped label's width: at
  // 1024x700 the summary's second line was cut off under the last field. The height for the
  // width the fields really have is what they need to show whole (and scroll to).
  QWidget* fields = m_scroll->widget();
  if (!fields || !fields->layout()) return;
  const int needed = fields->layout()->totalHeightForWidth(m_scroll->viewport()->width());
  if (needed > 0 && needed != fields->minimumHeight()) fields->setMinimumHeight(needed);
}

bool OperatorEditor::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_scroll->viewport() && event->type() == QEvent::Resize) {
    fitFields();
    QWidget* focus = focusWidget();
    if (focus && m_scroll->widget()->isAncestorOf(focus)) m_scroll->ensureWidgetVisible(focus);
  }
  return QWidget::eventFilter(watched, event);
}

bool OperatorEditor::mayDiscard() {
  return !m_modified || !m_askDiscard || m_askDiscard();
}

bool OperatorEditor::newOperator(OpKind kind) {
  if (!mayDiscard()) return false;
  // A real operator of the kind to start from, so the form is valid until the user changes it.
  const char* start = kind == OpKind::Conv2D ? "C1" : kind == OpKind::BatchMatMul ? "BMM1" : "MM1";
  OperatorForm f = formFromJson(operatorToJson(preset(start)));
  f.name = QStringLiteral("my_") + QString::fromLatin1(opKindName(kind).data());
  setForm(f, {}, tr("New operator (not saved yet)"));
  return true;
}

bool OperatorEditor::editPreset(const QString& name) {
  if (!isPreset(name.toStdString()) || !mayDiscard()) return false;
  OperatorForm f = formFromJson(operatorToJson(preset(name.toStdString())));
  f.name = name + QStringLiteral("_copy");
  setForm(f, {}, tr("Copy of preset %1 (not saved yet)").arg(name));
  return true;
}

bool OperatorEditor::editFile(const QString& path) {
  if (!mayDiscard()) return false;
  // The file as written, even when core refuses it: the form then shows why, and the user
  // can fix it here. A file that is not JSON at all leaves an empty form with the reason.
  OperatorForm f;
  QString problem;
  std::ifstream in(path.toStdString());
  if (!in) {
    problem = tr("%1: cannot be read").arg(path);
  } else {
    try {
      f = formFromJson(nlohmann::json::parse(in));
      // The form writes the shape from its own fields: a misspelt one ("kk") would read as
      // missing ("lacks field 'k'"). The file's own error, as `opevo tune` gives it, names the
      // typo.
      try {
        loadOperator(path.toStdString());
      } catch (const std::exception& e) {
        problem = QString::fromUtf8(e.what());
      }
    } catch (const std::exception& e) {
      problem = tr("%1: not valid JSON (%2)").arg(path, QString::fromUtf8(e.what()));
    }
  }
  setForm(f, QFileInfo(path).absoluteFilePath(), QFileInfo(path).fileName());
  if (!problem.isEmpty()) showMessageText(problem);
  return true;
}

void OperatorEditor::setForm(const OperatorForm& f, const QString& path, const QString& origin) {
  m_filling = true;
  m_name->setText(f.name);
  m_kind->setCurrentIndex(static_cast<int>(f.kind));
  for (auto it = m_shapeEdits.begin(); it != m_shapeEdits.end(); ++it)
    it.value()->setText(f.shape.value(it.key()));
  m_transA->setChecked(f.transA);
  m_transB->setChecked(f.transB);
  for (auto it = m_spaceEdits.begin(); it != m_spaceEdits.end(); ++it)
    it.value()->setText(f.space.value(it.key()));
  m_filling = false;
  m_file = f.file;
  const QStringList kept = keptFields(f);
  m_kept->setText(tr("Kept from the file and saved unchanged (the form does not edit these): %1")
                      .arg(kept.join(QStringLiteral("; "))));
  m_kept->setVisible(!kept.isEmpty());
  m_path = path;
  m_origin = origin;
  m_modified = false;
  m_status->clear();
  layOutShape();
  validate();
}

void OperatorEditor::layOutShape() {
  const OpKind kind = kKinds[std::max(0, m_kind->currentIndex())];
  const QStringList fields = shapeFields(kind);
  // Fields of other kinds are hidden, not cleared: switching kind and back loses nothing.
  for (const QString& f : m_shapeEdits.keys()) {
    m_shapeGrid->removeWidget(m_shapeLabels[f]);
    m_shapeGrid->removeWidget(m_shapeEdits[f]);
    m_shapeLabels[f]->hide();
    m_shapeEdits[f]->hide();
  }
  // Three pairs per row keeps Conv2D's nine fields short enough for an 800-pixel screen.
  for (int i = 0; i < fields.size(); ++i) {
    const int row = i / 3, column = (i % 3) * 2;
    m_shapeGrid->addWidget(m_shapeLabels[fields[i]], row, column);
    m_shapeGrid->addWidget(m_shapeEdits[fields[i]], row, column + 1);
    m_shapeLabels[fields[i]]->show();
    m_shapeEdits[fields[i]]->show();
  }
  m_transA->setVisible(hasTransposes(kind));
  m_transB->setVisible(hasTransposes(kind));

  QStringList names;
  for (const OverridableParameter& p : overridableParameters(kind)) names << p.name;
  for (auto it = m_spaceEdits.begin(); it != m_spaceEdits.end(); ++it) {
    it.value()->setVisible(names.contains(it.key()));
    m_spaceLabels[it.key()]->setVisible(names.contains(it.key()));
  }
  m_spaceNote->setText(
      names.isEmpty()
          ? tr("The tiling factors follow from the shape; a %1 has no other parameters to change.")
                .arg(QString::fromLatin1(opKindName(kind).data()))
          : tr("The tiling factors follow from the shape; empty fields keep the template's."));
}

void OperatorEditor::edited() {
  if (m_filling) return;
  m_modified = true;
  m_status->clear();
  validate();
}

void OperatorEditor::validate() {
  const OperatorForm f = form();
  const QString source = m_path.isEmpty() ? tr("new operator") : QFileInfo(m_path).fileName();
  m_definition.reset();
  QStringList problems;
  const nlohmann::json file = formToJson(f);
  try {
    m_definition = std::make_shared<const OperatorDefinition>(
        operatorDefinitionFromJson(file, source.toStdString()));
  } catch (const std::exception& e) {
    // Core's refusal is its first problem; every other wrong field is marked with it, so fixing
    // one does not reveal the next (groups=7 hid that width=5 is narrower than the kernel).
    for (const std::string& line : operatorFileProblems(file, source.toStdString()))
      problems << QString::fromStdString(line);
    if (problems.isEmpty()) problems << QString::fromUtf8(e.what());
  }
  // Core lists every wrong field, those that are no integer ("3O") among them, in its own words.
  const QString refusal = problems.join(QLatin1Char('\n'));
  for (QLineEdit* edit : m_shapeEdits) edit->setStyleSheet({});
  for (QLineEdit* edit : m_spaceEdits) edit->setStyleSheet({});
  m_kind->setStyleSheet({});
  m_marked.clear();
  for (const QString& problem : problems)
    for (const QString& field : fieldsNamedIn(problem, f))
      if (!m_marked.contains(field)) m_marked << field;
  for (const QString& field : m_marked) {
    QWidget* w = field == QLatin1String("kind") ? static_cast<QWidget*>(m_kind)
                 : field.startsWith(QLatin1String("space:"))
                     ? static_cast<QWidget*>(m_spaceEdits.value(field.mid(6)))
                     : static_cast<QWidget*>(m_shapeEdits.value(field));
    if (w) w->setStyleSheet(QString::fromLatin1(kMarked));
  }
  showMessageText(refusal);
  if (m_definition) {
    const SearchSpace& space = m_definition->space;
    QStringList constraints;
    for (const Constraint& c : space.constraints())
      constraints << QString::fromStdString(c.description);
    QString text = tr("<b>%1</b> &mdash; %2 per run<br>Space: <b>%3</b> configurations in %4 "
                      "parameters")
                       .arg(QString::fromStdString(m_definition->op.describe()).toHtmlEscaped())
                       .arg(formatWork(m_definition->op.flops()))
                       .arg(groupDigits(space.size().toString()))
                       .arg(space.dims());
    if (!constraints.isEmpty())
      text += tr(", before constraints (%1)")
                  .arg(constraints.join(QStringLiteral("; ")).toHtmlEscaped());
    m_size->setText(text);
  } else {
    m_size->setText(tr("No space until the operator is valid."));
  }
  updateTitle();
  fitFields();
}

void OperatorEditor::showMessageText(const QString& text) {
  m_message = text;
  showMessage(m_error, text);
}

void OperatorEditor::updateTitle() {
  QString title = QStringLiteral("<b>%1</b>").arg(m_origin.toHtmlEscaped());
  if (!m_path.isEmpty())
    title += QStringLiteral(" &mdash; ") + QDir::toNativeSeparators(m_path).toHtmlEscaped();
  if (m_modified) title += tr(" (modified)");
  m_title->setText(title);
  m_title->setToolTip(m_path);
}

bool OperatorEditor::save() {
  if (!m_path.isEmpty()) return saveTo(m_path);
  const QString path = operatorsDirectory() + QLatin1Char('/') + fileNameFor(m_name->text());
  if (!QFileInfo::exists(path)) return saveTo(path);
  saveAsDialog();  // never overwrite another file without the user choosing it
  return !m_modified;
}

void OperatorEditor::saveAsDialog() {
  QDir().mkpath(operatorsDirectory());
  const QString start = m_path.isEmpty()
                            ? operatorsDirectory() + QLatin1Char('/') + fileNameFor(m_name->text())
                            : m_path;
  const QString path = QFileDialog::getSaveFileName(this, tr("Save operator file"), start,
                                                    tr("Operator files (*.json)"));
  if (!path.isEmpty()) saveTo(path);
}

bool OperatorEditor::saveTo(const QString& path) {
  validate();
  if (!m_definition) {
    showMessageText(tr("Not saved: %1").arg(m_message));
    return false;
  }
  const QString dir = QFileInfo(path).absolutePath();
  if (!QDir().mkpath(dir)) {
    showMessageText(tr("Not saved: cannot create the folder %1").arg(dir));
    return false;
  }
  QSaveFile file(path);
  const std::string text = operatorDefinitionToJson(*m_definition).dump(2) + "\n";
  if (!file.open(QIODevice::WriteOnly) ||
      file.write(text.data(), static_cast<qint64>(text.size())) !=
          static_cast<qint64>(text.size()) ||
      !file.commit()) {
    showMessageText(tr("Not saved: cannot write %1 (%2)").arg(path, file.errorString()));
    return false;
  }
  m_path = QFileInfo(path).absoluteFilePath();
  m_origin = QFileInfo(path).fileName();
  m_modified = false;
  validate();
  // The whole path: where Save puts a file depends on the database in use (the operators folder
  // beside it), and "Saved x.json" left the user to guess which folder that was.
  m_status->setText(tr("Saved %1").arg(QDir::toNativeSeparators(m_path)));
  m_status->setToolTip(QDir::toNativeSeparators(m_path));
  emit saved(m_path);
  return true;
}

}  // namespace opevo::ui
