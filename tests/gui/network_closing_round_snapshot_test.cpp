// A live race's snapshots mark the units of the twins' closing round (network_worker's describe()
// fills ContenderState::unitClosingFrom): the page's task table counts a task's closing trials
// ("2 (1 closing)") and its status says the round at the race's end. networks_closing_round_test
// hands the page made-up states; here a real race on the CPU fills them, and what it marks is held
// against what the store recorded of the same units.
//
// The budget makes the round certain: 11 trials of the twins' network (tasks a, b, p, d; a and b
// twins) under the topological scheduler keep 4 for the round and hand out 7, a's share one
// trial. b begins with that one configuration of a's (a scheduler's unit that came from its twin,
// which is not the round) and measures one of its own, so b's best two hold one configuration a
// never measured, whatever the CPU's timings: a's closing unit measures it, "1 from twin b", and
// b, which measured all of a's, has none.

#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <memory>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "net/stored_network_run.h"
#include "store/store.h"
#include "ui/controller/network_controller.h"
#include "ui/controller/network_types.h"
#include "ui/models/network_task_model.h"
#include "ui/pages/networks_page.h"
#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

const QString kTwins = QStringLiteral(OPEVO_DATASETS_DIR "/../../tests/data/net_twins.json");

class NetworkClosingRoundSnapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("twins.db"));
    m_page.setStorePath(m_db);
    m_page.resize(1000, 640);
    m_page.show();
  }
  NetworkSetupPanel* setup() const { return m_page.setup(); }
  QString cell(int row, int column) const {
    return m_page.taskModel()->index(row, column).data().toString();
  }
  // The table's row of the task named `name`; -1 when none.
  int rowOf(const QString& name) const {
    for (int r = 0; r < m_page.taskModel()->rowCount(); ++r)
      if (cell(r, NetworkTaskModel::TaskColumn) == name) return r;
    return -1;
  }

  QTemporaryDir m_dir;
  QString m_db;
  std::vector<NetworkSnapshotPtr> m_snapshots;  // outlives the page, which may still send some
  NetworksPage m_page;
};

TEST_F(NetworkClosingRoundSnapshot, ALiveRaceMarksExactlyItsClosingUnitsWithTheirTwins) {
  setup()->selectNetwork(kTwins);
  ASSERT_TRUE(
      waitUntil([&] { return !m_page.loadingPicture() && m_page.taskModel()->rowCount() == 4; }));
  ASSERT_TRUE(setup()->setAlgorithms({QStringLiteral("random"), QStringLiteral("opevo-m")}));
  ASSERT_TRUE(setup()->setSchedulers({QStringLiteral("topological")}));
  ASSERT_TRUE(setup()->setModes({QStringLiteral("loop")}));
  setup()->backendBox()->setCurrentText(QStringLiteral("cpu"));
  setup()->setTrials(11);
  setup()->unitBox()->setValue(4);

  // Every snapshot the race sends: a unit is marked as it is measured and never changes after.
  QObject::connect(m_page.controller(), &NetworkController::updated, &m_page,
                   [this](NetworkSnapshotPtr s) { m_snapshots.push_back(std::move(s)); });
  m_page.start();
  ASSERT_TRUE(waitUntil([&] { return m_page.controller()->busy(); }));
  ASSERT_TRUE(waitUntil([&] { return !m_page.controller()->busy(); }, 240000));
  ASSERT_NE(m_page.snapshot(), nullptr);
  const NetworkSnapshot& last = *m_page.snapshot();
  ASSERT_EQ(last.contenders.size(), 2u);

  const Store store(m_db.toStdString());
  for (int i = 0; i < 2; ++i) {
    const ContenderState& c = last.contenders[static_cast<std::size_t>(i)];
    SCOPED_TRACE(c.label.toStdString());
    const net::StoredNetworkRun run = net::readStoredNetworkRun(store, c.networkId);
    ASSERT_EQ(run.tasks.size(), 4u);
    std::size_t a = run.tasks.size();
    for (std::size_t t = 0; t < run.tasks.size(); ++t)
      if (run.tasks[t].name == "a") a = t;
    ASSERT_LT(a, run.tasks.size());

    // Unit by unit, the snapshot's marks are the store's record of the round.
    ASSERT_EQ(c.unitTask.size(), run.units.size());
    ASSERT_EQ(c.unitClosingFrom.size(), run.units.size());
    int closingUnits = 0;
    for (std::size_t u = 0; u < run.units.size(); ++u) {
      SCOPED_TRACE("unit " + std::to_string(u + 1));
      EXPECT_EQ(c.unitTask[u], run.units[u].task);
      EXPECT_EQ(c.unitClosingFrom[u], run.units[u].closingFrom);
      if (c.unitClosingFrom[u].empty()) continue;
      ++closingUnits;
      // The one closing unit: a's, the configuration of twin b's that a never measured.
      EXPECT_EQ(c.unitTask[u], static_cast<int>(a));
      EXPECT_EQ(c.unitClosingFrom[u], std::vector<std::string>{"b"});
      EXPECT_EQ(c.unitTrials[u], 1);
    }
    EXPECT_EQ(closingUnits, 1);

    // And the status says it at the race's end, as `opevo net runs` says a stored run's.
    EXPECT_TRUE(m_page.statusLabel()->text().contains(
        QStringLiteral("closing round of %1: a 1 from twin b").arg(c.label)))
        << m_page.statusLabel()->text().toStdString();

    // Every earlier snapshot of this contender marked its units as the last one does.
    for (const NetworkSnapshotPtr& s : m_snapshots) {
      if (s->contenders.size() != last.contenders.size()) continue;
      const ContenderState& earlier = s->contenders[static_cast<std::size_t>(i)];
      ASSERT_LE(earlier.unitClosingFrom.size(), c.unitClosingFrom.size());
      for (std::size_t u = 0; u < earlier.unitClosingFrom.size(); ++u)
        EXPECT_EQ(earlier.unitClosingFrom[u], c.unitClosingFrom[u]) << "unit " << u + 1;
    }

    // The table, showing this contender, counts a's closing trial beside its trials.
    m_page.contenderBox()->setCurrentIndex(i);
    for (std::size_t t = 0; t < run.tasks.size(); ++t) {
      const QString name = QString::fromStdString(run.tasks[t].name);
      const int row = rowOf(name);
      ASSERT_GE(row, 0) << name.toStdString();
      const QString trials = QString::number(c.taskTrials[t]);
      EXPECT_EQ(cell(row, NetworkTaskModel::TrialsColumn).toStdString(),
                (t == a ? QStringLiteral("%1 (1 closing)").arg(trials) : trials).toStdString())
          << name.toStdString();
      EXPECT_EQ(c.taskTrials[t], run.tasks[t].trials) << name.toStdString();
    }
  }
}

}  // namespace
}  // namespace opevo::ui
