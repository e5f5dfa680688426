#include "ui/pages/kernels_page.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "kas/candidate_front.h"
#include "store/store.h"
#include "ui/charts/kas_dag_view.h"
#include "ui/charts/kas_scatter_chart.h"
#include "ui/charts/kas_training_chart.h"
#include "ui/charts/kas_tuning_chart.h"
#include "ui/controller/kas_controller.h"
#include "ui/models/kas_candidate_model.h"
#include "ui/models/kas_search_model.h"
#include "ui/widgets/form_scroll_area.h"
#include "ui/widgets/kas_search_panel.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {
namespace {

const QString kTabKey = QStringLiteral("kernels/detailTab");

// The kernel worth looking at first: the fastest within 1 point of the baseline's accuracy
// (Canvas's headline), else the fastest on the front, else none.
int firstChoice(const KasSnapshot& s) {
  const std::vector<const KasCandidateRow*> candidates = kasCandidates(s);
  if (s.baselineAccuracy)
    if (const KasCandidateRow* best = kas::bestWithinLoss(candidates, *s.baselineAccuracy, 0.01))
      return best->seq;
  const std::vector<int> front = kas::frontSeqs(candidates);
  return front.empty() ? 0 : front.front();
}

}  // namespace

struct KernelsPage::SearchesJob {
  std::vector<KasSearchSummary> searches;
  QString error;
};

struct KernelsPage::SearchJob {
  KasSnapshotPtr snapshot;
  QString error;
};

KernelsPage::KernelsPage(QWidget* parent)
    : QWidget(parent),
      m_panel(new KasSearchPanel),
      m_controller(new KasController(this)),
      m_chart(new KasScatterChart),
      m_candidates(new KasCandidateModel(this)),
      m_table(makeTableView(m_candidates, QStringLiteral("kasCandidateTable"), nullptr)),
      m_dag(new KasDagView),
      m_source(new QPlainTextEdit),
      m_tuning(new KasTuningChart),
      m_training(new KasTrainingChart),
      m_tabs(new QTabWidget),
      m_error(makeMessageLabel(QStringLiteral("kasError"), MessageKind::Error, nullptr)),
      m_status(new QLabel),
      m_detailsJob(LatestJob<KasDetails>::Overlap::NewestWaits),
      m_follow(new QTimer(this)) {
  // A search the CLI ran while the window was open stayed "running 0/1/2" until Reload: the
  // list, and the search on show, are read again while one runs elsewhere.
  m_follow->setInterval(3000);
  connect(m_follow, &QTimer::timeout, this, [this] {
    if (!m_searchesJob.busy()) reload();
  });
  m_chart->setObjectName(QStringLiteral("kasScatterChart"));
  m_dag->setObjectName(QStringLiteral("kasDagView"));
  m_source->setObjectName(QStringLiteral("kasSource"));
  m_source->setReadOnly(true);
  m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_source->setPlaceholderText(tr("The generated CPU source of the selected kernel"));
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_status->setObjectName(QStringLiteral("kasStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_tabs->setObjectName(QStringLiteral("kasDetailTabs"));
  m_tabs->addTab(m_tuning, tr("Tuning"));
  m_tabs->addTab(m_training, tr("Training"));
  m_tabs->addTab(m_source, tr("Source"));
  m_tabs->setCurrentIndex(QSettings().value(kTabKey, 0).toInt());
  m_dag->setNote(tr("Select a kernel"));

  auto* top = new QSplitter(Qt::Horizontal);
  top->setObjectName(QStringLiteral("kernelsTopSplitter"));
  top->addWidget(m_chart);
  top->addWidget(m_table);
  top->setSizes({400, 600});
  auto* bottom = new QSplitter(Qt::Horizontal);
  bottom->setObjectName(QStringLiteral("kernelsBottomSplitter"));
  bottom->addWidget(m_dag);
  bottom->addWidget(m_tabs);
  bottom->setSizes({300, 700});
  auto* right = new QSplitter(Qt::Vertical);
  right->setObjectName(QStringLiteral("kernelsSplitter"));
  right->addWidget(top);
  right->addWidget(bottom);
  right->setSizes({380, 340});
  auto* rightSide = new QWidget;
  auto* rightLayout = new QVBoxLayout(rightSide);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(m_error);
  rightLayout->addWidget(m_status);
  rightLayout->addWidget(right, 1);

  auto* scroll = new FormScrollArea(m_panel);
  scroll->setObjectName(QStringLiteral("kernelSearchScroll"));
  // The form's fields would fit in less, but the stored searches' four column titles need this.
  scroll->setMinimumWidth(std::max(250, scroll->minimumSizeHint().width()));
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(scroll);
  split->addWidget(rightSide);
  split->setStretchFactor(1, 1);
  // The form is narrow; the table's ten columns and the chart share the rest.
  split->setSizes({scroll->minimumSizeHint().width(), 1000});
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(split);

  connect(m_panel, &KasSearchPanel::searchSelected, this, &KernelsPage::showSearch);
  connect(m_panel, &KasSearchPanel::reloadRequested, this, &KernelsPage::reload);
  connect(m_panel, &KasSearchPanel::startRequested, this, &KernelsPage::start);
  connect(m_panel, &KasSearchPanel::stopRequested, this, &KernelsPage::stop);
  connect(m_panel, &KasSearchPanel::resumeRequested, this, &KernelsPage::resume);
  connect(m_controller, &KasController::busyChanged, m_panel, &KasSearchPanel::setBusy);
  connect(m_controller, &KasController::updated, this, &KernelsPage::showLive);
  connect(m_controller, &KasController::finished, this, &KernelsPage::finished);
  connect(m_chart, &KasScatterChart::candidateClicked, this, &KernelsPage::selectCandidate);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (!rows.isEmpty()) selectCandidate(m_candidates->candidate(rows.front().row())->seq);
  });
  connect(m_tabs, &QTabWidget::currentChanged, this,
          [](int index) { QSettings().setValue(kTabKey, index); });
}

