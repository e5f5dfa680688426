#pragma once

#include <memory>
#include <string>

#include "common/shared_library.h"
#include "hip/hip_runtime.h"
#include "ops/operator.h"

namespace opevo::hip {

// rocBLAS opened with dlopen (librocblas.so.4, .3, .0), the reference speed for MatMul and
// BatchMatMul on AMD GPUs. It runs on the null stream, so the same HIP events time it.
class Rocblas {
 public:
  // Null with *reason set when no rocBLAS library loads or rocblas_create_handle fails.
  static std::unique_ptr<Rocblas> open(std::string* reason);
  ~Rocblas();
  Rocblas(const Rocblas&) = delete;
  Rocblas& operator=(const Rocblas&) = delete;

  // C = op(A) * op(B) for the row-major layouts of OperatorBuffers (batches contiguous).
  // Throws HipError(-1, ...) with rocBLAS's status on failure.
  void gemm(const OperatorSpec& op, DevicePtr a, DevicePtr b, DevicePtr c);
  const std::string& library() const { return m_lib->name(); }

 private:
  Rocblas() = default;
  std::unique_ptr<SharedLibrary> m_lib;
  void* m_handle = nullptr;
  int (*m_destroy)(void*) = nullptr;
  int (*m_sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*,
                 int, const float*, float*, int) = nullptr;
  int (*m_sgemmBatched)(void*, int, int, int, int, int, const float*, const float*, int,
                        long long, const float*, int, long long, const float*, float*, int,
                        long long, int) = nullptr;
};

}  // namespace opevo::hip
