#include "ui/widgets/kas_search_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include "tuners/registry.h"
#include "ui/models/kas_search_model.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {

KasSearchPanel::KasSearchPanel(QWidget* parent)
    : QWidget(parent),
      m_model(new KasSearchModel(this)),
      m_view(makeTableView(m_model, QStringLiteral("kasSearchTable"), nullptr)),
      m_candidates(new QSpinBox),
      m_flops(new QDoubleSpinBox),
      m_params(new QDoubleSpinBox),
      m_trials(new QSpinBox),
      m_epochs(new QSpinBox),
      m_images(new QSpinBox),
      m_testImages(new QSpinBox),
      m_algorithm(new QComboBox),
      m_seed(new QSpinBox),
      m_start(new QPushButton(tr("Start"))),
      m_stop(new QPushButton(tr("Stop"))),
      m_resume(new QPushButton(tr("Resume"))),
      m_reload(new QPushButton(tr("Reload"))) {
  const kas::KasSearchSettings defaults;
  // The list shares a narrow column with the form: the status gives way (elided) before the
  // figures do.
  m_view->horizontalHeader()->setSectionResizeMode(KasSearchModel::StatusColumn,
                                                   QHeaderView::Stretch);
  m_view->setMinimumHeight(120);
  m_resume->setObjectName(QStringLiteral("kasResumeButton"));
  m_resume->setToolTip(tr("Continue the selected search where it stopped"));
  m_reload->setToolTip(tr("Read the store again (searches run by the opevo CLI show up)"));
  auto* stored = new QGroupBox(tr("Searches"));
  auto* storedLayout = new QVBoxLayout(stored);
  storedLayout->addWidget(m_view, 1);
  auto* storedButtons = new QHBoxLayout;
  storedButtons->addWidget(m_resume);
  storedButtons->addWidget(m_reload);
  storedLayout->addLayout(storedButtons);

  m_candidates->setObjectName(QStringLiteral("kasCandidatesBox"));
  m_candidates->setRange(1, 2000);
  m_candidates->setValue(defaults.candidates);
  m_candidates->setToolTip(tr("Kernels sampled, tuned and trained"));
  for (QDoubleSpinBox* box : {m_flops, m_params}) {
    box->setRange(1, 100);
    box->setDecimals(0);
    box->setSuffix(QStringLiteral(" %"));
  }
  m_flops->setValue(defaults.budget.flops * 100);
  m_flops->setToolTip(tr("A kernel's FLOPs at most this share of the convolutions'"));
  m_params->setValue(defaults.budget.params * 100);
  m_params->setToolTip(tr("A kernel's weights at most this share of the convolutions'"));
  m_trials->setRange(1, 1000);
  m_trials->setValue(defaults.trials);
  m_trials->setToolTip(tr("Schedules measured at each replaced layer of %1")
                           .arg(QString::fromStdString(defaults.network)));
  m_epochs->setRange(1, 100);
  m_epochs->setValue(defaults.training.epochs);
  // The CLI's ranges (--train-images 1..60000, --test-images 1..10000): Fashion-MNIST's sizes.
  m_images->setRange(1, 60000);
  m_images->setSingleStep(1000);
  m_images->setValue(defaults.training.trainImages);
  m_images->setToolTip(tr("Fashion-MNIST training images each kernel is trained on"));
  // Without it a window search tested on the CLI's 2000 images while looking like a CLI search
  // run with --test-images 500: baselines 62.2% and 64.8% from the same-looking settings.
  m_testImages->setObjectName(QStringLiteral("kasTestImagesBox"));
  m_testImages->setRange(1, 10000);
  m_testImages->setSingleStep(500);
  m_testImages->setValue(defaults.training.testImages);
  m_testImages->setToolTip(
      tr("Fashion-MNIST test images each kernel's accuracy, and the baseline's, is measured on "
         "(the CLI's --test-images)"));
  m_algorithm->setObjectName(QStringLiteral("kasAlgorithmBox"));
  for (const TunerInfo& t : tunerRegistry().all())
    m_algorithm->addItem(QString::fromStdString(t.name));
  m_algorithm->setCurrentText(QString::fromStdString(defaults.algorithm));
  m_algorithm->setToolTip(tr("The algorithm that tunes each kernel's schedule (the CLI's --algo)"));
  // Every window search drew seed 1's kernels: the same three first kernels each time, and no way
  // to look at others.
  m_seed->setObjectName(QStringLiteral("kasSeedBox"));
  m_seed->setRange(1, 1'000'000'000);
  m_seed->setValue(static_cast<int>(defaults.seed));
  m_seed->setToolTip(
      tr("Draws the kernels (and their order of group counts): another seed, other kernels; the "
         "same seed, the same kernels (the CLI's --seed)"));
  auto* form = new QFormLayout;
  form->addRow(tr("Kernels"), m_candidates);
  form->addRow(tr("FLOPs budget"), m_flops);
  form->addRow(tr("Weights budget"), m_params);
  form->addRow(tr("Trials per layer"), m_trials);
  form->addRow(tr("Epochs"), m_epochs);
  form->addRow(tr("Training images"), m_images);
  form->addRow(tr("Test images"), m_testImages);
  form->addRow(tr("Tuned by"), m_algorithm);
  form->addRow(tr("Seed"), m_seed);
  m_start->setObjectName(QStringLiteral("kasStartButton"));
  m_stop->setObjectName(QStringLiteral("kasStopButton"));
  m_stop->setToolTip(tr("Ends the step in hand (a training is cut at once); Resume continues"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_start);
  buttons->addWidget(m_stop);
  auto* setup = new QGroupBox(tr("New search on %1").arg(QString::fromStdString(defaults.network)));
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addLayout(form);
  setupLayout->addLayout(buttons);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(stored, 1);
  layout->addWidget(setup);

  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    updateButtons();
    if (const auto id = selectedSearch()) emit searchSelected(*id);
  });
  connect(m_model, &QAbstractItemModel::modelReset, this, &KasSearchPanel::updateButtons);
  connect(m_start, &QPushButton::clicked, this, &KasSearchPanel::startRequested);
  connect(m_stop, &QPushButton::clicked, this, &KasSearchPanel::stopRequested);
  connect(m_reload, &QPushButton::clicked, this, &KasSearchPanel::reloadRequested);
  connect(m_resume, &QPushButton::clicked, this, [this] {
    if (const auto id = selectedSearch()) emit resumeRequested(*id);
  });
  updateButtons();
}

