#include "space/parameter.h"

namespace opevo {

std::string_view kindName(ParamKind kind) {
  switch (kind) {
    case ParamKind::Factor: return "factor";
    case ParamKind::Perm: return "perm";
    case ParamKind::Discrete: return "discrete";
    case ParamKind::Choice: return "choice";
  }
  return "?";
}

std::size_t Parameter::degree(const Vertex& v) const {
  std::vector<Vertex> out;
  neighbours(v, out);
  return out.size();
}

Vertex Parameter::randomNeighbour(const Vertex& v, Rng& rng) const {
  std::vector<Vertex> out;
  neighbours(v, out);
  if (out.empty()) return v;
  return out[rng.below(out.size())];
}

std::vector<double> Parameter::features(const Vertex& v) const {
  return std::vector<double>(v.begin(), v.end());
}

}  // namespace opevo
