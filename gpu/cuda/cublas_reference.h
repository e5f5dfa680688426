#pragma once

#include <memory>
#include <string>

#include "common/vendor_blas.h"

namespace opevo::cuda {

// cuBLAS (libcublas.so.13, .12, .11), the reference for MatMul and BatchMatMul. It runs on the
// primary context the driver made current. Null with *reason set when it cannot be opened.
std::unique_ptr<VendorBlas> openCublas(std::string* reason);

}  // namespace opevo::cuda
