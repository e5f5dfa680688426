// The Canvas tables of the store (schema 4): kernel searches and their candidates.

#include "common/error.h"
#include "store/sqlite_handle.h"
#include "store/store.h"

namespace opevo {

const EnumNames<KasStage, 4>& kasStageNames() {
  static const EnumNames<KasStage, 4> names{{{
      {KasStage::Sampled, "sampled"},
      {KasStage::Tuned, "tuned"},
      {KasStage::Trained, "trained"},
      {KasStage::Failed, "failed"},
  }}};
  return names;
}

namespace {

constexpr const char* kSearchColumns =
    "SELECT id, network, settings_json, status, started, ended, baseline_json FROM kas_searches";

KasSearchRecord readSearch(const Statement& s) {
  KasSearchRecord r;
  r.id = s.integer(0);
  r.network = s.text(1);
  r.settingsJson = s.text(2);
  r.status = runStatusNames().parse(s.text(3)).value_or(RunStatus::Failed);
  r.started = s.text(4);
  r.ended = s.text(5);
  r.baselineJson = s.text(6);
  return r;
}

std::optional<double> optionalReal(const Statement& s, int column) {
  if (s.isNull(column)) return std::nullopt;
  return s.real(column);
}

void bindOptional(Statement& s, int index, const std::optional<double>& v) {
  if (v) s.bind(index, *v);  // else NULL
}

}  // namespace

std::int64_t Store::createKasSearch(const KasSearchRecord& r) {
  Statement s(m_db,
              "INSERT INTO kas_searches (network, settings_json, status, started, baseline_json) "
              "VALUES (?,?,?,?,?)");
  s.bind(1, r.network).bind(2, r.settingsJson).bind(3, std::string(runStatusName(r.status)));
  s.bind(4, r.started.empty() ? nowUtc() : r.started).bind(5, r.baselineJson).run();
  return sqlite3_last_insert_rowid(m_db);
}

void Store::setKasSearchStatus(std::int64_t searchId, RunStatus status) {
  Statement s(m_db, "UPDATE kas_searches SET status = ?, ended = ? WHERE id = ?");
  s.bind(1, std::string(runStatusName(status)));
  s.bind(2, status == RunStatus::Running ? std::string() : nowUtc()).bind(3, searchId).run();
}

void Store::setKasSearchBaseline(std::int64_t searchId, const std::string& baselineJson) {
  Statement s(m_db, "UPDATE kas_searches SET baseline_json = ? WHERE id = ?");
  s.bind(1, baselineJson).bind(2, searchId).run();
}

void Store::putKasCandidate(const KasCandidateRow& c) {
  Statement s(m_db,
              "INSERT OR REPLACE INTO kas_candidates (search_id, seq, hash, kernel_json, groups, "
              "stage, flops_ratio, params_ratio, kernel_ms, conv_ms, accuracy, stopped_early, "
              "tune_seconds, train_seconds, tuning_json, training_json, message) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, c.searchId).bind(2, static_cast<std::int64_t>(c.seq)).bind(3, c.hash);
  s.bind(4, c.kernelJson).bind(5, c.groups).bind(6, std::string(kasStageNames().name(c.stage)));
  s.bind(7, c.flopsRatio).bind(8, c.paramsRatio);
  bindOptional(s, 9, c.kernelMs);
  bindOptional(s, 10, c.convMs);
  bindOptional(s, 11, c.accuracy);
  s.bind(12, static_cast<std::int64_t>(c.stoppedEarly ? 1 : 0));
  s.bind(13, c.tuneSeconds).bind(14, c.trainSeconds).bind(15, c.tuningJson);
  s.bind(16, c.trainingJson).bind(17, c.message).run();
}

std::optional<KasSearchRecord> Store::kasSearch(std::int64_t searchId) const {
  Statement s(m_db, (std::string(kSearchColumns) + " WHERE id = ?").c_str());
  s.bind(1, searchId);
  if (!s.step()) return std::nullopt;
  return readSearch(s);
}

std::vector<KasSearchRecord> Store::kasSearches() const {
  Statement s(m_db, (std::string(kSearchColumns) + " ORDER BY id").c_str());
  std::vector<KasSearchRecord> out;
  while (s.step()) out.push_back(readSearch(s));
  return out;
}

std::vector<KasCandidateRow> Store::kasCandidates(std::int64_t searchId) const {
  Statement s(m_db,
              "SELECT seq, hash, kernel_json, groups, stage, flops_ratio, params_ratio, kernel_ms, "
              "conv_ms, accuracy, stopped_early, tune_seconds, train_seconds, tuning_json, "
              "training_json, message FROM kas_candidates WHERE search_id = ? ORDER BY seq");
  s.bind(1, searchId);
  std::vector<KasCandidateRow> out;
  while (s.step()) {
    KasCandidateRow c;
    c.searchId = searchId;
    c.seq = static_cast<int>(s.integer(0));
    c.hash = s.text(1);
    c.kernelJson = s.text(2);
    c.groups = s.integer(3);
    c.stage = kasStageNames().parse(s.text(4)).value_or(KasStage::Failed);
    c.flopsRatio = s.real(5);
    c.paramsRatio = s.real(6);
    c.kernelMs = optionalReal(s, 7);
    c.convMs = optionalReal(s, 8);
    c.accuracy = optionalReal(s, 9);
    c.stoppedEarly = s.integer(10) != 0;
    c.tuneSeconds = s.real(11);
    c.trainSeconds = s.real(12);
    c.tuningJson = s.text(13);
    c.trainingJson = s.text(14);
    c.message = s.text(15);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace opevo
