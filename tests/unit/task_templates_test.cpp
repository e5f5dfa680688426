// Which templates a network run's tasks take (net/task_templates.h): asked for, or the backend's
// default, which on the GPUs puts the dense layers with few rows on the matrix-vector template
// (measured on the H200, docs/networks.md); and a run stored before keeps its own.

#include "net/task_templates.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "common/error.h"
#include "io/network_archive.h"
#include "net/network_session.h"
#include "store/store.h"

namespace opevo::net {
namespace {

namespace fs = std::filesystem;

TEST(TaskTemplates, TheGpusTakeTheMatrixVectorTemplateByDefaultTheCpuTheDirectOnes) {
  for (const char* gpu : {"cuda", "hip"}) {
    const TaskTemplates t = defaultTaskTemplates(gpu);
    EXPECT_TRUE(t.matvec) << gpu;
    EXPECT_FALSE(t.winograd) << gpu << ": not measured on a whole network yet";
    EXPECT_EQ(t.name(), "matvec") << gpu;
  }
  EXPECT_FALSE(defaultTaskTemplates("cpu").any());
  EXPECT_EQ(defaultTaskTemplates("cpu").name(), "direct");
}

TEST(TaskTemplates, WhatIsAskedForIsTakenExactlyOnEveryBackend) {
  for (const char* backend : {"cpu", "cuda", "hip"}) {
    // Nothing asked: the backend's default.
    EXPECT_EQ(chosenTaskTemplates(std::nullopt, backend, "--template").name(),
              defaultTaskTemplates(backend).name())
        << backend;
    // "direct" is the direct templates everywhere, the way to compare against the default on a
    // GPU; "winograd" leaves the dense layers direct, as runs asked so before the default did.
    EXPECT_EQ(chosenTaskTemplates("direct", backend, "--template").name(), "direct") << backend;
    EXPECT_EQ(chosenTaskTemplates("winograd", backend, "--template").name(), "winograd") << backend;
    EXPECT_EQ(chosenTaskTemplates("matvec", backend, "--template").name(), "matvec") << backend;
    EXPECT_EQ(chosenTaskTemplates("winograd+matvec", backend, "--template").name(),
              "winograd+matvec")
        << backend;
  }
  try {
    chosenTaskTemplates("gemv", "cuda", "--template");
    ADD_FAILURE() << "gemv was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--template: unknown network template 'gemv'", 0), 0u)
        << e.what();
  }
}

// The H200's AlexNet of 2026-11-28, tuned on cuda before the default: restored and resumed, it
// goes on with the direct templates it was measured with, not the default of today.
TEST(TaskTemplates, ARunStoredBeforeTheGpuDefaultKeepsItsDirectTemplates) {
  const fs::path archive = fs::path(OPEVO_SOURCE_DIR) /
                           "resources/measurements/h200/2026-11-28/net_alexnet_direct.json.gz";
  const fs::path db = fs::temp_directory_path() / "opevo_task_templates_test.db";
  fs::remove(db);
  {
    Store store(db.string());
    const RestoredNetwork r = restoreNetworkArchive(store, archive.string());
    ASSERT_EQ(r.network.backend, "cuda");
    ASSERT_TRUE(defaultTaskTemplates(r.network.backend).matvec);
    const NetworkSource resumed = storedNetworkSource(store, r.network.id);
    EXPECT_EQ(resumed.backend, "cuda");
    EXPECT_FALSE(resumed.plan.templates.any()) << resumed.plan.templates.name();
  }
  fs::remove(db);
}

}  // namespace
}  // namespace opevo::net
