// A network race on a machine without libtorch: the Networks page said "(NOT verified)" after each
// of six contenders, as if their outputs were wrong, where nothing was checked (the CLI says "no
// libtorch reference: cannot start 'opevo-torch' ..."). It says why once; an output that differs
// from libtorch's still says so, in red.
#include <gtest/gtest.h>

#include <QLabel>
#include <QTemporaryDir>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "gui_test_support.h"
#include "support/old_network_run.h"
#include "ui/controller/network_controller.h"
#include "ui/controller/network_types.h"
#include "ui/models/network_task_model.h"
#include "ui/pages/networks_page.h"
#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

const char* kMissing =
    "no libtorch reference: cannot start 'opevo-torch': No such file or directory";

NetworkSnapshotPtr ended(const QString& missing, bool verified) {
  auto s = std::make_shared<NetworkSnapshot>();
  for (int i = 1; i <= 3; ++i) {
    ContenderState c;
    c.label = QStringLiteral("opevo-m / gradient / loop %1").arg(i);
    c.networkId = i;
    c.budget = c.trials = 8;
    c.done = true;
    c.endToEndMs = 10.0 + i;
    c.verified = verified;
    c.checked = missing.isEmpty();
    c.referenceMissing = missing;
    s->contenders.push_back(c);
  }
  return s;
}

class NetworksUncheckedOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_page.setStorePath(m_dir.filePath(QStringLiteral("opevo.db")));
    // The stored runs are read on Qt's pool, which creates the database: unwaited, a test ended
    // and its folder was removed while opevo.db was being made, and the folder stayed in /tmp.
    ASSERT_TRUE(waitUntil([&] { return !m_page.setup()->busyReading(); }));
  }
  // The status line once the race of `snapshot` ended.
  QString endWith(NetworkSnapshotPtr snapshot) {
    emit m_page.controller()->updated(std::move(snapshot));
    emit m_page.controller()->finished(NetworkOutcome{});
    return m_page.statusLabel()->text();
  }
  bool red() const { return m_page.statusLabel()->styleSheet().contains(QStringLiteral("b00020")); }

  QTemporaryDir m_dir;
  NetworksPage m_page;
};

TEST_F(NetworksUncheckedOutput, WithoutLibtorchItSaysWhyOnceNotThatEachOutputFailed) {
  const QString status = endWith(ended(QString::fromLatin1(kMissing), false));
  EXPECT_FALSE(status.contains(QStringLiteral("NOT verified"))) << status.toStdString();
  EXPECT_FALSE(status.contains(QStringLiteral("DIFFERS"))) << status.toStdString();
  EXPECT_EQ(status.count(QStringLiteral("no libtorch reference")), 1) << status.toStdString();
  EXPECT_TRUE(status.contains(QStringLiteral("opevo-m / gradient / loop 3: 13.000 ms end to end")))
      << status.toStdString();
  EXPECT_FALSE(red());
}

TEST_F(NetworksUncheckedOutput, AnOutputThatDiffersFromLibtorchsSaysSoInRed) {
  const QString status = endWith(ended({}, false));
  EXPECT_EQ(status.count(QStringLiteral("DIFFERS from libtorch")), 3) << status.toStdString();
  EXPECT_TRUE(red());
  EXPECT_EQ(endWith(ended({}, true)).count(QStringLiteral("verified against libtorch")), 3);
  EXPECT_FALSE(red());
}

