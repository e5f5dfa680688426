#include "ui/main_window.h"

#include <QFutureWatcher>
#include <QLabel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>
#include <string>

#include "probe/backend_probe.h"
#include "ui/presets_panel.h"
#include "ui/qwalk_panel.h"

namespace opevo::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_pages(new QTabWidget(this)),
      m_presetsPanel(new PresetsPanel),
      m_qwalkPanel(new QwalkPanel),
      m_backendLabel(new QLabel(tr("Backend: probing…"), this)) {
  setWindowTitle(tr("OpEvo Studio"));
  resize(1280, 800);

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("spacesSplitter"));
  splitter->addWidget(m_presetsPanel);
  splitter->addWidget(m_qwalkPanel);
  splitter->setChildrenCollapsible(false);
  // The left side holds the widest text (the Conv2D descriptions); the walk table is narrow.
  splitter->setSizes({700, 580});
  m_pages->setObjectName(QStringLiteral("pages"));
  m_pages->setDocumentMode(true);
  m_pages->addTab(splitter, tr("Spaces"));
  setCentralWidget(m_pages);

  auto* versionLabel = new QLabel(tr("OpEvo Studio %1").arg(QStringLiteral(OPEVO_VERSION)), this);
  versionLabel->setObjectName(QStringLiteral("versionLabel"));
  m_backendLabel->setObjectName(QStringLiteral("backendLabel"));
  statusBar()->addPermanentWidget(m_backendLabel);
  statusBar()->addPermanentWidget(versionLabel);

  connect(m_presetsPanel, &PresetsPanel::presetSelected, this,
          [this](const QString&, const SearchSpace& space) {
            std::vector<ParameterPtr> params;
            for (std::size_t i = 0; i < space.dims(); ++i) params.push_back(space.paramPtr(i));
            m_qwalkPanel->setParameters(std::move(params));
          });
  connect(m_presetsPanel, &PresetsPanel::parameterChosen, m_qwalkPanel,
          &QwalkPanel::selectParameter);
  connect(m_qwalkPanel, &QwalkPanel::parameterChanged, m_presetsPanel,
          &PresetsPanel::showParameter);
  // Never an empty window: open on the first preset; a command line may pick another.
  m_presetsPanel->selectPreset(QStringLiteral("MM1"));
  startBackendProbe();
}

MainWindow::~MainWindow() = default;

QString MainWindow::backendText() const {
  return m_backendLabel->text();
}

void MainWindow::startBackendProbe() {
  // Opening GPU drivers can take a while (cuInit on a busy box), so the window shows first.
  // The job captures nothing of the window, so closing it early is safe.
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
    m_backendLabel->setText(tr("Backend: %1").arg(watcher->result()));
    watcher->deleteLater();
  });
  watcher->setFuture(QtConcurrent::run([]() -> QString {
    try {
      const std::string best = bestBackend(opevo::probeBackends());
      return best.empty() ? QObject::tr("none found") : QString::fromStdString(best);
    } catch (const std::exception& e) {
      return QObject::tr("probe failed (%1)").arg(QString::fromUtf8(e.what()));
    }
  }));
}

}  // namespace opevo::ui
