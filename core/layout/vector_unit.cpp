#include "layout/vector_unit.h"

namespace opevo::layout {

VectorUnit nativeVectorUnit() {
#if defined(__x86_64__) || defined(__i386__)
  // Asked once: the answer is the machine's, and the start blockings ask for every space.
  static const VectorUnit unit = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return kAvx512;
    if (__builtin_cpu_supports("avx")) return kAvx2;
    return VectorUnit{4, 16, 12};
  }();
  return unit;
#elif defined(__aarch64__)
  return VectorUnit{4, 32, 24};
#else
  return VectorUnit{4, 16, 12};
#endif
}

}  // namespace opevo::layout
