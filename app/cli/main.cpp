#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/commands.h"
#include "cli/interrupt_notice.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "common/openmp_waiting.h"

int main(int argc, char** argv) {
  opevo::boundOpenMpWaiting(argv);  // may run the program anew, before anything else
  CLI::App app{"OpEvo Studio command line: search spaces, q-random walks and tuning runs"};
  // "Usage: opevo cluster status", not the path the program was started by.
  app.name("opevo");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("opevo ") + OPEVO_VERSION);
  opevo::cli::addSpaceCommand(app);
  opevo::cli::addQwalkCommand(app);
  opevo::cli::addDevicesCommand(app);
  opevo::cli::addTunersCommand(app);
  opevo::cli::addCompareCommand(app);
  opevo::cli::addSweepCommand(app);
  opevo::cli::addDatasetCommand(app);
  opevo::cli::addCodegenCommand(app);
  opevo::cli::addTuneCommand(app);
  opevo::cli::addRunsCommands(app);
  opevo::cli::addExportCommand(app);
  opevo::cli::addImportCommand(app);
  opevo::cli::addExportT4Command(app);
  opevo::cli::addT1Command(app);
  opevo::cli::addNetCommands(app);
  opevo::cli::addKasCommands(app);
  opevo::cli::addClusterCommands(app);
  opevo::cli::checkNumbers(app);
  opevo::cli::checkDatabaseOptions(app);
  // A file size limit (ulimit -f) then fails a write with EFBIG, reported as the full disk it
  // amounts to, where the signal would kill the process without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 says "A subcommand is required" for `opevo cluster agents` too: the word that is no
    // subcommand is named, with the ones there are.
    const CLI::App* at = &app;
    for (const CLI::App* sub = at; sub;) {
      at = sub;
      const auto parsed = sub->get_subcommands();
      sub = parsed.empty() ? nullptr : parsed.front();
    }
    const std::vector<std::string> left = at->remaining();
    if (at->get_require_subcommand_min() > 0 && at->get_subcommands().empty()) {
      std::string names, path;
      for (const CLI::App* sub : at->get_subcommands({}))
        names += (names.empty() ? "" : ", ") + sub->get_name();
      for (const CLI::App* a = at; a && a != &app; a = a->get_parent())
        path = " " + a->get_name() + path;
      std::cerr << "opevo" << path << ": "
                << (left.empty() ? std::string("a subcommand is required")
                                 : "'" + left.front() + "' is no subcommand")
                << " (" << names << "; see opevo" << path << " --help)\n";
      return 2;
    }
    std::string path;
    for (const CLI::App* a = at; a && a != &app; a = a->get_parent())
      path = " " + a->get_name() + path;
    // CLI11 lists arguments it did not expect last first ("c.db --db"): named here in the order
    // typed, with the command that did not take them.
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && !left.empty()) {
      std::string words;
      for (const std::string& w : left) words += (words.empty() ? "" : " ") + w;
      std::cerr << "opevo" << path << ": did not expect " << words << " (see opevo" << path
                << " --help)\n";
      return 2;
    }
    std::cerr << "opevo" << path << ": " << e.what() << " (see opevo" << path << " --help)\n";
    return 2;
  } catch (const opevo::cli::Interrupted& e) {
    std::cerr << "opevo: interrupted: " << e.what() << "\n";
    return e.exitStatus();  // 128 + the signal that stopped it: 130, 143, 129
  } catch (const opevo::cli::RunFailed& e) {
    std::cerr << "opevo: " << e.what() << "\n";
    return 1;
  } catch (const opevo::InputError& e) {
    std::cerr << "opevo: " << e.what() << "\n";
    return 2;
  } catch (const opevo::SystemError& e) {
    std::cerr << "opevo: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "opevo: internal error: " << e.what() << "\n";
    return 1;
  }
  // What was printed must have reached its file: `opevo runs --json > runs.json` on a full disk
  // exited 0, the file cut short. (A pipe its reader closed, as `| head` does, is not an error.)
  errno = 0;
  std::cout.flush();  // through stdout's buffer: its fflush sets errno when a write fails
  const bool flushed = std::fflush(stdout) == 0 && std::cout;
  const int error = errno;
  if (!flushed || std::ferror(stdout)) {
    struct stat out {};
    if (error == EPIPE ||
        (fstat(STDOUT_FILENO, &out) == 0 && (S_ISFIFO(out.st_mode) || S_ISSOCK(out.st_mode))))
      return 0;
    std::cerr << "opevo: cannot write standard output"
              << (error ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
    return 1;
  }
  return 0;
}
