#include "common/openmp_waiting.h"

#include <unistd.h>

#include <cstdlib>

namespace opevo {

void boundOpenMpWaiting(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return;
  if (setenv("GOMP_SPINCOUNT", "1000", 1) != 0) return;
  execv("/proc/self/exe", argv);
}

}  // namespace opevo
