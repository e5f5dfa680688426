#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "store/records.h"

namespace opevo {

class Store;

// Run statuses as they stand now, not only as stored. The store says "running" until a run
// ends; a program that dies (kill -9, a power cut, a full disk) leaves it so. A run stored
// running that no process holds (store/run_lock.h; a network's task through its network run)
// is interrupted: its trials are kept and it resumes.
class LiveStatus {
 public:
  explicit LiveStatus(const Store& store);  // reads which runs are a network's tasks

  RunStatus of(const RunRecord& run) const;
  RunStatus of(const NetworkRecord& network) const;
  RunStatus of(const KasSearchRecord& search) const;
  // A stored "running" that no process holds: the program running it ended without a word.
  bool orphaned(const RunRecord& run) const { return run.status != of(run); }

 private:
  std::string m_path;
  std::map<std::int64_t, std::int64_t> m_networkOf;  // task run -> its network run
};

}  // namespace opevo
