// oneDNN as the Conv2D reference: its output, on the plain layouts and through the prepared
// (oneDNN-preferred layout) path that runCpuReference times, must equal the independent
// double-precision loop nest. Built without oneDNN (no libdnnl-dev), these skip, and the fallback
// is checked instead.
#include "cpu/onednn_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/cpu_runner.h"
#include "cpu/operator_buffers.h"

namespace opevo::test {
namespace {

OperatorSpec conv(std::int64_t batch, std::int64_t c, std::int64_t h, std::int64_t w,
                  std::int64_t f, std::int64_t kh, std::int64_t kw, std::int64_t stride,
                  std::int64_t pad, std::int64_t groups = 1) {
  OperatorSpec op;
  op.name = "onednn-test-conv";
  op.kind = OpKind::Conv2D;
  op.batch = batch;
  op.inChannels = c;
  op.height = h;
  op.width = w;
  op.outChannels = f;
  op.kernelH = kh;
  op.kernelW = kw;
  op.stride = stride;
  op.pad = pad;
  op.groups = groups;
  return op;
}

// Ten times stricter than the 1e-3 that tuned kernels must meet. A direct fp32 convolution
// differs from the double loop nest by rounding alone: up to about 1e-5 on these shapes (sums of
// up to 576 products); a Winograd transform or a bf16/tf32 math mode would show well above that.
constexpr double kAgreement = 1e-4;

#ifdef OPEVO_HAVE_ONEDNN

// Both of OneDnnConv's paths against the loop nest on OperatorBuffers' deterministic operands.
void expectMatchesLoopNest(const OperatorSpec& op) {
  SCOPED_TRACE(op.describe());
  const OperatorBuffers buffers(op);
  std::vector<float> oracle;
  buffers.loopNestReferenceInto(oracle);  // no epilogue: the raw convolution

  OneDnnConv dnn(op);
  std::vector<float> plain(oracle.size(), 1e30f);
  dnn.compute(buffers.a.data(), buffers.b.data(), plain.data());
  const double plainError = maxRelativeError(plain, oracle);
  EXPECT_LT(plainError, kAgreement) << "plain layouts, " << dnn.plainImplementation();

  EXPECT_FALSE(dnn.prepared());
  EXPECT_EQ(dnn.preparedWeights().first, nullptr);
  EXPECT_TRUE(dnn.preparedActivations().empty());
  dnn.prepare(buffers.a.data(), buffers.b.data());
  EXPECT_TRUE(dnn.prepared());
  // What a cold-weights timing evicts: oneDNN's reordered copy, padded blocks and all.
  const auto [weights, bytes] = dnn.preparedWeights();
  EXPECT_NE(weights, nullptr);
  EXPECT_GE(bytes, buffers.b.size() * sizeof(float));
  // And a cold-activations one: its prepared input and output, each of its own.
  const auto activations = dnn.preparedActivations();
  ASSERT_EQ(activations.size(), 2u);
  EXPECT_GE(activations[0].second, buffers.a.size() * sizeof(float));
  EXPECT_GE(activations[1].second, oracle.size() * sizeof(float));
  EXPECT_NE(activations[0].first, activations[1].first);
  EXPECT_NE(activations[0].first, weights);
  dnn.runPrepared();
  dnn.runPrepared();  // a second run overwrites, never accumulates
  std::vector<float> timed(oracle.size(), 1e30f);
  dnn.readPreparedOutput(timed.data());
  const double timedError = maxRelativeError(timed, oracle);
  EXPECT_LT(timedError, kAgreement) << "preferred layouts, " << dnn.implementation();
  EXPECT_FALSE(dnn.implementation().empty());
  EXPECT_FALSE(dnn.plainImplementation().empty());
  std::ostringstream errors;  // in the XML report, to see how far below the bound they are
  errors << std::scientific << plainError << " " << timedError;
  ::testing::Test::RecordProperty("errors", errors.str());
}

TEST(OneDnnConv, ThreeByThreeStrideOnePadOne) {
  expectMatchesLoopNest(conv(1, 64, 56, 56, 64, 3, 3, 1, 1));
}

// AlexNet's conv1 (11x11, stride 4, pad 2, 3 -> 64 channels) on a smaller image: 115 -> 28.
TEST(OneDnnConv, AlexNetConv1Like) {
  expectMatchesLoopNest(conv(1, 3, 115, 115, 64, 11, 11, 4, 2));
}

TEST(OneDnnConv, TwoGroups) {
  expectMatchesLoopNest(conv(1, 32, 20, 20, 48, 3, 3, 1, 1, 2));
}

TEST(OneDnnConv, Depthwise) {
  expectMatchesLoopNest(conv(1, 32, 20, 20, 32, 3, 3, 2, 1, 32));
  // With a channel multiplier of two: two output channels per input channel.
  expectMatchesLoopNest(conv(1, 16, 15, 15, 32, 3, 3, 1, 1, 16));
}

TEST(OneDnnConv, BatchTwoStrideTwoOddSize) {
  expectMatchesLoopNest(conv(2, 16, 17, 17, 24, 3, 3, 2, 1));
}

TEST(OneDnnConv, OneByOne) {
  expectMatchesLoopNest(conv(1, 64, 14, 14, 128, 1, 1, 1, 0));
}

TEST(OneDnnConv, NonSquareKernel) {
  expectMatchesLoopNest(conv(1, 8, 12, 10, 16, 5, 3, 1, 1));
}

TEST(OneDnnConv, RunningBeforePrepareIsALogicError) {
  OneDnnConv dnn(conv(1, 4, 8, 8, 4, 3, 3, 1, 1));
  EXPECT_THROW(dnn.runPrepared(), std::logic_error);
}

TEST(OneDnnConv, ErrorsNameTheOperator) {
  // A 5x5 kernel on an unpadded 2x2 image has no output: oneDNN refuses the shape.
  OperatorSpec bad = conv(1, 4, 2, 2, 4, 5, 5, 1, 0);
  bad.name = "too-small-image";
  try {
    OneDnnConv dnn(bad);
    FAIL() << "oneDNN accepted " << bad.describe();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("too-small-image"), std::string::npos) << e.what();
  }
  OperatorSpec mm;
  mm.name = "a-matmul";
  mm.n = mm.m = mm.k = 4;
  EXPECT_THROW(OneDnnConv{mm}, std::runtime_error);
}

// OperatorBuffers' Conv2D reference comes from oneDNN, the epilogue still applied by ours, and the
// timed path is oneDNN's primitive.
TEST(OneDnnConv, OperatorBuffersUseItForConv2D) {
  OperatorSpec op = conv(1, 32, 14, 14, 32, 3, 3, 1, 1);
  op.epilogue = {{EpilogueKind::Bias}, {EpilogueKind::Add}, {EpilogueKind::Relu}};
  OperatorBuffers buffers(op);
  buffers.computeReference();
  std::vector<float> oracle;
  buffers.loopNestReferenceInto(oracle);
  EXPECT_LT(maxRelativeError(buffers.reference, oracle), kAgreement);

  const std::string library = buffers.referenceLibrary();
  EXPECT_EQ(library.rfind("oneDNN " + oneDnnVersion() + " ", 0), 0u) << library;
  EXPECT_GT(library.size(), std::string("oneDNN " + oneDnnVersion() + " ").size()) << library;

  const std::function<void()> run = buffers.referenceTimer();
  ASSERT_TRUE(run);
  run();
  run();
  TimingOptions cold;
  cold.minTotalMs = 1;
  cold.coldWeights = true;
  const Measurement m = runCpuReference(buffers, cold);
  EXPECT_EQ(m.status, TrialStatus::Ok);
  EXPECT_GE(m.timesMs.size(), 3u);
  // With its activations cold too (oneDNN's prepared input and output evicted as well).
  EXPECT_FALSE(buffers.referenceEviction(false, false, false));
  cold.coldActivations = true;
  const Measurement all = runCpuReference(buffers, cold);
  EXPECT_EQ(all.status, TrialStatus::Ok);
}

TEST(OneDnnConv, VersionIsTheLoadedLibrarys) {
  EXPECT_TRUE(oneDnnAvailable());
  const std::string v = oneDnnVersion();
  EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
}

#else  // !OPEVO_HAVE_ONEDNN

TEST(OneDnnConv, SkippedWithoutOneDnn) {
  GTEST_SKIP() << "built without oneDNN (libdnnl-dev not found at configure time)";
}

TEST(OneDnnConv, WithoutOneDnnTheLoopNestIsTheReference) {
  EXPECT_FALSE(oneDnnAvailable());
  EXPECT_EQ(oneDnnVersion(), "");
  const OperatorSpec op = conv(1, 4, 8, 8, 4, 3, 3, 1, 1);
  EXPECT_THROW(OneDnnConv{op}, std::runtime_error);
  OperatorBuffers buffers(op);
  EXPECT_EQ(buffers.referenceLibrary(), "plain loop nest");
  buffers.computeReference();
  std::vector<float> oracle;
  buffers.loopNestReferenceInto(oracle);
  EXPECT_EQ(buffers.reference, oracle);
  const std::function<void()> run = buffers.referenceTimer();
  run();
}

#endif  // OPEVO_HAVE_ONEDNN

TEST(OneDnnConv, MatMulReferenceIsOpenBlasInEveryBuild) {
  OperatorSpec op;
  op.name = "mm";
  op.n = 8;
  op.m = 8;
  op.k = 8;
  OperatorBuffers buffers(op);
  EXPECT_EQ(buffers.referenceLibrary(), "OpenBLAS sgemm");
  buffers.computeReference();
  const std::function<void()> run = buffers.referenceTimer();
  run();
  EXPECT_EQ(buffers.reference.size(), 64u);
}

}  // namespace
}  // namespace opevo::test