// A task whose trials found no working kernel runs its untuned configuration end to end: the
// status said "17.745 ms end to end" and the table "–", as if the network were tuned whole.
TEST_F(NetworksUncheckedOutput, ATaskWithNoWorkingKernelIsSaidToRunUntuned) {
  m_page.setup()->selectNetwork(QStringLiteral("alexnet"));
  ASSERT_TRUE(waitUntil([&] { return !m_page.loadingPicture(); }));
  ASSERT_EQ(m_page.taskModel()->rowCount(), 8);
  auto s = std::make_shared<NetworkSnapshot>(*ended(QString::fromLatin1(kMissing), false));
  s->contenders.resize(1);
  ContenderState& c = s->contenders.front();
  c.taskTrials.assign(8, 4);
  c.taskBestMs.assign(8, 1.0);
  c.taskBestMs[1] = std::numeric_limits<double>::quiet_NaN();  // conv2
  const QString status = endWith(s);
  EXPECT_TRUE(status.contains(
      QStringLiteral("11.000 ms end to end (conv2 untuned: no working kernel in its trials)")))
      << status.toStdString();
  const QModelIndex best = m_page.taskModel()->index(1, NetworkTaskModel::BestColumn);
  EXPECT_EQ(best.data().toString(), QStringLiteral("–"));
  EXPECT_TRUE(best.data(Qt::ToolTipRole).toString().contains(QStringLiteral("untuned")))
      << best.data(Qt::ToolTipRole).toString().toStdString();
  EXPECT_FALSE(
      m_page.taskModel()->index(0, NetworkTaskModel::BestColumn).data(Qt::ToolTipRole).isValid());
}

// Tasks the budget never reached run their default configurations in the end-to-end time: the
// caption says so, where it said "no latency for the network" under the network's latency.
TEST_F(NetworksUncheckedOutput, TasksWithNoTrialRunTheirDefaultsEndToEnd) {
  m_page.setup()->selectNetwork(QStringLiteral("alexnet"));
  ASSERT_TRUE(waitUntil([&] { return !m_page.loadingPicture(); }));
  auto s = std::make_shared<NetworkSnapshot>(*ended(QString::fromLatin1(kMissing), false));
  s->contenders.resize(1);
  ContenderState& c = s->contenders.front();
  c.taskTrials = {4, 4, 4, 4, 0, 0, 0, 0};
  c.taskBestMs = {1,
                  1,
                  1,
                  1,
                  std::numeric_limits<double>::quiet_NaN(),
                  std::numeric_limits<double>::quiet_NaN(),
                  std::numeric_limits<double>::quiet_NaN(),
                  std::numeric_limits<double>::quiet_NaN()};
  QString status = endWith(s);
  EXPECT_TRUE(status.contains(QStringLiteral(
      "4 of 8 tasks got no trial (the budget ran out first): the end-to-end time runs them on "
      "their default configurations")))
      << status.toStdString();
  EXPECT_FALSE(status.contains(QStringLiteral("no latency"))) << status.toStdString();
  // Without an end-to-end time there is no latency at all.
  c.endToEndMs = std::numeric_limits<double>::quiet_NaN();
  status = endWith(s);
  EXPECT_TRUE(status.contains(QStringLiteral("no latency for the network")))
      << status.toStdString();
}

// A finished stored CPU run (network run 7) whose end-to-end run is `e`.
net::StoredNetworkRun storedRunEndingIn(const net::StoredEndToEnd& e) {
  net::StoredNetworkRun run{};
  run.record.id = 7;
  run.record.paramsJson = std::string("{}");
  run.status = RunStatus::Finished;
  run.endToEnd = e;
  return run;
}

// A stored run's end says the same: its missing reference comes from the store.
TEST(NetworksUncheckedStoredOutput, AStoredRunKeepsWhyNothingWasChecked) {
  net::StoredEndToEnd e;
  e.ms = 14.7;
  e.referenceMissing = kMissing;
  net::StoredNetworkRun run = storedRunEndingIn(e);
  EXPECT_EQ(storedSnapshot(run).contenders.front().referenceMissing, QString::fromLatin1(kMissing));
  EXPECT_FALSE(storedSnapshot(run).contenders.front().checked);
  e.referenceMs = 9.0;  // libtorch ran: its verdict stands
  run.endToEnd = e;
  EXPECT_TRUE(storedSnapshot(run).contenders.front().referenceMissing.isEmpty());
  EXPECT_TRUE(storedSnapshot(run).contenders.front().checked);
  e = {};  // on a GPU: checked against its plain reference kernels
  e.ms = 0.5;
  e.device = "NVIDIA H200";
  run.endToEnd = e;
  EXPECT_TRUE(storedSnapshot(run).contenders.front().checked);
}

