#include "ui/pages/topology_page.h"

#include <QBrush>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>

#include "common/error.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "space/param_spec.h"
#include "space/qwalk.h"
#include "ui/charts/distance_chart_view.h"
#include "ui/charts/probability_legend.h"
#include "ui/charts/topology_view.h"
#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/jobs/topology_jobs.h"
#include "ui/widgets/display_format.h"
#include "ui/widgets/loop_order_names.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/qwalk_inputs.h"
#include "ui/widgets/status_colors.h"

namespace opevo::ui {

TopologyPage::TopologyPage(QWidget* parent)
    : QWidget(parent),
      m_runner(new QwalkRunner(this)),
      m_operatorCombo(new QComboBox(this)),
      m_templateBox(new SpaceTemplateBox(QStringLiteral("topologyTemplate"), this)),
      m_paramCombo(new QComboBox(this)),
      m_specEdit(new QLineEdit(this)),
      m_engineCombo(new QComboBox(this)),
      m_inputs(new QwalkInputs({QStringLiteral("topologyStart"), QStringLiteral("topologyQ"),
                                QStringLiteral("topologyQSlider")},
                               this)),
      m_walksSpin(new QSpinBox(this)),
      m_sampleButton(new QPushButton(tr("Sample walks"), this)),
      m_infoLabel(new QLabel(this)),
      m_errorLabel(makeMessageLabel(QStringLiteral("topologyError"), MessageKind::Error, this)),
      m_noteLabel(makeMessageLabel(QStringLiteral("topologyNote"), MessageKind::Note, this)),
      m_stack(new QStackedWidget(this)),
      m_view(new TopologyView(this)),
      m_distanceChart(new DistanceChartView(this)),
      m_legend(new ProbabilityLegend(this)),
      m_legendScroll(new QScrollArea(this)) {
  m_operatorCombo->setObjectName(QStringLiteral("topologyOperator"));
  for (const std::string& name : presetNames())
    m_operatorCombo->addItem(QString::fromStdString(name));
  m_operatorCombo->addItem(tr("Custom spec…"));
  m_paramCombo->setObjectName(QStringLiteral("topologyParam"));
  // As wide as the longest name: at 1024 pixels "auto_unroll_max_step" read "auto_u".
  m_paramCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_specEdit->setObjectName(QStringLiteral("topologySpec"));
  m_specEdit->setPlaceholderText(QStringLiteral("factor:8:3, perm:4, discrete:1,2,4, choice:a,b"));
  m_engineCombo->setObjectName(QStringLiteral("topologyEngine"));
  m_engineCombo->addItems({QStringLiteral("neato"), QStringLiteral("dot")});
  m_engineCombo->setToolTip(tr("Graphviz layout: neato (spring model) or dot (layers)"));
  m_walksSpin->setObjectName(QStringLiteral("walksSpin"));
  m_walksSpin->setRange(100, 1'000'000);
  m_walksSpin->setSingleStep(1000);
  m_walksSpin->setValue(10'000);
  m_walksSpin->setGroupSeparatorShown(true);
  m_sampleButton->setObjectName(QStringLiteral("sampleButton"));
  m_sampleButton->setToolTip(
      tr("Run that many q-random walks with core's sampler and overlay "
         "their end points' frequencies"));
  m_infoLabel->setObjectName(QStringLiteral("topologyInfo"));
  m_infoLabel->setWordWrap(true);
  m_view->setObjectName(QStringLiteral("topologyView"));
  m_distanceChart->setObjectName(QStringLiteral("distanceChart"));
  m_stack->addWidget(m_view);
  m_stack->addWidget(m_distanceChart);

  auto* row1 = new QHBoxLayout;
  row1->addWidget(new QLabel(tr("Operator:"), this));
  row1->addWidget(m_operatorCombo);
  row1->addWidget(m_templateBox);
  row1->addWidget(new QLabel(tr("Parameter:"), this));
  row1->addWidget(m_paramCombo);
  row1->addStretch(1);
  row1->addWidget(new QLabel(tr("Layout:"), this));
  row1->addWidget(m_engineCombo);
  // The spec has a row of its own: beside the template box it was squeezed to a few characters
  // at 800 pixels.
  auto* specRow = new QHBoxLayout;
  specRow->addWidget(new QLabel(tr("Spec:"), this));
  specRow->addWidget(m_specEdit, 1);
  auto* row2 = new QHBoxLayout;
  m_inputs->addTo(row2);
  row2->addWidget(m_walksSpin);
  row2->addWidget(m_sampleButton);
  auto* body = new QHBoxLayout;
  body->addWidget(m_stack, 1);
  // The legend scrolls when the page is short (a small screen, a large scale factor), where its
  // full height would push the window past the screen's bottom edge.
  m_legendScroll->setWidget(m_legend);
  m_legendScroll->setWidgetResizable(true);
  m_legendScroll->setFrameShape(QFrame::NoFrame);
  m_legendScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_legendScroll->setFixedWidth(m_legend->sizeHint().width() +
                                m_legendScroll->verticalScrollBar()->sizeHint().width());
  body->addWidget(m_legendScroll);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row1);
  layout->addLayout(specRow);
  layout->addLayout(row2);
  layout->addWidget(m_infoLabel);
  layout->addWidget(m_errorLabel);
  layout->addWidget(m_noteLabel);
  layout->addLayout(body, 1);

  connect(m_operatorCombo, &QComboBox::currentIndexChanged, this, [this] { onOperatorChosen(); });
  connect(m_templateBox, &QComboBox::currentIndexChanged, this, [this] { onOperatorChosen(); });
  connect(m_paramCombo, &QComboBox::currentIndexChanged, this, [this] { onParameterChosen(); });
  connect(m_specEdit, &QLineEdit::textEdited, this, &TopologyPage::setCustomSpec);
  connect(m_engineCombo, &QComboBox::currentIndexChanged, this, [this] { startLayout(); });
  connect(m_inputs, &QwalkInputs::changed, this, [this] { recompute(); });
  connect(m_sampleButton, &QPushButton::clicked, this,
          [this] { sampleWalks(m_walksSpin->value()); });
  connect(m_runner, &QwalkRunner::finished, this, &TopologyPage::showResult);
  connect(m_view, &TopologyView::vertexClicked, this, &TopologyPage::onVertexClicked);
  onOperatorChosen();
}

TopologyPage::~TopologyPage() = default;

bool TopologyPage::busy() const {
  return m_layoutJob.busy() || m_sampleJob.busy() || m_runner->busy();
}

bool TopologyPage::showingGraph() const {
  return m_result && m_stack->currentWidget() == m_view && m_layout;
}

void TopologyPage::addOperatorFile(const QString& path,
                                   std::shared_ptr<const OperatorDefinition> def, bool show,
                                   QString error) {
  if (path.isEmpty()) return;
  // A file that fails to load is listed with its error, as the Spaces page lists it: left out,
  // the user could not tell a bad file from one never found. The library hands over its reason;
  // without one it is core's own, read again (a small file, once).
  if (!def && error.isEmpty()) {
    try {
      def = std::make_shared<const OperatorDefinition>(loadOperator(path.toStdString()));
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
  }
  const auto before = m_files.find(path);
  const bool changed = before != m_files.end() &&
                       (before->second.definition != def || before->second.error != error);
  m_files[path] = {def, error};
  int index = m_operatorCombo->findData(path);
  if (index < 0) {
    index = m_operatorCombo->count() - 1;  // before "Custom spec…", which stays last
    const QSignalBlocker blocker(m_operatorCombo);
    m_operatorCombo->insertItem(index, QString(), path);
  }
  {
    // Named as the Spaces page names it: the operator's name, or the file's when it failed.
    const QSignalBlocker blocker(m_operatorCombo);
    const QString fileName = QFileInfo(path).fileName();
    m_operatorCombo->setItemText(index, def ? QString::fromStdString(def->op.name) : fileName);
    m_operatorCombo->setItemData(index,
                                 def ? QDir::toNativeSeparators(path)
                                     : QDir::toNativeSeparators(path) + QLatin1Char('\n') + error,
                                 Qt::ToolTipRole);
    m_operatorCombo->setItemData(
        index, def ? QVariant() : QVariant(QBrush(statusColor(StatusColor::Error))),
        Qt::ForegroundRole);
  }
  if (show && index != m_operatorCombo->currentIndex())
    m_operatorCombo->setCurrentIndex(index);
  else if (changed && index == m_operatorCombo->currentIndex())
    onOperatorChosen();  // the file on show was saved again: its parameters may differ
}

bool TopologyPage::selectOperator(const QString& name, std::optional<SpaceTemplate> t) {
  int index = m_operatorCombo->findText(name, Qt::MatchExactly);
  if (index < 0 && !name.isEmpty()) index = m_operatorCombo->findData(name);  // a file's path
  if (index < 0) return false;
  // One rebuild of the parameters for both choices: the template is preferred silently, then
  // the operator's change (or, for the same operator, a rebuild) applies it.
  const SpaceTemplate before = m_templateBox->current();
  if (t) m_templateBox->prefer(*t);
  if (index != m_operatorCombo->currentIndex())
    m_operatorCombo->setCurrentIndex(index);
  else if (t && (*t != before || !m_templateBox->shown()))
    onOperatorChosen();
  return !t || m_templateBox->current() == *t;
}

bool TopologyPage::selectTemplate(SpaceTemplate t) {
  if (m_templateBox->current() == t && m_templateBox->shown()) return true;
  return m_templateBox->select(t);  // the operator's parameters follow (onOperatorChosen)
}

bool TopologyPage::selectParameter(const QString& name) {
  const int index = m_paramCombo->findText(name, Qt::MatchExactly);
  if (index < 0) return false;
  m_paramCombo->setCurrentIndex(index);
  onParameterChosen();  // also when it was already current: the user asked for it
  return true;
}

bool TopologyPage::showing(const QString& op, SpaceTemplate t, const QString& parameter) const {
  const int index = m_operatorCombo->currentIndex();
  if (index == m_operatorCombo->count() - 1 || !m_param) return false;  // a typed spec
  const bool same = m_files.count(m_operatorCombo->currentData().toString())
                        ? m_operatorCombo->currentData().toString() == op
                        : m_operatorCombo->currentText() == op;
  return same && m_templateBox->shown() && m_templateBox->current() == t &&
         m_paramCombo->currentText() == parameter;
}

bool TopologyPage::showingSpec(const QString& spec) const {
  return m_operatorCombo->currentIndex() == m_operatorCombo->count() - 1 &&
         m_specEdit->text() == spec;
}

void TopologyPage::setLayoutEngine(const QString& engine) {
  m_engineCombo->setCurrentText(engine);
}

void TopologyPage::setStartText(const QString& text) {
  m_inputs->setStartText(text);
}

void TopologyPage::setQText(const QString& text) {
  m_inputs->setQText(text);
}

void TopologyPage::onOperatorChosen() {
  m_params.clear();
  const bool custom = m_operatorCombo->currentIndex() == m_operatorCombo->count() - 1;
  if (custom) {
    m_templateBox->clearOperator();
  } else if (const auto file = m_files.find(m_operatorCombo->currentData().toString());
             file != m_files.end()) {
    if (!file->second.definition) {
      m_templateBox->clearOperator();
      const QSignalBlocker blocker(m_paramCombo);
      m_paramCombo->clear();
      m_paramCombo->setEnabled(false);
      m_specError = tr("%1 could not be loaded: %2")
                        .arg(QFileInfo(file->first).fileName(), file->second.error);
      useParameter(nullptr);
      return;
    }
    m_templateBox->setOperator(*file->second.definition, m_templateBox->current());
    const SearchSpace& space = m_templateBox->shown()->space;
    for (std::size_t i = 0; i < space.dims(); ++i) m_params.push_back(space.paramPtr(i));
  } else {
    const OperatorSpec op = preset(m_operatorCombo->currentText().toStdString());
    m_templateBox->setOperator(OperatorDefinition{op, defaultSpace(op)}, m_templateBox->current());
    const SearchSpace& space = m_templateBox->shown()->space;
    for (std::size_t i = 0; i < space.dims(); ++i) m_params.push_back(space.paramPtr(i));
  }
  const QSignalBlocker blocker(m_paramCombo);
  const QString previous = m_paramCombo->currentText();
  m_paramCombo->clear();
  for (const ParameterPtr& p : m_params) m_paramCombo->addItem(QString::fromStdString(p->name()));
  m_paramCombo->setEnabled(!custom);
  if (custom) {
    setCustomSpec(m_specEdit->text());
    return;
  }
  const int keep = m_paramCombo->findText(previous);
  m_paramCombo->setCurrentIndex(std::max(0, keep));
  onParameterChosen();
}

void TopologyPage::onParameterChosen() {
  const int index = m_paramCombo->currentIndex();
  if (index < 0 || index >= static_cast<int>(m_params.size())) return;
  m_specError.clear();
  m_specEdit->setText(QString::fromStdString(m_params[static_cast<std::size_t>(index)]->spec()));
  useParameter(m_params[static_cast<std::size_t>(index)]);
}

void TopologyPage::setCustomSpec(const QString& spec) {
  if (m_specEdit->text() != spec) m_specEdit->setText(spec);
  if (m_operatorCombo->currentIndex() != m_operatorCombo->count() - 1) {
    const QSignalBlocker blocker(m_operatorCombo);
    m_operatorCombo->setCurrentIndex(m_operatorCombo->count() - 1);
    const QSignalBlocker paramBlocker(m_paramCombo);
    m_paramCombo->clear();
    m_paramCombo->setEnabled(false);
    m_params.clear();
    m_templateBox->clearOperator();
  }
  m_specError.clear();
  ParameterPtr param;
  try {
    if (spec.trimmed().isEmpty()) throw InputError("type a spec such as factor:8:3 or perm:4");
    param = makeParameter("custom", spec.trimmed().toStdString());
  } catch (const InputError& e) {
    m_specError = QString::fromUtf8(e.what());
  }
  useParameter(std::move(param));
}

void TopologyPage::useParameter(ParameterPtr param) {
  m_param = std::move(param);
  m_layout.reset();
  m_result.reset();
  m_sampled.clear();
  m_view->setLayout(nullptr, {});
  m_inputs->setParameter(m_param);
  if (m_param) {
    QString info = tr("<b>%1</b>: %2 parameter (%3), %4 vertices")
                       .arg(QString::fromStdString(m_param->name()).toHtmlEscaped(),
                            QString::fromLatin1(kindName(m_param->kind()).data()),
                            QString::fromStdString(m_param->spec()).toHtmlEscaped(),
                            groupDigits(m_param->size().toString()));
    // A loop order's vertices (2,0,1) are indices: which loop each one is.
    if (const auto owner = m_templateBox->shown())
      if (const QString loops = loopOrderMeaning(*owner, *m_param); !loops.isEmpty())
        info += QStringLiteral(" &mdash; ") + loops.toHtmlEscaped();
    m_infoLabel->setText(info);
  } else {
    m_infoLabel->clear();
  }
  startLayout();
  recompute();
}

void TopologyPage::startLayout() {
  m_layoutJob.cancel();  // a drawing of the previous parameter is of no use now
  m_layout.reset();
  showMessage(m_noteLabel, QString());
  if (!m_param) return;
  if (!(m_param->size() <= kMaxDrawnVertices)) {
    m_stack->setCurrentWidget(m_distanceChart);
    showMessage(m_noteLabel,
                tr("%1 vertices.%2").arg(groupDigits(m_param->size().toString()), drawNote()));
    return;
  }
  m_stack->setCurrentWidget(m_view);
  m_layoutJob.start(
      [param = m_param, engine = m_engineCombo->currentText()] {
        return computeLayout(param, engine, kMaxDrawnVertices);
      },
      [this](const LayoutJob& job) {
        if (!job.error.isEmpty()) {
          showMessage(m_noteLabel, tr("No drawing: %1").arg(job.error));
          m_stack->setCurrentWidget(m_distanceChart);
          applyToPicture();
          return;
        }
        m_layout = job.layout;
        m_view->setLayout(m_layout, job.labels);
        applyToPicture();
      });
}

QString TopologyPage::drawNote() const {
  return tr(" A drawing of more than %1 would be an unreadable tangle and slow to lay out, so "
            "the distribution is shown summed by distance from the start vertex instead.")
      .arg(groupDigits(std::to_string(kMaxDrawnVertices)));
}

void TopologyPage::recompute() {
  m_errors.clear();
  m_sampled.clear();
  m_sampleJob.cancel();  // samples of the old inputs are no longer worth showing
  if (!m_specError.isEmpty()) m_errors << m_specError;
  const std::optional<QwalkInputs::Walk> walk = m_inputs->read(m_errors);
  showErrors();
  m_sampleButton->setEnabled(false);
  // core's limit, the one `opevo qwalk` has: the window computes whatever the CLI does.
  const QString tooLarge = m_param ? walkTooLargeNote(*m_param) : QString();
  if (!m_param || !walk || !m_errors.isEmpty() || !tooLarge.isEmpty()) {
    m_runner->cancel();
    m_result.reset();  // nor the bars nor the colours of other inputs stay up as if current
    if (m_param && m_errors.isEmpty()) showMessage(m_noteLabel, tooLarge);
    applyToPicture();
    return;
  }
  // A large graph takes seconds (perm:9: about 6); the page stays live and says so meanwhile.
  if (!(m_param->size() <= kMaxDrawnVertices))
    showMessage(m_noteLabel, tr("%1 vertices: computing the exact distribution…%2")
                                 .arg(groupDigits(m_param->size().toString()), drawNote()));
  applyToPicture();
  m_runner->request({m_param, walk->start, walk->q});
}

void TopologyPage::showErrors() {
  showMessage(m_errorLabel, m_errors.join(QLatin1Char('\n')));
}

void TopologyPage::showResult(const std::shared_ptr<const QwalkResult>& result) {
  if (!result->error.isEmpty()) {
    m_errors << result->error;
    showErrors();
    m_result.reset();
    applyToPicture();
    return;
  }
  m_result = result;
  m_sampleButton->setEnabled(true);
  if (m_stack->currentWidget() == m_distanceChart && m_param &&
      !(m_param->size() <= kMaxDrawnVertices))
    showMessage(m_noteLabel,
                tr("%1 vertices.%2").arg(groupDigits(m_param->size().toString()), drawNote()));
  applyToPicture();
  emit distributionShown();
}

// Puts the current result (and sample) into the picture or the bars; either may still be missing.
void TopologyPage::applyToPicture() {
  // The key explains colours and discs: it has nothing to say about the bars.
  m_legendScroll->setVisible(m_stack->currentWidget() == m_view);
  const QwalkResult* r = m_result.get();
  const bool sampled = r && m_sampled.size() == r->distribution.graph.size();
  m_legend->setSampledWalks(sampled ? m_sampledWalks : 0);
  if (m_stack->currentWidget() == m_distanceChart) {
    std::vector<double> exact, freq;
    if (r) exact = sumByDistance(r->distribution.graph, r->distribution.probability);
    if (sampled) freq = sumByDistance(r->distribution.graph, m_sampled);
    m_distanceChart->setExact(std::move(exact));
    m_distanceChart->setSampled(std::move(freq));
    m_legend->setScale(0, TopologyView::kMaxDecades);
    return;
  }
  if (!m_layout) return;
  if (!r) {
    // No distribution (q out of range, say), but the start the field names stays outlined: it
    // jumped to vertex 0 while Start still said 64.
    std::size_t start = m_view->startIndex();
    if (const std::optional<Vertex> v = m_inputs->start())
      if (const auto it = m_layout->indexOf.find(*v); it != m_layout->indexOf.end())
        start = it->second;
    m_view->setProbabilities({}, start);
    m_legend->setScale(0, TopologyView::kMaxDecades);
    return;
  }
  const double maxP = m_view->showDistribution(*r, sampled ? m_sampled : std::vector<double>{});
  m_legend->setScale(maxP, m_view->decades());
}

bool TopologyPage::sampleWalks(int walks) {
  if (!m_result || walks <= 0) return false;
  // The box shows the walks sampled, also when they were asked for elsewhere (--samples): the
  // legend and the box must not disagree.
  m_walksSpin->setValue(walks);
  walks = m_walksSpin->value();
  m_sampleButton->setEnabled(false);
  m_sampleJob.start([result = m_result, walks] { return opevo::ui::sampleWalks(*result, walks); },
                    [this](const SampleJob& job) { onSampled(job.frequency, job.walks); });
  return true;
}

void TopologyPage::onSampled(const std::vector<double>& frequency, int walks) {
  m_sampled = frequency;
  m_sampledWalks = walks;
  m_sampleButton->setEnabled(true);
  applyToPicture();
  emit sampleShown();
}

void TopologyPage::onVertexClicked(std::size_t index) {
  if (!m_layout || !m_param || index >= m_layout->graph.size()) return;
  m_inputs->setStartText(QString::fromStdString(m_param->format(m_layout->graph.vertices[index])));
}

}  // namespace opevo::ui