KernelsPage::~KernelsPage() = default;

bool KernelsPage::following() const {
  return m_follow->isActive();
}

void KernelsPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  reload();  // what another program stored meanwhile
}

void KernelsPage::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  updateFollowing();
}

void KernelsPage::updateFollowing() {
  bool elsewhere = false;
  const KasSearchModel* model = m_panel->model();
  for (int row = 0; row < model->rowCount(); ++row) {
    const KasSearchSummary& s = model->search(row);
    const bool ours = m_controller->busy() && m_live && m_live->searchId == s.record.id;
    elsewhere |= s.record.status == RunStatus::Running && !ours;
  }
  if (elsewhere && isVisible())
    m_follow->start();
  else
    m_follow->stop();
}

bool KernelsPage::loading() const {
  return m_searchesJob.busy() || m_searchJob.busy() || m_detailsJob.busy();
}

void KernelsPage::setStorePath(const QString& path) {
  m_storePath = path;
  reload();
}

void KernelsPage::setError(const QString& text) {
  showMessage(m_error, text);
  // The window's status bar says it only where the page is not on show: there, the red line and
  // the status bar said one failure twice.
  if (!text.isEmpty() && !isVisibleTo(window())) emit statusMessage(text);
}

void KernelsPage::reload() {
  if (m_storePath.isEmpty()) return;
  m_searchesJob.start(
      [path = m_storePath.toStdString()] {
        auto job = std::make_shared<SearchesJob>();
        try {
          // Read read-only where this user cannot write (a colleague's file, a read-only share).
          job->searches = readKasSearches(Store(path, Store::openingToList(path)));
        } catch (const std::exception& e) {
          job->error = QString::fromUtf8(e.what());
        }
        return std::shared_ptr<const SearchesJob>(job);
      },
      [this](std::shared_ptr<const SearchesJob> job) {
        const QString prefix = tr("The kernel searches cannot be read: ");
        if (!job->error.isEmpty()) {
          m_panel->model()->setSearches({});  // a list from a store no longer readable misleads
          setError(prefix + job->error);
          return;
        }
        if (m_error->text().startsWith(prefix)) setError({});  // readable again
        const std::int64_t keep = m_wanted;
        m_panel->model()->setSearches(job->searches);
        // The search on show stays; else the newest (the list's first row).
        if (!m_panel->selectSearch(keep) && m_panel->model()->rowCount() > 0)
          m_panel->selectSearch(m_panel->model()->search(0).record.id);
        if (m_panel->model()->rowCount() == 0 && !m_controller->busy())
          m_status->setText(tr("No kernel search stored yet: set one up and press Start."));
        updateFollowing();
      });
}

