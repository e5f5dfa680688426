#include "net/network.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "common/error.h"
#include "common/size_limits.h"

namespace opevo::net {
namespace {

constexpr LayerKind kAllKinds[] = {
    LayerKind::Conv2D,        LayerKind::Dense,   LayerKind::MatMul,    LayerKind::BatchMatMul,
    LayerKind::BiasAdd,       LayerKind::Relu,    LayerKind::Relu6,     LayerKind::Gelu,
    LayerKind::Scale,         LayerKind::Add,     LayerKind::MaxPool,   LayerKind::AvgPool,
    LayerKind::GlobalAvgPool, LayerKind::Softmax, LayerKind::LayerNorm, LayerKind::BatchNorm,
    LayerKind::Flatten,       LayerKind::Reshape, LayerKind::Transpose};

std::size_t inputCount(LayerKind kind) {
  return kind == LayerKind::MatMul || kind == LayerKind::BatchMatMul || kind == LayerKind::Add ? 2
                                                                                               : 1;
}

// " padded to 34x34" for an N x C x H x W input with padding; nothing without. The shape in the
// message is the input's: its padded size, which the window must fit, said beside it.
std::string paddedTo(const std::vector<std::int64_t>& x, std::int64_t pad) {
  if (pad == 0) return {};
  return " padded to " + std::to_string(x[2] + 2 * pad) + "x" + std::to_string(x[3] + 2 * pad);
}

// Zero when the window does not fit (division truncates toward zero: a window a few elements
// too large with a long stride would otherwise give one output).
std::int64_t poolOut(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  if (in + 2 * pad < kernel) return 0;
  return (in + 2 * pad - kernel) / stride + 1;
}

}  // namespace

std::string_view layerKindName(LayerKind kind) {
  switch (kind) {
    case LayerKind::Conv2D:
      return "conv2d";
    case LayerKind::Dense:
      return "dense";
    case LayerKind::MatMul:
      return "matmul";
    case LayerKind::BatchMatMul:
      return "batch_matmul";
    case LayerKind::BiasAdd:
      return "bias_add";
    case LayerKind::Relu:
      return "relu";
    case LayerKind::Relu6:
      return "relu6";
    case LayerKind::Gelu:
      return "gelu";
    case LayerKind::Scale:
      return "scale";
    case LayerKind::Add:
      return "add";
    case LayerKind::MaxPool:
      return "max_pool";
    case LayerKind::AvgPool:
      return "avg_pool";
    case LayerKind::GlobalAvgPool:
      return "global_avg_pool";
    case LayerKind::Softmax:
      return "softmax";
    case LayerKind::LayerNorm:
      return "layer_norm";
    case LayerKind::BatchNorm:
      return "batch_norm";
    case LayerKind::Flatten:
      return "flatten";
    case LayerKind::Reshape:
      return "reshape";
    case LayerKind::Transpose:
      return "transpose";
  }
  return "?";
}

LayerKind parseLayerKind(std::string_view name, const std::string& where) {
  std::string listed;
  for (LayerKind k : kAllKinds) {
    if (layerKindName(k) == name) return k;
    listed += (listed.empty() ? "" : ", ") + std::string(layerKindName(k));
  }
  throw InputError(where + ": unknown op '" + std::string(name) + "' (ops: " + listed + ")");
}

bool isComplex(LayerKind kind) {
  return kind == LayerKind::Conv2D || kind == LayerKind::Dense || kind == LayerKind::MatMul ||
         kind == LayerKind::BatchMatMul;
}

bool isFusable(LayerKind kind) {
  return kind == LayerKind::BiasAdd || kind == LayerKind::Relu || kind == LayerKind::Relu6 ||
         kind == LayerKind::Gelu || kind == LayerKind::Scale || kind == LayerKind::Add;
}

std::int64_t elements(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

std::string formatShape(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s = std::to_string(shape[0]);
  for (std::size_t i = 1; i < shape.size(); ++i) s.append("x").append(std::to_string(shape[i]));
  return s;
}

const Layer* Network::find(std::string_view name) const {
  for (const Layer& l : layers)
    if (l.name == name) return &l;
  return nullptr;
}

const Shape& Network::shapeOf(std::string_view tensor) const {
  for (const Input& in : inputs)
    if (in.name == tensor) return in.shape;
  if (const Layer* l = find(tensor)) return l->shape;
  throw InputError("network '" + name + "': no tensor named '" + std::string(tensor) + "'");
}

std::vector<const Layer*> Network::consumers(std::string_view tensor) const {
  std::vector<const Layer*> out;
  for (const Layer& l : layers)
    if (std::find(l.inputs.begin(), l.inputs.end(), tensor) != l.inputs.end()) out.push_back(&l);
  return out;
}

double Network::flops(const Layer& l) const {
  const double out = double(elements(l.shape));
  const double in = l.inputs.empty() ? 0 : double(elements(shapeOf(l.inputs[0])));
  switch (l.kind) {
    case LayerKind::Conv2D: {
      const double c = double(shapeOf(l.inputs[0])[1] / l.groups);
      return out * (2 * c * double(l.kernelH * l.kernelW) + (l.bias ? 1 : 0));
    }
    case LayerKind::Dense:
      return out * (2 * double(shapeOf(l.inputs[0]).back()) + (l.bias ? 1 : 0));
    case LayerKind::MatMul:
    case LayerKind::BatchMatMul: {
      const Shape& a = shapeOf(l.inputs[0]);
      return out * 2 * double(l.transA ? a[a.size() - 2] : a.back());
    }
    case LayerKind::Gelu:
      return out * 8;
    case LayerKind::Relu6:
      return out * 2;  // a max and a min, as its epilogue step counts
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
      return out * double(l.kernelH * l.kernelW);
    case LayerKind::GlobalAvgPool:
      return in;
    case LayerKind::Softmax:
      return in * 4;
    case LayerKind::LayerNorm:
      return in * 6;
    case LayerKind::BatchNorm:
      return in * 2;
    case LayerKind::Flatten:
    case LayerKind::Reshape:
    case LayerKind::Transpose:
      return 0;
    case LayerKind::BiasAdd:
    case LayerKind::Relu:
    case LayerKind::Scale:
    case LayerKind::Add:
      return out;
  }
  return 0;
}

double Network::flops() const {
  double total = 0;
  for (const Layer& l : layers) total += flops(l);
  return total;
}

std::vector<Parameter> Network::parameters(const Layer& l) const {
  const Shape& in = shapeOf(l.inputs[0]);
  switch (l.kind) {
    case LayerKind::Conv2D: {
      std::vector<Parameter> p = {
          {"weight", {l.outChannels, in[1] / l.groups, l.kernelH, l.kernelW}}};
      if (l.bias) p.push_back({"bias", {l.outChannels}});
      return p;
    }
    case LayerKind::Dense: {
      std::vector<Parameter> p = {{"weight", {l.units, in.back()}}};
      if (l.bias) p.push_back({"bias", {l.units}});
      return p;
    }
    case LayerKind::BiasAdd:
      return {{"bias", {in.size() == 4 ? in[1] : in.back()}}};
    case LayerKind::LayerNorm:
      return {{"gamma", {in.back()}}, {"beta", {in.back()}}};
    case LayerKind::BatchNorm:
      return {{"gamma", {in[1]}}, {"beta", {in[1]}}, {"mean", {in[1]}}, {"var", {in[1]}}};
    default:
      return {};
  }
}

std::int64_t Network::parameterCount() const {
  std::int64_t n = 0;
  for (const Layer& l : layers)
    for (const Parameter& p : parameters(l)) n += elements(p.shape);
  return n;
}

void inferShapes(Network& net, const std::string& source) {
  std::set<std::string> known;
  for (const Input& in : net.inputs) {
    if (!known.insert(in.name).second)
      throw InputError(source + ": input '" + in.name + "' is declared twice");
    auto fail = [&](const std::string& what) {
      throw InputError(source + ": input '" + in.name + "' has shape " + formatShape(in.shape) +
                       " (" + what + ")");
    };
    if (in.shape.empty()) fail("it needs one dimension or more");
    for (std::int64_t d : in.shape)
      if (d < 1 || d > kMaxDimension)
        fail("every dimension must be from 1 to " + std::to_string(kMaxDimension));
    if (const std::string why = tensorTooLarge(elementCount(in.shape)); !why.empty()) fail(why);
  }
  for (Layer& l : net.layers) {
    const std::string where =
        source + ": layer '" + l.name + "' (" + std::string(layerKindName(l.kind)) + ")";
    auto fail = [&](const std::string& what) { throw InputError(where + ": " + what); };
    if (known.count(l.name)) fail("its name is already taken by an earlier input or layer");
    if (l.inputs.size() != inputCount(l.kind))
      fail("takes " + std::to_string(inputCount(l.kind)) + " input(s), got " +
           std::to_string(l.inputs.size()));
    std::vector<Shape> in;
    for (const std::string& name : l.inputs) {
      if (!known.count(name))
        fail("reads '" + name + "', which is neither a network input nor an earlier layer");
      in.push_back(net.shapeOf(name));
    }
    const Shape& x = in[0];
    auto rank = [&](std::size_t r, const char* what) {
      if (x.size() != r)
        fail(std::string("expects a rank-") + std::to_string(r) + " input (" + what + "), got " +
             formatShape(x) + " from '" + l.inputs[0] + "'");
    };
    auto positive = [&](std::int64_t v, const char* field) {
      if (v < 1)
        fail(std::string("field '") + field + "' must be a positive integer, got " +
             std::to_string(v));
      if (v > kMaxDimension)
        fail(std::string("field '") + field + "' " + std::to_string(v) + " is larger than " +
             std::to_string(kMaxDimension));
    };
    auto padding = [&]() {
      if (l.pad < 0) fail("field 'padding' must be 0 or more");
      if (l.pad > kMaxDimension)
        fail("field 'padding' " + std::to_string(l.pad) + " is larger than " +
             std::to_string(kMaxDimension));
    };
    switch (l.kind) {
      case LayerKind::Conv2D: {
        rank(4, "N x C x H x W");
        positive(l.outChannels, "out_channels");
        positive(l.kernelH, "kernel");
        positive(l.kernelW, "kernel");
        positive(l.stride, "stride");
        positive(l.groups, "groups");
        padding();
        if (x[1] % l.groups != 0 || l.outChannels % l.groups != 0)
          fail("groups " + std::to_string(l.groups) + " must divide the input's " +
               std::to_string(x[1]) + " channels and out_channels " +
               std::to_string(l.outChannels));
        const std::int64_t ho = poolOut(x[2], l.kernelH, l.stride, l.pad);
        const std::int64_t wo = poolOut(x[3], l.kernelW, l.stride, l.pad);
        if (ho < 1 || wo < 1)
          fail("the " + std::to_string(l.kernelH) + "x" + std::to_string(l.kernelW) +
               " kernel does not fit the " + formatShape(x) + " input" + paddedTo(x, l.pad));
        l.shape = {x[0], l.outChannels, ho, wo};
        break;
      }
      case LayerKind::Dense:
        if (x.size() < 2) fail("expects an input of rank 2 or more, got " + formatShape(x));
        positive(l.units, "units");
        l.shape = x;
        l.shape.back() = l.units;
        break;
      case LayerKind::MatMul:
      case LayerKind::BatchMatMul: {
        const std::size_t r = l.kind == LayerKind::MatMul ? 2 : 3;
        const Shape& y = in[1];
        if (x.size() != r || y.size() != r)
          fail("expects two rank-" + std::to_string(r) + " inputs, got " + formatShape(x) +
               " and " + formatShape(y));
        const std::int64_t n = l.transA ? x[r - 1] : x[r - 2], k = l.transA ? x[r - 2] : x[r - 1];
        const std::int64_t k2 = l.transB ? y[r - 1] : y[r - 2], m = l.transB ? y[r - 2] : y[r - 1];
        if (k != k2)
          fail("reduction lengths differ: " + std::to_string(k) + " from '" + l.inputs[0] + "' " +
               formatShape(x) + " and " + std::to_string(k2) + " from '" + l.inputs[1] + "' " +
               formatShape(y));
        if (r == 3 && x[0] != y[0])
          fail("batch sizes differ: " + formatShape(x) + " and " + formatShape(y));
        l.shape = r == 3 ? Shape{x[0], n, m} : Shape{n, m};
        break;
      }
      case LayerKind::Add:
        if (in[0] != in[1])
          fail("adds tensors of different shapes: " + formatShape(in[0]) + " and " +
               formatShape(in[1]));
        l.shape = x;
        break;
      case LayerKind::BiasAdd:
      case LayerKind::Relu:
      case LayerKind::Relu6:
      case LayerKind::Gelu:
      case LayerKind::Scale:
      case LayerKind::Softmax:
      case LayerKind::LayerNorm:
        l.shape = x;
        break;
      case LayerKind::BatchNorm:
        rank(4, "N x C x H x W");
        l.shape = x;
        break;
      case LayerKind::MaxPool:
      case LayerKind::AvgPool: {
        rank(4, "N x C x H x W");
        positive(l.kernelH, "kernel");
        positive(l.stride, "stride");
        padding();
        if (2 * l.pad > l.kernelH) fail("padding must be at most half the window");
        const std::int64_t ho = poolOut(x[2], l.kernelH, l.stride, l.pad);
        const std::int64_t wo = poolOut(x[3], l.kernelW, l.stride, l.pad);
        if (ho < 1 || wo < 1)
          fail("the " + std::to_string(l.kernelH) + "x" + std::to_string(l.kernelW) +
               " window does not fit the " + formatShape(x) + " input" + paddedTo(x, l.pad));
        l.shape = {x[0], x[1], ho, wo};
        break;
      }
      case LayerKind::GlobalAvgPool:
        rank(4, "N x C x H x W");
        l.shape = {x[0], x[1], 1, 1};
        break;
      case LayerKind::Flatten:
        if (x.size() < 2) fail("expects an input of rank 2 or more, got " + formatShape(x));
        l.shape = {x[0], elements(x) / x[0]};
        break;
      case LayerKind::Reshape: {
        std::int64_t known = 1;
        int free = -1;
        for (std::size_t i = 0; i < l.target.size(); ++i) {
          if (l.target[i] == -1) {
            if (free >= 0) fail("field 'shape' may hold -1 once only");
            free = static_cast<int>(i);
          } else if (l.target[i] < 1 || l.target[i] > kMaxDimension) {
            fail("field 'shape' entries must be -1 or from 1 to " + std::to_string(kMaxDimension));
          } else if (double(known) * double(l.target[i]) > kMaxTensorElements) {
            // Past the limit the int64 product could wrap and pass for the input's count.
            fail("field 'shape' " + formatShape(l.target) + " " +
                 tensorTooLarge(double(known) * double(l.target[i])));
          } else {
            known *= l.target[i];
          }
        }
        l.shape = l.target;
        if (free >= 0) l.shape[free] = known > 0 ? elements(x) / known : 0;
        if (elements(l.shape) != elements(x))
          fail("cannot reshape " + formatShape(x) + " (" + std::to_string(elements(x)) +
               " elements) to " + formatShape(l.target));
        break;
      }
      case LayerKind::Transpose: {
        std::vector<std::int64_t> sorted = l.target;
        std::sort(sorted.begin(), sorted.end());
        bool permutation = sorted.size() == x.size();
        for (std::size_t i = 0; permutation && i < sorted.size(); ++i)
          permutation = sorted[i] == static_cast<std::int64_t>(i);
        if (!permutation)
          fail("field 'perm' must be a permutation of 0.." + std::to_string(x.size() - 1) +
               " for the " + formatShape(x) + " input");
        l.shape.clear();
        for (std::int64_t a : l.target) l.shape.push_back(x[a]);
        break;
      }
    }
    // What the layer allocates, its output and its weights, each whole on the host and device.
    if (const std::string why = tensorTooLarge(elementCount(l.shape)); !why.empty())
      fail("its output " + formatShape(l.shape) + " " + why);
    for (std::int64_t d : l.shape)
      if (d > kMaxDimension)
        fail("its output " + formatShape(l.shape) + " has a dimension larger than " +
             std::to_string(kMaxDimension));
    known.insert(l.name);
    for (const Parameter& p : net.parameters(l))
      if (const std::string why = tensorTooLarge(elementCount(p.shape)); !why.empty())
        fail("its " + p.role + " " + formatShape(p.shape) + " " + why);
  }
  if (net.layers.empty()) throw InputError(source + ": the network has no layers");
  if (!known.count(net.output))
    throw InputError(source + ": output '" + net.output + "' names no input or layer");
  for (const auto& in : net.inputs)
    if (in.name == net.output)
      throw InputError(source + ": output '" + net.output +
                       "' is an input of the network: no layer computes it");
}

// A layer whose output reaches no output would be computed in every pass and tuned for nothing: a
// dead branch (the docs' tiny network with its pool reading the image) became the main task, 98% of
// the weight. The output is named, so such a layer is a mistake, most often a reader's misspelt
// input. Every layer but the output having a reader is enough: following readers from any layer
// ends at one without, which must then be the output.
void requireEveryLayerRead(const Network& net, const std::string& source) {
  for (const Layer& l : net.layers) {
    if (l.name == net.output || !net.consumers(l.name).empty()) continue;
    // A folded convolution read by nothing was read by its norm alone, and the norm by nothing:
    // the norm is the layer the file leaves unread.
    const bool norm = !l.foldedNorm.empty();
    throw InputError(
        source + ": layer '" + (norm ? l.foldedNorm : l.name) + "' (" +
        std::string(norm ? layerKindName(LayerKind::BatchNorm) : layerKindName(l.kind)) +
        ") is read by no layer and is not the output ('" + net.output +
        "'): a typo in an input name?");
  }
}

void foldBatchNorms(Network& net) {
  for (std::size_t i = 0; i < net.layers.size();) {
    Layer& bn = net.layers[i];
    Layer* conv = nullptr;
    if (bn.kind == LayerKind::BatchNorm)
      for (Layer& l : net.layers)
        if (l.name == bn.inputs[0] && l.kind == LayerKind::Conv2D && l.foldedNorm.empty())
          conv = &l;
    if (!conv || net.consumers(conv->name).size() != 1 || net.output == conv->name) {
      ++i;
      continue;
    }
    conv->foldedNorm = bn.name;
    conv->foldedEps = bn.eps;
    conv->foldedConvHadBias = conv->bias;
    conv->bias = true;
    const std::string from = bn.name, to = conv->name;
    for (Layer& l : net.layers)
      for (std::string& in : l.inputs)
        if (in == from) in = to;
    if (net.output == from) net.output = to;
    net.layers.erase(net.layers.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace opevo::net
