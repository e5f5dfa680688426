#pragma once

#include <QWidget>
#include <memory>

#include "ops/operator_json.h"
#include "space/search_space.h"
#include "ui/widgets/space_template_box.h"

class QLabel;
class QTabWidget;
class QTableView;

namespace opevo::ui {

class OperatorEditor;
class OperatorFileModel;
class ParameterTableModel;
class PresetTableModel;

// The operator library: the presets and the user's operator files (the operators folder and
// files opened by hand), and for the selected one its search space: every parameter with its
// kind, spec and size, the constraints, and the size of the whole space, in the template chosen
// above it (the CPU loops, the GPU loops, ALT's joint space, Winograd's). Beside the space, on a
// tab, the editor that creates operators and edits copies of presets or the files themselves.
class PresetsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PresetsPanel(QWidget* parent = nullptr);

  // Selects a preset as a click would; false (and nothing changes) when there is none by that name.
  bool selectPreset(const QString& name);
  // Lists the file (loading it again when listed) and selects it; false when it failed to load,
  // in which case its row shows why.
  bool openFile(const QString& path);
  void openFileDialog();
  // Reads the operators folder again.
  void reloadFiles();
  // The preset's name while a preset is selected; empty for a file or nothing.
  QString selectedPreset() const;
  // The selected operator's name, preset or file; empty when none.
  QString selectedName() const;
  // The selected file's path; empty for a preset.
  QString selectedFile() const { return m_file; }
  std::shared_ptr<const OperatorDefinition> currentOperator() const { return m_definition; }
  // Highlights the parameter of that name (none when there is no such parameter).
  void showParameter(const QString& name);
  // What the operator file table says while it lists no file (what goes there and how); empty
  // once it lists one.
  QString emptyFilesText() const;
  // The space shown: the selected operator's in the chosen template.
  const SearchSpace* space() const { return m_shown ? &m_shown->space : nullptr; }
  SpaceTemplateBox* templateBox() const { return m_templateBox; }

  // Starts the editor on a new operator, or on the selection (a copy for a preset).
  void newOperator(OpKind kind);
  void editSelected();

  PresetTableModel* presetModel() const { return m_presetModel; }
  OperatorFileModel* fileModel() const { return m_fileModel; }
  ParameterTableModel* parameterModel() const { return m_parameterModel; }
  OperatorEditor* editor() const { return m_editor; }

 signals:
  // The space lives in the panel until the next selection. For files too: the name is the
  // operator's; empty, with an empty space, for a file that could not be loaded.
  void presetSelected(const QString& name, const opevo::SearchSpace& space);
  // The current operator changed: a preset, a file, or an edit just saved.
  void operatorChosen(std::shared_ptr<const opevo::OperatorDefinition> op);
  // The user clicked a parameter of the selected operator.
  void parameterChosen(const QString& name);

 protected:
  // The folder may have changed while the panel was hidden where no watcher could tell (a
  // network file system): its list is brought up to date.
  void showEvent(QShowEvent* event) override;
  // Paints what the empty "Operator file" table is for.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onPresetRow(int row);
  void onFileRow(int row);
  void show(std::shared_ptr<const OperatorDefinition> def, const QString& where);
  void showFailure(const QString& text);
  void showSpace();
  // Brings the selected operator's and parameter's rows into view.
  void scrollToSelection();

  PresetTableModel* m_presetModel;
  OperatorFileModel* m_fileModel;
  ParameterTableModel* m_parameterModel;
  QTableView* m_presetView;
  QTableView* m_fileView;
  QTableView* m_parameterView;
  QTabWidget* m_tabs;
  OperatorEditor* m_editor;
  QLabel* m_titleLabel;
  QLabel* m_sizeLabel;
  SpaceTemplateBox* m_templateBox;
  std::shared_ptr<const OperatorDefinition> m_definition;
  std::shared_ptr<const OperatorDefinition> m_shown;  // m_definition in the chosen template
  QString m_preset;
  QString m_file;
  bool m_showingParameter = false;
  // A row was selected while the panel was hidden (--preset C2 --param reduce_order before the
  // window showed): it is scrolled into view once the tables have their size.
  bool m_scrollOnShow = false;
};

}  // namespace opevo::ui
