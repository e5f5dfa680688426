#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/shared_library.h"
#include "ops/operator.h"

namespace opevo {

// A vendor BLAS opened with dlopen and used as the reference speed for MatMul and BatchMatMul:
// cuBLAS and rocBLAS take the same sgemm / strided-batched sgemm arguments and differ only in
// their entry points' names and their values of "no transpose" and "transpose". It runs on the
// default (null) stream, so the backend's events time it.
class VendorBlas {
 public:
  struct Names {
    const char* label;  // "cuBLAS"
    const char* create;
    const char* destroy;
    const char* sgemm;
    const char* sgemmBatched;
    int opNone, opTranspose;
  };

  // The first of candidates that loads, with a handle; null with *reason set otherwise.
  static std::unique_ptr<VendorBlas> open(const std::vector<std::string>& candidates,
                                          const Names& names, std::string* reason);
  ~VendorBlas();
  VendorBlas(const VendorBlas&) = delete;
  VendorBlas& operator=(const VendorBlas&) = delete;

  // C = op(A) * op(B) for the row-major layouts of OperatorBuffers (batches contiguous).
  // Throws DeviceError(-1, ...) with the library's status on failure.
  void gemm(const OperatorSpec& op, std::uint64_t a, std::uint64_t b, std::uint64_t c);
  const std::string& library() const { return m_lib->name(); }
  // "cuBLAS sgemm (libcublas.so.13)"
  std::string describe() const;

 private:
  VendorBlas() = default;
  Names m_names{};
  std::unique_ptr<SharedLibrary> m_lib;
  void* m_handle = nullptr;
  int (*m_destroy)(void*) = nullptr;
  int (*m_sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int,
                 const float*, float*, int) = nullptr;
  int (*m_sgemmBatched)(void*, int, int, int, int, int, const float*, const float*, int, long long,
                        const float*, int, long long, const float*, float*, int, long long,
                        int) = nullptr;
};

}  // namespace opevo
