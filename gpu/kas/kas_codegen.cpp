#include "kas/kas_codegen.h"

#include <algorithm>
#include <functional>
#include <memory>

#include "codegen/code_writer.h"
#include "kas/interpreter.h"
#include "kas/kas_regions.h"
#include "space/discrete_param.h"

namespace opevo::kas {

SearchSpace kasScheduleSpace(std::int64_t height, std::int64_t width) {
  auto divisors = [](std::int64_t n) {
    std::vector<double> out;
    for (std::int64_t d = 1; d <= n; ++d)
      if (n % d == 0) out.push_back(static_cast<double>(d));
    return out;
  };
  SearchSpace space;
  space.add(std::make_shared<DiscreteParam>("tile_h", divisors(height)));
  space.add(std::make_shared<DiscreteParam>("tile_w", divisors(width)));
  space.add(std::make_shared<DiscreteParam>("fc_block", std::vector<double>{1, 2, 4, 8}));
  space.add(std::make_shared<DiscreteParam>("fc_width", std::vector<double>{8, 16, 32, 64}));
  auto index = [](const std::vector<double>& values, std::int64_t want) {
    std::int64_t best = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] <= static_cast<double>(want)) best = static_cast<std::int64_t>(i);
    return best;
  };
  space.setStartPoint({{index(divisors(height), 8)}, {index(divisors(width), width)}, {2}, {1}});
  return space;
}

KasSchedule kasSchedule(const SearchSpace& space, const Config& config) {
  auto value = [&](const char* name) {
    const auto i = static_cast<std::size_t>(space.indexOf(name));
    return static_cast<std::int64_t>(
        static_cast<const DiscreteParam&>(space.param(i)).value(config[i]));
  };
  return {value("tile_h"), value("tile_w"), value("fc_block"), value("fc_width")};
}

