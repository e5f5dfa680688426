// What `opevo net tune` and `opevo net runs ID` say of the layouts topological joint tuning pins
// across tasks (net/layout_constraints.h), for each kind of link: a residual ties a task's whole
// output layout to the task it meets in the residual; a depthwise convolution's input ties the
// channel blocks alone (layout.out_c), the depthwise task's to its producer's or, where the
// producer is tuned after it, the producer's to the depthwise task's; with --pin-inputs, a 1x1
// convolution's input layout is tied to its producer's output layout. Real CPU runs of small
// networks, stored in SQLite and read back by the real program.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "old_network_run.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

struct TempFolder {
  std::filesystem::path path;
  TempFolder() {
    char pattern[] = "/tmp/opevo-netdwlink-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

// A topological joint run of `network`, stored in `db`, as fast as a CPU run gets (one timed run
// of the network, no libtorch); what net tune printed. No trial is given up for time: under a
// loaded ctest -j2 a task's two trials once both failed (what they said was not kept) and the
// task tied to it had nothing to be tied to, and the time limits are what load changes in a CPU
// trial. The links are what these tests read, not the timings.
ProcessResult tune(const std::string& network, const std::string& trials, const std::string& db,
                   bool json = false, const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"net",   "tune",           network,       "--mode",
                                   "joint", "--scheduler",    "topological", "--trials",
                                   trials,  "--unit",         "2",           "--min-time-ms",
                                   "1",     "--runs",         "1",           "--warmup",
                                   "0",     "--no-reference", "--db",        db};
  args.insert(args.end(), {"--timeout", "300", "--slow-cutoff", "0"});
  if (json) args.push_back("--json");
  args.insert(args.end(), more.begin(), more.end());
  return runProcess(OPEVO_CLI, args);
}

// The lines of `text` that begin with `prefix`.
std::vector<std::string> linesStarting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? end : end - at);
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return out;
}

// `net runs ID --json`'s tasks by name.
std::map<std::string, nlohmann::json> storedTasks(const std::string& db, int id) {
  const auto r = runProcess(OPEVO_CLI, {"net", "runs", std::to_string(id), "--json", "--db", db});
  EXPECT_EQ(r.status, 0) << r.err;
  std::map<std::string, nlohmann::json> tasks;
  if (r.status != 0) return tasks;
  const nlohmann::json run = nlohmann::json::parse(r.out);  // kept: the loop reads into it
  for (const nlohmann::json& t : run["tasks"]) tasks[t["name"].get<std::string>()] = t;
  return tasks;
}

// net_depthwise (expand 1x1, dw 3x3 depthwise, project 1x1, dw2 3x3 depthwise on the residual
// add fused into project): dw is tuned on expand's channel blocks, dw2 on project's. net tune
// and net runs ID said "output layout pinned to expand's, which it meets in the residual
// expand_relu": a tensor that is no residual, and more of the layout than is pinned.
TEST(CliNetDepthwiseConstraint, TuneAndRunsSayADepthwiseTaskIsPinnedToItsProducersChannelBlocks) {
  const TempFolder f;
  const std::string db = (f.path / "runs.db").string();
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";
  const auto tuned = tune(network, "10", db);
  ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
  const std::vector<std::string> dw = linesStarting(tuned.out, "dw: ");
  ASSERT_EQ(dw.size(), 1u) << tuned.out;
  EXPECT_EQ(dw[0].rfind("dw: channel blocks pinned to expand's, whose output expand_relu it reads "
                        "as its depthwise input (layout.out_c=",
                        0),
            0u)
      << dw[0];
  const std::vector<std::string> dw2 = linesStarting(tuned.out, "dw2: ");
  ASSERT_EQ(dw2.size(), 1u) << tuned.out;
  EXPECT_EQ(dw2[0].rfind("dw2: channel blocks pinned to project's, whose output residual it reads "
                         "as its depthwise input (layout.out_c=",
                         0),
            0u)
      << dw2[0];
  EXPECT_EQ(tuned.out.find("meets in the residual"), std::string::npos) << tuned.out;
  // Only the channel blocking is pinned: the sentence names layout.out_c alone.
  EXPECT_EQ(dw[0].find(';'), std::string::npos) << dw[0];

  // net runs ID prints what net tune printed at its end, and --json gives each task's link.
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_EQ(linesStarting(shown.out, "dw: "), dw) << shown.out;
  EXPECT_EQ(linesStarting(shown.out, "dw2: "), dw2) << shown.out;
  std::map<std::string, nlohmann::json> tasks = storedTasks(db, 1);
  ASSERT_EQ(tasks.size(), 5u);
  const nlohmann::json& lc = tasks["dw"]["layout_constraint"];
  ASSERT_TRUE(lc.is_object()) << tasks["dw"].dump(2);
  EXPECT_EQ(lc["link"], "depthwise-input");
  EXPECT_EQ(lc["by"], "expand");
  EXPECT_EQ(lc["tensor"], "expand_relu");
  EXPECT_TRUE(lc["applied"].get<bool>());
  EXPECT_EQ(lc["outcome"], "applied");  // as net tune --json gives it
  EXPECT_EQ(tasks["dw"]["config"].get<std::string>().rfind(
                lc["output_layout"].get<std::string>() + ";", 0),
            0u)
      << tasks["dw"].dump(2);
  for (const char* free : {"expand", "project", "fc"})
    EXPECT_TRUE(tasks[free]["layout_constraint"].is_null()) << tasks[free].dump(2);
}

