#include "kas_train/kernel_module.h"

#include <cmath>
#include <stdexcept>

#include "kas/shape_matching.h"

namespace opevo::kastrain {

using kas::DimRole;
using kas::PrimitiveKind;

namespace {

std::vector<std::int64_t> batched(std::int64_t batch, const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> out{batch};
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

}  // namespace

KernelModuleImpl::KernelModuleImpl(const kas::MicroDag& dag,
                                   std::vector<std::vector<std::int64_t>> dims)
    : m_dag(dag), m_dims(std::move(dims)) {
  const std::size_t count = m_dag.nodes().size();
  if (m_dims.size() != count) throw std::invalid_argument("kernel module: one shape per node");
  m_flat.resize(count);
  m_weights.resize(count);
  m_groups.assign(count, 1);
  m_channelMaps.resize(count);
  for (std::size_t i = 0; i < count; ++i) m_flat[i] = kas::flatShape(m_dag.shapes()[i], m_dims[i]);
  const kas::FlatShape& in = m_flat.front();
  const kas::FlatShape& out = m_flat.back();
  if (in.channels != out.channels || in.h != out.h || in.w != out.w)
    throw std::invalid_argument("kernel module: the output is not shaped as the input");
  for (std::size_t i = 1; i < count; ++i) {
    const kas::Node& n = m_dag.nodes()[i];
    const auto src = static_cast<std::size_t>(n.inputs[0]);
    if (kas::isFc(n.kind)) {
      const std::int64_t groups = n.kind == PrimitiveKind::GroupedFc ? m_dims[src][0] : 1;
      const std::int64_t fanIn = m_flat[src].channels / groups;
      const double bound = 1.0 / std::sqrt(static_cast<double>(fanIn));
      m_groups[i] = groups;
      m_weights[i] =
          register_parameter("fc" + std::to_string(i),
                             (torch::rand({m_flat[i].channels, fanIn, 1, 1}) * 2 - 1) * bound);
    } else if (kas::isBlend(n.kind)) {
      const auto rhs = static_cast<std::size_t>(n.inputs[1]);
      const auto map =
          kas::blendChannelMap(m_dag.shapes()[src], m_dims[src], m_dag.shapes()[rhs], m_dims[rhs]);
      bool identity = m_flat[src].channels == static_cast<std::int64_t>(map.size());
      for (std::size_t c = 0; identity && c < map.size(); ++c)
        identity = map[c] == static_cast<std::int64_t>(c);
      if (!identity)
        m_channelMaps[i] = register_buffer(
            "map" + std::to_string(i),
            torch::tensor(std::vector<std::int64_t>(map.begin(), map.end()), torch::kLong));
    }
  }
}

void KernelModuleImpl::setWeights(const kas::KernelWeights& weights) {
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < m_weights.size(); ++i) {
    if (!m_weights[i].defined()) continue;
    if (static_cast<std::int64_t>(weights.at(i).size()) != m_weights[i].numel())
      throw std::invalid_argument("kernel module: node " + std::to_string(i) + " takes " +
                                  std::to_string(m_weights[i].numel()) + " weights");
    m_weights[i].copy_(torch::from_blob(const_cast<float*>(weights[i].data()), m_weights[i].sizes(),
                                        torch::kFloat32));
  }
}

torch::Tensor KernelModuleImpl::forward(const torch::Tensor& input) {
  return forwardAll(input).back();
}

std::vector<torch::Tensor> KernelModuleImpl::forwardAll(const torch::Tensor& input) {
  const kas::FlatShape& in = m_flat.front();
  std::vector<torch::Tensor> values;
  values.reserve(m_dag.nodes().size());
  values.push_back(input.reshape({input.size(0), in.channels, in.h, in.w}));
  for (std::size_t i = 1; i < m_dag.nodes().size(); ++i) values.push_back(node(i, values));
  return values;
}

torch::Tensor KernelModuleImpl::node(std::size_t i,
                                     const std::vector<torch::Tensor>& values) const {
  const kas::Node& n = m_dag.nodes()[i];
  const auto src = static_cast<std::size_t>(n.inputs[0]);
  const torch::Tensor& x = values[src];
  const kas::FlatShape& s = m_flat[src];
  switch (n.kind) {
    case PrimitiveKind::Input:
      throw std::logic_error("kernel module: only node 0 is the input");
    case PrimitiveKind::Group:
    case PrimitiveKind::GroupEach:
      return x;  // a view: the same elements in the same order
    case PrimitiveKind::Shift: {
      // out[y] = in[y + 1], the last row (column) zero: a pad of -1 before and 1 after.
      const bool alongH =
          m_dag.shape(n.inputs[0])[static_cast<std::size_t>(n.dim)].role == DimRole::Height;
      return torch::constant_pad_nd(
          x, alongH ? std::vector<std::int64_t>{0, 0, -1, 1} : std::vector<std::int64_t>{-1, 1});
    }
    case PrimitiveKind::Unfold: {
      // out[c * k + j][y] = in[c][y + j - k/2], zero outside the image: each window a shift by
      // padding (whose backward is one pad too, unlike a slice's or a strided view's).
      const bool alongH =
          m_dag.shape(n.inputs[0])[static_cast<std::size_t>(n.dim)].role == DimRole::Height;
      const std::int64_t k = m_flat[i].channels / s.channels;
      std::vector<torch::Tensor> windows;
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t offset = j - k / 2;
        windows.push_back(
            torch::constant_pad_nd(x, alongH ? std::vector<std::int64_t>{0, 0, -offset, offset}
                                             : std::vector<std::int64_t>{-offset, offset}));
      }
      return torch::stack(windows, 2).reshape({x.size(0), s.channels * k, s.h, s.w});
    }
    case PrimitiveKind::FullyConnected:
    case PrimitiveKind::GroupedFc: {
      // A 1x1 convolution: its groups split channels as the interpreter's grouped fc does.
      const std::int64_t one = 1, zero = 0;
      return torch::conv2d(x, m_weights[i], torch::Tensor(), {one, one}, {zero, zero}, {one, one},
                           m_groups[i]);
    }
    case PrimitiveKind::Relu:
      return torch::relu(x);
    case PrimitiveKind::Abs:
      return torch::abs(x);
    case PrimitiveKind::Sin:
      return torch::sin(x);
    case PrimitiveKind::Exp:
      return torch::exp(x);
    case PrimitiveKind::AvgFold:
    case PrimitiveKind::MaxFold:
    case PrimitiveKind::Softmax:
      return fold(i, x);
    case PrimitiveKind::Add:
    case PrimitiveKind::Sub:
    case PrimitiveKind::Mul:
    case PrimitiveKind::Min:
    case PrimitiveKind::Max:
      return blend(i, x, values[static_cast<std::size_t>(n.inputs[1])]);
  }
  throw std::logic_error("kernel module: unhandled primitive");
}

