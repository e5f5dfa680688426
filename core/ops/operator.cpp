#include "ops/operator.h"

#include <algorithm>

#include "common/error.h"
#include "common/size_limits.h"

namespace opevo {

std::string_view opKindName(OpKind kind) {
  switch (kind) {
    case OpKind::MatMul:
      return "matmul";
    case OpKind::BatchMatMul:
      return "batch_matmul";
    case OpKind::Conv2D:
      return "conv2d";
  }
  return "?";
}

std::int64_t OperatorSpec::outputElements() const {
  if (kind == OpKind::Conv2D) return batch * outChannels * outHeight() * outWidth();
  return batch * n * m;
}

double OperatorSpec::flops() const {
  const double perOutput = kind == OpKind::Conv2D
                               ? 2.0 * double(inChannels / groups) * double(kernelH * kernelW)
                               : 2.0 * double(k);
  return double(outputElements()) * (perOutput + epilogueFlopsPerElement(epilogue));
}

std::string OperatorSpec::describe() const {
  auto s = [](std::int64_t v) { return std::to_string(v); };
  if (kind == OpKind::Conv2D)
    return "Conv2D input " + s(batch) + "x" + s(inChannels) + "x" + s(height) + "x" + s(width) +
           ", kernel " + s(outChannels) + "x" + s(inChannels / std::max<std::int64_t>(groups, 1)) +
           "x" + s(kernelH) + "x" + s(kernelW) + ", stride " + s(stride) + ", pad " + s(pad) +
           (groups > 1 ? ", groups " + s(groups) : "") + " -> " + s(batch) + "x" + s(outChannels) +
           "x" + s(outHeight()) + "x" + s(outWidth()) + describeEpilogue(epilogue);
  const std::string a = transA ? s(k) + "x" + s(n) + "^T" : s(n) + "x" + s(k);
  const std::string b = transB ? s(m) + "x" + s(k) + "^T" : s(k) + "x" + s(m);
  if (kind == OpKind::BatchMatMul)
    return "BatchMatMul " + s(batch) + " x (" + a + " @ " + b + ")" + describeEpilogue(epilogue);
  return "MatMul " + a + " @ " + b + describeEpilogue(epilogue);
}

void OperatorSpec::validate() const {
  auto positive = [&](std::int64_t v, const char* field) {
    if (v < 1)
      throw InputError("operator '" + name + "': " + field + " must be a positive integer, got " +
                       std::to_string(v));
    if (v > kMaxDimension)
      throw InputError("operator '" + name + "': " + field + " " + std::to_string(v) +
                       " is larger than " + std::to_string(kMaxDimension) +
                       " (a kernel's 32-bit dimensions)");
  };
  // Each tensor is allocated whole: one too large is refused here, not by every trial.
  auto fits = [&](const char* tensor, std::vector<std::int64_t> dims) {
    if (const std::string why = tensorTooLarge(elementCount(dims)); !why.empty())
      throw InputError("operator '" + name + "': " + tensor + " " + why);
  };
  positive(batch, "batch");
  if (kind == OpKind::Conv2D) {
    positive(inChannels, "in_channels");
    positive(height, "height");
    positive(width, "width");
    positive(outChannels, "out_channels");
    positive(kernelH, "kernel_h");
    positive(kernelW, "kernel_w");
    positive(stride, "stride");
    positive(groups, "groups");
    if (inChannels % groups != 0 || outChannels % groups != 0)
      throw InputError("operator '" + name + "': groups " + std::to_string(groups) +
                       " must divide in_channels " + std::to_string(inChannels) +
                       " and out_channels " + std::to_string(outChannels));
    if (pad < 0)
      throw InputError("operator '" + name + "': pad must be 0 or more, got " +
                       std::to_string(pad));
    if (pad > kMaxDimension)
      throw InputError("operator '" + name + "': pad " + std::to_string(pad) + " is larger than " +
                       std::to_string(kMaxDimension));
    if (height + 2 * pad < kernelH || width + 2 * pad < kernelW)
      throw InputError("operator '" + name + "': the " + std::to_string(kernelH) + "x" +
                       std::to_string(kernelW) + " kernel is larger than the padded " +
                       std::to_string(height + 2 * pad) + "x" + std::to_string(width + 2 * pad) +
                       " input, so the output would be empty");
    fits("the input", {batch, inChannels, height, width});
    fits("the weights", {outChannels, inChannels / groups, kernelH, kernelW});
    fits("the output", {batch, outChannels, outHeight(), outWidth()});
    return;
  }
  if (groups != 1)
    throw InputError("operator '" + name + "': groups apply to conv2d only, got " +
                     std::to_string(groups) + " on a " + std::string(opKindName(kind)));
  positive(n, "n");
  positive(m, "m");
  positive(k, "k");
  fits("A", {batch, n, k});
  fits("B", {batch, k, m});
  fits("C", {batch, n, m});
}

}  // namespace opevo