namespace {

std::string s(std::int64_t v) {
  return std::to_string(v);
}

// Folds and softmaxes, vectorized along image rows: over a channel dim (c) or the height (h) the
// running maximum / sum of each pixel of a row is kept in a row of temporaries and every source
// row is read contiguously; along the width (w) a row is itself the reduction.
using ElementAt = std::function<std::string(std::size_t, const std::string&, const std::string&,
                                            const std::string&)>;
void writeReduction(codegen::CodeWriter& w, PrimitiveKind kind, char along,
                    const std::vector<std::int64_t>& srcDims, std::size_t dim,
                    std::size_t channelDims, const std::string& id, std::int64_t outChannels,
                    std::int64_t imageLen, std::int64_t rowLen, const ElementAt& at,
                    std::size_t node, std::size_t src) {
  const bool softmax = kind == PrimitiveKind::Softmax, max = kind == PrimitiveKind::MaxFold;
  const std::string init = softmax || max ? "-INFINITY" : "0.f";
  auto combine = [&](const std::string& acc, const std::string& v) {
    return softmax || max ? acc + " = " + v + " > " + acc + " ? " + v + " : " + acc + ";"
                          : acc + " += " + v + ";";
  };
  const std::string x0 = "x0_" + id, x1 = "x1_" + id, y0 = "y0_" + id, y1 = "y1_" + id;
  if (along == 'w') {
    const std::string v = at(src, "c", "y", "j");
    const std::string loop = "for (long j = 0; j < " + s(imageLen) + "; ++j) ";
    w.line("for (long c = 0; c < " + s(outChannels) + "; ++c) for (long y = " + y0 + "; y < " + y1 +
           "; ++y) {");
    w.line("  float acc = " + init + ";");
    w.line("  " + loop + combine("acc", v));
    if (softmax) {
      w.line("  float sum = 0.f;");
      w.line("  " + loop + "sum += kas_exp(" + v + " - acc);");
      w.line("  _Pragma(\"omp simd\") for (long x = " + x0 + "; x < " + x1 + "; ++x) " +
             at(node, "c", "y", "x") + " = kas_exp(" + at(src, "c", "y", "x") + " - acc) / sum;");
    } else {
      w.line("  " + at(node, "c", "y", "0") + " = " +
             (max ? "acc" : "acc / " + s(imageLen) + ".f") + ";");
    }
    w.line("}");
    return;
  }
  std::int64_t outer = 1, len = imageLen, inner = 1;
  std::string srcC = "c", outC = "c", srcY = "j", header;
  if (along == 'c') {
    len = srcDims[dim];
    for (std::size_t k = 0; k < dim; ++k) outer *= srcDims[k];
    for (std::size_t k = dim + 1; k < channelDims; ++k) inner *= srcDims[k];
    srcC = "(a * " + s(len) + " + j) * " + s(inner) + " + b";
    outC = softmax ? srcC : "a * " + s(inner) + " + b";
    srcY = "y";
    header = "for (long a = 0; a < " + s(outer) + "; ++a) for (long b = 0; b < " + s(inner) +
             "; ++b) for (long y = " + y0 + "; y < " + y1 + "; ++y) {";
  } else {
    header = "for (long c = 0; c < " + s(outChannels) + "; ++c) {";
  }
  // Row pointers and a row loop from 0: the compiler vectorizes what it can see is contiguous.
  const std::string row = "_Pragma(\"omp simd\") for (long x = 0; x < n; ++x) ";
  const std::string loop = "for (long j = 0; j < " + s(len) + "; ++j) ";
  const std::string in = "const float* r = &" + at(src, srcC, srcY, x0) + "; ";
  w.line(header);
  w.line("  const long n = " + x1 + " - " + x0 + ";");
  w.line("  float acc[" + s(rowLen) + "], sum[" + s(rowLen) + "];");
  w.line("  " + row + "acc[x] = " + init + ";");
  w.line("  " + loop + "{ " + in + row + "{ " + combine("acc[x]", "r[x]") + " } }");
  if (!softmax) {
    // Along the height the output has no rows; along a channel it keeps the source's.
    const std::string outY = along == 'h' ? "0" : "y";
    w.line("  { float* o = &" + at(node, outC, outY, x0) + "; " + row +
           "o[x] = " + (max ? "acc[x]" : "acc[x] * (1.f / " + s(len) + ")") + "; }");
    w.line("}");
    return;
  }
  w.line("  " + row + "sum[x] = 0.f;");
  w.line("  " + loop + "{ " + in + row + "sum[x] += kas_exp(r[x] - acc[x]); }");
  if (along == 'c') {
    w.line("  " + loop + "{ " + in + "float* o = &" + at(node, srcC, "y", x0) + "; " + row +
           "o[x] = kas_exp(r[x] - acc[x]) / sum[x]; }");
  } else {
    w.line("  for (long y = " + y0 + "; y < " + y1 + "; ++y) { const float* r = &" +
           at(src, "c", "y", x0) + "; float* o = &" + at(node, "c", "y", x0) + "; " + row +
           "o[x] = kas_exp(r[x] - acc[x]) / sum[x]; }");
  }
  w.line("}");
}

}  // namespace

