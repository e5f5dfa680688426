#include "io/trials_csv.h"

#include <cstdio>

#include "io/export_file.h"

namespace opevo {
namespace {

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

}  // namespace

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string trialsCsvHeader() {
  return "order,run,algorithm,repeat,seed,trial,config,status,speed,best_so_far,median_ms,compile_"
         "ms,"
         "tuner_ms,seconds,message\n";
}

std::string trialsCsvRow(const TrialRecord& t) {
  const Measurement& m = t.measurement;
  std::string row;
  row += std::to_string(t.order) + ',' + std::to_string(t.run) + ',' + csvField(t.algorithm) + ',';
  // 1-based, as the window's Repeat column and compare's progress lines count repeats.
  row += std::to_string(t.repeat + 1) + ',' + std::to_string(t.seed) + ',' +
         std::to_string(t.trial) + ',';
  row += csvField(t.config) + ',' + std::string(statusName(m.status)) + ',' + number(m.speed) + ',';
  row += number(t.bestSoFar) + ',' + number(m.medianMs) + ',' + number(m.compileMs) + ',';
  row += number(t.tunerSeconds * 1e3) + ',' + number(t.seconds) + ',' + csvField(m.message) + '\n';
  return row;
}

std::string trialsCsv(const std::vector<TrialRecord>& trials) {
  std::string text = trialsCsvHeader();
  for (const TrialRecord& t : trials) text += trialsCsvRow(t);
  return text;
}

void writeTrialsCsv(const std::string& path, const std::vector<TrialRecord>& trials) {
  writeExportBytes(path, trialsCsv(trials));
}

}  // namespace opevo
