#include "codegen/layout_conversion.h"

#include <cstdlib>
#include <numeric>
#include <optional>
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

// Runs shorter than this are left to the element loop (and loopOrder's choice of it).
constexpr std::int64_t kMinCopyRun = 4;

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

// Where the innermost physical dim (the last one more than one long: its stride is 1) of a layout
// comes from: a run of `block` consecutive elements of logical dim `dim`, aligned so that
// logical elements x with (x + phase) % block == 0 begin a run. Consecutive elements of one run
// lie at consecutive offsets.
struct InnerRun {
  std::size_t dim = 0;
  std::int64_t block = 1;
  std::int64_t phase = 0;
};

// The layout replayed: the dims each primitive saw.
std::vector<std::vector<layout::Dim>> dimsBefore(const layout::Layout& l) {
  layout::Layout replay(l.logical());
  std::vector<std::vector<layout::Dim>> before;
  for (const layout::Primitive& p : l.primitives()) {
    before.push_back(replay.physical());
    switch (p.kind) {
      case layout::PrimitiveKind::Split:
        replay.split(p.dims[0], p.args[0]);
        break;
      case layout::PrimitiveKind::Reorder:
        replay.reorder(p.dims);
        break;
      case layout::PrimitiveKind::Fuse:
        replay.fuse(p.dims[0], p.dims[1]);
        break;
      case layout::PrimitiveKind::Unfold:
        replay.unfold(p.dims[0], p.args[0], p.args[1]);
        break;
      case layout::PrimitiveKind::Pad:
        replay.pad(p.dims[0], p.args[0], p.args[1]);
        break;
      case layout::PrimitiveKind::StoreAt:
        replay.storeAt(p.dims[0], p.dims[1]);
        break;
    }
  }
  return before;
}

std::int64_t extentOf(const std::vector<layout::Dim>& dims, const std::string& name) {
  for (const layout::Dim& d : dims)
    if (d.name == name) return d.extent;
  return 0;
}

// The innermost physical dim's run, followed back through the primitives that made it; nullopt
// where one of them breaks it up or the dim is made of several logical dims. `written`: the run
// is of the layout a conversion writes, whose every position must hold data of the run's dim
// alone (no padding or store_at row along it: the whole run is then in bounds or out); the one
// it reads may pad the dim (the runs then begin at a phase) and store a tensor at it.
std::optional<InnerRun> innerRun(const layout::Layout& l, bool written) {
  const std::vector<layout::Dim>& physical = l.physical();
  std::size_t q = physical.size();
  for (std::size_t i = physical.size(); i-- > 0 && q == physical.size();)
    if (physical[i].extent > 1) q = i;
  if (q == physical.size()) return std::nullopt;
  // The position along the current dim (named `dim`) of the run's k-th element is
  // block * m - phase + k for some m: the run is a block of `block`, `phase` before the blocks.
  std::string dim = physical[q].name;
  std::int64_t block = physical[q].extent, phase = 0;
  const std::vector<std::vector<layout::Dim>> before = dimsBefore(l);
  // Into the dim a primitive split, unfolded or fused: the run must start at a multiple of its
  // block there, and the parent's blocks of that size begin where the part's do.
  auto intoParent = [&](const std::string& parent, std::int64_t partBlocks) {
    if (phase % block != 0 || partBlocks % block != 0) return false;
    phase = 0;
    dim = parent;
    return true;
  };
  for (std::size_t i = l.primitives().size(); i-- > 0;) {
    const layout::Primitive& p = l.primitives()[i];
    const std::string& d = p.dims[0];
    switch (p.kind) {
      case layout::PrimitiveKind::Reorder:
        break;
      case layout::PrimitiveKind::Split:
        if (dim == d + "_o") return std::nullopt;
        if (dim == d + "_i" && !intoParent(d, p.args[0])) return std::nullopt;
        break;
      case layout::PrimitiveKind::Unfold: {
        if (dim == d + "_o") return std::nullopt;
        if (dim != d + "_i") break;
        const std::int64_t extent = extentOf(before[i], d), tile = p.args[0], stride = p.args[1];
        if ((extent - tile) / stride + 1 == 1) {  // one window: position i holds element i
          dim = d;
          break;
        }
        // The reading side finds an element at its home window only; there, only disjoint
        // windows covering the dim keep neighbours neighbours. A written window is filled from
        // o * stride on: a run of it is a run of the dim where the windows start on its blocks.
        if (!written && (tile != stride || extent % tile != 0)) return std::nullopt;
        if (!intoParent(d, std::gcd(tile, stride))) return std::nullopt;
        break;
      }
      case layout::PrimitiveKind::Fuse: {
        if (dim != d + "_" + p.dims[1]) break;
        if (!intoParent(p.dims[1], extentOf(before[i], p.dims[1]))) return std::nullopt;
        break;
      }
      case layout::PrimitiveKind::Pad:
        if (dim != d) break;
        if (written && (p.args[0] != 0 || p.args[1] != 0)) return std::nullopt;
        phase += p.args[0];
        break;
      case layout::PrimitiveKind::StoreAt:
        if (dim == d && written) return std::nullopt;
        break;
    }
  }
  for (std::size_t j = 0; j < l.logical().size(); ++j)
    if (l.logical()[j].name == dim) return InnerRun{j, block, phase % block};
  return std::nullopt;
}