// A CPU run stored before the reason was kept has neither a libtorch time nor a reason: it was
// not checked, and read "output DIFFERS from libtorch's" in red.
TEST_F(NetworksUncheckedOutput, AStoredRunWithNoReferenceAndNoReasonIsNotCalledWrong) {
  net::StoredEndToEnd e;
  e.ms = 14.7;
  const QString status =
      endWith(std::make_shared<NetworkSnapshot>(storedSnapshot(storedRunEndingIn(e))));
  EXPECT_FALSE(status.contains(QStringLiteral("DIFFERS"))) << status.toStdString();
  EXPECT_TRUE(status.contains(QStringLiteral("Not checked: no libtorch reference")))
      << status.toStdString();
  EXPECT_FALSE(red());
}

// A stored run timed against libtorch's frozen form draws its line as the race did ("libtorch
// frozen"), where a reopened run was labelled plain "libtorch"; a run stored before the form
// was kept ran libtorch eagerly; a form this version does not know (a later version's) is named
// as stored, where the whole run failed to read.
TEST(NetworksStoredReference, AReopenedRunKeepsItsLibtorchForm) {
  nlohmann::json result = {{"end_to_end_ms", 8.0},
                           {"times_ms", {8.0, 8.1, 7.9}},
                           {"verified", true},
                           {"reference",
                            {{"name", "libtorch 1.13.0 frozen"},
                             {"ms", 13.5},
                             {"threads", 2},
                             {"form", "frozen"},
                             {"max_relative_error", 1e-6}}}};
  const auto frozen = net::endToEndFromResult(result);
  ASSERT_TRUE(frozen);
  NetworkSnapshot s = storedSnapshot(storedRunEndingIn(*frozen));
  EXPECT_EQ(s.referenceLegend, QStringLiteral("libtorch frozen"));
  EXPECT_EQ(s.referenceName, QStringLiteral("libtorch 1.13.0 frozen, 2 threads"));
  result["reference"].erase("form");
  result["reference"]["name"] = "libtorch 1.13.0";
  const auto old = net::endToEndFromResult(result);
  ASSERT_TRUE(old);
  s = storedSnapshot(storedRunEndingIn(*old));
  EXPECT_EQ(s.referenceLegend, QStringLiteral("libtorch"));
  result["reference"]["form"] = "jit";
  const auto later = net::endToEndFromResult(result);
  ASSERT_TRUE(later);
  EXPECT_EQ(later->unknownReferenceForm, "jit");
  s = storedSnapshot(storedRunEndingIn(*later));
  EXPECT_EQ(s.referenceLegend, QStringLiteral("libtorch jit"));
}

// A finished run whose stored result does not read is shown from its tasks' trials, and the
// status line says why its end-to-end figures are missing (it was "could not be read", nothing
// shown).
TEST(NetworksStoredReference, AStoredResultThatDoesNotReadIsSaidAndTheTasksShown) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string db = dir.filePath(QStringLiteral("opevo.db")).toStdString();
  const std::string network = OPEVO_DATASETS_DIR "/../../tests/data/net_dense_pair.json";
  const std::int64_t id =
      opevo::test::tuneNetworkAndInterrupt(db, network, layout::TuningMode::Joint, 4, 2);
  opevo::test::execSql(db, "UPDATE networks SET status = 'finished', result_json = '{bad'");
  NetworksPage page;
  page.setStorePath(QString::fromStdString(db));
  page.resize(1024, 700);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  page.showStored(id);
  ASSERT_TRUE(waitUntil([&] { return page.snapshot() && !page.loadingStored(); }));
  EXPECT_EQ(page.snapshot()->contenders.front().trials, 4);
  const QString status = page.statusLabel()->text();
  EXPECT_TRUE(
      status.contains(QStringLiteral("network run %1's stored result does not read (").arg(id)))
      << status.toStdString();
  EXPECT_TRUE(status.endsWith(QStringLiteral("): its tasks are shown from their stored trials")))
      << status.toStdString();
}

