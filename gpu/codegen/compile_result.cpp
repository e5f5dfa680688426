#include "codegen/compile_result.h"

namespace opevo {

std::string_view binaryKindName(BinaryKind kind) {
  switch (kind) {
    case BinaryKind::None:
      return "none";
    case BinaryKind::Cubin:
      return "cubin";
    case BinaryKind::Ptx:
      return "ptx";
    case BinaryKind::AmdCodeObject:
      return "code object";
    case BinaryKind::SharedObject:
      return "shared object";
  }
  return "?";
}

}  // namespace opevo
