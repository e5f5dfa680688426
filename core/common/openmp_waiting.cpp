#include "common/openmp_waiting.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace opevo {

void boundOpenMpWaiting(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return;
  // Under valgrind (which does not follow an exec by default) the program would leave it.
  if (const char* preload = std::getenv("LD_PRELOAD"); preload && std::strstr(preload, "vgpreload"))
    return;
  // Started through the dynamic loader (ld-linux.so ./opevo ...), /proc/self/exe is the loader,
  // which would take argv[0]'s program as an argument it does not have.
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;
  self[n] = '\0';
  const char* base = std::strrchr(self, '/');
  if (std::strncmp(base ? base + 1 : self, "ld-", 3) == 0) return;
  if (setenv("GOMP_SPINCOUNT", kBoundedSpinCount, 1) != 0) return;
  execv(self, argv);
  unsetenv("GOMP_SPINCOUNT");  // not re-executed: neither this process nor its children change
}

}  // namespace opevo