// The other way round: dw's first occurrence reads the network's input (no task writes it), so
// dw runs, and is tuned, before e, whose output its second occurrence reads; e is then tied to
// dw's blocks. The sentence says which task reads which.
TEST(CliNetDepthwiseConstraint, AProducerTunedAfterItsDepthwiseReaderSaysTheReaderReadsIt) {
  const TempFolder f;
  const std::string db = (f.path / "runs.db").string();
  const std::string network = (f.path / "net_dw_first.json").string();
  std::ofstream(network) << R"({
  "name": "net_dw_first", "params": {"batch": 1},
  "inputs": [{"name": "image", "shape": ["batch", 48, 12, 12]}],
  "layers": [
    {"name": "dw", "op": "conv2d", "input": "image", "out_channels": 48, "kernel": 3,
     "padding": 1, "groups": 48},
    {"name": "dw_relu", "op": "relu", "input": "dw"},
    {"name": "e", "op": "conv2d", "input": "dw_relu", "out_channels": 48, "kernel": 1},
    {"name": "e_relu", "op": "relu", "input": "e"},
    {"name": "dw_again", "op": "conv2d", "input": "e_relu", "out_channels": 48, "kernel": 3,
     "padding": 1, "groups": 48},
    {"name": "dw_again_relu", "op": "relu", "input": "dw_again"}
  ],
  "output": "dw_again_relu"
})";
  const auto tuned = tune(network, "6", db);
  ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
  const std::vector<std::string> e = linesStarting(tuned.out, "e: ");
  ASSERT_EQ(e.size(), 1u) << tuned.out;
  EXPECT_EQ(e[0].rfind("e: channel blocks pinned to dw's, which reads its output e_relu as its "
                       "depthwise input (layout.out_c=",
                       0),
            0u)
      << e[0];
  EXPECT_TRUE(linesStarting(tuned.out, "dw: ").empty()) << tuned.out;
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_EQ(linesStarting(shown.out, "e: "), e) << shown.out;
  std::map<std::string, nlohmann::json> tasks = storedTasks(db, 1);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks["e"]["layout_constraint"]["link"], "depthwise-input");
  EXPECT_EQ(tasks["e"]["layout_constraint"]["by"], "dw");
  EXPECT_TRUE(tasks["dw"]["layout_constraint"].is_null());
}

