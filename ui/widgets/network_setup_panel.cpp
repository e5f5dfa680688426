#include "ui/widgets/network_setup_panel.h"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "common/error.h"
#include "engine/run_status.h"
#include "net/network_json.h"
#include "net/network_plan.h"
#include "net/task_templates.h"
#include "store/live_status.h"
#include "store/store.h"
#include "tuners/registry.h"
#include "ui/widgets/form_scroll_area.h"
#include "ui/widgets/network_run_deletion.h"
#include "ui/widgets/read_only_tip.h"

namespace opevo::ui {
namespace {

constexpr int kPathRole = Qt::UserRole;  // a file entry's path (presets have none)

QString schedulerWord(net::SchedulerKind kind) {
  const std::string_view name = net::schedulerKindName(kind);
  return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

// "2: alexnet, interrupted (opevo-m / gradient / layouts+loops, 60 trials)": what tells runs
// apart first (id, network, status), the contender after, whole: the four runs of a race of two
// algorithms in two modes read alike without their modes.
QString runEntry(const NetworkRecord& r) {
  QString what;
  try {
    const net::NetworkTuningPlan plan = net::planFromJson(r.planJson, "");
    QString how = tuningModeWords(plan.mode);
    if (plan.templates.any())
      how += QStringLiteral(" + ") + QString::fromStdString(plan.templates.name());
    what = NetworkSetupPanel::tr(" (%1 / %2 / %3, %4 trials)")
               .arg(QString::fromStdString(plan.algorithm), schedulerWord(plan.scheduler), how)
               .arg(plan.trials);
  } catch (const std::exception&) {
    // A plan this build cannot read still lists its run, by id, network and status.
  }
  return NetworkSetupPanel::tr("%1: %2, %3%4")
      .arg(r.id)
      .arg(QString::fromStdString(r.name), QString::fromUtf8(runStatusName(r.status).data()), what);
}

}  // namespace

NetworkSetupPanel::NetworkSetupPanel(QWidget* parent)
    : QWidget(parent),
      m_network(new QComboBox),
      m_params(new QLineEdit),
      m_backend(new QComboBox),
      m_algorithms(new QListWidget),
      m_gradient(new QCheckBox(tr("gradient (Ansor)"))),
      m_roundRobin(new QCheckBox(tr("round-robin"))),
      m_topological(new QCheckBox(tr("topological (ALT)"))),
      m_loopMode(new QCheckBox(tr("loops"))),
      m_jointMode(new QCheckBox(tr("layouts + loops (ALT)"))),
      m_jointNoPropagation(new QCheckBox(tr("no propagation (ALT-WP)"))),
      m_winogradMode(new QCheckBox(tr("Winograd convolutions"))),
      m_matvec(new QCheckBox(tr("matrix-vector dense layers"))),
      m_coldWeights(new QCheckBox(tr("weights cold, as in the chain"))),
      m_coldActivations(new QCheckBox(tr("activations cold"))),
      m_frozenTorch(new QCheckBox(tr("libtorch frozen, as deployed"))),
      m_trials(new QSpinBox),
      m_unit(new QSpinBox),
      m_seed(new QSpinBox),
      m_start(new QPushButton(tr("Start"))),
      m_stop(new QPushButton(tr("Stop"))),
      m_runs(new QComboBox),
      m_resume(new QPushButton(tr("Resume"))),
      m_show(new QPushButton(tr("Show"))),
      m_delete(new QPushButton(tr("Delete…"))),
      m_reload(new QToolButton),
      m_deletion(new NetworkRunDeletion(this)),
      m_form(new QWidget) {
  m_network->setObjectName(QStringLiteral("networkBox"));
  for (const net::NetworkPreset& p : net::networkPresets())
    m_network->addItem(QString::fromStdString(p.name));
  m_open = new QPushButton(tr("Open…"));
  QPushButton* open = m_open;
  open->setToolTip(tr("A network file (docs/networks.md)"));
  auto* networkRow = new QHBoxLayout;
  networkRow->addWidget(m_network, 1);
  networkRow->addWidget(open);
  m_params->setObjectName(QStringLiteral("paramsEdit"));
  m_params->setPlaceholderText(tr("e.g. batch=1, seq=128"));
  m_params->setToolTip(tr("Change params of the network file, comma separated"));
  m_backend->addItems({QStringLiteral("cpu"), QStringLiteral("cuda"), QStringLiteral("hip")});
  m_backend->setToolTip(
      tr("After tuning, the network runs end to end: on cpu against libtorch; on cuda on the "
         "device, against its plain reference kernels and beside each task's cuBLAS/cuDNN time"));
  for (const TunerInfo& t : tunerRegistry().all()) {
    auto* item = new QListWidgetItem(QString::fromStdString(t.name), m_algorithms);
    item->setToolTip(QString::fromStdString(t.description));
    item->setCheckState(t.isDefault ? Qt::Checked : Qt::Unchecked);
  }
  m_algorithms->setObjectName(QStringLiteral("algorithmList"));
  // Every algorithm in view without scrolling (the panel has the room; a scrolled list hid
  // autotvm and ansor, and cut a row in half).
  m_algorithms->setFixedHeight(m_algorithms->sizeHintForRow(0) * m_algorithms->count() +
                               2 * m_algorithms->frameWidth());
  m_gradient->setChecked(true);
  m_gradient->setToolTip(
      tr("Each unit of trials to the task whose latency is estimated to drop fastest (Ansor); a "
         "task is expected to near the speed of tasks of its kind and size (docs/networks.md)"));
  // One under another: three in a row made the form 500 px wide, and the charts beside it
  // too narrow to read on a 1024-pixel screen.
  auto* schedulers = new QVBoxLayout;
  schedulers->addWidget(m_gradient);
  schedulers->addWidget(m_roundRobin);
  schedulers->addWidget(m_topological);
  m_topological->setObjectName(QStringLiteral("topologicalBox"));
  m_topological->setToolTip(
      tr("The tasks one after another in the order they run, each to its share of the trials "
         "(ALT); with layouts propagating, a task whose output meets an earlier task's in a "
         "residual add takes that task's output layout, so the residual needs no conversion, "
         "and a depthwise convolution is tuned on its producer's channel blocks, the ones it "
         "runs with"));
  // Layouts are what a CPU convolution needs most (docs/results/networks.md), so a new race tunes
  // them; loops alone stay one click away, to race the two.
  m_loopMode->setObjectName(QStringLiteral("loopModeBox"));
  m_loopMode->setToolTip(tr("Every task tunes its loops over plain layouts (NCHW, row-major)"));
  m_jointMode->setObjectName(QStringLiteral("jointModeBox"));
  m_jointMode->setToolTip(
      tr("Convolutions tune their tensor layouts and loops together (ALT); the pools and "
         "residual adds that read a convolution's output read its layout where they can, "
         "elsewhere activations are converted between layers, and the conversions count in the "
         "network's time. CPU only"));
  m_jointMode->setChecked(true);
  m_jointNoPropagation->setObjectName(QStringLiteral("jointNoPropagationBox"));
  m_jointNoPropagation->setToolTip(
      tr("Layouts and loops as in ALT, but every tensor a layer reads in another layout is "
         "converted first (ALT-WP), to race against propagation. CPU only"));
  m_winogradMode->setObjectName(QStringLiteral("winogradModeBox"));
  m_winogradMode->setToolTip(
      tr("The stride-1 convolutions with enough output tiles on Winograd's template (e.g. "
         "F(4x4, 3x3), F(4x4, 5x5): fewer multiplications) over plain layouts; the dense layers "
         "as the matrix-vector box below says, as every contender's (checked: net tune "
         "--template winograd+matvec; cleared: --template winograd); the other tasks tune "
         "layouts and loops on the CPU, loops on the GPUs"));
  m_matvec->setObjectName(QStringLiteral("matvecBox"));
  m_matvec->setToolTip(
      tr("Every contender's dense layers with at most 16 rows (batch 1 to 16) on the "
         "matrix-vector template, which streams their weights once with vector loads, over "
         "plain layouts; the direct template tiles for a reuse such a layer does not have. "
         "Checked by default on cuda and hip (on an H200 AlexNet's fc layers ran at 1.3-1.8x "
         "cuBLAS's speed on it, 0.4-0.6x on the direct template); unchecked, the dense layers "
         "tune the direct template"));
  m_matvec->setChecked(net::defaultTaskTemplates(m_backend->currentText().toStdString()).matvec);
  connect(m_matvec, &QCheckBox::clicked, this, [this] { m_matvecChosen = true; });
  auto* modes = new QVBoxLayout;
  modes->addWidget(m_loopMode);
  modes->addWidget(m_jointMode);
  modes->addWidget(m_jointNoPropagation);
  modes->addWidget(m_winogradMode);
  modes->addWidget(m_matvec);
  m_coldWeights->setObjectName(QStringLiteral("coldWeightsBox"));
  m_coldWeights->setChecked(true);
  m_coldWeights->setToolTip(
      tr("Each kernel is timed with its weights evicted from the caches before every run, as the "
         "chained network reads them; unchecked, in a loop with its weights cached from the run "
         "before. CPU only"));
  m_coldActivations->setObjectName(QStringLiteral("coldActivationsBox"));
  m_coldActivations->setChecked(true);
  m_coldActivations->setToolTip(
      tr("Each kernel is timed with its input, residual and output evicted from the caches "
         "before every run too, as the chained network finds them (a kernel timed with them "
         "cached took about half its time in the chain); unchecked, cached from the run before. "
         "CPU only"));
  m_frozenTorch->setObjectName(QStringLiteral("frozenTorchBox"));
  m_frozenTorch->setToolTip(
      tr("libtorch's reference runs the network as PyTorch deploys a model for inference: "
         "TorchScript, frozen and optimized (batch norms folded, convolution weights packed "
         "once); unchecked, eager, its operators one by one as the model is written. CPU only"));
  // One above the other: side by side they widened the form, and the task table lost columns
  // in a 1024x700 window.
  auto* timing = new QVBoxLayout;
  timing->setContentsMargins(0, 0, 0, 0);
  timing->addWidget(m_coldWeights);
  timing->addWidget(m_coldActivations);
  timing->addWidget(m_frozenTorch);
  m_trials->setRange(1, 100000);
  m_trials->setValue(60);
  m_trials->setObjectName(QStringLiteral("trialsBox"));
  m_unit->setRange(1, 64);
  m_unit->setValue(4);
  m_unit->setToolTip(tr("Trials per scheduling unit"));
  m_seed->setRange(0, 1000000);
  m_seed->setValue(1);

  auto* form = new QFormLayout(m_form);
  form->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("Network"), networkRow);
  form->addRow(tr("Params"), m_params);
  form->addRow(tr("Backend"), m_backend);
  // The budget before the options: below them, Trials sat under the fold of a 1280x800 screen.
  form->addRow(tr("Trials"), m_trials);
  form->addRow(tr("Unit"), m_unit);
  form->addRow(tr("Algorithms"), m_algorithms);
  form->addRow(tr("Schedulers"), schedulers);
  form->addRow(tr("Tune"), modes);
  form->addRow(tr("Timing"), timing);
  form->addRow(tr("Seed"), m_seed);
  auto* buttons = new QHBoxLayout;
  m_start->setObjectName(QStringLiteral("startButton"));
  m_stop->setObjectName(QStringLiteral("stopButton"));
  buttons->addWidget(m_start);
  buttons->addWidget(m_stop);
  // The form scrolls on its own, Start and Stop and the stored runs below it stay in view: at
  // 1024x700 the whole column scrolled and Start was below the fold.
  auto* formScroll = new FormScrollArea(m_form);
  formScroll->setObjectName(QStringLiteral("networkFormScroll"));
  formScroll->setFrameShape(QFrame::NoFrame);
  auto* setup = new QGroupBox(tr("New network race"));
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addWidget(formScroll, 1);
  setupLayout->addLayout(buttons);

