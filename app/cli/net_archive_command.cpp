#include <iostream>

#include "cli/commands.h"
#include "cli/net_cli.h"
#include "io/network_archive.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

struct NetArchiveOptions {
  std::int64_t id = 0;
  std::string out, db;
};

struct NetRestoreOptions {
  std::string file, db;
};

void runArchive(const NetArchiveOptions& o) {
  const Store store(existingDatabase(o.db), Store::Opening::ExistingOnly);
  const std::size_t trials = exportNetworkArchive(store, o.id, o.out);
  const NetworkRecord n = *store.network(o.id);
  std::cout << "wrote " << trials << " trials of network run " << o.id << " (" << n.name << ", "
            << n.taskRuns.size() << " tasks) to " << o.out << "\n";
}

void runRestore(const NetRestoreOptions& o) {
  // Read and checked first: a bad archive leaves no database behind where there was none.
  NetworkArchive archive = readNetworkArchive(o.file);
  Store store(o.db.empty() ? Store::defaultPath() : o.db);
  const RestoredNetwork r = storeNetworkArchive(store, std::move(archive), databaseHint(o.db));
  const NetworkRecord& n = r.network;
  // The id alone on stdout (id=$(opevo net restore FILE)), as `opevo import` prints it.
  std::cout << n.id << "\n";
  std::cerr << "restored network run " << n.id << " of " << store.path() << ": " << n.name << ", "
            << n.taskRuns.size() << " tasks, " << r.trials << " trials, " << n.backend << ", "
            << runStatusName(n.status);
  if (n.status != RunStatus::Finished)
    std::cerr << " (opevo net tune --resume " << n.id << databaseHint(o.db) << " continues it)";
  std::cerr << "\n";
}

}  // namespace

void addNetArchiveCommands(CLI::App& net) {
  auto a = std::make_shared<NetArchiveOptions>();
  auto* archive = net.add_subcommand(
      "archive",
      "Write a stored network run (its network, plan, units and every task's trials) as one JSON "
      "file (gzip-compressed when FILE ends in .gz) that net restore puts back");
  archive->add_option("id", a->id, "The network run (opevo net runs)")->required();
  archive->add_option("--out", a->out, "The file to write")->required();
  archive->add_option("--db", a->db, "The database (default: the user's data directory)");
  archive->callback([a] { runArchive(*a); });

  auto r = std::make_shared<NetRestoreOptions>();
  auto* restore = net.add_subcommand(
      "restore",
      "Store a network run from a file net archive wrote, as the run it was (net tune --resume "
      "continues it); prints the new network run's id");
  restore->add_option("file", r->file, "The archive")->required()->check(CLI::ExistingFile);
  restore->add_option("--db", r->db, "The database (default: the user's data directory)");
  restore->callback([r] { runRestore(*r); });
}

}  // namespace opevo::cli