// After the tuned network, the untuned one and each task's faster configuration run end to end on
// this CPU as `opevo net tune` runs them, and the line says which network was kept: a network of
// tuned kernels can lose to the untuned one in the chain. A stored run shows it again.
TEST_F(NetworksUncheckedOutput, TheUntunedAndMixedNetworksAndTheOneKeptAreSaid) {
  nlohmann::json result = {
      {"end_to_end_ms", 10.0},
      {"verified", true},
      {"reference", {{"name", "libtorch 1.13.0"}, {"ms", 9.0}}},
      {"untuned", {{"end_to_end_ms", 12.5}, {"verified", true}}},
      {"mixed", {{"end_to_end_ms", 8.0}, {"verified", true}, {"reference", {{"ms", 9.0}}}}},
      {"mixed_untuned_tasks", {"c2"}},
      {"chosen", "mixed"},
      {"chosen_configs", {"a", "b"}}};
  net::StoredNetworkRun run = storedRunEndingIn(*net::endToEndFromResult(result));
  run.plan.trials = 8;
  run.tasks.resize(2);
  run.comparison = net::comparisonFromResult(result, "network run 7");
  const NetworkSnapshot shown = storedSnapshot(run);
  ASSERT_TRUE(shown.contenders.front().comparison.kept);
  QString status = endWith(std::make_shared<NetworkSnapshot>(shown));
  EXPECT_TRUE(status.contains(QStringLiteral(
      ": untuned 12.500 ms (tuned / untuned 0.80), each task's faster of the two 8.000 ms (1 of 2 "
      "tasks untuned, 0.80 of the tuned time), kept the mixed network (opevo net export 7 writes "
      "it)")))
      << status.toStdString();
  EXPECT_FALSE(red());

  // An untuned run that failed is named; one whose output differs is said so.
  auto s = std::make_shared<NetworkSnapshot>(*ended({}, true));
  s->contenders.resize(1);
  s->contenders[0].comparison.untunedError = "cannot build kernel c2";
  status = endWith(s);
  EXPECT_TRUE(status.contains(
      QStringLiteral("loop 1: untuned not run end to end (cannot build kernel c2)")))
      << status.toStdString();
  s->contenders[0].comparison = {};
  s->contenders[0].comparison.untunedIsTuned = true;
  status = endWith(s);
  EXPECT_TRUE(status.contains(
      QStringLiteral("loop 1: every task's chosen configuration is its untuned one")))
      << status.toStdString();
  net::StoredEndToEnd wrong;
  wrong.ms = 9.0;
  wrong.referenceMs = 9.0;
  s->contenders[0].comparison = {};
  s->contenders[0].comparison.untuned = wrong;
  status = endWith(s);
  EXPECT_TRUE(status.contains(
      QStringLiteral("untuned 9.000 ms (tuned / untuned 1.22, output DIFFERS from libtorch's)")))
      << status.toStdString();
  // Faster within the noise: the tuned network is kept, and the rule said beside the figure.
  net::StoredEndToEnd close;
  close.ms = 10.8;
  close.verified = true;
  close.referenceMs = 9.0;
  s->contenders[0].comparison = {};
  s->contenders[0].comparison.untuned = close;
  s->contenders[0].comparison.kept = net::KeptNetwork{};
  status = endWith(s);
  EXPECT_TRUE(status.contains(
      QStringLiteral("untuned 10.800 ms (tuned / untuned 1.02), kept the tuned network (no other "
                     "ran over 3% faster; opevo net export 1 writes it)")))
      << status.toStdString();
  // Nothing ran to compare (a GPU, a cluster, or a run stored before): no line.
  s->contenders[0].comparison = {};
  status = endWith(s);
  EXPECT_FALSE(status.contains(QStringLiteral("untuned"))) << status.toStdString();
}

}  // namespace
}  // namespace opevo::ui