// With --pin-inputs, net_depthwise's projection (1x1) is tuned to read dw's output as it is: net
// tune and net runs say so, --json gives the link, and net runs' list says which runs asked.
// Without the scheduler and mode that pin, the option is refused, naming what it needs.
TEST(CliNetDepthwiseConstraint, PinInputsTiesAOneByOneReaderToItsProducersLayout) {
  const TempFolder f;
  const std::string db = (f.path / "runs.db").string();
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";
  ASSERT_EQ(tune(network, "10", db).status, 0);                         // run 1: without
  const auto tuned = tune(network, "10", db, false, {"--pin-inputs"});  // run 2
  ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
  const std::vector<std::string> project = linesStarting(tuned.out, "project: ");
  ASSERT_EQ(project.size(), 1u) << tuned.out;
  EXPECT_EQ(project[0].rfind("project: input layout pinned to dw's output layout, whose output "
                             "dw_relu it reads as it is (layout.in_c=",
                             0),
            0u)
      << project[0];
  EXPECT_NE(project[0].find("; layout.out_h="), std::string::npos) << project[0];
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "2", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_EQ(linesStarting(shown.out, "project: "), project) << shown.out;
  std::map<std::string, nlohmann::json> tasks = storedTasks(db, 2);
  EXPECT_EQ(tasks["project"]["layout_constraint"]["link"], "input");
  EXPECT_EQ(tasks["project"]["layout_constraint"]["by"], "dw");
  EXPECT_TRUE(storedTasks(db, 1)["project"]["layout_constraint"].is_null());
  const auto list = runProcess(OPEVO_CLI, {"net", "runs", "--json", "--db", db});
  ASSERT_EQ(list.status, 0) << list.err;
  const nlohmann::json runs = nlohmann::json::parse(list.out);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["pin_inputs"], false);
  EXPECT_EQ(runs[1]["pin_inputs"], true);

  // The default scheduler (gradient) tunes the tasks side by side: nothing to pin to.
  const auto refused =
      runProcess(OPEVO_CLI, {"net", "tune", network, "--trials", "10", "--pin-inputs", "--db", db});
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_NE(refused.err.find("--pin-inputs: 1x1 convolutions are pinned to their producers' "
                             "layouts only when"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("(--scheduler topological --mode joint)"), std::string::npos);
}

// Sets network run `id`'s stored result to `result`, as a run stored by another version would
// hold it.
void storeResult(const std::string& db, int id, const nlohmann::json& result) {
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(handle, "UPDATE networks SET result_json = ? WHERE id = ?", -1, &s,
                               nullptr),
            SQLITE_OK);
  const std::string text = result.dump();
  sqlite3_bind_text(s, 1, text.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(s, 2, id);
  EXPECT_EQ(sqlite3_step(s), SQLITE_DONE);
  sqlite3_finalize(s);
  sqlite3_close(handle);
}

// A residual keeps its sentence; a run stored before constraints had links (no 'link' in its
// stored result) pinned residuals alone and reads as such; a link this version does not know is
// not printed as a residual: the result is said not to read, naming the run and the task, and the
// run is shown from its trials (it was refused whole).
TEST(CliNetDepthwiseConstraint, AResidualAndARunStoredBeforeLinksHadKindsReadAsResiduals) {
  const TempFolder f;
  const std::string db = (f.path / "runs.db").string();
  const std::string network =
      std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_residual_producer.json";
  const auto tuned = tune(network, "8", db);
  ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
  const std::vector<std::string> pinned = linesStarting(tuned.out, "short: ");
  ASSERT_EQ(pinned.size(), 1u) << tuned.out;
  EXPECT_EQ(pinned[0].rfind("short: output layout pinned to b's, which it meets in the residual b "
                            "(layout.out_c=",
                            0),
            0u)
      << pinned[0];
  EXPECT_EQ(storedTasks(db, 1)["short"]["layout_constraint"]["link"], "residual");

  nlohmann::json result;
  {
    const Store store(db);
    result = nlohmann::json::parse(store.network(1)->resultJson);
  }
  for (nlohmann::json& t : result["tasks"])
    if (t["layout_constraint"].is_object()) t["layout_constraint"].erase("link");
  storeResult(db, 1, result);
  const auto old = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  ASSERT_EQ(old.status, 0) << old.err;
  EXPECT_EQ(linesStarting(old.out, "short: "), pinned) << old.out;
  EXPECT_EQ(storedTasks(db, 1)["short"]["layout_constraint"]["link"], "residual");

  for (nlohmann::json& t : result["tasks"])
    if (t["layout_constraint"].is_object()) t["layout_constraint"]["link"] = "diagonal";
  storeResult(db, 1, result);
  const auto unknown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  EXPECT_EQ(unknown.status, 0) << unknown.err;
  EXPECT_NE(unknown.out.find("note: network run 1's stored result does not read (network run 1's "
                             "task short links by 'diagonal'"),
            std::string::npos)
      << unknown.out;
  EXPECT_TRUE(linesStarting(unknown.out, "short: ").empty()) << unknown.out;
}

