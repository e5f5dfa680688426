#pragma once

#include <QMap>
#include <QWidget>
#include <functional>
#include <memory>

#include "ops/operator_json.h"
#include "ui/widgets/operator_form.h"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;

namespace opevo::ui {

// Creates and edits an operator file: name, kind, the kind's shape and the space parameters a
// file may change. Every edit is checked at once through core's operatorDefinitionFromJson, the
// path `opevo tune --op FILE` takes, so the window and the command line accept the same files.
// A refusal shows core's message under the form and marks the fields it names; the text stays
// as typed. A valid operator shows its space's size. Save writes the file the form stands for;
// the fields of an edited file that the form has no place for (an epilogue, mode, target) are
// listed under the form and saved as they were.
class OperatorEditor : public QWidget {
  Q_OBJECT

 public:
  explicit OperatorEditor(QWidget* parent = nullptr);

  // Each replaces the form; with unsaved edits it asks first, and false means the user kept them.
  bool newOperator(OpKind kind);
  bool editPreset(const QString& name);  // a copy: saving never touches the preset
  bool editFile(const QString& path);

  // Saves to the file being edited, or to a new file in the operators folder named after the
  // operator (Save as… when that name is taken). False, with the reason shown, when not saved.
  bool save();
  bool saveTo(const QString& path);
  void saveAsDialog();

  bool isModified() const { return m_modified; }
  QString path() const { return m_path; }
  // Null while the form is refused.
  std::shared_ptr<const OperatorDefinition> definition() const { return m_definition; }
  // Core's refusal, or a failed save; empty when there is none.
  QString message() const { return m_message; }
  QStringList markedFields() const { return m_marked; }
  OperatorForm form() const;

  // Replaces the question asked before unsaved edits are dropped (tests answer it themselves).
  void setDiscardQuestion(std::function<bool()> ask) { m_askDiscard = std::move(ask); }

 signals:
  void saved(const QString& path);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  bool mayDiscard();
  void setForm(const OperatorForm& form, const QString& path, const QString& origin);
  void layOutShape();
  void validate();
  // The fields' widget as tall as its wrapped labels need at the scroll area's width.
  void fitFields();
  void edited();
  void showMessageText(const QString& text);
  void updateTitle();

  QString m_path;
  QString m_origin;  // "new", "copy of preset MM1", the file name: what the title says
  nlohmann::json m_file = nlohmann::json::object();  // as read: OperatorForm::file
  bool m_modified = false;
  bool m_filling = false;
  std::shared_ptr<const OperatorDefinition> m_definition;
  QString m_message;
  QStringList m_marked;
  std::function<bool()> m_askDiscard;

  QLabel* m_title;
  QLineEdit* m_name;
  QComboBox* m_kind;
  QGridLayout* m_shapeGrid;
  QMap<QString, QLabel*> m_shapeLabels;
  QMap<QString, QLineEdit*> m_shapeEdits;
  QCheckBox* m_transA;
  QCheckBox* m_transB;
  QGridLayout* m_spaceGrid;
  QLabel* m_spaceNote;
  QMap<QString, QLabel*> m_spaceLabels;
  QMap<QString, QLineEdit*> m_spaceEdits;
  QLabel* m_kept;
  QScrollArea* m_scroll;
  QLabel* m_error;
  QLabel* m_size;
  QLabel* m_status;
  QPushButton* m_saveButton;
  QPushButton* m_saveAsButton;
};

}  // namespace opevo::ui