torch::Tensor KernelModuleImpl::fold(std::size_t i, const torch::Tensor& x) const {
  // Over the input's own row-major dims, which a view of the flat tensor recovers.
  const kas::Node& n = m_dag.nodes()[i];
  const auto src = static_cast<std::size_t>(n.inputs[0]);
  const torch::Tensor full = x.reshape(batched(x.size(0), m_dims[src]));
  const std::int64_t axis = n.dim + 1;
  torch::Tensor out;
  if (n.kind == PrimitiveKind::Softmax)
    out = torch::softmax(full, axis);
  else if (n.kind == PrimitiveKind::MaxFold)
    out = std::get<0>(full.max(axis));
  else
    out = full.mean(axis);
  const kas::FlatShape& o = m_flat[i];
  return out.reshape({x.size(0), o.channels, o.h, o.w});
}

torch::Tensor KernelModuleImpl::blend(std::size_t i, const torch::Tensor& lhs,
                                      const torch::Tensor& rhs) const {
  // LHS broadcast onto RHS: each output channel reads the LHS channel the map names, and an
  // image dim LHS lacks (size 1 here) is repeated by broadcasting.
  const torch::Tensor l = m_channelMaps[i].defined() ? lhs.index_select(1, m_channelMaps[i]) : lhs;
  switch (m_dag.nodes()[i].kind) {
    case PrimitiveKind::Add:
      return l + rhs;
    case PrimitiveKind::Sub:
      return l - rhs;
    case PrimitiveKind::Mul:
      return l * rhs;
    // Through a relu rather than minimum/maximum (or a select), whose backward costs several
    // times the forward on CPU; equal to them but for a rounding of the difference.
    case PrimitiveKind::Min:
      return rhs - torch::relu(rhs - l);
    default:
      return rhs + torch::relu(l - rhs);
  }
}

}  // namespace opevo::kastrain
