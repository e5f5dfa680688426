#pragma once

#include <memory>
#include <string>

#include "common/shared_library.h"
#include "cuda/cuda_driver.h"
#include "ops/operator.h"

namespace opevo::cuda {

// cuBLAS opened with dlopen (libcublas.so.13, .12, .11), used as the reference speed for MatMul
// and BatchMatMul. It runs on the primary context the driver made current, on the default
// stream, so the same CUDA events time it.
class Cublas {
 public:
  // Null with *reason set when no cuBLAS library loads or cublasCreate fails.
  static std::unique_ptr<Cublas> open(std::string* reason);
  ~Cublas();

  // C = op(A) * op(B) for the row-major layouts of OperatorBuffers (batches contiguous).
  // Throws CudaError(-1, ...) with cuBLAS's status on failure.
  void gemm(const OperatorSpec& op, DevicePtr a, DevicePtr b, DevicePtr c);
  const std::string& library() const { return m_lib->name(); }

 private:
  Cublas() = default;
  std::unique_ptr<SharedLibrary> m_lib;
  void* m_handle = nullptr;
  int (*m_destroy)(void*) = nullptr;
  int (*m_sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*,
                 int, const float*, float*, int) = nullptr;
  int (*m_sgemmBatched)(void*, int, int, int, int, int, const float*, const float*, int,
                        long long, const float*, int, long long, const float*, float*, int,
                        long long, int) = nullptr;
};

}  // namespace opevo::cuda