void KernelsPage::showSearch(std::int64_t id) {
  const bool other = m_wanted != id;
  m_wanted = id;
  if (m_live && m_controller->busy() && m_live->searchId == id) {
    m_searchJob.cancel();
    showSnapshot(m_live);
    return;
  }
  if (!other && m_shown && m_shown->searchId == id && m_shown->status != RunStatus::Running &&
      !m_searchJob.busy())
    return;  // already on show, and a stored search that is not running does not change
  m_searchJob.start(
      [path = m_storePath.toStdString(), id] {
        auto job = std::make_shared<SearchJob>();
        try {
          job->snapshot = std::make_shared<const KasSnapshot>(
              readKasSnapshot(Store(path, Store::Opening::ExistingOnly), id));
        } catch (const std::exception& e) {
          job->error = QString::fromUtf8(e.what());
        }
        return std::shared_ptr<const SearchJob>(job);
      },
      [this](std::shared_ptr<const SearchJob> job) {
        if (!job->error.isEmpty())
          setError(tr("The kernel search cannot be read: %1").arg(job->error));
        else
          showSnapshot(job->snapshot);
      });
}

void KernelsPage::showSnapshot(KasSnapshotPtr snapshot) {
  const bool other = !m_shown || m_shown->searchId != snapshot->searchId;
  m_shown = std::move(snapshot);
  const KasSnapshot& s = *m_shown;
  m_candidates->setSnapshot(s);
  // Sized to their contents as the rows change: a live search's first row ("sampled") was sized
  // once and kept its cut text, "5fdb…" and "sa…" at 1024x700, as its figures arrived.
  m_table->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
  m_chart->setSnapshot(s);
  if (other) {
    m_selected = 0;
    m_detailsOf.reset();
  }
  // A search shown, or its first kernel trained, with none selected: its best one.
  const int first = m_selected == 0 ? firstChoice(s) : 0;
  if (first)
    selectCandidate(first);
  else
    showDetails();
  m_status->setText(summary(s));
}

QString KernelsPage::summary(const KasSnapshot& s) const {
  int trained = 0, diverged = 0;
  for (const KasCandidatePtr& c : s.candidates) {
    trained += c->stage == KasStage::Trained;
    diverged += kas::trainingDiverged(*c);
  }
  QString text = tr("Kernel search %1 on %2, %3: %4 of %5 kernels evaluated, %6 trained")
                     .arg(s.searchId)
                     .arg(s.network, QString::fromUtf8(runStatusName(s.status).data()))
                     .arg(s.candidates.size())
                     .arg(s.wanted)
                     .arg(trained);
  if (diverged) text += tr(" (%n diverged)", nullptr, diverged);
  if (s.baselineAccuracy)
    text += tr("; baseline accuracy %1 %").arg(*s.baselineAccuracy * 100, 0, 'f', 2);
  if (!s.convolutionBrief.isEmpty()) text += QStringLiteral("; ") + s.convolutionBrief;
  if (!s.activity.isEmpty()) text += QStringLiteral(" — ") + s.activity;
  return text;
}