std::string generateKasCpuKernel(const MicroDag& dag,
                                 const std::vector<std::vector<std::int64_t>>& dims,
                                 const KasSchedule& schedule, const std::string& entry) {
  const auto& nodes = dag.nodes();
  const std::size_t count = nodes.size();
  const std::int64_t TH = schedule.tileH, TW = schedule.tileW;
  const KasRegions regions = kasRegions(dag, dims, TH, TW);
  const std::vector<NodeRegion>& info = regions.nodes;
  const std::int64_t H = regions.height, W = regions.width;
  auto rows = [&](std::size_t i) { return regions.rows(i); };
  auto cols = [&](std::size_t i) { return regions.cols(i); };

  codegen::CodeWriter w;
  w.comment("OpEvo Studio: a Canvas kernel (kas) fused into one loop over image tiles.\n" +
            dag.text() + "tile " + s(TH) + "x" + s(TW) + ", fc block " + s(schedule.fcBlock));
  w.line("#include <math.h>");
  w.line("#include <stdlib.h>");
  w.line("#include <string.h>");
  w.line();
  // expf from libm is a call per element; this one inlines and vectorizes (2^k times a degree-6
  // Taylor polynomial on |r| <= ln2/2: relative error under 3e-7, far inside the check's 1e-3).
  w.line("#ifndef OPEVO_KAS_EXP");
  w.line("#define OPEVO_KAS_EXP");
  w.line("#pragma omp declare simd notinbranch");
  w.open("static inline float kas_exp(float x)");
  w.line("x = x < -87.f ? -87.f : (x > 88.f ? 88.f : x);");
  // Rounded by adding and subtracting 1.5 * 2^23 rather than with floorf, which GCC does not
  // vectorize: a softmax's exp loops would otherwise run one float at a time.
  w.line("const float k = (x * 1.44269504f + 12582912.f) - 12582912.f;");
  w.line("const float r = (x - k * 0.693145752f) - k * 1.42860677e-6f;");
  w.line(
      "const float p = 1.f + r * (1.f + r * (0.5f + r * (1.f / 6 + r * (1.f / 24 + r * (1.f / 120 "
      "+ r * (1.f / 720))))));");
  w.line("return p * __builtin_bit_cast(float, ((int)k + 127) << 23);");
  w.close();
  w.line("#endif");
  w.line();
  // Channel maps of the blends.
  for (std::size_t i = 1; i < count; ++i) {
    if (!isBlend(nodes[i].kind)) continue;
    const auto l = static_cast<std::size_t>(nodes[i].inputs[0]),
               r = static_cast<std::size_t>(nodes[i].inputs[1]);
    const auto map = blendChannelMap(dag.shapes()[l], dims[l], dag.shapes()[r], dims[r]);
    std::string text = "static const int " + entry + "_map" + s(static_cast<std::int64_t>(i)) +
                       "[" + s(static_cast<std::int64_t>(map.size())) + "] = {";
    for (std::size_t k = 0; k < map.size(); ++k) {
      if (k > 0) text.push_back(',');
      text.append(s(map[k]));
    }
    w.line(text + "};");
  }
  std::int64_t scratch = 0;
  std::vector<std::int64_t> offset(count, -1);
  for (std::size_t i = 1; i < count; ++i)
    if (info[i].root == static_cast<int>(i)) {
      offset[i] = scratch;
      // Rounded to 16 floats so every buffer starts on a cache line.
      scratch += (info[i].shape.channels * rows(i) * cols(i) + 15) / 16 * 16;
    }
  w.line();
  w.open("extern \"C\" void " + entry +
         "(const float* input, const float* const* weights, float* output)");
  w.line("#pragma omp parallel");
  w.open("");
  // Each OpenMP thread's buffers are allocated on its first call and kept: a fresh allocation per
  // call of a few MB costs page faults on every page, more than small kernels compute.
  w.line("static thread_local float* scratch = (float*)aligned_alloc(64, sizeof(float) * " +
         s((scratch + 15) / 16 * 16) + ");");
  w.line("#pragma omp for collapse(2) schedule(static)");
  w.open("for (long ty = 0; ty < " + s(H) + "; ty += " + s(TH) + ")");
  w.open("for (long tx = 0; tx < " + s(W) + "; tx += " + s(TW) + ")");
  // Each node's buffer, origin and clamped extent in image coordinates.
  for (std::size_t i = 0; i < count; ++i) {
    const std::string id = s(static_cast<std::int64_t>(i));
    const NodeRegion& n = info[i];
    if (i == 0) {
      w.line("const float* b0 = input; const long yb0 = 0, xb0 = 0, y0_0 = 0, y1_0 = " + s(H) +
             ", x0_0 = 0, x1_0 = " + s(W) + ";");
      continue;
    }
    if (n.root == static_cast<int>(i))
      w.line("float* b" + id + " = scratch + " + s(offset[i]) + ";");
    auto extent = [&](bool has, const Reach& r, const char* t, std::int64_t len, std::int64_t tile,
                      const char* name) {
      if (!has)
        return std::string("const long ") + name + "b" + id + " = 0, " + name + "0_" + id +
               " = 0, " + name + "1_" + id + " = 1;";
      if (r.full)
        return std::string("const long ") + name + "b" + id + " = 0, " + name + "0_" + id +
               " = 0, " + name + "1_" + id + " = " + s(len) + ";";
      return std::string("const long ") + name + "b" + id + " = " + t + " + (" + s(r.lo) + "), " +
             name + "0_" + id + " = " + name + "b" + id + " < 0 ? 0 : " + name + "b" + id + ", " +
             name + "1_" + id + " = " + t + " + " + s(tile + r.hi) + " > " + s(len) + " ? " +
             s(len) + " : " + t + " + " + s(tile + r.hi) + ";";
    };
    w.line(extent(n.shape.hasH, n.h, "ty", H, TH, "y"));
    w.line(extent(n.shape.hasW, n.w, "tx", W, TW, "x"));
  }
  // Element (c, y, x) of node i, in image coordinates.
  auto at = [&](std::size_t i, const std::string& c, const std::string& y, const std::string& x) {
    const std::size_t r = static_cast<std::size_t>(info[i].root);
    // A view indexes its root's buffer from the root's origin.
    const std::string rid = s(static_cast<std::int64_t>(r));
    const std::string yy = info[i].shape.hasH ? "((" + y + ") - yb" + rid + ")" : "0";
    const std::string xx = info[i].shape.hasW ? "((" + x + ") - xb" + rid + ")" : "0";
    return "b" + rid + "[((long)(" + c + ") * " + s(rows(r)) + " + " + yy + ") * " + s(cols(r)) +
           " + " + xx + "]";
  };
  for (std::size_t i = 1; i < count; ++i) {
    const Node& n = nodes[i];
    const std::string id = s(static_cast<std::int64_t>(i));
    const auto src = static_cast<std::size_t>(n.inputs[0]);
    const FlatShape& o = info[i].shape;
    const FlatShape& in = info[src].shape;
    w.comment("node " + id + ": " + std::string(primitiveName(n.kind)) + " -> " +
              shapeText(dag.shapes()[i]));
    if (isView(n.kind)) continue;
    const Shape& inShape = dag.shapes()[src];
    const bool alongH =
        takesDim(n.kind) && inShape[static_cast<std::size_t>(n.dim)].role == DimRole::Height;
    const bool alongW =
        takesDim(n.kind) && inShape[static_cast<std::size_t>(n.dim)].role == DimRole::Width;
    const bool alongChannel = takesDim(n.kind) && !alongH && !alongW;
    switch (n.kind) {
      case PrimitiveKind::Shift:
      case PrimitiveKind::Unfold: {
        // Unfold: channel c * k + j is the source's channel c moved by j - k/2 (zero outside the
        // image); shift: moved by +1. Whole rows move along the height; along the width a row
        // is copied from its part inside the image.
        const bool unfold = n.kind == PrimitiveKind::Unfold;
        const std::int64_t k = unfold ? o.channels / in.channels : 1;
        const std::string move = unfold ? "j - " + s(k / 2) : "1";
        const std::string X0 = "x0_" + id;
        w.line("for (long c = 0; c < " + s(in.channels) + "; ++c) for (long j = 0; j < " + s(k) +
               "; ++j) for (long y = y0_" + id + "; y < y1_" + id + "; ++y) {");
        w.line("  const long n = x1_" + id + " - " + X0 + ", d = " + move + ";");
        w.line("  float* o = &" + at(i, "c * " + s(k) + " + j", "y", X0) + ";");
        if (alongH) {
          w.line("  const long v = y + d;");
          w.line("  if (v >= 0 && v < " + s(H) + ") { const float* r = &" + at(src, "c", "v", X0) +
                 "; _Pragma(\"omp simd\") for (long x = 0; x < n; ++x) o[x] = r[x]; }");
          w.line("  else { _Pragma(\"omp simd\") for (long x = 0; x < n; ++x) o[x] = 0.f; }");
        } else {
          // Pixels x with 0 <= x0 + x + d < W read the source; the rest are zero.
          w.line("  const long lo = " + X0 + " + d < 0 ? -(" + X0 + " + d) : 0;");
          w.line("  const long hi = " + s(W) + " - " + X0 + " - d < n ? " + s(W) + " - " + X0 +
                 " - d : n;");
          w.line("  for (long x = 0; x < lo && x < n; ++x) o[x] = 0.f;");
          w.line("  if (lo < hi) { const float* r = &" + at(src, "c", "y", X0 + " + d + lo") +
                 "; _Pragma(\"omp simd\") for (long x = lo; x < hi; ++x) o[x] = r[x - lo]; }");
          w.line("  for (long x = hi > lo ? hi : lo; x < n; ++x) o[x] = 0.f;");
        }
        w.line("}");
        break;
      }
      case PrimitiveKind::FullyConnected:
      case PrimitiveKind::GroupedFc: {
        const std::int64_t groups = n.kind == PrimitiveKind::GroupedFc ? dims[src][0] : 1;
        const std::int64_t ci = in.channels / groups, co = o.channels / groups;
        std::int64_t block = std::max<std::int64_t>(1, schedule.fcBlock);
        while (co % block != 0) block /= 2;
        const std::int64_t xb = std::max<std::int64_t>(1, schedule.fcWidth);
        const auto srcRoot = static_cast<std::size_t>(info[src].root);
        // Whole rows of both buffers, one after another: the tile's pixels are one run.
        auto fullWidth = [&](std::size_t k) {
          const NodeRegion& nk = info[k];
          return k == 0 || !nk.shape.hasW || nk.w.full || (TW == W && nk.w.lo == 0 && nk.w.hi == 0);
        };
        const bool flat = fullWidth(i) && fullWidth(srcRoot) && cols(i) == cols(srcRoot) &&
                          info[i].shape.hasW == info[srcRoot].shape.hasW;
        const std::string inStride = s(rows(srcRoot) * cols(srcRoot)),
                          outStride = s(rows(i) * cols(i));
        w.line("{ const float* wt = weights[" + id + "];");
        w.open("for (long g = 0; g < " + s(groups) + "; ++g) for (long o = 0; o < " + s(co) +
               "; o += " + s(block) + ")");
        if (flat) {
          w.open("");
          w.line("const long n = (y1_" + id + " - y0_" + id + ") * (x1_" + id + " - x0_" + id +
                 ");");
          w.line("float* outp = &" + at(i, "g * " + s(co) + " + o", "y0_" + id, "x0_" + id) + ";");
          w.line("const float* inp = &" + at(src, "g * " + s(ci), "y0_" + id, "x0_" + id) + ";");
        } else {
          w.open("for (long y = y0_" + id + "; y < y1_" + id + "; ++y)");
          w.line("const long n = x1_" + id + " - x0_" + id + ";");
          w.line("float* outp = &" + at(i, "g * " + s(co) + " + o", "y", "x0_" + id) + ";");
          w.line("const float* inp = &" + at(src, "g * " + s(ci), "y", "x0_" + id) + ";");
        }
        // Accumulators for `block` output channels x `xb` pixels stay in registers across the
        // whole reduction; a shorter last run of pixels takes the same loop with its own length.
        for (const bool tail : {false, true}) {
          if (!tail)
            w.open("long p = 0; for (; p + " + s(xb) + " <= n; p += " + s(xb) + ")");
          else
            w.open("if (p < n)");
          const std::string len = tail ? "(n - p)" : s(xb);
          w.line("float acc[" + s(block) + "][" + s(xb) + "] = {};");
          w.open("for (long c = 0; c < " + s(ci) + "; ++c)");
          w.line("const float* row = inp + c * " + inStride + " + p;");
          for (std::int64_t b = 0; b < block; ++b)
            w.line("const float w" + s(b) + " = wt[(g * " + s(co) + " + o + " + s(b) + ") * " +
                   s(ci) + " + c];");
          w.line("#pragma omp simd");
          std::string body = "for (long x = 0; x < " + len + "; ++x) {";
          for (std::int64_t b = 0; b < block; ++b)
            body += " acc[" + s(b) + "][x] += w" + s(b) + " * row[x];";
          w.line(body + " }");
          w.close();
          for (std::int64_t b = 0; b < block; ++b)
            w.line("for (long x = 0; x < " + len + "; ++x) outp[" + s(b) + " * " + outStride +
                   " + p + x] = acc[" + s(b) + "][x];");
          w.close();
          if (!tail) w.line("(void)p;");
        }
        w.close();
        w.close();
        w.line("}");
        break;
      }
      case PrimitiveKind::Relu:
      case PrimitiveKind::Abs:
      case PrimitiveKind::Sin:
      case PrimitiveKind::Exp: {
        const std::string f = n.kind == PrimitiveKind::Relu  ? "(r[x] > 0.f ? r[x] : 0.f)"
                              : n.kind == PrimitiveKind::Abs ? "fabsf(r[x])"
                              : n.kind == PrimitiveKind::Sin ? "sinf(r[x])"
                                                             : "kas_exp(r[x])";
        const std::string X0 = "x0_" + id;
        w.line("for (long c = 0; c < " + s(o.channels) + "; ++c) for (long y = y0_" + id +
               "; y < y1_" + id + "; ++y) { const long n = x1_" + id + " - " + X0 +
               "; const float* r = &" + at(src, "c", "y", X0) + "; float* o = &" +
               at(i, "c", "y", X0) +
               "; _Pragma(\"omp simd\") for (long x = 0; x < n; ++x) o[x] = " + f + "; }");
        break;
      }
      case PrimitiveKind::AvgFold:
      case PrimitiveKind::MaxFold:
      case PrimitiveKind::Softmax:
        writeReduction(
            w, n.kind,
            alongChannel ? 'c'
            : alongH     ? 'h'
                         : 'w',
            dims[src], static_cast<std::size_t>(n.dim), in.channelDims.size(), id, o.channels,
            alongH ? H : W, cols(i),
            [&](std::size_t k, const std::string& c, const std::string& y, const std::string& x) {
              return at(k, c, y, x);
            },
            i, src);
        break;
      default: {  // blend
        const auto rhs = static_cast<std::size_t>(n.inputs[1]);
        const std::string op = n.kind == PrimitiveKind::Add   ? "l + r[x]"
                               : n.kind == PrimitiveKind::Sub ? "l - r[x]"
                               : n.kind == PrimitiveKind::Mul ? "l * r[x]"
                               : n.kind == PrimitiveKind::Min ? "(l < r[x] ? l : r[x])"
                                                              : "(l > r[x] ? l : r[x])";
        const std::string X0 = "x0_" + id;
        // LHS without a width is one value per row, repeated along it.
        const bool lhsRow = in.hasW;
        w.line("for (long c = 0; c < " + s(o.channels) + "; ++c) { const long lc = " + entry +
               "_map" + id + "[c]; for (long y = y0_" + id + "; y < y1_" + id + "; ++y) {");
        w.line("  const long n = x1_" + id + " - " + X0 + ";");
        w.line("  const float* lp = &" + at(src, "lc", "y", X0) + "; const float* r = &" +
               at(rhs, "c", "y", X0) + "; float* o = &" + at(i, "c", "y", X0) + ";");
        w.line(
            std::string("  _Pragma(\"omp simd\") for (long x = 0; x < n; ++x) { const float l = ") +
            (lhsRow ? "lp[x]" : "lp[0]") + "; o[x] = " + op + "; }");
        w.line("} }");
        break;
      }
    }
  }
  // The tile of the output.
  const std::size_t last = count - 1;
  w.line("for (long c = 0; c < " + s(info[last].shape.channels) +
         "; ++c) for (long y = ty; y < ty + " + s(TH) + "; ++y) for (long x = tx; x < tx + " +
         s(TW) + "; ++x)");
  w.line("  output[(c * " + s(H) + " + y) * " + s(W) + " + x] = " + at(last, "c", "y", "x") + ";");
  w.close();
  w.close();
  w.close();
  w.close();
  return w.str();
}

}  // namespace opevo::kas
