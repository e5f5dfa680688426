#include "io/trials_csv.h"

#include <charconv>

#include "io/export_file.h"

namespace opevo {
// 6 digits made a run that found the optimum read 1.0000034 when its fraction was recomputed.
std::string csvNumber(double v) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  return std::string(buffer, end);
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string trialsCsvHeader() {
  return "order,run,algorithm,repeat,seed,trial,config,status,speed,best_so_far,median_ms,"
         "compile_ms,tuner_ms,seconds,message,device_seconds,agent,space\n";
}

std::string trialsCsvRow(const TrialRecord& t, DeviceClock& device) {
  const Measurement& m = t.measurement;
  std::string row;
  row += std::to_string(t.order) + ',' + std::to_string(t.run) + ',' + csvField(t.algorithm) + ',';
  // 1-based, as the window's Repeat column and compare's progress lines count repeats.
  row += std::to_string(t.repeat + 1) + ',' + std::to_string(t.seed) + ',' +
         std::to_string(t.trial) + ',';
  row +=
      csvField(t.config) + ',' + std::string(statusName(m.status)) + ',' + csvNumber(m.speed) + ',';
  row += csvNumber(t.bestSoFar) + ',' + csvNumber(m.medianMs) + ',' + csvNumber(m.compileMs) + ',';
  row += csvNumber(t.tunerSeconds * 1e3) + ',' + csvNumber(t.seconds) + ',' + csvField(m.message) +
         ',';
  // The new columns come after the message, so that the columns every trials.csv had keep their
  // places, and compare's device_seconds keeps its own.
  row += csvNumber(device.add(t)) + ',' + csvField(m.agent) + ',' + csvField(t.space) + '\n';
  return row;
}

std::string trialsCsv(const std::vector<TrialRecord>& trials) {
  std::string text = trialsCsvHeader();
  DeviceClock device;
  for (const TrialRecord& t : trials) text += trialsCsvRow(t, device);
  return text;
}

void writeTrialsCsv(const std::string& path, const std::vector<TrialRecord>& trials) {
  writeExportBytes(path, trialsCsv(trials));
}

}  // namespace opevo
