#include "kas/interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/rng.h"

namespace opevo::kas {

FlatShape flatShape(const Shape& symbolic, const std::vector<std::int64_t>& dims) {
  FlatShape f;
  for (std::size_t i = 0; i < symbolic.size(); ++i) {
    switch (symbolic[i].role) {
      case DimRole::Channel:
        f.channels *= dims[i];
        f.channelDims.push_back(dims[i]);
        break;
      case DimRole::Height:
        f.h = dims[i];
        f.hasH = true;
        break;
      case DimRole::Width:
        f.w = dims[i];
        f.hasW = true;
        break;
    }
  }
  return f;
}

std::vector<std::int64_t> weightSizes(const MicroDag& dag,
                                      const std::vector<std::vector<std::int64_t>>& dims) {
  std::vector<std::int64_t> out(dag.nodes().size(), 0);
  for (std::size_t i = 0; i < dag.nodes().size(); ++i) {
    const Node& n = dag.nodes()[i];
    if (!isFc(n.kind)) continue;
    const auto in = static_cast<std::size_t>(n.inputs[0]);
    const FlatShape a = flatShape(dag.shapes()[in], dims[in]);
    const FlatShape b = flatShape(dag.shapes()[i], dims[i]);
    const std::int64_t groups = n.kind == PrimitiveKind::GroupedFc ? dims[in][0] : 1;
    out[i] = a.channels * b.channels / groups;
  }
  return out;
}

KernelWeights randomWeights(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                            std::uint64_t seed) {
  Rng rng(seed);
  KernelWeights w(dag.nodes().size());
  const auto sizes = weightSizes(dag, dims);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) continue;
    const Node& n = dag.nodes()[i];
    const auto in = static_cast<std::size_t>(n.inputs[0]);
    const FlatShape a = flatShape(dag.shapes()[in], dims[in]);
    const std::int64_t groups = n.kind == PrimitiveKind::GroupedFc ? dims[in][0] : 1;
    const double bound = 1.0 / std::sqrt(static_cast<double>(a.channels / groups));
    w[i].resize(static_cast<std::size_t>(sizes[i]));
    for (float& v : w[i]) v = static_cast<float>((rng.uniform() * 2 - 1) * bound);
  }
  return w;
}

namespace {

using Tensor = std::vector<float>;

// Index of element (c, y, x) of a flat tensor.
std::size_t at(const FlatShape& s, std::int64_t c, std::int64_t y, std::int64_t x) {
  return static_cast<std::size_t>((c * s.h + y) * s.w + x);
}

float blendOp(PrimitiveKind kind, float l, float r) {
  switch (kind) {
    case PrimitiveKind::Add:
      return l + r;
    case PrimitiveKind::Sub:
      return l - r;
    case PrimitiveKind::Mul:
      return l * r;
    case PrimitiveKind::Min:
      return std::min(l, r);
    default:
      return std::max(l, r);
  }
}

float unaryOp(PrimitiveKind kind, float v) {
  switch (kind) {
    case PrimitiveKind::Relu:
      return v > 0 ? v : 0;
    case PrimitiveKind::Abs:
      return std::fabs(v);
    case PrimitiveKind::Sin:
      return std::sin(v);
    default:
      return std::exp(v);
  }
}

}  // namespace

