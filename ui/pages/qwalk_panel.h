#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "ops/operator_json.h"
#include "space/parameter.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace opevo::ui {

class QwalkInputs;
class QwalkRunner;
class QwalkTableModel;
struct QwalkResult;

// The exact q-random-walk distribution of one parameter: which parameter (one of the selected
// preset's, or any spec typed in), the start vertex, q, and the table of probabilities. Every
// input is checked with core's own parser; a bad one is reported in the panel and left as typed.
// The largest parameter is core's (kMaxGraphVertices), as for `opevo qwalk`; it is computed off
// the GUI thread.
class QwalkPanel : public QWidget {
  Q_OBJECT

 public:
  explicit QwalkPanel(QWidget* parent = nullptr);
  ~QwalkPanel() override;

  // Offers these parameters in the chooser. The current choice survives when the new list has a
  // parameter of the same name, and a custom spec always survives. `owner`: the operator (in its
  // template) whose space they are, to say what a loop order's indices name; null for none.
  void setParameters(std::vector<ParameterPtr> params,
                     std::shared_ptr<const OperatorDefinition> owner = nullptr);
  // The chosen parameter's name; empty while the custom spec is chosen.
  QString parameterName() const;
  // The spec typed for the custom choice (it may not parse).
  QString customSpec() const { return m_customSpec; }

  // The same as the user choosing or typing; for command-line options and scripted tours.
  bool selectParameter(const QString& name);
  void setCustomSpec(const QString& spec);
  void setStartText(const QString& text);
  void setQText(const QString& text);

  // The messages the panel shows for the current inputs; empty when they are all valid.
  QStringList errors() const { return m_errors; }
  // True while a distribution for the current inputs is being computed.
  bool busy() const;
  QwalkTableModel* model() const { return m_model; }

 signals:
  // The table now shows the distribution for the current inputs.
  void distributionShown();
  // The parameter being looked at changed: a preset parameter's name, or empty for a custom spec.
  void parameterChanged(const QString& presetParameter);

 private:
  void onParameterChosen();
  void onSpecEdited(const QString& text);
  void useParameter(ParameterPtr param);
  void recompute();
  void showErrors();
  void showResult(const std::shared_ptr<const QwalkResult>& result);
  void clearDistribution(const QString& note);
  bool customChosen() const;

  std::vector<ParameterPtr> m_params;
  std::shared_ptr<const OperatorDefinition> m_owner;  // whose parameters m_params are
  ParameterPtr m_param;                               // null while the custom spec does not parse
  QString m_customSpec;
  QString m_specError;  // why the custom spec does not parse
  QStringList m_errors;

  QwalkRunner* m_runner;
  QwalkTableModel* m_model;
  QComboBox* m_paramCombo;
  QLineEdit* m_specEdit;
  QwalkInputs* m_inputs;
  QLabel* m_infoLabel;
  QLabel* m_errorLabel;
  QLabel* m_noteLabel;
  QTableView* m_table;
  QLabel* m_totalLabel;
};

}  // namespace opevo::ui
