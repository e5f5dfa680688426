// What the Networks page's contenders tune. The Winograd contender takes the matrix-vector box as
// every contender does (winograd+matvec on cuda by default), where `opevo net tune --template
// winograd` leaves the dense layers direct: one word, two things. The page's templates are what
// `net tune --template` makes of the words its boxes spell, and each contender says so.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <memory>

#include "gui_test_support.h"
#include "net/stored_network_run.h"
#include "net/task_templates.h"
#include "support/old_network_run.h"
#include "ui/controller/network_controller.h"
#include "ui/controller/network_types.h"
#include "ui/pages/networks_page.h"

namespace opevo::ui {
namespace {

using layout::TuningMode;
using test::waitUntil;

// `opevo net tune --backend BACKEND --template WORD`'s templates.
net::TaskTemplates cli(const char* word, const char* backend) {
  return net::chosenTaskTemplates(std::string(word), backend, "--template");
}

TEST(NetworkContenderTemplates, AreWhatNetTuneMakesOfTheWordsTheBoxesSpell) {
  NetworkSpec spec;
  spec.backend = "cuda";
  spec.modes = {TuningMode::Loop};
  spec.winograd = true;
  // The matrix-vector box as cuda has it by default: every contender's dense layers.
  auto tunings = spec.tunings();
  ASSERT_EQ(tunings.size(), 2u);
  EXPECT_EQ(tunings[0].first, TuningMode::Loop);
  EXPECT_EQ(tunings[0].second.name(), cli("matvec", "cuda").name());
  EXPECT_EQ(tunings[1].first, TuningMode::Loop);
  EXPECT_EQ(tunings[1].second.name(), cli("winograd+matvec", "cuda").name());
  // Cleared: the Winograd contender is `net tune --template winograd`'s, dense layers direct.
  spec.matvec = false;
  tunings = spec.tunings();
  ASSERT_EQ(tunings.size(), 2u);
  EXPECT_EQ(tunings[0].second.name(), "direct");
  EXPECT_EQ(tunings[1].second.name(), cli("winograd", "cuda").name());
  EXPECT_FALSE(tunings[1].second.matvec);
  // On the CPU, Winograd's contender beside layout tasks, as net tune's joint default.
  spec.backend = "cpu";
  spec.matvec.reset();
  spec.modes = {TuningMode::Loop, TuningMode::Joint};
  tunings = spec.tunings();
  ASSERT_EQ(tunings.size(), 3u);
  EXPECT_EQ(tunings[2].first, TuningMode::Joint);
  EXPECT_EQ(tunings[2].second.name(), "winograd");
}

net::NetworkTuningPlan plan(TuningMode mode, const char* templates) {
  net::NetworkTuningPlan p;
  p.algorithm = "opevo-m";
  p.mode = mode;
  p.templates = net::parseTaskTemplates(templates, "");
  return p;
}

TEST(NetworkContenderTemplates, EachContenderSaysWhatItTunesAsNetTuneOptions) {
  const QString both = contenderTunes(plan(TuningMode::Loop, "winograd+matvec"));
  EXPECT_TRUE(both.contains(QStringLiteral("Winograd's template"))) << both.toStdString();
  EXPECT_TRUE(both.contains(QStringLiteral("dense layers on the matrix-vector template")))
      << both.toStdString();
  EXPECT_TRUE(both.endsWith(QStringLiteral("net tune --mode loop --template winograd+matvec")))
      << both.toStdString();
  const QString winograd = contenderTunes(plan(TuningMode::Joint, "winograd"));
  EXPECT_FALSE(winograd.contains(QStringLiteral("matrix-vector"))) << winograd.toStdString();
  EXPECT_TRUE(winograd.endsWith(QStringLiteral("--mode joint --template winograd")))
      << winograd.toStdString();
  const QString direct = contenderTunes(plan(TuningMode::Loop, "direct"));
  EXPECT_TRUE(direct.startsWith(QStringLiteral("Tunes every task's loops over plain layouts")))
      << direct.toStdString();
  // A run tuned with 1x1 inputs pinned says so, as the option that asked for it.
  net::NetworkTuningPlan pinned = plan(TuningMode::Joint, "direct");
  pinned.inputPins = true;
  EXPECT_TRUE(contenderTunes(pinned).endsWith(QStringLiteral("--template direct --pin-inputs")))
      << contenderTunes(pinned).toStdString();
  EXPECT_FALSE(contenderTunes(plan(TuningMode::Joint, "direct")).contains(QStringLiteral("pin")));
}

// The page: the contender on show says what it tunes, and another chosen says its own.
TEST(NetworkContenderTemplates, ThePageSaysWhatTheContenderOnShowTunes) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  NetworksPage page;
  page.setStorePath(dir.filePath(QStringLiteral("opevo.db")));
  page.resize(1024, 700);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  auto s = std::make_shared<NetworkSnapshot>();
  int id = 1;
  for (const char* templates : {"matvec", "winograd+matvec"}) {
    const net::NetworkTuningPlan p = plan(TuningMode::Loop, templates);
    ContenderState c;
    c.label = contenderLabel(p);
    c.tunes = contenderTunes(p);
    c.networkId = id++;
    c.budget = 16;
    s->contenders.push_back(c);
  }
  EXPECT_FALSE(page.contenderTunesLabel()->isVisible());
  emit page.controller()->updated(s);
  ASSERT_TRUE(waitUntil([&] { return page.contenderBox()->count() == 2; }));
  EXPECT_TRUE(page.contenderTunesLabel()->isVisible());
  EXPECT_EQ(page.contenderTunesLabel()->text(), s->contenders[0].tunes);
  page.contenderBox()->setCurrentIndex(1);
  EXPECT_EQ(page.contenderTunesLabel()->text(), s->contenders[1].tunes);
  EXPECT_TRUE(page.contenderTunesLabel()->text().contains(QStringLiteral("winograd+matvec")));
}

// A joint topological run stored before depthwise tasks were pinned goes on as it was tuned
// (StoredNetworkDepthwiseResume); Show and Resume put it on the page with nothing that said so.
// Its contender's line says it, as `opevo net tune --resume` and `net runs ID` do.
TEST(NetworkContenderTemplates, AnOldRunSaysItsDepthwiseTasksGoOnUnpinned) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string db = dir.filePath(QStringLiteral("opevo.db")).toStdString();
  const std::string network = OPEVO_DATASETS_DIR "/../../tests/data/net_depthwise.json";
  const std::int64_t id = opevo::test::storeRunBeforeDepthwisePins(db, network, 12, 2);
  NetworksPage page;
  page.setStorePath(QString::fromStdString(db));
  page.resize(1024, 700);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  page.showStored(id);
  ASSERT_TRUE(waitUntil([&] { return page.snapshot() && !page.loadingStored(); }));
  const QString tunes = page.contenderTunesLabel()->text();
  EXPECT_TRUE(page.contenderTunesLabel()->isVisible());
  EXPECT_TRUE(tunes.endsWith(QStringLiteral(
      ". Stored before depthwise tasks were tied to their producers' channel blocks, this run "
      "goes on as it was tuned: its 2 depthwise tasks on blocks of their own, given their "
      "producers' after tuning where those fit (a new run ties each to its producer's blocks as "
      "it is tuned).")))
      << tunes.toStdString();
  // A run stored since says nothing of it.
  const std::int64_t since =
      opevo::test::tuneNetworkAndInterrupt(db, network, TuningMode::Joint, 12, 2);
  page.showStored(since);
  ASSERT_TRUE(waitUntil([&] {
    return page.snapshot() && !page.loadingStored() &&
           page.snapshot()->contenders.front().networkId == since;
  }));
  EXPECT_FALSE(page.contenderTunesLabel()->text().contains(QStringLiteral("Stored before")));
  EXPECT_TRUE(page.contenderTunesLabel()->text().startsWith(QStringLiteral("Tunes ")));
}

}  // namespace
}  // namespace opevo::ui