kas::KasSearchSettings KasSearchPanel::settings() const {
  kas::KasSearchSettings s;
  s.candidates = m_candidates->value();
  s.budget.flops = m_flops->value() / 100;
  s.budget.params = m_params->value() / 100;
  s.trials = m_trials->value();
  s.training.epochs = m_epochs->value();
  s.training.trainImages = m_images->value();
  s.training.testImages = m_testImages->value();
  s.algorithm = m_algorithm->currentText().toStdString();
  s.seed = static_cast<std::uint64_t>(m_seed->value());
  return s;
}

void KasSearchPanel::setBusy(bool busy) {
  m_busy = busy;
  updateButtons();
}

std::optional<std::int64_t> KasSearchPanel::selectedSearch() const {
  const QModelIndexList rows = m_view->selectionModel()->selectedRows();
  if (rows.isEmpty()) return std::nullopt;
  return m_model->search(rows.front().row()).record.id;
}

bool KasSearchPanel::selectSearch(std::int64_t id) {
  const int row = m_model->rowOf(id);
  if (row < 0) return false;
  m_view->selectRow(row);
  m_view->scrollTo(m_model->index(row, 0));
  return true;
}

void KasSearchPanel::updateButtons() {
  m_start->setEnabled(!m_busy);
  m_stop->setEnabled(m_busy);
  // A search that was stopped, failed (opevo-kas-train missing, say) or killed (read as
  // interrupted: no process holds it) goes on from its last committed step; one that another
  // program runs now is not resumed beside it.
  const auto id = selectedSearch();
  const int row = id ? m_model->rowOf(*id) : -1;
  const RunStatus status = row >= 0 ? m_model->search(row).record.status : RunStatus::Finished;
  m_resume->setEnabled(!m_busy && status != RunStatus::Finished && status != RunStatus::Running);
}

}  // namespace opevo::ui