  auto* stored = new QGroupBox(tr("Stored network runs"));
  m_runs->setObjectName(QStringLiteral("runsBox"));
  m_resume->setObjectName(QStringLiteral("resumeButton"));
  m_resume->setToolTip(tr("Continue an interrupted network run to its budget"));
  // The box is as wide as the column: its entries are cut there, so the popup shows them whole
  // and each has its whole text as a tooltip.
  m_runs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_runs->setMinimumContentsLength(12);
  // Empty, it was a blank box above three greyed buttons.
  m_runs->setPlaceholderText(tr("none stored yet"));
  m_show->setObjectName(QStringLiteral("showButton"));
  m_show->setToolTip(
      tr("Show this run's tasks, latency curve and end-to-end result (nothing runs)"));
  auto* storedButtons = new QHBoxLayout;
  storedButtons->addWidget(m_show);
  storedButtons->addWidget(m_resume);
  m_delete->setObjectName(QStringLiteral("deleteNetworkRun"));
  m_delete->setToolTip(tr("Delete this network run with its task runs and their trials"));
  storedButtons->addWidget(m_delete);
  // As History's Reload: runs `opevo net tune` changed while the page was on show.
  m_reload->setObjectName(QStringLiteral("reloadNetworkRuns"));
  m_reload->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
  if (m_reload->icon().isNull()) m_reload->setText(tr("Reload"));
  m_reload->setToolTip(tr("Read the stored runs again (opevo net tune may have changed them)"));
  auto* runsRow = new QHBoxLayout;
  runsRow->addWidget(m_runs, 1);
  runsRow->addWidget(m_reload);
  auto* storedLayout = new QVBoxLayout(stored);
  storedLayout->addLayout(runsRow);
  storedLayout->addLayout(storedButtons);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(setup, 1);
  layout->addWidget(stored);