void KernelsPage::selectCandidate(int seq) {
  m_selected = seq;
  m_chart->setSelected(seq);
  const int row = m_candidates->rowOf(seq);
  const QModelIndexList rows = m_table->selectionModel()->selectedRows();
  if (row >= 0 && (rows.isEmpty() || rows.front().row() != row)) {
    const QSignalBlocker block(m_table->selectionModel());
    m_table->selectRow(row);
    m_table->viewport()->update();
  }
  if (row >= 0) m_table->scrollTo(m_candidates->index(row, 0));
  showDetails();
}

void KernelsPage::showDetails() {
  KasCandidatePtr c;
  if (m_shown)
    for (const KasCandidatePtr& k : m_shown->candidates)
      if (k->seq == m_selected) c = k;
  if (c == m_detailsOf && c) return;
  const KasCandidatePtr before = std::move(m_detailsOf);
  m_detailsOf = c;
  m_tuning->setCandidate(c.get());
  m_training->setCandidate(c.get(), m_shown ? m_shown->baselineCurve : std::vector<double>{});
  if (!c) {
    m_detailsJob.cancel();
    m_dag->setNote(tr("Select a kernel"));
    m_source->clear();
    return;
  }
  // The picture and the source change only with the kernel and its tuned schedule.
  if (before && before->seq == c->seq && before->kernelJson == c->kernelJson &&
      before->tuningJson == c->tuningJson)
    return;
  if (!before || before->seq != c->seq) m_source->setPlainText(tr("// Generating…"));
  m_detailsJob.start(
      [row = *c, settings = m_shown->settingsJson, font = m_dag->font()] {
        return kasDetails(row, settings, font);
      },
      [this](KasDetails d) {
        if (d.seq != m_selected) return;
        if (d.layout)
          m_dag->setDagLayout(d.layout);
        else
          m_dag->setNote(d.error);
        // Said where it is missing, so a search's own error on the banner stays.
        m_source->setPlainText(d.source.isEmpty() ? QStringLiteral("// ") + d.error : d.source);
      });
}

void KernelsPage::start() {
  KasSpec spec;
  spec.settings = m_panel->settings();
  spec.storePath = m_storePath.toStdString();
  m_followLive = true;
  m_live.reset();
  setError({});
  m_status->setText(tr("Starting a kernel search…"));
  if (!m_controller->start(std::move(spec))) {
    m_followLive = false;
    setError(tr("A kernel search is running."));
  }
}

void KernelsPage::stop() {
  m_controller->stop();
  m_status->setText(tr("Stopping: the step in hand ends first (a training is cut at once)…"));
}

void KernelsPage::resume(std::int64_t id) {
  KasSpec spec;
  spec.resume = id;
  spec.storePath = m_storePath.toStdString();
  m_followLive = true;
  m_live.reset();
  setError({});
  m_status->setText(tr("Resuming kernel search %1…").arg(id));
  m_controller->start(std::move(spec));
}

void KernelsPage::showLive(KasSnapshotPtr snapshot) {
  if (snapshot->searchId == 0) return;  // it failed before it was stored: finished() says why
  const bool first = !m_live || m_live->searchId != snapshot->searchId;
  m_live = std::move(snapshot);
  if (m_followLive) {
    m_followLive = false;
    m_wanted = m_live->searchId;
    if (first) reload();  // a new search is stored now: list it (the list then shows it)
  }
  m_panel->model()->updateLive(*m_live);
  if (m_wanted == m_live->searchId) showSnapshot(m_live);
}

void KernelsPage::finished(const KasOutcome& o) {
  switch (o.end) {
    case KasOutcome::End::Finished:
      emit statusMessage(tr("Kernel search %1 finished").arg(o.searchId));
      break;
    case KasOutcome::End::Stopped:
      emit statusMessage(o.message);
      break;
    case KasOutcome::End::Failed:
      setError(o.searchId ? tr("Kernel search %1 failed: %2").arg(o.searchId).arg(o.message)
                          : tr("The kernel search could not start: %1").arg(o.message));
      break;
  }
  m_followLive = false;
  // The live snapshot's last state is what the store holds: the search on show stays as it is.
  m_live.reset();
  reload();  // the list's statuses and counts
  emit searchEnded();
}

}  // namespace opevo::ui