// How many consecutive positions of `to`'s innermost dim hold consecutive elements of one logical
// dim that lie side by side in `from` too (a channel block of 16 read from blocks of 32: 16),
// so that the conversion copies them as one run with one offset computed; 1 where none do.
std::int64_t copyRun(const layout::Layout& from, const layout::Layout& to) {
  const std::optional<InnerRun> written = innerRun(to, true);
  const std::optional<InnerRun> read = innerRun(from, false);
  if (!written || !read || written->dim != read->dim) return 1;
  return std::gcd(std::gcd(written->block, read->block), read->phase);
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
  // Runs of elements side by side in both layouts (a channel block into a channel block) are
  // copied whole: the offsets' divisions and remainders are computed once a run, and the copy
  // of a run of known length is a few vector moves. Otherwise every element computes its own.
  const std::int64_t run = copyRun(from, to);
  std::size_t inner = dims.size();  // the dim the runs are of: the innermost more than one long
  if (run >= kMinCopyRun)
    for (std::size_t i = dims.size(); i-- > 0 && inner == dims.size();)
      if (dims[i].extent > 1) inner = i;
  std::vector<std::size_t> order;
  if (inner == dims.size()) {
    order = loopOrder(from, to);
  } else {
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (i != inner) order.push_back(i);
  }
  // The loops collapsed into the parallel one: enough to give every thread work; the innermost
  // element loop (or the runs' loop) stays outside.
  const std::size_t outer = inner == dims.size() ? dims.size() - 1 : order.size();
  std::size_t parallel = std::min<std::size_t>(1, outer);
  for (std::int64_t iterations = order.empty() ? 1 : dims[order[0]].extent;
       iterations < 256 && parallel < outer;)
    iterations *= dims[order[parallel++]].extent;
  double elements = 1;
  for (const layout::Dim& d : dims) elements *= static_cast<double>(d.extent);
  // Each element read once and written once. A tensor copied as one run has no loop to share.
  const bool oneRun = inner != dims.size() && order.empty() && dims[inner].extent / run <= 1;
  if (!oneRun)
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
  const std::string read = from.offsetExpression(g.logicalIndex);
  if (inner == dims.size()) {
    const std::string element = "src[" + read + "]";
    w.line("  dst[" + at + "] = " +
           (g.inBounds.empty() ? element : "(" + g.inBounds + ") ? " + element + " : 0.0f") + ";");
    w.close();
    return;
  }
  const std::string& p = index[inner];
  const std::int64_t runs = dims[inner].extent / run;
  const std::string length = std::to_string(run);
  if (runs > 1) {
    w.open("for (long long " + p + "_run = 0; " + p + "_run < " + std::to_string(runs) + "; ++" +
           p + "_run)");
    w.line("const long long " + p + " = " + p + "_run * " + length + ";");
  } else {
    w.open("");
    w.line("const long long " + p + " = 0;");
  }
  // A copy of fixed size, which the compiler turns into vector moves: a loop of element copies
  // gets unrolled into scalar ones, as the pointers lose __restrict__ in the parallel region's
  // outlined function.
  const std::string bytes = std::to_string(run * std::int64_t(sizeof(float)));
  w.line("const long long d = " + at + ";");
  if (g.inBounds.empty()) {
    w.line("__builtin_memcpy(dst + d, src + " + read + ", " + bytes + ");");
  } else {
    // Padding is along other dims than the run's: a run is all data or all zeros.
    w.line("if (" + g.inBounds + ")");
    w.line("  __builtin_memcpy(dst + d, src + " + read + ", " + bytes + ");");
    w.line("else");
    w.line("  __builtin_memset(dst + d, 0, " + bytes + ");");
  }
  w.close();
  w.close();
}

}  // namespace opevo::codegen