  connect(open, &QPushButton::clicked, this, &NetworkSetupPanel::openFile);
  connect(m_network, &QComboBox::currentIndexChanged, this, [this](int index) {
    // activated follows at once where the user chose it: noted, so it is not read twice.
    m_indexJustChosen = index;
    QTimer::singleShot(0, this, [this] { m_indexJustChosen = -1; });
    emit networkChanged();
  });
  connect(m_network, &QComboBox::activated, this, [this](int index) {
    // Choosing the entry already chosen reads it again: a file fixed since it failed to read
    // left the red "Failed" line up, its entry being chosen already.
    if (index != m_indexJustChosen) emit networkChanged();
    m_indexJustChosen = -1;
  });
  connect(m_params, &QLineEdit::editingFinished, this, &NetworkSetupPanel::networkChanged);
  connect(m_backend, &QComboBox::currentTextChanged, this, [this](const QString& backend) {
    // Layout templates exist for the CPU only: elsewhere the joint mode is not offered.
    const bool cpu = backend == QLatin1String("cpu");
    if (!m_matvecChosen)
      m_matvec->setChecked(net::defaultTaskTemplates(backend.toStdString()).matvec);
    m_jointMode->setEnabled(cpu);
    m_jointNoPropagation->setEnabled(cpu);
    m_coldWeights->setEnabled(cpu);
    m_coldActivations->setEnabled(cpu);
    m_frozenTorch->setEnabled(cpu);
    if (!cpu && (m_jointMode->isChecked() || m_jointNoPropagation->isChecked())) {
      m_jointMode->setChecked(false);
      m_jointNoPropagation->setChecked(false);
      m_loopMode->setChecked(true);
    }
  });
  connect(m_start, &QPushButton::clicked, this, &NetworkSetupPanel::startRequested);
  connect(m_stop, &QPushButton::clicked, this, &NetworkSetupPanel::stopRequested);
  connect(m_runs, &QComboBox::currentIndexChanged, this, [this] {
    m_runs->setToolTip(m_runs->currentData(Qt::ToolTipRole).toString());
    updateButtons();
  });
  connect(m_resume, &QPushButton::clicked, this, [this] {
    // The list may be older than the store (`opevo net tune --resume` finished the run since):
    // read again first, so that such a run is said to be finished rather than fail to resume.
    if (const auto run = selectedRun()) {
      m_resumeAsked = run->id;
      updateButtons();
      reloadRuns(run->id);
    }
  });
  connect(m_reload, &QToolButton::clicked, this, [this] { reloadRuns(); });
  connect(m_show, &QPushButton::clicked, this, [this] {
    if (const auto run = selectedRun()) emit showRequested(run->id);
  });
  connect(m_delete, &QPushButton::clicked, this, [this] {
    if (const auto run = selectedRun()) m_deletion->start(m_storePath, run->id);
  });
  connect(m_deletion, &NetworkRunDeletion::refused, this, [this](const QString& message) {
    emit deletionRefused(message);
    reloadRuns();  // the list as it stands (a run another program started, or one gone)
  });
  connect(m_deletion, &NetworkRunDeletion::deleted, this,
          [this](const QString& message, std::int64_t id) {
            emit networkRunDeleted(message, id);
            reloadRuns();
          });
  updateButtons();
}

QSize NetworkSetupPanel::sizeHint() const {
  return {minimumSizeHint().width(), QWidget::sizeHint().height()};
}

void NetworkSetupPanel::setStorePath(const QString& path) {
  m_storePath = path;
  reloadRuns();
}

void NetworkSetupPanel::reloadRuns(std::int64_t select) {
  if (m_storePath.isEmpty()) return;
  m_runsJob.start(
      [path = m_storePath.toStdString()] {
        StoredRunsJob job;
        try {
          // A database this user cannot write is read read-only (a colleague's file, a read-only
          // share): its runs are listed, and Resume and Delete… are off.
          const Store store(path, Store::openingToList(path));
          // As opevo net runs lists them: a run left "running" by a program that died is
          // interrupted (Resume continues it), one another program tunes is running.
          const LiveStatus live(store);
          job.runs = store.networks();
          for (NetworkRecord& r : job.runs) r.status = live.of(r);
          job.readOnly = store.readOnly();
        } catch (const std::exception&) {
          job.runs.clear();  // unreadable: nothing to resume
        }
        return job;
      },
      [this, select](StoredRunsJob job) {
        const QVariant keep =
            select > 0 ? QVariant::fromValue<qlonglong>(select) : m_runs->currentData();
        m_readOnly = job.readOnly;
        std::vector<NetworkRecord> runs = std::move(job.runs);
        m_stored = std::move(runs);
        m_runs->clear();
        // Newest first.
        int widest = 0;
        const QFontMetrics metrics(m_runs->view()->font());
        for (auto it = m_stored.rbegin(); it != m_stored.rend(); ++it) {
          const QString text = runEntry(*it);
          m_runs->addItem(text, QVariant::fromValue<qlonglong>(it->id));
          m_runs->setItemData(m_runs->count() - 1, text, Qt::ToolTipRole);
          widest = std::max(widest, metrics.horizontalAdvance(text));
        }
        m_runs->view()->setMinimumWidth(widest + 4 * metrics.averageCharWidth());
        // A box with a placeholder keeps no item current as items come: the newest is.
        const int kept = m_runs->findData(keep);
        if (kept >= 0 || m_runs->count() > 0) m_runs->setCurrentIndex(std::max(kept, 0));
        m_runs->setToolTip(m_runs->currentData(Qt::ToolTipRole).toString());
        updateButtons();
        emit runsReloaded();
        if (m_resumeAsked) resumeIfStillInterrupted();
      });
}

void NetworkSetupPanel::resumeIfStillInterrupted() {
  const std::int64_t id = std::exchange(m_resumeAsked, 0);
  updateButtons();
  if (m_busy) return;  // a race started meanwhile
  const auto it = std::find_if(m_stored.begin(), m_stored.end(),
                               [id](const NetworkRecord& r) { return r.id == id; });
  if (it == m_stored.end())
    emit resumeRefused(
        tr("Network run %1 is no longer stored (another program deleted it).").arg(id));
  else if (it->status == RunStatus::Finished)
    emit resumeRefused(tr("Network run %1 has finished since it was listed (another program "
                          "continued it): nothing to resume; Show puts it on the page.")
                           .arg(id));
  else if (it->status == RunStatus::Running)
    emit resumeRefused(
        tr("Network run %1 is being tuned by another program now: that program continues it.")
            .arg(id));
  else
    emit resumeRequested(id);
}

void NetworkSetupPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  reloadRuns();
}

