#pragma once

#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "space/parameter.h"
#include "ui/jobs/latest_job.h"
#include "ui/jobs/topology_jobs.h"
#include "ui/widgets/qwalk_inputs.h"
#include "ui/widgets/space_template_box.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;
class QSlider;
class QSpinBox;
class QStackedWidget;

namespace opevo::ui {

struct GraphLayout;
struct QwalkResult;
class DistanceChartView;
class ProbabilityLegend;
class QwalkRunner;
class TopologyView;

// The Topology page: one parameter (of an operator's space in a template, or typed as a spec)
// and its graph laid out by Graphviz, coloured and sized by the exact
// q-random-walk distribution from a start vertex (click a vertex to move it), with q on a slider,
// and sampled walks overlaid on request. Above kMaxDrawnVertices the picture would be a hairball,
// so the distribution is shown summed by distance instead, with a note saying so.
class TopologyPage : public QWidget {
  Q_OBJECT

 public:
  static constexpr std::size_t kMaxDrawnVertices = 2000;

  explicit TopologyPage(QWidget* parent = nullptr);
  ~TopologyPage() override;

  // A user's operator file (the Spaces page's choice), offered after the presets under its
  // operator's name, as the Spaces page lists it; an offered one is updated (a just-saved edit).
  // A null definition is a file that failed to load: it is listed by its file name, in red, and
  // choosing it says why (`error`, as the library read it; empty: the file is read again for
  // it). It becomes the one shown when `show`.
  void addOperatorFile(const QString& path, std::shared_ptr<const OperatorDefinition> def,
                       bool show, QString error = {});
  // As the user choosing (a preset's name, or an offered file's path); false when there is no
  // such operator or parameter.
  // With a template, the operator's parameters come from its space (false where the operator
  // cannot take it, and the page shows the operator in its own template).
  bool selectOperator(const QString& name, std::optional<SpaceTemplate> t = std::nullopt);
  bool selectParameter(const QString& name);
  // Whether the page shows that parameter of that operator (a preset's name or an offered
  // file's path) in that template; or, with an empty operator, that typed spec.
  bool showing(const QString& op, SpaceTemplate t, const QString& parameter) const;
  bool showingSpec(const QString& spec) const;
  // The template whose space the operator's parameters come from; false where it cannot take it.
  bool selectTemplate(SpaceTemplate t);
  SpaceTemplateBox* templateBox() const { return m_templateBox; }
  void setCustomSpec(const QString& spec);
  void setStartText(const QString& text);
  void setQText(const QString& text);
  void setLayoutEngine(const QString& engine);  // "neato" or "dot"
  // Starts sampling `walks` walks from the current start (needs a shown distribution).
  bool sampleWalks(int walks);

  QStringList errors() const { return m_errors; }
  // True while a layout, a distribution or a sample for the current inputs is being computed.
  bool busy() const;
  // True when the picture (or the bars) shows the distribution for the current inputs.
  bool showingGraph() const;
  TopologyView* view() const { return m_view; }
  DistanceChartView* distanceChart() const { return m_distanceChart; }
  const QwalkResult* result() const { return m_result.get(); }
  QSlider* qSlider() const { return m_inputs->slider(); }

 signals:
  void distributionShown();
  void sampleShown();

 private:
  void onOperatorChosen();
  void onParameterChosen();
  void useParameter(ParameterPtr param);
  void startLayout();
  void recompute();
  void showResult(const std::shared_ptr<const QwalkResult>& result);
  void applyToPicture();
  void onSampled(const std::vector<double>& frequencyByResultIndex, int walks);
  void onVertexClicked(std::size_t index);
  void showErrors();
  QString drawNote() const;

  ParameterPtr m_param;
  std::vector<ParameterPtr> m_params;  // the chosen operator's
  std::shared_ptr<const GraphLayout> m_layout;
  std::shared_ptr<const QwalkResult> m_result;
  std::vector<double> m_sampled;  // by result index; empty when none for the current result
  int m_sampledWalks = 0;
  QStringList m_errors;
  // The offered operator files, by path (the combo's item data): the definition, or why the
  // file did not load.
  struct OfferedFile {
    std::shared_ptr<const OperatorDefinition> definition;
    QString error;
  };
  std::map<QString, OfferedFile> m_files;
  QString m_specError;
  LatestJob<LayoutJob> m_layoutJob;  // the drawing of the current parameter
  LatestJob<SampleJob> m_sampleJob;  // walks sampled from the current distribution

  QwalkRunner* m_runner;
  QComboBox* m_operatorCombo;
  SpaceTemplateBox* m_templateBox;
  QComboBox* m_paramCombo;
  QLineEdit* m_specEdit;
  QComboBox* m_engineCombo;
  QwalkInputs* m_inputs;
  QSpinBox* m_walksSpin;
  QPushButton* m_sampleButton;
  QLabel* m_infoLabel;
  QLabel* m_errorLabel;
  QLabel* m_noteLabel;
  QStackedWidget* m_stack;
  TopologyView* m_view;
  DistanceChartView* m_distanceChart;
  ProbabilityLegend* m_legend;
  QScrollArea* m_legendScroll;
};

}  // namespace opevo::ui
