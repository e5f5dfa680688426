#include "cuda/cublas_reference.h"

namespace opevo::cuda {

std::unique_ptr<Cublas> Cublas::open(std::string* reason) {
  std::string tried;
  auto lib = SharedLibrary::openFirst(
      {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so",
       "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12"},
      "cublasCreate_v2", &tried);
  if (!lib) {
    *reason = "no cuBLAS (tried " + tried + ")";
    return nullptr;
  }
  std::unique_ptr<Cublas> c(new Cublas);
  c->m_lib = std::move(lib);
  auto create = c->m_lib->symbol<int (*)(void**)>("cublasCreate_v2");
  c->m_destroy = c->m_lib->symbol<decltype(c->m_destroy)>("cublasDestroy_v2");
  c->m_sgemm = c->m_lib->symbol<decltype(c->m_sgemm)>("cublasSgemm_v2");
  c->m_sgemmBatched = c->m_lib->symbol<decltype(c->m_sgemmBatched)>("cublasSgemmStridedBatched");
  if (!create || !c->m_destroy || !c->m_sgemm || !c->m_sgemmBatched) {
    *reason = c->m_lib->name() + " lacks cublasSgemm_v2 / cublasSgemmStridedBatched";
    return nullptr;
  }
  if (int rc = create(&c->m_handle); rc != 0) {
    *reason = "cublasCreate failed with status " + std::to_string(rc);
    return nullptr;
  }
  return c;
}

Cublas::~Cublas() {
  if (m_handle) m_destroy(m_handle);
}

void Cublas::gemm(const OperatorSpec& op, DevicePtr a, DevicePtr b, DevicePtr c) {
  // cuBLAS is column-major: a row-major n x m C is a column-major m x n C^T = op(B)^T op(A)^T,
  // so B goes first. A row-major buffer read column-major is its transpose, hence a stored
  // operand needs CUBLAS_OP_T (1) exactly when the operator says it is stored transposed.
  const int opB = op.transB ? 1 : 0, opA = op.transA ? 1 : 0;
  const int ldb = static_cast<int>(op.transB ? op.k : op.m);
  const int lda = static_cast<int>(op.transA ? op.n : op.k);
  const int m = static_cast<int>(op.m), n = static_cast<int>(op.n), k = static_cast<int>(op.k);
  const float alpha = 1, beta = 0;
  auto* pa = reinterpret_cast<const float*>(a);
  auto* pb = reinterpret_cast<const float*>(b);
  auto* pc = reinterpret_cast<float*>(c);
  int rc = 0;
  if (op.kind == OpKind::BatchMatMul && op.batch > 1)
    rc = m_sgemmBatched(m_handle, opB, opA, m, n, k, &alpha, pb, ldb, op.k * op.m, pa, lda,
                        op.n * op.k, &beta, pc, m, op.n * op.m, static_cast<int>(op.batch));
  else
    rc = m_sgemm(m_handle, opB, opA, m, n, k, &alpha, pb, ldb, pa, lda, &beta, pc, m);
  if (rc != 0) throw CudaError(-1, "cuBLAS sgemm failed with status " + std::to_string(rc));
}

}  // namespace opevo::cuda
