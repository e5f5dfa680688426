// A product with one row or one column of output is timed against OpenBLAS's sgemv (a batch-1
// dense layer's fair reference; its sgemm is several times slower there). The sgemv call takes the
// row-major operands as OperatorBuffers stores them, for every transposition and for batches:
// its result is checked against the plain loops here.
#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "cpu/operator_buffers.h"

namespace opevo::test {
namespace {

OperatorSpec product(std::int64_t batch, std::int64_t n, std::int64_t m, std::int64_t k,
                     bool transA, bool transB) {
  OperatorSpec op = smallMatMul(n, m, k);
  if (batch > 1) {
    op.kind = OpKind::BatchMatMul;
    op.batch = batch;
  }
  op.transA = transA;
  op.transB = transB;
  return op;
}

TEST(MatVecReference, OneRowOrColumnIsOpenBlasSgemvAndMatchesThePlainLoops) {
  for (std::int64_t batch : {1, 3})
    for (const auto& [n, m] : std::vector<std::pair<int, int>>{{1, 40}, {40, 1}, {1, 1}})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          const OperatorSpec op = product(batch, n, m, 56, ta, tb);
          OperatorBuffers buffers(op);
          EXPECT_EQ(buffers.referenceLibrary(), "OpenBLAS sgemv") << op.describe();
          buffers.computeReference();
          const std::int64_t bad =
              firstMismatch(buffers.reference, hostReference(op, buffers.a, buffers.b));
          EXPECT_EQ(bad, -1) << op.describe() << ": element " << bad;
        }
  EXPECT_EQ(OperatorBuffers(smallMatMul(2, 40, 56)).referenceLibrary(), "OpenBLAS sgemm");
}

}  // namespace
}  // namespace opevo::test