void NetworkSetupPanel::openFile() {
  const QString file = QFileDialog::getOpenFileName(this, tr("Open a network file"), QString(),
                                                    tr("Network files (*.json);;All files (*)"));
  if (!file.isEmpty()) selectNetwork(file);
}

int NetworkSetupPanel::networkIndex(const QString& presetOrPath) {
  int i = m_network->findText(presetOrPath);
  if (i < 0) i = m_network->findData(presetOrPath, kPathRole);
  if (i < 0) {
    m_network->addItem(QFileInfo(presetOrPath).fileName(), presetOrPath);
    i = m_network->count() - 1;
    m_network->setItemData(i, presetOrPath, Qt::ToolTipRole);
  }
  return i;
}

void NetworkSetupPanel::selectNetwork(const QString& presetOrPath) {
  const int i = networkIndex(presetOrPath);
  // Chosen again (Open… of the file on show, fixed since): read again, as a change would be.
  if (i == m_network->currentIndex())
    emit networkChanged();
  else
    m_network->setCurrentIndex(i);
}

void NetworkSetupPanel::showNetwork(const QString& presetOrPath, const QString& refused) {
  const QSignalBlocker block(m_network);
  // A file that did not read goes from the list: left there it read as chosen.
  if (const int bad = m_network->findData(refused, kPathRole); bad >= 0 && !refused.isEmpty())
    m_network->removeItem(bad);
  m_network->setCurrentIndex(networkIndex(presetOrPath));
}

