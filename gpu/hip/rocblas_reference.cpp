#include "hip/rocblas_reference.h"

#include "common/column_major_gemm.h"

namespace opevo::hip {

std::unique_ptr<Rocblas> Rocblas::open(std::string* reason) {
  std::string tried;
  auto lib = SharedLibrary::openFirst({"librocblas.so.4", "librocblas.so.3", "librocblas.so.0",
                                       "librocblas.so", "/opt/rocm/lib/librocblas.so"},
                                      "rocblas_create_handle", &tried);
  if (!lib) {
    *reason = "no rocBLAS (tried " + tried + ")";
    return nullptr;
  }
  std::unique_ptr<Rocblas> r(new Rocblas);
  r->m_lib = std::move(lib);
  auto create = r->m_lib->symbol<int (*)(void**)>("rocblas_create_handle");
  r->m_destroy = r->m_lib->symbol<decltype(r->m_destroy)>("rocblas_destroy_handle");
  r->m_sgemm = r->m_lib->symbol<decltype(r->m_sgemm)>("rocblas_sgemm");
  r->m_sgemmBatched =
      r->m_lib->symbol<decltype(r->m_sgemmBatched)>("rocblas_sgemm_strided_batched");
  if (!create || !r->m_destroy || !r->m_sgemm || !r->m_sgemmBatched) {
    *reason = r->m_lib->name() + " lacks rocblas_sgemm / rocblas_sgemm_strided_batched";
    return nullptr;
  }
  if (int rc = create(&r->m_handle); rc != 0) {
    *reason = "rocblas_create_handle failed with status " + std::to_string(rc);
    r->m_handle = nullptr;
    return nullptr;
  }
  return r;
}

Rocblas::~Rocblas() {
  if (m_handle) m_destroy(m_handle);
}

void Rocblas::gemm(const OperatorSpec& op, DevicePtr a, DevicePtr b, DevicePtr c) {
  // rocblas_operation_none, _transpose; rocblas_int is 32-bit and rocblas_stride 64-bit in the
  // LP64 builds distributions ship.
  const int rc = columnMajorSgemm(op, m_handle, m_sgemm, m_sgemmBatched, 111, 112, a, b, c);
  if (rc != 0) throw HipError(-1, "rocBLAS sgemm failed with status " + std::to_string(rc));
}

}  // namespace opevo::hip
