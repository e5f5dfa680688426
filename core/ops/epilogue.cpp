#include "ops/epilogue.h"

#include <sstream>

namespace opevo {

std::string_view epilogueKindName(EpilogueKind kind) {
  switch (kind) {
    case EpilogueKind::Bias:
      return "bias";
    case EpilogueKind::Relu:
      return "relu";
    case EpilogueKind::Gelu:
      return "gelu";
    case EpilogueKind::Scale:
      return "scale";
    case EpilogueKind::Add:
      return "add";
  }
  return "?";
}

std::string describeEpilogue(const Epilogue& epilogue) {
  std::ostringstream out;
  for (const EpilogueStep& s : epilogue) {
    if (s.kind == EpilogueKind::Scale)
      out << " *" << s.factor;
    else
      out << " +" << epilogueKindName(s.kind);
  }
  return out.str();
}

double epilogueFlopsPerElement(const Epilogue& epilogue) {
  double f = 0;
  for (const EpilogueStep& s : epilogue) f += s.kind == EpilogueKind::Gelu ? 8 : 1;
  return f;
}

}  // namespace opevo
