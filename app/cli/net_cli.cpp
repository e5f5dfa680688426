#include "cli/net_cli.h"

#include <cstdio>
#include <iostream>
#include <set>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "net/chain_choice.h"

namespace opevo::cli {

net::ParamOverrides paramOverrides(const std::vector<std::string>& texts) {
  net::ParamOverrides out;
  for (const std::string& t : texts) {
    auto [name, value] = net::parseParamOverride(t);
    // Two values for one param: neither wins quietly.
    if (const auto it = out.find(name); it != out.end())
      throw InputError("--param " + name + " is given twice (" + name + "=" +
                       std::to_string(it->second) + " and " + t + ")");
    out.emplace(std::move(name), value);
  }
  return out;
}

void announceBuild(const net::Network& n, const net::TaskGraph& g) {
  std::cerr << "building " << g.tasks.size() << " task kernels and the fixed kernels of " << n.name
            << " (one compiler run)...\n";
}

void printEndToEnd(const std::string& what, const net::StoredEndToEnd& e) {
  std::printf(
      "%s: %s ms end to end (median of %d), tasks %s ms + layout conversions %s ms + "
      "fixed kernels %s ms measured one by one\n",
      what.c_str(), msText(e.ms).c_str(), e.runs, msText(e.tasksMs).c_str(),
      msText(e.conversionsMs).c_str(), msText(e.fixedMs).c_str());
  const char* matches = e.verified ? "matches" : "DIFFERS";
  if (!e.device.empty())
    std::printf("on %s (NVRTC %.1f s); output against %s: %s (max relative error %.2g)\n",
                e.device.c_str(), e.compileSeconds, e.referenceName.c_str(), matches, e.error);
  else if (e.referenceMs)
    std::printf(
        "%s, %d threads: %s ms (best median of %d processes); output %s (max relative error "
        "%.2g)\n",
        e.referenceName.c_str(), e.referenceThreads, msText(*e.referenceMs).c_str(),
        e.referenceProcesses, matches, e.error);
  else
    std::printf("%s\n", e.referenceMissing.c_str());
}

namespace {

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// A table cell: "-" where there is no figure.
std::string cellText(const std::optional<double>& ms) {
  return ms ? msText(*ms) : "-";
}

// The network a run kept once its untuned configurations ran (net/chain_choice.h), after the
// run of each task's faster configuration when there was one.
void printChoice(const net::StoredNetworkRun& run, const net::StoredEndToEnd& tuned) {
  const net::NetworkComparison& c = run.comparison;
  const std::string mixed = "each task's configuration that ran faster in the chain (" +
                            std::to_string(c.mixedUntunedTasks.size()) + " of " +
                            std::to_string(run.tasks.size()) + " tasks switched to untuned)";
  if (const auto& m = c.mixed)
    printEndToEnd(mixed + ", same process", *m);
  else if (!c.mixedError.empty())
    std::printf("%s: not run end to end (%s)\n", mixed.c_str(), c.mixedError.c_str());
  if (!c.kept) {
    // No other network was checked, so no choice was stored; the tuned one is still the run's.
    if (!c.untuned && !c.untunedIsTuned && !c.untunedError.empty())
      std::printf(
          "kept: the tuned configurations (the untuned network did not run end to end, so no "
          "other was checked); opevo net export %lld writes them\n",
          static_cast<long long>(run.record.id));
    return;
  }
  const net::NetworkChoice choice = c.kept->choice;
  const std::string name(net::networkChoiceName(choice));
  const long long id = run.record.id;
  if (choice == net::NetworkChoice::Tuned) {
    std::printf(
        "kept: the tuned configurations (no other network checked against the reference ran more "
        "than %.0f%% faster end to end); opevo "
        "net export %lld writes them\n",
        (net::kEndToEndNoise - 1) * 100, id);
    return;
  }
  const net::StoredEndToEnd* kept = c.keptOtherRun();
  if (!kept) {  // a result edited by hand
    std::printf("kept: the %s configurations; opevo net export %lld writes them\n", name.c_str(),
                id);
    return;
  }
  std::printf(
      "kept: the %s configurations, %s ms end to end, %.2f of the tuned network's time; opevo net "
      "export %lld writes them\n",
      name.c_str(), msText(kept->ms).c_str(), kept->ms / tuned.ms, id);
}

}  // namespace

void printNetworkResult(const net::StoredNetworkRun& run, const std::string& what) {
  // Where the end's figures should be, why they are not: the table below is from the trials.
  if (!run.resultError.empty()) std::printf("note: %s\n", run.resultError.c_str());
  bool refs = run.sumOfReferencesMs.has_value();
  for (const net::StoredNetworkTask& t : run.tasks)
    refs = refs || t.referenceMs || !t.referenceError.empty();
  // The library column only where the libraries were timed.
  auto library = [&](const std::string& text) { return refs ? " " + pad(text, 12) : ""; };
  std::printf("%-26s %6s %6s %12s%s  %s\n", "task", "weight", "trials", "best ms",
              library("library ms").c_str(), "configuration");
  for (const net::StoredNetworkTask& t : run.tasks)
    std::printf("%-26s %6lld %6d %12s%s  %s\n", t.name.c_str(), static_cast<long long>(t.weight),
                t.trials, cellText(t.bestMs).c_str(), library(cellText(t.referenceMs)).c_str(),
                t.config.empty() ? "-" : t.config.c_str());
  for (const net::StoredNetworkTask& t : run.tasks)
    if (t.layoutConstraint) std::printf("%s\n", net::layoutConstraintText(t).c_str());
  // A task without a best either had no trial or failed in every trial it had: said apart, as
  // "no working kernel" read as a failure of tasks the budget never reached.
  std::vector<std::string> untried, failing;
  double sum = 0;
  for (const net::StoredNetworkTask& t : run.tasks) {
    if (t.bestMs)
      sum += static_cast<double>(t.weight) * *t.bestMs;
    else
      (t.trials == 0 ? untried : failing).push_back(t.name);
  }
  if (untried.empty() && failing.empty()) {
    std::printf("\nsum of weight x best over the tasks: %s ms\n",
                msText(run.sumOfTasksMs.value_or(sum)).c_str());
  } else {
    // A sum over the tuned tasks alone would read as the whole network's.
    const std::size_t tasks = run.tasks.size();
    const auto listed = [tasks](const std::vector<std::string>& names, const char* what) {
      std::string text;
      for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
      return std::to_string(names.size()) + " of " + std::to_string(tasks) + " tasks " + what +
             ": " + text;
    };
    std::string why;
    if (!untried.empty()) why = listed(untried, "have had no trial");
    if (!failing.empty())
      why += (why.empty() ? "" : "; ") + listed(failing, "have no working kernel in their trials");
    // "yet" only where trials may still come: a finished run has none to come.
    std::printf("\nsum of weight x best over the tasks: %s (%s; %s)\n",
                run.status == RunStatus::Finished ? "none" : "none yet", why.c_str(),
                untried.empty() ? "more trials may find one" : "more trials give every task some");
  }
  if (refs) {
    // The ratio over the tasks that have both (an untuned task has no best yet).
    std::set<std::string> libraries;
    double tuned = 0, library = 0;
    for (const net::StoredNetworkTask& t : run.tasks) {
      if (!t.referenceMs) {
        std::printf("  %s: no library time (%s)\n", t.name.c_str(), t.referenceError.c_str());
        continue;
      }
      libraries.insert(t.referenceLibrary);
      if (!t.bestMs) continue;
      tuned += static_cast<double>(t.weight) * *t.bestMs;
      library += static_cast<double>(t.weight) * *t.referenceMs;
    }
    std::string names;
    for (const std::string& l : libraries) names += (names.empty() ? "" : "; ") + l;
    if (!run.sumOfReferencesMs)
      std::printf("sum of weight x library: not every task has one\n");
    else
      std::printf("sum of weight x library over the tasks: %s ms (%s)\n",
                  msText(*run.sumOfReferencesMs).c_str(), names.c_str());
    if (library > 0)
      std::printf("tuned / library over the tuned tasks: %.2f (%s ms / %s ms)\n", tuned / library,
                  msText(tuned).c_str(), msText(library).c_str());
  }
  if (const auto& e = run.endToEnd) {
    printEndToEnd(what, *e);
    if (run.libraryNetworkMs)
      std::printf(
          "the tasks' libraries (each timed alone) plus the same fixed kernels: %s ms; tuned end "
          "to end / that: %.2f\n",
          msText(*run.libraryNetworkMs).c_str(), e->ms / *run.libraryNetworkMs);
    if (const auto& u = run.comparison.untuned) {
      printEndToEnd(run.comparison.untunedRunBy
                        ? "untuned configurations, run for network run " +
                              std::to_string(run.comparison.untunedRunBy) + " in the same process"
                        : std::string("untuned configurations, same process"),
                    *u);
      // A task's best is timed alone: in the chain it and its layout's conversions may cost more
      // than it gained. Said only beyond the few percent a median moves between two runs of one
      // program here, which would read as a verdict either way.
      if (e->ms > u->ms * net::kEndToEndNoise)
        std::printf(
            "tuned / untuned end to end: %.2f, the tuned network is the slower here (tasks %s "
            "against %s ms, layout conversions %s against %s ms)\n",
            e->ms / u->ms, msText(e->tasksMs).c_str(), msText(u->tasksMs).c_str(),
            msText(e->conversionsMs).c_str(), msText(u->conversionsMs).c_str());
      else
        std::printf("tuned / untuned end to end: %.2f\n", e->ms / u->ms);
    } else if (run.comparison.untunedIsTuned) {
      std::printf(
          "untuned configurations: every task's chosen configuration is its untuned one (its "
          "best, or untried), so this is opevo net run's network\n");
    } else if (!run.comparison.untunedError.empty()) {
      std::printf("untuned configurations: not run end to end (%s)\n",
                  run.comparison.untunedError.c_str());
    }
    printChoice(run, *e);
  }
  if (!run.endToEndError.empty())
    std::printf("end-to-end run on the device failed: %s\n", run.endToEndError.c_str());
}

CLI::Validator networkTemplateCheck() {
  return parsedBy([](const std::string& text) { net::parseTaskTemplates(text, ""); }, "TEMPLATE");
}

void addTorchFormOption(CLI::App* cmd, net::TorchForm& form) {
  cmd->add_option_function<std::string>(
         "--torch-form",
         [&form](const std::string& text) { form = net::parseTorchForm(text, "--torch-form"); },
         "How libtorch's reference runs: eager (default), the model's operators one by one as it "
         "is written; or frozen, as PyTorch deploys a model for inference (torch.jit.freeze, then "
         "optimize_for_inference: batch norms folded, convolution weights packed once)")
      ->type_name("FORM")
      ->check(parsedBy([](const std::string& text) { net::parseTorchForm(text, ""); }, "FORM"))
      ->excludes(cmd->get_option("--no-reference"));
}

std::string torchFormArgs(net::TorchForm form) {
  if (form == net::TorchForm::Eager) return "";
  std::string args = " --torch-form ";  // appended: GCC 12 warns falsely on "..." + string
  args += net::torchFormName(form);
  return args;
}

void requireVerified(const net::EndToEnd& e, const std::string& whose) {
  if (!e.deviceReference.empty() && !e.verified)
    throw RunFailed(whose + " output differs from " + e.deviceReference + " (max relative error " +
                    std::to_string(e.error) + ")");
  if (e.reference.best && !e.verified)
    throw RunFailed(whose + " output differs from libtorch's (max relative error " +
                    std::to_string(e.error) + ")");
}

}  // namespace opevo::cli
