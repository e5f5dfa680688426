#include "cuda/cublas_reference.h"

#include "common/column_major_gemm.h"

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
  // CUBLAS_OP_N, CUBLAS_OP_T
  const int rc = columnMajorSgemm(op, m_handle, m_sgemm, m_sgemmBatched, 0, 1, a, b, c);
  if (rc != 0) throw CudaError(-1, "cuBLAS sgemm failed with status " + std::to_string(rc));
}

}  // namespace opevo::cuda
