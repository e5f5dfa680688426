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
    case EpilogueKind::Relu6:
      return "relu6";
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
  for (const EpilogueStep& s : epilogue) {
    if (s.kind == EpilogueKind::Gelu)
      f += 8;
    else if (s.kind == EpilogueKind::Relu6)
      f += 2;  // a max and a min
    else
      f += 1;
  }
  return f;
}

}  // namespace opevo
