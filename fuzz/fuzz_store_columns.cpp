// The store's JSON and text columns (core/store/store.h) as a damaged or hand-edited database
// holds them: a real SQLite store with a race, a run, a trial, a network and a Canvas search, one
// of whose columns (the first byte chooses: 'A' trials.times_json, 'B' trials.config, ... in
// kColumns order) is overwritten with the other bytes through raw SQL, then read back through the
// public readers (runs, trials, history, the run's operator, networks, kernel searches) and
// restored. A corrupt column must end in InputError saying what is wrong, nothing else.

#include <sqlite3.h>

#include <memory>
#include <vector>

#include "common/error.h"
#include "fuzz_input.h"
#include "store/history.h"
#include "store/run_operator.h"
#include "store/store.h"

namespace {

struct Column {
  const char* table;
  const char* name;
};
constexpr Column kColumns[] = {{"trials", "times_json"},
                               {"trials", "config"},
                               {"trials", "message"},
                               {"runs", "operator_json"},
                               {"runs", "settings_json"},
                               {"runs", "budget_json"},
                               {"networks", "network_json"},
                               {"networks", "params_json"},
                               {"networks", "plan_json"},
                               {"networks", "result_json"},
                               {"kas_searches", "settings_json"},
                               {"kas_searches", "baseline_json"},
                               {"kas_candidates", "kernel_json"},
                               {"kas_candidates", "tuning_json"},
                               {"kas_candidates", "training_json"}};
constexpr std::size_t kColumnCount = sizeof kColumns / sizeof kColumns[0];

// The store, made once per process, and a second connection that writes behind its back.
struct Fixture {
  std::unique_ptr<opevo::Store> store;
  sqlite3* raw = nullptr;
  std::int64_t race = 0, run = 0;
  std::vector<std::string> original;  // each column's value as the store wrote it

  Fixture() {
    const std::string path = (opevo::fuzz::tempDir() / "opevo.db").string();
    store = std::make_unique<opevo::Store>(path);
    race = store->createRace(opevo::Schedule::RoundRobin, 1);
    opevo::RunRecord r;
    r.operatorName = "MM1";
    r.operatorJson = R"({"name": "MM1", "expression": "C[i,j] += A[i,k] * B[k,j]"})";
    r.algorithm = "opevo";
    r.settingsJson = R"({"q": 0.5})";
    r.backend = "cpu";
    r.device = "test cpu";
    r.budgetJson = R"({"trials": 10})";
    r.raceId = race;
    run = store->createRun(r);
    opevo::TrialRow t;
    t.runId = run;
    t.seq = 1;
    t.config = "tile_k=4; tile_n=2,4,8";
    t.timesMs = {1.5, 2.5};
    t.medianMs = 2;
    t.speed = 0.5;
    store->appendTrial(t);
    opevo::NetworkRecord n;
    n.name = "chain";
    n.networkJson = R"({"name": "chain", "layers": []})";
    n.paramsJson = "{}";
    n.planJson = R"({"algorithm": "opevo", "seed": 1})";
    const std::int64_t network = store->createNetwork(n);
    store->setNetworkTaskRun(network, 0, run);
    store->appendNetworkUnit(network, {1, 0, 1});
    store->setNetworkStatus(network, opevo::RunStatus::Finished, R"({"ms": 1.5})");
    opevo::KasSearchRecord s;
    s.network = "resnet18";
    s.settingsJson = R"({"candidates": 2})";
    const std::int64_t search = store->createKasSearch(s);
    store->setKasSearchBaseline(search, R"({"accuracy": 0.9})");
    opevo::KasCandidateRow c;
    c.searchId = search;
    c.seq = 1;
    c.hash = "0201f3fc4a862423";
    c.kernelJson = R"({"kernel": []})";
    c.tuningJson = "[]";
    c.trainingJson = "{}";
    store->putKasCandidate(c);
    if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
      std::abort();
    sqlite3_busy_timeout(raw, 5000);
    sqlite3_exec(raw, "PRAGMA synchronous=OFF", nullptr, nullptr, nullptr);
    for (const Column& column : kColumns) {
      const std::string sql = std::string("SELECT ") + column.name + " FROM " + column.table;
      sqlite3_stmt* select = nullptr;
      sqlite3_prepare_v2(raw, sql.c_str(), -1, &select, nullptr);
      if (sqlite3_step(select) != SQLITE_ROW) std::abort();
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(select, 0));
      original.emplace_back(text ? text : "");
      sqlite3_finalize(select);
    }
  }
  ~Fixture() { sqlite3_close(raw); }

  void write(const Column& column, const char* bytes, std::size_t size) {
    const std::string sql = std::string("UPDATE ") + column.table + " SET " + column.name + " = ?";
    sqlite3_stmt* update = nullptr;
    sqlite3_prepare_v2(raw, sql.c_str(), -1, &update, nullptr);
    sqlite3_bind_text(update, 1, bytes, static_cast<int>(size), SQLITE_TRANSIENT);
    if (sqlite3_step(update) != SQLITE_DONE) std::abort();
    sqlite3_finalize(update);
  }
};

// Everything a program does with what it reads back.
void readAll(const opevo::Store& store, const Fixture& f) {
  for (const opevo::RunRecord& r : store.runs()) {
    opevo::trialRecords(r, store.trials(r.id));
    opevo::runOperatorKey(r.operatorJson);
    try {
      opevo::runOperator(r.operatorJson);
    } catch (const opevo::InputError&) {
    }
  }
  const auto run = store.run(f.run);
  if (!run) __builtin_trap();
  opevo::loadHistory(store, *run, 0);
  store.raceRuns(f.race);
  store.lastOrder(*run);
  for (const opevo::NetworkRecord& n : store.networks()) store.networkUnits(n.id);
  for (const opevo::KasSearchRecord& s : store.kasSearches()) store.kasCandidates(s.id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static Fixture f;
  const std::size_t index = static_cast<unsigned char>(data[0] - 'A') % kColumnCount;
  const Column& column = kColumns[index];
  f.write(column, reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    readAll(*f.store, f);
  } catch (const opevo::InputError&) {
  }
  f.write(column, f.original[index].data(), f.original[index].size());
  return 0;
}
