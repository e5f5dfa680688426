#pragma once

#include <memory>
#include <string>

#include "common/vendor_blas.h"

namespace opevo::hip {

// rocBLAS (librocblas.so.4, .3, .0), the reference for MatMul and BatchMatMul on AMD GPUs.
// Null with *reason set when it cannot be opened.
std::unique_ptr<VendorBlas> openRocblas(std::string* reason);

}  // namespace opevo::hip