bool NetworkSetupPanel::setAlgorithms(const QStringList& names) {
  bool known = true;
  for (const QString& n : names)
    known = known && !m_algorithms->findItems(n.trimmed(), Qt::MatchExactly).isEmpty();
  if (!known) return false;
  for (int i = 0; i < m_algorithms->count(); ++i) {
    QListWidgetItem* item = m_algorithms->item(i);
    bool on = false;
    for (const QString& n : names) on = on || n.trimmed() == item->text();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  return true;
}

namespace {

// Checks the boxes named in names and clears the others; false (nothing changed) for a name
// that has no box.
bool checkNamed(const QStringList& names,
                std::initializer_list<std::pair<QLatin1String, QCheckBox*>> boxes) {
  std::vector<bool> on(boxes.size(), false);
  for (const QString& n : names) {
    std::size_t k = 0;
    for (const auto& box : boxes) {
      if (n.trimmed() == box.first) break;
      ++k;
    }
    if (k == boxes.size()) return false;
    on[k] = true;
  }
  std::size_t k = 0;
  for (const auto& box : boxes) box.second->setChecked(on[k++]);
  return true;
}

}  // namespace

bool NetworkSetupPanel::setSchedulers(const QStringList& names) {
  return checkNamed(names, {{QLatin1String("gradient"), m_gradient},
                            {QLatin1String("round-robin"), m_roundRobin},
                            {QLatin1String("topological"), m_topological}});
}

bool NetworkSetupPanel::setModes(const QStringList& names) {
  return checkNamed(names, {{QLatin1String("loop"), m_loopMode},
                            {QLatin1String("joint"), m_jointMode},
                            {QLatin1String("joint-np"), m_jointNoPropagation},
                            {QLatin1String("winograd"), m_winogradMode}});
}

void NetworkSetupPanel::setTrials(int trials) {
  m_trials->setValue(trials);
}

QString NetworkSetupPanel::network() const {
  const QVariant path = m_network->currentData(kPathRole);
  return path.isValid() ? path.toString() : m_network->currentText();
}

std::optional<net::ParamOverrides> NetworkSetupPanel::params(QString* error) const {
  net::ParamOverrides out;
  for (const QString& part :
       m_params->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
    try {
      auto [name, value] = net::parseParamOverride(part.toStdString());
      if (out.count(name)) throw InputError(name + " is given twice");
      out.emplace(std::move(name), value);
    } catch (const std::exception& e) {
      // The parser words its errors for the CLI's --param; here the field is Params.
      QString what = QString::fromUtf8(e.what());
      if (what.startsWith(QLatin1String("--param "))) what.remove(0, 8);
      if (error) *error = tr("Params: %1").arg(what);
      return std::nullopt;
    }
  }
  return out;
}

std::optional<NetworkSpec> NetworkSetupPanel::spec(QString* error) const {
  NetworkSpec s;
  s.network = network().toStdString();
  const auto p = params(error);
  if (!p) return std::nullopt;
  s.params = *p;
  s.backend = m_backend->currentText().toStdString();
  for (int i = 0; i < m_algorithms->count(); ++i)
    if (m_algorithms->item(i)->checkState() == Qt::Checked)
      s.algorithms.push_back(m_algorithms->item(i)->text().toStdString());
  if (m_gradient->isChecked()) s.schedulers.push_back(net::SchedulerKind::Gradient);
  if (m_roundRobin->isChecked()) s.schedulers.push_back(net::SchedulerKind::RoundRobin);
  if (m_topological->isChecked()) s.schedulers.push_back(net::SchedulerKind::Topological);
  s.modes.clear();
  if (m_loopMode->isChecked()) s.modes.push_back(layout::TuningMode::Loop);
  // Layouts are the CPU's only (the backend's handler unchecks them elsewhere); asked of the
  // backend, not of the boxes, which a running race disables too.
  const bool cpu = s.backend == "cpu";
  if (m_jointMode->isChecked() && cpu) s.modes.push_back(layout::TuningMode::Joint);
  if (m_jointNoPropagation->isChecked() && cpu)
    s.modes.push_back(layout::TuningMode::JointNoPropagation);
  s.winograd = m_winogradMode->isChecked();
  s.matvec = m_matvec->isChecked();
  s.coldWeights = m_coldWeights->isChecked();
  s.coldActivations = m_coldActivations->isChecked();
  s.torchForm = m_frozenTorch->isChecked() ? net::TorchForm::Frozen : net::TorchForm::Eager;
  if (s.algorithms.empty() || s.schedulers.empty() || (s.modes.empty() && !s.winograd)) {
    if (error) *error = tr("Check at least one algorithm, one scheduler and one way to tune.");
    return std::nullopt;
  }
  s.trials = m_trials->value();
  s.unit = static_cast<std::size_t>(m_unit->value());
  s.seed = static_cast<std::uint64_t>(m_seed->value());
  s.storePath = m_storePath.toStdString();
  return s;
}

std::optional<NetworkRecord> NetworkSetupPanel::selectedRun() const {
  const QVariant id = m_runs->currentData();
  if (!id.isValid()) return std::nullopt;
  for (const NetworkRecord& r : m_stored)
    if (r.id == id.toLongLong()) return r;
  return std::nullopt;
}

void NetworkSetupPanel::setBusy(bool busy) {
  m_busy = busy;
  updateButtons();
}

void NetworkSetupPanel::setNetworkValid(bool valid) {
  m_networkValid = valid;
  updateButtons();
}

void NetworkSetupPanel::updateButtons() {
  // While a race runs the form is its description: changed, it would name another network or
  // budget than the page shows.
  m_form->setEnabled(!m_busy);
  m_start->setEnabled(!m_busy && m_networkValid);
  m_start->setToolTip(m_networkValid ? QString()
                                     : tr("The network above could not be read: see the message"));
  m_stop->setEnabled(m_busy);
  const auto run = selectedRun();
  // A run another program tunes (running, as LiveStatus reads it) is that program's to continue.
  m_resume->setEnabled(!m_readOnly && !m_busy && !m_resumeAsked && run &&
                       run->status != RunStatus::Finished && run->status != RunStatus::Running);
  // While a race runs the page is its own.
  m_show->setEnabled(!m_busy && run);
  // As Resume: a run being tuned is refused by the store, and a race's own runs are its own.
  m_delete->setEnabled(!m_readOnly && !m_busy && run && run->status != RunStatus::Running);
  // On a read-only database both would ask, then fail: they say why instead (Show reads).
  m_resume->setToolTip(m_readOnly ? readOnlyTip(m_storePath, tr("resume its network runs"))
                                  : tr("Continue an interrupted network run to its budget"));
  m_delete->setToolTip(m_readOnly
                           ? readOnlyTip(m_storePath, tr("delete the network runs"))
                           : tr("Delete this network run with its task runs and their trials"));
}

void NetworkSetupPanel::saveState(QSettings& settings) const {
  settings.beginGroup(QStringLiteral("network"));
  settings.setValue(QStringLiteral("network"), network());
  settings.setValue(QStringLiteral("params"), m_params->text());
  settings.setValue(QStringLiteral("backend"), m_backend->currentText());
  QStringList algorithms;
  for (int i = 0; i < m_algorithms->count(); ++i)
    if (m_algorithms->item(i)->checkState() == Qt::Checked)
      algorithms << m_algorithms->item(i)->text();
  settings.setValue(QStringLiteral("algorithms"), algorithms);
  QStringList schedulers, modes;
  for (const auto& [name, box] : {std::pair{"gradient", m_gradient},
                                  {"round-robin", m_roundRobin},
                                  {"topological", m_topological}})
    if (box->isChecked()) schedulers << QLatin1String(name);
  for (const auto& [name, box] : {std::pair{"loop", m_loopMode},
                                  {"joint", m_jointMode},
                                  {"joint-np", m_jointNoPropagation},
                                  {"winograd", m_winogradMode}})
    if (box->isChecked()) modes << QLatin1String(name);
  settings.setValue(QStringLiteral("schedulers"), schedulers);
  settings.setValue(QStringLiteral("modes"), modes);
  // Only a box the user set: one left at its default follows the backend's next session too.
  settings.remove(QStringLiteral("matvec"));  // as sessions before the GPUs' default wrote it
  if (m_matvecChosen)
    settings.setValue(QStringLiteral("matvecChosen"), m_matvec->isChecked());
  else
    settings.remove(QStringLiteral("matvecChosen"));
  settings.setValue(QStringLiteral("coldWeights"), m_coldWeights->isChecked());
  settings.setValue(QStringLiteral("coldActivations"), m_coldActivations->isChecked());
  settings.setValue(QStringLiteral("frozenTorch"), m_frozenTorch->isChecked());
  settings.setValue(QStringLiteral("trials"), m_trials->value());
  settings.setValue(QStringLiteral("unit"), m_unit->value());
  settings.setValue(QStringLiteral("seed"), m_seed->value());
  settings.endGroup();
}

void NetworkSetupPanel::restoreState(QSettings& settings) {
  settings.beginGroup(QStringLiteral("network"));
  const auto text = [&](const char* key) { return settings.value(QLatin1String(key)).toString(); };
  const auto list = [&](const char* key) {
    return settings.value(QLatin1String(key)).toStringList();
  };
  // The backend first: it unchecks the layout modes where they are not offered.
  if (const int b = m_backend->findText(text("backend")); b >= 0) m_backend->setCurrentIndex(b);
  if (const QStringList a = list("algorithms"); !a.isEmpty()) setAlgorithms(a);
  if (const QStringList s = list("schedulers"); !s.isEmpty()) setSchedulers(s);
  if (settings.contains(QStringLiteral("modes"))) setModes(list("modes"));
  // After the backend, whose default the box shows unless the user set it. Sessions before the
  // GPUs' default stored the box always: unchecked was every backend's default then, not a
  // choice; checked was asked for.
  const QVariant matvec = settings.contains(QStringLiteral("matvecChosen"))
                              ? settings.value(QStringLiteral("matvecChosen"))
                          : settings.value(QStringLiteral("matvec")).toBool() ? QVariant(true)
                                                                              : QVariant();
  if (matvec.isValid()) {
    m_matvec->setChecked(matvec.toBool());
    m_matvecChosen = true;
  }
  m_coldWeights->setChecked(
      settings.value(QStringLiteral("coldWeights"), m_coldWeights->isChecked()).toBool());
  m_coldActivations->setChecked(
      settings.value(QStringLiteral("coldActivations"), m_coldActivations->isChecked()).toBool());
  m_frozenTorch->setChecked(
      settings.value(QStringLiteral("frozenTorch"), m_frozenTorch->isChecked()).toBool());
  m_trials->setValue(settings.value(QStringLiteral("trials"), m_trials->value()).toInt());
  m_unit->setValue(settings.value(QStringLiteral("unit"), m_unit->value()).toInt());
  m_seed->setValue(settings.value(QStringLiteral("seed"), m_seed->value()).toInt());
  m_params->setText(text("params"));
  // A preset, or a file still there (one deleted since is not offered as chosen); chosen last,
  // so that its picture is read once, with the params above.
  const QString chosen = text("network");
  settings.endGroup();
  const bool preset = !chosen.isEmpty() && m_network->findText(chosen) >= 0 &&
                      !m_network->itemData(m_network->findText(chosen), kPathRole).isValid();
  if (preset || (!chosen.isEmpty() && QFileInfo(chosen).isFile()))
    selectNetwork(chosen);
  else
    emit networkChanged();  // the params restored, on the network left chosen
}

}  // namespace opevo::ui