// net tune --json and net runs ID --json give one layout_constraint object: net runs lacked
// "outcome". A new run's plan differs from nothing: no plan_note, no note.
TEST(CliNetDepthwiseConstraint, TuneAndRunsGiveOneConstraintObject) {
  const TempFolder f;
  const std::string db = (f.path / "runs.db").string();
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";
  const auto tuned = tune(network, "10", db, true);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  std::map<std::string, nlohmann::json> fromTune;
  const nlohmann::json printed = nlohmann::json::parse(tuned.out);  // kept: the loop reads into it
  for (const nlohmann::json& t : printed["tasks"])
    fromTune[t["name"].get<std::string>()] = t["layout_constraint"];
  const std::map<std::string, nlohmann::json> stored = storedTasks(db, 1);
  ASSERT_EQ(stored.size(), fromTune.size());
  for (const auto& [name, task] : stored)
    EXPECT_EQ(task["layout_constraint"], fromTune[name]) << name;
  EXPECT_TRUE(fromTune["dw"].is_object());
  ASSERT_TRUE(printed.contains("plan_note"));
  EXPECT_TRUE(printed["plan_note"].is_null());
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--json", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_TRUE(nlohmann::json::parse(shown.out)["plan_note"].is_null());
  const auto text = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  EXPECT_TRUE(linesStarting(text.out, "note: ").empty()) << text.out;
}

// A joint topological run stored before depthwise tasks were pinned resumes as it was tuned
// (StoredNetworkDepthwiseResume): its resume and net runs ID say so, where nothing did.
TEST(CliNetDepthwiseConstraint, AnOldRunsResumeSaysItsDepthwiseTasksGoOnUnpinned) {
  const TempFolder f;
  const std::string db = (f.path / "runs.db").string();
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";
  ASSERT_EQ(storeRunBeforeDepthwisePins(db, network, 12, 2), 1);
  const std::string head =
      "note: stored before depthwise tasks were tied to their producers' channel blocks, this "
      "run ";
  const std::string tie = "(a new run ties each to its producer's blocks as it is tuned)";
  const std::string goesOn = head +
                             "goes on as it was tuned: its 2 depthwise tasks on blocks of their "
                             "own, given their producers' after tuning where those fit " +
                             tie;
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_EQ(linesStarting(shown.out, "note: "), std::vector<std::string>{goesOn}) << shown.out;
  const auto resumed =
      runProcess(OPEVO_CLI, {"net", "tune", "--resume", "1", "--min-time-ms", "1", "--runs", "1",
                             "--warmup", "0", "--no-reference", "--db", db});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(goesOn + "\n"), std::string::npos) << resumed.err;
  // Its tuning over, it says what it ran.
  const std::string ran = head +
                          "tuned its 2 depthwise tasks on blocks of their own and ran them on "
                          "their producers' where those fit, blocks they were not timed with " +
                          tie;
  const auto json = runProcess(OPEVO_CLI, {"net", "runs", "1", "--json", "--db", db});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["status"], "finished");
  EXPECT_EQ("note: " + nlohmann::json::parse(json.out)["plan_note"].get<std::string>(), ran);
  const auto after = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  EXPECT_EQ(linesStarting(after.out, "note: "), std::vector<std::string>{ran}) << after.out;
}

// net compare says what a depthwise link pins as net tune does: the channel blocks (it said
// "dw's output layout pinned to expand's").
TEST(CliNetDepthwiseConstraint, CompareSaysADepthwiseTaskIsPinnedToItsProducersChannelBlocks) {
  const TempFolder f;
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";
  const auto r =
      runProcess(OPEVO_CLI, {"net", "compare", network, "--trials", "10", "--algos", "opevo-m",
                             "--schedulers", "topological", "--modes", "joint", "--out",
                             (f.path / "out").string(), "--runs", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(": dw's channel blocks pinned to expand's (layout.out_c="),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("dw's output layout"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opevo::test
