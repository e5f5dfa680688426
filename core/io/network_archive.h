#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/run_restore.h"
#include "store/records.h"
#include "store/store.h"

namespace opevo {

// A network run (`opevo net tune`) as one JSON document, so that it can be kept, moved to another
// machine, or brought back after its database was lost, and go on there (`net tune --resume`):
//   format        "opevo-network-run"
//   version       1; a reader refuses a newer one
//   exported_by   "OpEvo Studio <version>"
//   network       the stored record: id (in the database it came from), name, source, backend,
//                 status, started, ended, network_json (the network file's text, as stored), and
//                 params, plan and result (JSON columns as JSON where they parse, else their text;
//                 a run not concluded has the result "")
//   units         the scheduler's units in order: {"seq", "task", "trials"}
//   tasks         one per task in task order: {"task": i, "run": the task run as runToT4 writes it
//                 (io/t4_export.h)}; a task the scheduler had not reached has a run with an empty
//                 results list
// Writes it to path, gzip-compressed when path ends in ".gz", through a temporary file renamed
// into place. Returns the number of trials written. Throws InputError for a network run that is
// not in the store, or a path that cannot be written.
std::size_t exportNetworkArchive(const Store& store, std::int64_t networkId,
                                 const std::string& path);

struct RestoredNetwork {
  NetworkRecord network;  // as stored: its new id and its task runs' new ids
  std::size_t trials = 0;
};

// An archive read and checked: the record (its ids not yet given), its units, each task's run.
struct NetworkArchive {
  NetworkRecord network;
  std::vector<NetworkUnitRow> units;
  std::vector<RunWithTrials> runs;  // by task
};

// Reads an archive that exportNetworkArchive wrote, with every check restoreNetworkArchive names
// below, before any database is opened (a bad file leaves none behind). Throws InputError.
NetworkArchive readNetworkArchive(const std::string& path);
// Stores what readNetworkArchive read, in one transaction. Refuses the run a second time, with a
// command for the one there; `dbOption` is what that command needs to name the database
// (" --db FILE", or empty for the default one).
RestoredNetwork storeNetworkArchive(Store& store, NetworkArchive archive,
                                    const std::string& dbOption = "");

// Stores an archive that exportNetworkArchive wrote as the network run it was: the record, its
// units, and each task run through the same reading and checks as restoreRun (io/run_restore.h),
// all in one transaction. A network or task run archived as running (its program was killed, or
// cut off while it concluded) comes back interrupted: nothing runs it in this database, and
// `net tune --resume` continues it like any interrupted run. Throws InputError naming path, and
// storing nothing, for a file that is not JSON or not a network archive, a newer version, a task
// outside the network (or one without its run, or with two), or a task run that restoreRun would
// refuse (a configuration outside its operator's space...).
RestoredNetwork restoreNetworkArchive(Store& store, const std::string& path,
                                      const std::string& dbOption = "");

}  // namespace opevo
