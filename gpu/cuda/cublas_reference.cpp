#include "cuda/cublas_reference.h"

namespace opevo::cuda {

std::unique_ptr<VendorBlas> openCublas(std::string* reason) {
  // CUBLAS_OP_N and CUBLAS_OP_T are 0 and 1.
  return VendorBlas::open(
      {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so",
       "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12"},
      {"cuBLAS", "cublasCreate_v2", "cublasDestroy_v2", "cublasSgemm_v2",
       "cublasSgemmStridedBatched", 0, 1},
      reason);
}

}  // namespace opevo::cuda
