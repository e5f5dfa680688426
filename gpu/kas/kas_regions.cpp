#include "kas/kas_regions.h"

#include <algorithm>

namespace opevo::kas {

void Reach::widen(const Reach& r) {
  if (!r.set) return;
  if (!set) {
    *this = r;
    return;
  }
  full = full || r.full;
  lo = std::min(lo, r.lo);
  hi = std::max(hi, r.hi);
}

Reach Reach::shifted(std::int64_t a, std::int64_t b) const {
  Reach r = *this;
  r.lo += a;
  r.hi += b;
  return r;
}

std::int64_t KasRegions::rows(std::size_t i) const {
  const NodeRegion& n = nodes[i];
  if (!n.shape.hasH) return 1;
  return n.h.full || i == 0 ? height : tileH + n.h.hi - n.h.lo;
}

std::int64_t KasRegions::cols(std::size_t i) const {
  const NodeRegion& n = nodes[i];
  if (!n.shape.hasW) return 1;
  return n.w.full || i == 0 ? width : tileW + n.w.hi - n.w.lo;
}

bool isView(PrimitiveKind kind) {
  return kind == PrimitiveKind::Group || kind == PrimitiveKind::GroupEach;
}

Along along(const MicroDag& dag, std::size_t node) {
  const Node& n = dag.nodes()[node];
  if (!takesDim(n.kind)) return Along::None;
  const Shape& in = dag.shapes()[static_cast<std::size_t>(n.inputs[0])];
  switch (in[static_cast<std::size_t>(n.dim)].role) {
    case DimRole::Height:
      return Along::Height;
    case DimRole::Width:
      return Along::Width;
    default:
      return Along::Channel;
  }
}

KasRegions kasRegions(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                      std::int64_t tileH, std::int64_t tileW) {
  const auto& nodes = dag.nodes();
  const std::size_t count = nodes.size();
  KasRegions r;
  r.nodes.resize(count);
  for (std::size_t i = 0; i < count; ++i) r.nodes[i].shape = flatShape(dag.shapes()[i], dims[i]);
  r.height = r.nodes[0].shape.h;
  r.width = r.nodes[0].shape.w;
  r.tileH = tileH;
  r.tileW = tileW;
  std::vector<NodeRegion>& info = r.nodes;

  info[count - 1].h = {true, false, 0, 0};
  info[count - 1].w = {true, false, 0, 0};
  for (std::size_t i = count; i-- > 1;) {
    const Node& n = nodes[i];
    const Along a = along(dag, i);
    const bool alongH = a == Along::Height, alongW = a == Along::Width;
    for (int in : n.inputs) {
      NodeRegion& src = info[static_cast<std::size_t>(in)];
      Reach needH = info[i].h, needW = info[i].w;
      const bool wholeAlong = n.kind == PrimitiveKind::AvgFold ||
                              n.kind == PrimitiveKind::MaxFold || n.kind == PrimitiveKind::Softmax;
      if (n.kind == PrimitiveKind::Shift) {
        if (alongH) needH = needH.shifted(1, 1);
        if (alongW) needW = needW.shifted(1, 1);
      } else if (n.kind == PrimitiveKind::Unfold) {
        const std::int64_t k = info[i].shape.channels / src.shape.channels;
        if (alongH) needH = needH.shifted(-(k / 2), k - 1 - k / 2);
        if (alongW) needW = needW.shifted(-(k / 2), k - 1 - k / 2);
      } else if (wholeAlong && alongH) {
        needH = {true, true, 0, 0};
      } else if (wholeAlong && alongW) {
        needW = {true, true, 0, 0};
      }
      if (src.shape.hasH) src.h.widen(needH);
      if (src.shape.hasW) src.w.widen(needW);
    }
  }
  for (std::size_t i = 1; i < count; ++i)
    if (isView(nodes[i].kind)) {
      const NodeRegion& from = info[static_cast<std::size_t>(nodes[i].inputs[0])];
      info[i].root = from.root;
      info[i].h = from.h;
      info[i].w = from.w;
    } else {
      info[i].root = static_cast<int>(i);
    }
  return r;
}

}  // namespace opevo::kas
