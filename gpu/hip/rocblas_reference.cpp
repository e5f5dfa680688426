#include "hip/rocblas_reference.h"

namespace opevo::hip {

std::unique_ptr<VendorBlas> openRocblas(std::string* reason) {
  // rocblas_operation_none and _transpose are 111 and 112; rocblas_int is 32-bit and
  // rocblas_stride 64-bit in the LP64 builds distributions ship, as in cuBLAS.
  return VendorBlas::open({"librocblas.so.4", "librocblas.so.3", "librocblas.so.0", "librocblas.so",
                           "/opt/rocm/lib/librocblas.so"},
                          {"rocBLAS", "rocblas_create_handle", "rocblas_destroy_handle",
                           "rocblas_sgemm", "rocblas_sgemm_strided_batched", 111, 112},
                          reason);
}

}  // namespace opevo::hip
