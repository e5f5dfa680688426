#include "ops/operator.h"

#include <algorithm>

#include "common/error.h"
#include "common/size_limits.h"
#include "ops/operator_problems.h"

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

std::string shapeValueProblem(std::string_view field, std::string_view got) {
  // pad is the one shape field that may be 0; every other is a count of something, at least 1.
  const char* range =
      field == "pad" ? " must be an integer, 0 or more, got " : " must be a positive integer, got ";
  return std::string(field) + range + std::string(got);
}

std::string problemsInOneLine(const std::vector<std::string>& problems) {
  if (problems.empty()) return {};
  // The prefix is everything up to the first's "operator 'NAME': " (its source before it).
  const std::string& first = problems.front();
  std::string prefix;
  if (const std::size_t at = first.find("operator '"); at != std::string::npos)
    if (const std::size_t end = first.find("': ", at); end != std::string::npos)
      prefix = first.substr(0, end + 3);
  std::string line = first;
  for (std::size_t i = 1; i < problems.size(); ++i) {
    const std::string& p = problems[i];
    const bool shared = !prefix.empty() && p.compare(0, prefix.size(), prefix) == 0;
    line += "; " + (shared ? p.substr(prefix.size()) : p);
  }
  return line;
}

std::vector<std::string> operatorProblems(const OperatorSpec& op,
                                          const std::map<std::string, std::string>& unread) {
  const std::string& name = op.name;
  const std::int64_t batch = op.batch, n = op.n, m = op.m, k = op.k;
  const std::int64_t inChannels = op.inChannels, height = op.height, width = op.width;
  const std::int64_t outChannels = op.outChannels, kernelH = op.kernelH, kernelW = op.kernelW;
  const std::int64_t stride = op.stride, pad = op.pad, groups = op.groups;
  const OpKind kind = op.kind;
  std::vector<std::string> out;
  auto fail = [&](const std::string& what) { out.push_back("operator '" + name + "': " + what); };
  // A field a file did not give as an integer: said in its place, and nothing is checked with it.
  auto readable = [&](const char* field) {
    const auto it = unread.find(field);
    if (it == unread.end()) return true;
    fail(it->second);
    return false;
  };
  auto positive = [&](std::int64_t v, const char* field) {
    if (!readable(field)) return false;
    if (v < 1) {
      fail(shapeValueProblem(field, std::to_string(v)));
      return false;
    }
    if (v > kMaxDimension) {
      fail(std::string(field) + " " + std::to_string(v) + " is larger than " +
           std::to_string(kMaxDimension) + " (a kernel's 32-bit dimensions)");
      return false;
    }
    return true;
  };
  // Each tensor is allocated whole: one too large is refused here, not by every trial.
  auto fits = [&](const char* tensor, std::vector<std::int64_t> dims) {
    if (const std::string why = tensorTooLarge(elementCount(dims)); !why.empty())
      fail(std::string(tensor) + " " + why);
  };
  bool good = positive(batch, "batch");
  if (kind == OpKind::Conv2D) {
    // Each field on its own line: the editor marks every one wrong at once.
    const bool in = positive(inChannels, "in_channels");
    const bool h = positive(height, "height");
    const bool w = positive(width, "width");
    const bool channels = positive(outChannels, "out_channels") && in;
    const bool kh = positive(kernelH, "kernel_h");
    const bool kw = positive(kernelW, "kernel_w");
    const bool s = positive(stride, "stride");
    const bool g = positive(groups, "groups");
    if (channels && g && (inChannels % groups != 0 || outChannels % groups != 0))
      fail("groups " + std::to_string(groups) + " must divide in_channels " +
           std::to_string(inChannels) + " and out_channels " + std::to_string(outChannels));
    bool p = readable("pad");
    if (p && pad < 0) {
      fail(shapeValueProblem("pad", std::to_string(pad)));
      p = false;
    } else if (p && pad > kMaxDimension) {
      fail("pad " + std::to_string(pad) + " is larger than " + std::to_string(kMaxDimension));
      p = false;
    }
    const bool window = h && w && kh && kw && p;
    if (window && (height + 2 * pad < kernelH || width + 2 * pad < kernelW))
      fail("the " + std::to_string(kernelH) + "x" + std::to_string(kernelW) +
           " kernel is larger than the padded " + std::to_string(height + 2 * pad) + "x" +
           std::to_string(width + 2 * pad) + " input, so the output would be empty");
    if (good && channels && g && window && s && out.empty()) {
      fits("the input", {batch, inChannels, height, width});
      fits("the weights", {outChannels, inChannels / groups, kernelH, kernelW});
      fits("the output", {batch, outChannels, op.outHeight(), op.outWidth()});
    }
    return out;
  }
  if (groups != 1)
    fail("groups apply to conv2d only, got " + std::to_string(groups) + " on a " +
         std::string(opKindName(kind)));
  good = positive(n, "n") && good;
  good = positive(m, "m") && good;
  good = positive(k, "k") && good;
  if (good) {
    fits("A", {batch, n, k});
    fits("B", {batch, k, m});
    fits("C", {batch, n, m});
  }
  return out;
}

void OperatorSpec::validate() const {
  const std::vector<std::string> all = operatorProblems(*this);
  if (!all.empty()) throw InputError(problemsInOneLine(all));
}

}  // namespace opevo
