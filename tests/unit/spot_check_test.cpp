// OperatorBuffers::exactOutputAt and spotCheck: how the GPU backends check the reference they
// compute on the device (cuBLAS, cuDNN or the plain kernel) before every trial is verified
// against it. exactOutputAt must agree with the whole host reference element by element, and
// spotCheck must pass that reference and fail an output with a sampled element changed.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "cpu/operator_buffers.h"

// OpenBLAS's declarations are in its cblas.h, which the tests do not include.
extern "C" int openblas_get_num_threads(void);
extern "C" void openblas_set_num_threads(int threads);

namespace opevo::test {
namespace {

OperatorSpec matmul(std::int64_t batch, std::int64_t n, std::int64_t m, std::int64_t k, bool transA,
                    bool transB) {
  if (batch > 1) return smallBatchMatMul(batch, n, m, k, transA, transB);
  OperatorSpec op = smallMatMul(n, m, k);
  op.transA = transA;
  op.transB = transB;
  return op;
}

// Non-square, so height and width cannot be swapped unnoticed.
OperatorSpec conv(std::int64_t groups, std::int64_t stride, std::int64_t pad) {
  OperatorSpec op = smallConv(2, 8, 12, 9, 3, stride, pad);
  op.width = 7;
  op.groups = groups;
  return op;
}

void expectExactEverywhere(const OperatorSpec& op) {
  SCOPED_TRACE(op.describe());
  OperatorBuffers buffers(op);
  buffers.computeReference();
  ASSERT_EQ(buffers.reference.size(), buffers.outputSize());
  for (std::size_t i = 0; i < buffers.reference.size(); ++i) {
    const double want = buffers.exactOutputAt(i);
    ASSERT_LE(std::fabs(buffers.reference[i] - want) / (1 + std::fabs(want)), 1e-5)
        << "element " << i;
  }
  EXPECT_EQ(buffers.spotCheck(buffers.reference), std::nullopt);
}

TEST(SpotCheck, ExactOutputMatchesTheHostReferenceOfEveryMatMulForm) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) expectExactEverywhere(matmul(1, 17, 23, 31, ta, tb));
  expectExactEverywhere(matmul(3, 8, 5, 19, false, true));
}

TEST(SpotCheck, ExactOutputMatchesTheHostReferenceOfConvolutions) {
  expectExactEverywhere(conv(1, 1, 1));
  expectExactEverywhere(conv(1, 2, 0));
  expectExactEverywhere(conv(4, 1, 2));
}

TEST(SpotCheck, ExactOutputAppliesTheEpilogue) {
  OperatorSpec mm = matmul(1, 16, 24, 40, false, false);
  mm.epilogue = {{EpilogueKind::Bias}, {EpilogueKind::Gelu}, {EpilogueKind::Scale, 0.5}};
  expectExactEverywhere(mm);
  OperatorSpec c = conv(1, 1, 1);
  c.epilogue = {{EpilogueKind::Bias}, {EpilogueKind::Add}, {EpilogueKind::Relu}};
  expectExactEverywhere(c);
}

TEST(SpotCheck, FindsAChangedElementAmongTheSampledOnes) {
  // Larger than the sample, so only sampled elements are looked at: the first and the last are
  // always among them.
  OperatorBuffers buffers(matmul(1, 128, 96, 16, false, false));
  ASSERT_GT(buffers.outputSize(), OperatorBuffers::kSpotChecks);
  buffers.computeReference();
  EXPECT_EQ(buffers.spotCheck(buffers.reference), std::nullopt);
  for (std::size_t at : {std::size_t{0}, buffers.outputSize() - 1}) {
    std::vector<float> wrong = buffers.reference;
    wrong[at] += 0.5f;
    const auto message = buffers.spotCheck(wrong);
    ASSERT_TRUE(message.has_value());
    EXPECT_NE(message->find("output element " + std::to_string(at)), std::string::npos) << *message;
  }
  std::vector<float> allNan(buffers.outputSize(), NAN);
  EXPECT_TRUE(buffers.spotCheck(allNan).has_value());
  std::vector<float> shortOutput(buffers.outputSize() - 1, 0.0f);
  EXPECT_NE(buffers.spotCheck(shortOutput).value_or("").find("elements"), std::string::npos);
}

// The MatMul check computes its sgemm on one thread, so that no OpenBLAS thread still spins
// beside the kernel timed right after it; the library gets its threads back for its own timing.
TEST(SpotCheck, TheMatMulCheckGivesOpenBlasItsThreadsBack) {
  const int before = openblas_get_num_threads();
  openblas_set_num_threads(2);
  OperatorBuffers buffers(matmul(1, 64, 48, 80, false, false));
  buffers.computeReference();
  EXPECT_EQ(openblas_get_num_threads(), 2);
  EXPECT_EQ(buffers.reference.size(), buffers.outputSize());
  openblas_set_num_threads(before);
}

TEST(SpotCheck, ChecksEveryElementOfASmallOutput) {
  OperatorBuffers buffers(conv(1, 1, 1));
  ASSERT_LE(buffers.outputSize(), OperatorBuffers::kSpotChecks);
  buffers.computeReference();
  for (std::size_t at = 0; at < buffers.outputSize(); at += 97) {
    std::vector<float> wrong = buffers.reference;
    wrong[at] = -wrong[at] - 1.0f;
    EXPECT_TRUE(buffers.spotCheck(wrong).has_value()) << "element " << at;
  }
}

}  // namespace
}  // namespace opevo::test

namespace opevo::test {
namespace {

// maxRelativeError splits large outputs over the cores: the worst element counts wherever it is,
// a NaN in any part makes the whole infinite, and small outputs give the same answer.
TEST(MaxRelativeError, ALargeOutputIsComparedInFullAcrossItsParts) {
  const std::size_t n = (std::size_t{1} << 24) + 12345;  // several parts, the last one short
  std::vector<float> ref(n), c(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = c[i] = static_cast<float>(i % 1000) - 500.0f;
  EXPECT_EQ(maxRelativeError(c, ref), 0);
  c[n - 1] += 1.0f;  // the last element of the last part
  EXPECT_NEAR(maxRelativeError(c, ref), 1.0 / (1.0 + std::fabs(ref[n - 1])), 1e-9);
  c[n / 2] = ref[n / 2] + 100.0f;  // a worse one in a middle part
  EXPECT_NEAR(maxRelativeError(c, ref), 100.0 / (1.0 + std::fabs(ref[n / 2])), 1e-6);
  c[7] = std::nanf("");
  EXPECT_EQ(maxRelativeError(c, ref), INFINITY);
  c.pop_back();
  EXPECT_EQ(maxRelativeError(c, ref), INFINITY);  // a size mismatch never passes
  const std::vector<float> small = {1, 2, 3}, off = {1, 2, 3.5f};
  EXPECT_NEAR(maxRelativeError(off, small), 0.5 / 4, 1e-12);
}

}  // namespace
}  // namespace opevo::test