std::vector<float> interpret(const MicroDag& dag,
                             const std::vector<std::vector<std::int64_t>>& dims,
                             const std::vector<float>& input, const KernelWeights& weights) {
  const std::size_t count = dag.nodes().size();
  std::vector<Tensor> values(count);
  std::vector<FlatShape> flat(count);
  for (std::size_t i = 0; i < count; ++i) flat[i] = flatShape(dag.shapes()[i], dims[i]);
  if (static_cast<std::int64_t>(input.size()) != flat[0].elements())
    throw std::invalid_argument("kas interpreter: input size does not match [C, H, W]");
  values[0] = input;
  for (std::size_t i = 1; i < count; ++i) {
    const Node& n = dag.nodes()[i];
    const FlatShape& o = flat[i];
    Tensor& out = values[i];
    out.assign(static_cast<std::size_t>(o.elements()), 0.0f);
    const auto src = static_cast<std::size_t>(n.inputs[0]);
    const FlatShape& s = flat[src];
    const Tensor& in = values[src];
    const Shape& inShape = dag.shapes()[src];
    switch (n.kind) {
      case PrimitiveKind::Group:
      case PrimitiveKind::GroupEach:
        out = in;  // a view: the same elements in the same order
        break;
      case PrimitiveKind::Shift: {
        const bool alongH = inShape[static_cast<std::size_t>(n.dim)].role == DimRole::Height;
        for (std::int64_t c = 0; c < o.channels; ++c)
          for (std::int64_t y = 0; y < o.h; ++y)
            for (std::int64_t x = 0; x < o.w; ++x) {
              const std::int64_t sy = alongH ? y + 1 : y, sx = alongH ? x : x + 1;
              if (sy < s.h && sx < s.w) out[at(o, c, y, x)] = in[at(s, c, sy, sx)];
            }
        break;
      }
      case PrimitiveKind::Unfold: {
        const bool alongH = inShape[static_cast<std::size_t>(n.dim)].role == DimRole::Height;
        const std::int64_t k = o.channels / s.channels;
        for (std::int64_t c = 0; c < s.channels; ++c)
          for (std::int64_t j = 0; j < k; ++j)
            for (std::int64_t y = 0; y < o.h; ++y)
              for (std::int64_t x = 0; x < o.w; ++x) {
                const std::int64_t sy = alongH ? y + j - k / 2 : y;
                const std::int64_t sx = alongH ? x : x + j - k / 2;
                if (sy >= 0 && sy < s.h && sx >= 0 && sx < s.w)
                  out[at(o, c * k + j, y, x)] = in[at(s, c, sy, sx)];
              }
        break;
      }
      case PrimitiveKind::FullyConnected:
      case PrimitiveKind::GroupedFc: {
        const std::int64_t groups = n.kind == PrimitiveKind::GroupedFc ? dims[src][0] : 1;
        const std::int64_t ci = s.channels / groups, co = o.channels / groups;
        const std::int64_t pixels = o.h * o.w;
        const std::vector<float>& w = weights[i];
        for (std::int64_t g = 0; g < groups; ++g)
          for (std::int64_t a = 0; a < co; ++a)
            for (std::int64_t c = 0; c < ci; ++c) {
              const float wv = w[static_cast<std::size_t>((g * co + a) * ci + c)];
              const float* from = &in[static_cast<std::size_t>((g * ci + c) * pixels)];
              float* to = &out[static_cast<std::size_t>((g * co + a) * pixels)];
              for (std::int64_t p = 0; p < pixels; ++p) to[p] += wv * from[p];
            }
        break;
      }
      case PrimitiveKind::Relu:
      case PrimitiveKind::Abs:
      case PrimitiveKind::Sin:
      case PrimitiveKind::Exp:
        for (std::size_t e = 0; e < out.size(); ++e) out[e] = unaryOp(n.kind, in[e]);
        break;
      case PrimitiveKind::AvgFold:
      case PrimitiveKind::MaxFold:
      case PrimitiveKind::Softmax: {
        // The dim as (outer, length, inner) over the input's own row-major dims.
        const auto d = static_cast<std::size_t>(n.dim);
        std::int64_t outer = 1, length = dims[src][d], inner = 1;
        for (std::size_t k = 0; k < d; ++k) outer *= dims[src][k];
        for (std::size_t k = d + 1; k < dims[src].size(); ++k) inner *= dims[src][k];
        for (std::int64_t a = 0; a < outer; ++a)
          for (std::int64_t b = 0; b < inner; ++b) {
            auto elem = [&](std::int64_t j) {
              return static_cast<std::size_t>((a * length + j) * inner + b);
            };
            if (n.kind == PrimitiveKind::Softmax) {
              float top = -std::numeric_limits<float>::infinity();
              for (std::int64_t j = 0; j < length; ++j) top = std::max(top, in[elem(j)]);
              float sum = 0;
              for (std::int64_t j = 0; j < length; ++j) sum += std::exp(in[elem(j)] - top);
              for (std::int64_t j = 0; j < length; ++j)
                out[elem(j)] = std::exp(in[elem(j)] - top) / sum;
            } else {
              float acc =
                  n.kind == PrimitiveKind::MaxFold ? -std::numeric_limits<float>::infinity() : 0;
              for (std::int64_t j = 0; j < length; ++j)
                acc = n.kind == PrimitiveKind::MaxFold ? std::max(acc, in[elem(j)])
                                                       : acc + in[elem(j)];
              out[static_cast<std::size_t>(a * inner + b)] =
                  n.kind == PrimitiveKind::MaxFold ? acc : acc / static_cast<float>(length);
            }
          }
        break;
      }
      default: {  // blends: LHS broadcast onto RHS, image coordinates shared
        const auto rhsNode = static_cast<std::size_t>(n.inputs[1]);
        const Tensor& rhs = values[rhsNode];
        const auto map = blendChannelMap(inShape, dims[src], dag.shapes()[rhsNode], dims[rhsNode]);
        for (std::int64_t c = 0; c < o.channels; ++c)
          for (std::int64_t y = 0; y < o.h; ++y)
            for (std::int64_t x = 0; x < o.w; ++x)
              out[at(o, c, y, x)] = blendOp(
                  n.kind,
                  in[at(s, map[static_cast<std::size_t>(c)], s.hasH ? y : 0, s.hasW ? x : 0)],
                  rhs[at(o, c, y, x)]);
        break;
      }
    }
  }
  return values.back();
}

}  // namespace opevo::kas
