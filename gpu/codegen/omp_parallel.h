#pragma once

#include <string>

namespace opevo::codegen {

// Below these a CPU kernel's parallel region runs on the calling thread alone. The programs run
// with libgomp's spinning cut short (core/common/openmp_waiting.h): a worker idle longer than
// that sleeps, and waking the team for a region costs a few microseconds on an idle machine and
// tens on a busy one. With two cores busy, a 0.67 MFLOP convolution took 0.056 ms on two threads
// and 0.003 ms on one; each step of a network of 4x12 dense layers 0.054 ms and 0.001 ms. The
// price, on an idle machine with many cores: a kernel just under the limit (2 MFLOP, 20-100 us
// on one core) forgoes what its team would have saved, tens of microseconds. The limits were
// set on the 2-core development machine; the networks' convolutions and their large dense layers
// are far above them, their smallest fixed kernels (ResNet-18's global pool) below.
inline constexpr double kSerialFlops = 1 << 21;
// Elements a data-moving kernel (a layout conversion, a fixed layer) reads and writes.
inline constexpr double kSerialElements = 1 << 15;

enum class Work { Flops, Elements };

// "#pragma omp parallel" and its clauses (" for collapse(3) schedule(static)"), with the region
// kept on the calling thread (OpenMP's if(0)) when `amount` of `kind` is below its limit.
inline std::string ompParallel(const std::string& clauses, double amount, Work kind) {
  const bool small = amount < (kind == Work::Flops ? kSerialFlops : kSerialElements);
  return "#pragma omp parallel" + clauses + (small ? " if(0)" : "");
}

}  // namespace opevo::codegen
