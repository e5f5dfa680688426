#include "codegen/layout_conversion.h"

#include <stdexcept>
#include <vector>

namespace opevo::codegen {

layout::Layout plainLayout(const layout::Layout& l) {
  return layout::Layout(l.logical());
}

void writeLayoutConversion(CodeWriter& w, const std::string& name, const layout::Layout& from,
                           const layout::Layout& to) {
  if (from.logical().size() != to.logical().size())
    throw std::logic_error("layout conversion " + name + ": the layouts are of different tensors");
  for (std::size_t i = 0; i < from.logical().size(); ++i)
    if (from.logical()[i].extent != to.logical()[i].extent)
      throw std::logic_error("layout conversion " + name +
                             ": the layouts are of different tensors");
  const std::vector<layout::Dim>& dims = to.physical();
  std::vector<std::string> index;
  // append, not "p" + ...: GCC 12 warns falsely (-Wrestrict) on that form.
  for (std::size_t i = 0; i < dims.size(); ++i)
    index.push_back(std::string("p").append(std::to_string(i)));
  const layout::Gather g = to.gather(index);
  w.open("extern \"C\" void " + name + "(const float* __restrict__ src, float* __restrict__ dst)");
  std::size_t parallel = 1;
  for (std::int64_t iterations = dims.empty() ? 1 : dims[0].extent;
       iterations < 256 && parallel + 1 < dims.size();)
    iterations *= dims[parallel++].extent;
  w.line("#pragma omp parallel for schedule(static)" +
         (parallel > 1 ? " collapse(" + std::to_string(parallel) + ")" : std::string()));
  for (std::size_t i = 0; i < dims.size(); ++i)
    w.line("for (long long " + index[i] + " = 0; " + index[i] + " < " +
           std::to_string(dims[i].extent) + "; ++" + index[i] + ")");
  std::string at = index[0];
  for (std::size_t i = 1; i < dims.size(); ++i)
    at = "(" + at + " * " + std::to_string(dims[i].extent) + " + " + index[i] + ")";
  const std::string read = "src[" + from.offsetExpression(g.logicalIndex) + "]";
  w.line("  dst[" + at +
         "] = " + (g.inBounds.empty() ? read : "(" + g.inBounds + ") ? " + read + " : 0.0f") + ";");
  w.close();
}

}  // namespace opevo::codegen
