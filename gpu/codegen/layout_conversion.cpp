#include "codegen/layout_conversion.h"

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "codegen/omp_parallel.h"

namespace opevo::codegen {
namespace {

// How far apart in `from` two elements lie that are neighbours along each physical dim of `to`,
// measured around the home position of the tensor's middle element (so padding at the edges
// does not hide a dim). The neighbour's logical index is found by stepping one logical dim at a
// time, a few hundred offset computations: this runs for every kernel generated while tuning.
// -1 for a dim whose neighbour is no element's home (padding, a second copy in an overlapping
// window); empty when the middle element itself has no home.
std::vector<std::int64_t> sourceStrides(const layout::Layout& from, const layout::Layout& to) {
  const std::vector<layout::Dim>& logical = to.logical();
  std::vector<std::int64_t> home(logical.size());
  for (std::size_t j = 0; j < logical.size(); ++j) home[j] = logical[j].extent / 2;
  const std::int64_t base = to.offset(home);
  if (base < 0) return {};
  const std::int64_t source = from.offset(home);
  const std::vector<std::int64_t> strides = to.strides();
  std::vector<std::int64_t> out(strides.size(), 0);
  std::vector<std::int64_t> next = home;
  for (std::size_t i = 0; i < strides.size(); ++i) {
    const std::int64_t extent = to.physical()[i].extent;
    if (extent == 1) continue;
    const std::int64_t position = (base / strides[i]) % extent;
    const std::int64_t target = base + (position + 1 < extent ? strides[i] : -strides[i]);
    bool found = false;
    for (std::size_t j = 0; j < logical.size() && !found; ++j)
      for (std::int64_t k = 0; k < logical[j].extent && !found; ++k) {
        if (k == home[j]) continue;
        next[j] = k;
        if (to.offset(next) == target) {
          out[i] = std::abs(from.offset(next) - source);
          found = true;
        }
        next[j] = home[j];
      }
    if (!found) out[i] = -1;
  }
  return out;
}

// The order of `to`'s physical dims to loop over, outermost first. Visiting `to` in its own order
// writes contiguously but can read `from` with a long stride on every element (a channels-last
// output unpacked to channels-first reads one element per cache line). Then the dim that walks
// `from` most closely goes innermost: reads become contiguous, and the few destination lines it
// writes stay in L1 while the loop around it fills them.
std::vector<std::size_t> loopOrder(const layout::Layout& from, const layout::Layout& to) {
  const std::size_t dims = to.physical().size();
  std::vector<std::size_t> order(dims);
  for (std::size_t i = 0; i < dims; ++i) order[i] = i;
  const std::vector<std::int64_t> stride = sourceStrides(from, to);
  if (stride.empty()) return order;
  std::size_t inner = dims;  // to's innermost dim that is more than one long
  for (std::size_t i = dims; i-- > 0 && inner == dims;)
    if (to.physical()[i].extent > 1) inner = i;
  if (inner == dims || stride[inner] <= 1) return order;  // contiguous, or not known
  std::size_t closest = inner;
  for (std::size_t i = 0; i < dims; ++i)
    if (to.physical()[i].extent > 1 && stride[i] > 0 && stride[i] < stride[closest]) closest = i;
  // Only worth it when the moved dim is short enough that its destination lines stay cached.
  if (closest == inner || to.physical()[closest].extent > 256) return order;
  order.erase(order.begin() + static_cast<std::ptrdiff_t>(closest));
  order.push_back(closest);
  return order;
}

}  // namespace

void writeHarnessConversions(CodeWriter& w, const std::string& entry, const layout::Layout& a,
                             const layout::Layout& b, const layout::Layout& c) {
  w.comment("Conversions between the plain layouts and the kernel's, for the harness (not timed).");
  w.line("extern \"C\" long long " + entry + "_packed_size(int operand) { return operand == 0 ? " +
         std::to_string(a.size()) + "LL : operand == 1 ? " + std::to_string(b.size()) +
         "LL : " + std::to_string(c.size()) + "LL; }");
  writeLayoutConversion(w, entry + "_pack_a", plainLayout(a), a);
  writeLayoutConversion(w, entry + "_pack_b", plainLayout(b), b);
  writeLayoutConversion(w, entry + "_pack_c", plainLayout(c), c);
  writeLayoutConversion(w, entry + "_unpack_c", c, plainLayout(c));
}

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
  const std::vector<std::size_t> order = loopOrder(from, to);
  std::size_t parallel = 1;
  for (std::int64_t iterations = dims.empty() ? 1 : dims[order[0]].extent;
       iterations < 256 && parallel + 1 < dims.size();)
    iterations *= dims[order[parallel++]].extent;
  double elements = 1;
  for (const layout::Dim& d : dims) elements *= static_cast<double>(d.extent);
  // Each element read once and written once.
  w.line(ompParallel(
      " for schedule(static)" +
          (parallel > 1 ? " collapse(" + std::to_string(parallel) + ")" : std::string()),
      2 * elements, Work::Elements));
  for (std::size_t i : order)
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
