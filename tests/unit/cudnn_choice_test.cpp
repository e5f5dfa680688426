#include <gtest/gtest.h>

#include "cuda/cudnn_reference.h"

// Which cuDNN algorithm the library is timed with, from cudnnFind's list (fastest first), and
// how its name says so: no device needed. The lists are made up in cudnnFind's shape (on C2 the
// H200's fastest was FFT, algorithm 4; the other algorithms' times were not recorded).
namespace opevo::cuda {
namespace {

TEST(CudnnChoice, TheFastestUsableCountsAndAGemmNeedsNoComparison) {
  const CudnnChoice c = chooseFromFind({{1, 2.0f, false}, {1, 2.5f, true}, {0, 3.0f, true}});
  EXPECT_EQ(c.algo, 1);
  EXPECT_EQ(c.chosenBy, ", the fastest of 2 by cudnnFind");
}

TEST(CudnnChoice, AnFftIsComparedWithTheFastestDoingEveryMultiplyAdd) {
  // FFT first, as on C2 on the H200; the TF32 line (usable false) is skipped.
  const CudnnChoice c = chooseFromFind(
      {{4, 0.9f, true}, {6, 1.0f, false}, {7, 1.5f, true}, {1, 2.7f, true}, {0, 4.0f, true}});
  EXPECT_EQ(c.algo, 4);
  EXPECT_EQ(c.chosenBy,
            ", the fastest of 4 by cudnnFind, which timed it 3.00x faster than algorithm 1 "
            "(implicit precomputed GEMM), the fastest doing every multiply-add");
}

TEST(CudnnChoice, AWinogradAloneSaysNoneElseRanAndNothingUsableChoosesNone) {
  EXPECT_EQ(chooseFromFind({{6, 1.0f, true}}).chosenBy,
            ", the fastest of 1 by cudnnFind; none doing every multiply-add ran");
  EXPECT_EQ(chooseFromFind({{1, 1.0f, false}}).algo, -1);
  EXPECT_EQ(chooseFromFind({}).algo, -1);
}

TEST(CudnnChoice, EveryAlgorithmHasItsName) {
  EXPECT_EQ(cudnnForwardAlgorithmName(4), "FFT");
  EXPECT_EQ(cudnnForwardAlgorithmName(7), "non-fused Winograd");
  EXPECT_EQ(cudnnForwardAlgorithmName(8), "unknown");
}

}  // namespace
}  // namespace opevo::cuda
