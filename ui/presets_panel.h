#pragma once

#include <QWidget>
#include <optional>

#include "ops/operator.h"
#include "space/search_space.h"

class QLabel;
class QTableView;

namespace opevo::ui {

class ParameterTableModel;
class PresetTableModel;

// The preset operators and, for the selected one, its default search space: every parameter with
// its kind, spec and size, the constraints, and the size of the whole space.
class PresetsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PresetsPanel(QWidget* parent = nullptr);

  // Selects a preset as a click would; false (and nothing changes) when there is none by that name.
  bool selectPreset(const QString& name);
  // Empty when nothing is selected yet.
  QString selectedPreset() const;
  // Highlights the parameter of that name (none when there is no such parameter).
  void showParameter(const QString& name);
  const SearchSpace* space() const { return m_space ? &*m_space : nullptr; }

  PresetTableModel* presetModel() const { return m_presetModel; }
  ParameterTableModel* parameterModel() const { return m_parameterModel; }

 signals:
  // The space lives in the panel until the next selection.
  void presetSelected(const QString& name, const opevo::SearchSpace& space);
  // The user clicked a parameter of the selected preset.
  void parameterChosen(const QString& name);

 private:
  void onCurrentRowChanged(int row);

  PresetTableModel* m_presetModel;
  ParameterTableModel* m_parameterModel;
  QTableView* m_presetView;
  QTableView* m_parameterView;
  QLabel* m_titleLabel;
  QLabel* m_sizeLabel;
  std::optional<OperatorSpec> m_op;
  std::optional<SearchSpace> m_space;
  bool m_showingParameter = false;
};

}  // namespace opevo::ui
