#include "engine/compare_report.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace opevo {
namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

std::ofstream openForWriting(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw InputError("cannot write " + path.string());
  return out;
}

}  // namespace

void writeCompareFiles(const std::string& dir, const SearchSpace& space, const CompareResult& result,
                       const std::string& measurerLabel, const std::string& speedUnit) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError("cannot create output directory " + dir + ": " + ec.message());

  std::ofstream csv = openForWriting(std::filesystem::path(dir) / "trials.csv");
  csv << "algorithm,repeat,seed,trial,config,status,speed,best_so_far,median_ms,tuner_ms,message\n";
  for (const TrialRecord& t : result.trials) {
    csv << t.algorithm << ',' << t.repeat << ',' << t.seed << ',' << t.trial << ','
        << csvField(space.format(t.config)) << ',' << statusName(t.measurement.status) << ','
        << number(t.measurement.speed) << ',' << number(t.bestSoFar) << ','
        << number(t.measurement.medianMs) << ',' << number(t.tunerSeconds * 1e3) << ','
        << csvField(t.measurement.message) << '\n';
  }
  if (!csv) throw InputError("writing " + dir + "/trials.csv failed");

  nlohmann::json rows = nlohmann::json::array();
  for (const SummaryRow& r : result.summary) {
    nlohmann::json row{{"algorithm", r.algorithm},
                       {"trials", r.trials},
                       {"mean_best", r.meanBest},
                       {"std_best", r.stdBest},
                       {"speed_unit", speedUnit},
                       {"measured_by", measurerLabel}};
    row["mean_fraction_of_optimum"] =
        r.meanFractionOfOptimum ? nlohmann::json(*r.meanFractionOfOptimum) : nlohmann::json();
    rows.push_back(std::move(row));
  }
  std::ofstream json = openForWriting(std::filesystem::path(dir) / "summary.json");
  json << rows.dump(2) << "\n";
  if (!json) throw InputError("writing " + dir + "/summary.json failed");
}

std::string summaryMarkdown(const CompareResult& result, const std::string& speedUnit) {
  std::string md = "| algorithm | trials | mean best (" + speedUnit + ") | std | fraction of optimum |\n";
  md += "| --- | ---: | ---: | ---: | ---: |\n";
  for (const SummaryRow& r : result.summary) {
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %d | %.4g | %.3g | %s |\n", r.algorithm.c_str(),
                  r.trials, r.meanBest, r.stdBest,
                  r.meanFractionOfOptimum ? number(*r.meanFractionOfOptimum).c_str() : "n/a");
    md += line;
  }
  return md;
}

}  // namespace opevo
