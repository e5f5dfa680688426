// A device given where a file is read (/dev/zero) never ends: `opevo space /dev/zero` took 1.2 GB
// in 8 s, and the dataset, network and restore readers had to be killed. Each reader refuses it
// by name at once.
#include "common/input_file.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "common/error.h"
#include "io/gzip_file.h"
#include "net/network_json.h"
#include "ops/operator_json.h"

namespace opevo {
namespace {

std::string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read)";
}

TEST(InputFile, ADeviceIsRefusedByEveryReader) {
  const std::string said = "'/dev/zero' is a device, not a file";
  EXPECT_EQ(deviceInsteadOfFile("/dev/zero"), said);
  EXPECT_EQ(refusal([] { loadOperator("/dev/zero"); }), said);
  EXPECT_EQ(refusal([] { net::networkText("/dev/zero"); }), said);
  EXPECT_EQ(refusal([] { readMaybeGzipped("/dev/zero"); }),
            "cannot read '/dev/zero': it is a device, not a file");
}

TEST(InputFile, FilesFoldersPipesAndMissingPathsAreTheirReadersToSay) {
  EXPECT_FALSE(deviceInsteadOfFile(std::string(OPEVO_SOURCE_DIR) + "/README.md"));
  EXPECT_FALSE(deviceInsteadOfFile(OPEVO_SOURCE_DIR));
  EXPECT_FALSE(deviceInsteadOfFile("/nonexistent/file.json"));
}

}  // namespace
}  // namespace opevo
