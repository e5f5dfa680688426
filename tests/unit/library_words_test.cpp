#include "engine/library_words.h"

#include <gtest/gtest.h>

#include <clocale>

// The words a reference library's description carries, written by the GPU reference and read
// back by the window from the store or a T4 file.
namespace opevo {
namespace {

// As the H100's C2 run (2026-11-27) stored it.
const std::string kCudnnFft =
    "cuDNN convolution forward, algorithm 4 (FFT), the fastest of 6 by cudnnFind, which timed it "
    "5.14x faster than algorithm 1 (implicit precomputed GEMM), the fastest doing every "
    "multiply-add (libcudnn.so.9)";

TEST(LibraryWords, TheWordsReadBackAsWritten) {
  const std::string words = everyMultiplyAddWords({3.0, "algorithm 1 (implicit precomputed GEMM)"});
  EXPECT_EQ(words,
            ", which timed it 3.00x faster than algorithm 1 (implicit precomputed GEMM), the "
            "fastest doing every multiply-add");
  const auto back =
      everyMultiplyAddIn("cuDNN, algorithm 4 (FFT), the fastest of 4" + words + " (x)");
  ASSERT_TRUE(back.has_value());
  EXPECT_DOUBLE_EQ(back->slowerBy, 3.0);
  EXPECT_EQ(back->name, "algorithm 1 (implicit precomputed GEMM)");
}

TEST(LibraryWords, AStoredCudnnFftNamesItsDirectAlgorithmAndRatio) {
  // In a locale whose decimal point is a comma, as the window may run in.
  const char* before = std::setlocale(LC_NUMERIC, nullptr);
  const std::string saved = before ? before : "C";
  const bool comma = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
  const auto inComma = everyMultiplyAddIn(kCudnnFft);
  std::setlocale(LC_NUMERIC, saved.c_str());
  if (comma) {
    ASSERT_TRUE(inComma.has_value());
    EXPECT_DOUBLE_EQ(inComma->slowerBy, 5.14);
  }
  const auto direct = everyMultiplyAddIn(kCudnnFft);
  ASSERT_TRUE(direct.has_value());
  EXPECT_DOUBLE_EQ(direct->slowerBy, 5.14);
  EXPECT_EQ(direct->name, "algorithm 1 (implicit precomputed GEMM)");
}

TEST(LibraryWords, DescriptionsWithoutTheWordsHaveNone) {
  EXPECT_FALSE(everyMultiplyAddIn("cuBLAS sgemm (libcublas.so.13)"));
  EXPECT_FALSE(everyMultiplyAddIn("OpenBLAS sgemm"));
  // The H200's second lease, before the words existed.
  EXPECT_FALSE(
      everyMultiplyAddIn("cuDNN convolution forward, algorithm 4 (FFT), the fastest of 6 by "
                         "cudnnFind (libcudnn.so.9)"));
  EXPECT_FALSE(
      everyMultiplyAddIn("cuDNN, algorithm 6, the fastest of 1 by cudnnFind; none doing "
                         "every multiply-add ran (libcudnn.so.9)"));
  // Cut or damaged words are not read as a ratio.
  EXPECT_FALSE(
      everyMultiplyAddIn("x, which timed it abcx faster than algorithm 1 (y), the fastest "
                         "doing every multiply-add"));
  EXPECT_FALSE(
      everyMultiplyAddIn("x, which timed it 0.50x faster than algorithm 1 (y), the "
                         "fastest doing every multiply-add"));
  EXPECT_FALSE(everyMultiplyAddIn("x, which timed it 2.00x faster than algorithm 1 (y)"));
  EXPECT_FALSE(
      everyMultiplyAddIn("x, which timed it infx faster than algorithm 1 (y), the "
                         "fastest doing every multiply-add"));
}

TEST(LibraryWords, TheShortNameKeepsTheLibraryAndItsFile) {
  EXPECT_EQ(withoutHowChosen(kCudnnFft),
            "cuDNN convolution forward, algorithm 4 (FFT) (libcudnn.so.9)");
  EXPECT_EQ(withoutHowChosen("cuDNN convolution forward, algorithm 1 (implicit precomputed GEMM), "
                             "the heuristic's first: cudnnFind failed (status 3) (libcudnn.so.9)"),
            "cuDNN convolution forward, algorithm 1 (implicit precomputed GEMM) (libcudnn.so.9)");
  EXPECT_EQ(withoutHowChosen("cuBLAS sgemm (libcublas.so.13)"), "cuBLAS sgemm (libcublas.so.13)");
  EXPECT_EQ(withoutHowChosen("OpenBLAS sgemm"), "OpenBLAS sgemm");
  EXPECT_EQ(withoutHowChosen("a library, the fastest"), "a library");
  // A fused operator's reference: the library, then its epilogue kernel.
  EXPECT_EQ(withoutHowChosen(kCudnnFft + " + epilogue kernel"),
            "cuDNN convolution forward, algorithm 4 (FFT) (libcudnn.so.9) + epilogue kernel");
}

}  // namespace
}  // namespace opevo
