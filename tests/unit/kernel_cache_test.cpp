// The kernel cache's folder: one that cannot be made is an error naming it and what to do, not
// "internal error: filesystem error: cannot create directories" (a HOME of another user).

#include "common/kernel_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "temp_dir.h"

namespace opevo {
namespace {

TEST(KernelCache, AFolderThatCannotBeMadeIsNamedWithWhatToDo) {
  const test::TempDir dir;
  const std::string file = dir.file("not-a-folder");
  std::ofstream(file) << "x";
  try {
    makeKernelCacheDir(file + "/cpu-kernels");
    FAIL() << "made a folder under a file";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("cannot make the kernel cache folder '" + file + "/cpu-kernels'"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("XDG_CACHE_HOME"), std::string::npos) << text;
  }
  makeKernelCacheDir(dir.file("cache/cpu-kernels"));
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("cache/cpu-kernels")));
}

}  // namespace
}  // namespace opevo
