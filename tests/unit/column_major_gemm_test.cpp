// cuBLAS and rocBLAS are given the row-major operands of OperatorBuffers through one shared
// column-major call (gpu/common/column_major_gemm.h). Checked here without a GPU by making that
// same call to OpenBLAS's column-major sgemm, for every transposition and for batches.
#include "common/column_major_gemm.h"

#include <gtest/gtest.h>

#include "codegen_test_util.h"

extern "C" void cblas_sgemm(int order, int transA, int transB, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);

namespace opevo::test {
namespace {

constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112;  // cblas.h

// The cuBLAS / rocBLAS signatures, served by OpenBLAS; the batched one loops over the batch.
int hostSgemm(void*, int opA, int opB, int m, int n, int k, const float* alpha, const float* a,
              int lda, const float* b, int ldb, const float* beta, float* c, int ldc) {
  cblas_sgemm(kColMajor, opA, opB, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc);
  return 0;
}

int hostSgemmBatched(void* h, int opA, int opB, int m, int n, int k, const float* alpha,
                     const float* a, int lda, long long strideA, const float* b, int ldb,
                     long long strideB, const float* beta, float* c, int ldc, long long strideC,
                     int batch) {
  for (int i = 0; i < batch; ++i)
    hostSgemm(h, opA, opB, m, n, k, alpha, a + i * strideA, lda, b + i * strideB, ldb, beta,
              c + i * strideC, ldc);
  return 0;
}

std::vector<float> viaColumnMajor(const OperatorSpec& op, const std::vector<float>& a,
                                  const std::vector<float>& b) {
  std::vector<float> c(static_cast<std::size_t>(codegen::operandSizes(op).c), -1.0f);
  const auto ptr = [](const float* p) { return reinterpret_cast<std::uint64_t>(p); };
  EXPECT_EQ(columnMajorSgemm(op, nullptr, hostSgemm, hostSgemmBatched, kNoTrans, kTrans,
                             ptr(a.data()), ptr(b.data()), ptr(c.data())),
            0);
  return c;
}

void expectMatchesHost(const OperatorSpec& op) {
  const codegen::OperandSizes sizes = codegen::operandSizes(op);
  const std::vector<float> a = randomData(sizes.a, 71), b = randomData(sizes.b, 72);
  const std::vector<float> got = viaColumnMajor(op, a, b);
  const std::int64_t bad = firstMismatch(got, hostReference(op, a, b));
  EXPECT_EQ(bad, -1) << op.describe() << ": element " << bad;
}

TEST(ColumnMajorGemm, MatMulMatchesTheRowMajorReference) {
  expectMatchesHost(smallMatMul(24, 40, 56));
}

TEST(ColumnMajorGemm, BatchMatMulEveryTranspositionMatches) {
  for (const auto& [ta, tb] : std::vector<std::pair<bool, bool>>{
           {false, false}, {true, false}, {false, true}, {true, true}}) {
    const OperatorSpec op = smallBatchMatMul(5, 24, 40, 56, ta, tb);
    EXPECT_TRUE(columnMajorGemm(op).batched);
    expectMatchesHost(op);
  }
}

}  // namespace
}  // namespace opevo::test
