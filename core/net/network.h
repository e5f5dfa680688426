#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace opevo::net {

using Shape = std::vector<std::int64_t>;

// The layers a network file may hold (docs/networks.md). Every tensor is fp32; images are NCHW.
enum class LayerKind {
  Conv2D,       // input NCHW -> N x out_channels x Ho x Wo; weight F x C/groups x kh x kw
  Dense,        // input ... x in -> ... x units; weight units x in (as frameworks store it)
  MatMul,       // two inputs: n x k @ k x m (trans_a / trans_b transpose the stored operand)
  BatchMatMul,  // two inputs: b x n x k @ b x k x m
  BiasAdd,      // + a learned vector on the channel axis (1 of NCHW, else the last)
  Relu,
  Relu6,          // min(max(x, 0), 6), as torch.nn.ReLU6 (MobileNetV2)
  Gelu,           // exact form, x * Phi(x)
  Scale,          // x * factor
  Add,            // two inputs of one shape
  MaxPool,        // NCHW, square window, stride, padding (padding never wins the max)
  AvgPool,        // NCHW, square window, stride, padding (padding counts as zeros)
  GlobalAvgPool,  // NCHW -> N x C x 1 x 1
  Softmax,        // over the last axis
  LayerNorm,      // over the last axis, learned gain and shift
  BatchNorm,      // NCHW inference form; folded into the convolution before it at load time
  Flatten,        // N x ... -> N x (product of the rest)
  Reshape,        // to `shape` (one entry may be -1), same element count
  Transpose,      // axes permuted by `perm`
};

std::string_view layerKindName(LayerKind kind);
// Throws InputError naming the accepted names.
LayerKind parseLayerKind(std::string_view name, const std::string& where);

// Conv2D, Dense, MatMul and BatchMatMul: the operators a tuner works on (TVM's "complex"
// operators); the others run one fixed kernel each.
bool isComplex(LayerKind kind);
// Layers that can become a complex operator's epilogue: one value in, one value out, per element.
bool isFusable(LayerKind kind);

struct Layer {
  std::string name;  // also the name of its output tensor
  LayerKind kind = LayerKind::Relu;
  std::vector<std::string> inputs;
  Shape shape;  // of the output, inferred

  // Conv2D
  std::int64_t outChannels = 0, kernelH = 0, kernelW = 0, groups = 1;
  // Conv2D and pools: square stride and padding
  std::int64_t stride = 1, pad = 0;
  // Dense
  std::int64_t units = 0;
  // Conv2D and Dense: a learned bias added to the output
  bool bias = false;
  // MatMul, BatchMatMul
  bool transA = false, transB = false;
  // Scale
  double factor = 1;
  // LayerNorm, BatchNorm
  double eps = 1e-5;
  // Reshape (may hold one -1) and Transpose
  std::vector<std::int64_t> target;
  // Conv2D: the batch_norm layer folded into it at load time (its weights fold into this
  // layer's weight and bias); empty if none.
  std::string foldedNorm;
  double foldedEps = 1e-5;
  bool foldedConvHadBias = false;  // the convolution's own bias, before the norm's shift joined it
};

struct Input {
  std::string name;
  Shape shape;
};

// A learned tensor of a layer: its role ("weight", "bias", "gamma", ...) and shape. The
// executor and the reference fill them from one seed, so both compute the same function.
struct Parameter {
  std::string role;
  Shape shape;
};

struct Network {
  std::string name;
  std::string description;
  std::map<std::string, std::int64_t> params;  // the values used (defaults or overrides)
  std::vector<Input> inputs;
  std::vector<Layer> layers;  // in execution order: a layer reads inputs and earlier layers
  std::string output;

  const Layer* find(std::string_view name) const;
  // The shape of a network input or a layer's output; throws if neither exists.
  const Shape& shapeOf(std::string_view tensor) const;
  // The layers that read a tensor.
  std::vector<const Layer*> consumers(std::string_view tensor) const;
  // Multiply-adds count as two; elementwise and pooling work as one per element read.
  double flops(const Layer& layer) const;
  double flops() const;
  std::vector<Parameter> parameters(const Layer& layer) const;
  std::int64_t parameterCount() const;
};

std::int64_t elements(const Shape& shape);
// "1x64x55x55"
std::string formatShape(const Shape& shape);

// Infers every layer's output shape in order and checks that the shapes chain; throws InputError
// naming the source, the layer, its field and the shapes at fault.
void inferShapes(Network& net, const std::string& source);

// Throws InputError naming the first layer (before or after foldBatchNorms) whose output reaches
// no reader and is not the network's output. Only for a network file or preset loaded for a new
// tune, show or compare, or chosen in the window: a network run stored before the check existed,
// or an archive of one, must still read, show, resume and export.
void requireEveryLayerRead(const Network& net, const std::string& source);

// Removes each batch_norm whose input is a convolution read by nothing else, recording it in the
// convolution (Layer::foldedNorm), which gains a bias. Readers of the norm then read the
// convolution. Other batch_norms stay (they run as a fixed kernel).
void foldBatchNorms(Network& net);

}  // namespace opevo::net
