#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace opevo {

enum class BinaryKind { None, Cubin, Ptx, AmdCodeObject, SharedObject };

std::string_view binaryKindName(BinaryKind kind);

// What the compiler says one kernel uses, read without a device: from ptxas's verbose log (CUDA)
// or the AMDGPU code object's metadata (HIP). Unknown values stay empty.
struct KernelResources {
  std::optional<int> registers;                   // per thread; VGPRs on AMD
  std::optional<int> scalarRegisters;             // SGPRs (AMD only)
  std::optional<std::int64_t> staticSharedBytes;  // __shared__ arrays; the dynamic part is not seen
  std::optional<std::int64_t> localBytes;         // stack frame / private segment per thread
  std::optional<std::int64_t> spillStoreBytes;    // CUDA: bytes of spill stores
  std::optional<int> spilledRegisters;            // AMD: VGPRs + SGPRs spilled
};

// The outcome of compiling one source: a compile error is ok = false with the compiler's log,
// never an exception.
struct CompileResult {
  bool ok = false;
  // The machine failed the build, not the kernel: no room for the source, the compiler's
  // temporary files or its output (a full disk, a quota), or a source it could not write at all
  // (its folder gone, not writable); the log says where and why.
  bool noRoom = false;
  std::string log;     // the compiler's messages (warnings too when ok)
  std::string binary;  // cubin, PTX or code object bytes; empty for SharedObject
  BinaryKind kind = BinaryKind::None;
  std::string path;    // SharedObject: where the .so was written
  std::string arch;    // sm_90, gfx90a, native
  double seconds = 0;  // wall-clock time of the compilation
  // Per kernel entry point, when the compiler reports them.
  std::map<std::string, KernelResources> resources;
};

}  // namespace opevo
