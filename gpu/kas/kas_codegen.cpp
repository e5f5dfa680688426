#include "kas/kas_codegen.h"

#include <algorithm>
#include <memory>

#include "codegen/code_writer.h"
#include "kas/interpreter.h"
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
  auto index = [](const std::vector<double>& values, std::int64_t want) {
    std::int64_t best = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] <= static_cast<double>(want)) best = static_cast<std::int64_t>(i);
    return best;
  };
  space.setStartPoint({{index(divisors(height), 8)}, {index(divisors(width), width)}, {2}});
  return space;
}

KasSchedule kasSchedule(const SearchSpace& space, const Config& config) {
  auto value = [&](const char* name) {
    const auto i = static_cast<std::size_t>(space.indexOf(name));
    return static_cast<std::int64_t>(
        static_cast<const DiscreteParam&>(space.param(i)).value(config[i]));
  };
  return {value("tile_h"), value("tile_w"), value("fc_block")};
}

namespace {

// The part of a tensor a tile needs along one image dim: [tile start + lo, tile end + hi), or all
// of it.
struct Reach {
  bool set = false, full = false;
  std::int64_t lo = 0, hi = 0;
  void widen(const Reach& r) {
    if (!r.set) return;
    if (!set) {
      *this = r;
      return;
    }
    full = full || r.full;
    lo = std::min(lo, r.lo);
    hi = std::max(hi, r.hi);
  }
  Reach shifted(std::int64_t a, std::int64_t b) const {
    Reach r = *this;
    r.lo += a;
    r.hi += b;
    return r;
  }
};

struct NodeInfo {
  FlatShape shape;
  Reach h, w;
  int root = 0;  // the node whose buffer holds its elements (itself unless a view)
};

bool isView(PrimitiveKind k) {
  return k == PrimitiveKind::Group || k == PrimitiveKind::GroupEach;
}

std::string s(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

std::string generateKasCpuKernel(const MicroDag& dag,
                                 const std::vector<std::vector<std::int64_t>>& dims,
                                 const KasSchedule& schedule, const std::string& entry) {
  const auto& nodes = dag.nodes();
  const std::size_t count = nodes.size();
  std::vector<NodeInfo> info(count);
  for (std::size_t i = 0; i < count; ++i) info[i].shape = flatShape(dag.shapes()[i], dims[i]);
  const std::int64_t H = info[0].shape.h, W = info[0].shape.w;
  const std::int64_t TH = schedule.tileH, TW = schedule.tileW;

  // What each node needs of its inputs, from the output (one tile) back to the input.
  info[count - 1].h = {true, false, 0, 0};
  info[count - 1].w = {true, false, 0, 0};
  for (std::size_t i = count; i-- > 1;) {
    const Node& n = nodes[i];
    const Shape& inShape = dag.shapes()[static_cast<std::size_t>(n.inputs[0])];
    const bool alongH =
        takesDim(n.kind) && inShape[static_cast<std::size_t>(n.dim)].role == DimRole::Height;
    const bool alongW =
        takesDim(n.kind) && inShape[static_cast<std::size_t>(n.dim)].role == DimRole::Width;
    for (int in : n.inputs) {
      NodeInfo& src = info[static_cast<std::size_t>(in)];
      Reach needH = info[i].h, needW = info[i].w;
      const bool wholeAlong = n.kind == PrimitiveKind::AvgFold ||
                              n.kind == PrimitiveKind::MaxFold || n.kind == PrimitiveKind::Softmax;
      if (n.kind == PrimitiveKind::Shift) {
        if (alongH) needH = needH.shifted(1, 1);
        if (alongW) needW = needW.shifted(1, 1);
      } else if (n.kind == PrimitiveKind::Unfold) {
        const std::int64_t k =
            info[i].shape.channels / info[static_cast<std::size_t>(in)].shape.channels;
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
  // Views share their source's buffer, so they take its extent.
  for (std::size_t i = 1; i < count; ++i)
    if (isView(nodes[i].kind)) {
      const int from = nodes[i].inputs[0];
      info[i].root = info[static_cast<std::size_t>(from)].root;
      info[i].h = info[static_cast<std::size_t>(from)].h;
      info[i].w = info[static_cast<std::size_t>(from)].w;
    } else {
      info[i].root = static_cast<int>(i);
    }

  auto rows = [&](std::size_t i) {
    const NodeInfo& n = info[i];
    if (!n.shape.hasH) return std::int64_t{1};
    return n.h.full || i == 0 ? H : TH + n.h.hi - n.h.lo;
  };
  auto cols = [&](std::size_t i) {
    const NodeInfo& n = info[i];
    if (!n.shape.hasW) return std::int64_t{1};
    return n.w.full || i == 0 ? W : TW + n.w.hi - n.w.lo;
  };

  codegen::CodeWriter w;
  w.comment("OpEvo Studio: a Canvas kernel (kas) fused into one loop over image tiles.\n" +
            dag.text() + "tile " + s(TH) + "x" + s(TW) + ", fc block " + s(schedule.fcBlock));
  w.line("#include <math.h>");
  w.line("#include <stdlib.h>");
  w.line("#include <string.h>");
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
  w.line("float* scratch = (float*)aligned_alloc(64, sizeof(float) * " + s(scratch) + ");");
  w.line("#pragma omp for collapse(2) schedule(static)");
  w.open("for (long ty = 0; ty < " + s(H) + "; ty += " + s(TH) + ")");
  w.open("for (long tx = 0; tx < " + s(W) + "; tx += " + s(TW) + ")");
  // Each node's buffer, origin and clamped extent in image coordinates.
  for (std::size_t i = 0; i < count; ++i) {
    const std::string id = s(static_cast<std::int64_t>(i));
    const NodeInfo& n = info[i];
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
  auto pixels = [&](std::size_t i) {
    const std::string id = s(static_cast<std::int64_t>(i));
    return "for (long y = y0_" + id + "; y < y1_" + id + "; ++y) for (long x = x0_" + id +
           "; x < x1_" + id + "; ++x)";
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
      case PrimitiveKind::Shift: {
        const std::string cond = alongH ? "y + 1 < " + s(H) : "x + 1 < " + s(W);
        w.line("for (long c = 0; c < " + s(o.channels) + "; ++c) " + pixels(i));
        w.line("  " + at(i, "c", "y", "x") + " = " + cond + " ? " +
               at(src, "c", alongH ? "y + 1" : "y", alongH ? "x" : "x + 1") + " : 0.f;");
        break;
      }
      case PrimitiveKind::Unfold: {
        const std::int64_t k = o.channels / in.channels;
        const std::string from = alongH ? "y + j - " + s(k / 2) : "x + j - " + s(k / 2);
        const std::string len = alongH ? s(H) : s(W);
        w.line("for (long c = 0; c < " + s(in.channels) + "; ++c) for (long j = 0; j < " + s(k) +
               "; ++j) " + pixels(i) + " {");
        w.line("  const long v = " + from + ";");
        w.line("  " + at(i, "c * " + s(k) + " + j", "y", "x") + " = v >= 0 && v < " + len + " ? " +
               at(src, "c", alongH ? "v" : "y", alongH ? "x" : "v") + " : 0.f;");
        w.line("}");
        break;
      }
      case PrimitiveKind::FullyConnected:
      case PrimitiveKind::GroupedFc: {
        const std::int64_t groups = n.kind == PrimitiveKind::GroupedFc ? dims[src][0] : 1;
        const std::int64_t ci = in.channels / groups, co = o.channels / groups;
        std::int64_t block = std::max<std::int64_t>(1, schedule.fcBlock);
        while (co % block != 0) block /= 2;
        w.line("{ const float* wt = weights[" + id + "];");
        w.open("for (long g = 0; g < " + s(groups) + "; ++g) for (long o = 0; o < " + s(co) +
               "; o += " + s(block) + ")");
        w.open("for (long y = y0_" + id + "; y < y1_" + id + "; ++y)");
        w.line("const long n = x1_" + id + " - x0_" + id + ";");
        for (std::int64_t b = 0; b < block; ++b) {
          w.line("float* out" + s(b) + " = &" +
                 at(i, "g * " + s(co) + " + o + " + s(b), "y", "x0_" + id) + ";");
          w.line("memset(out" + s(b) + ", 0, sizeof(float) * n);");
        }
        w.open("for (long c = 0; c < " + s(ci) + "; ++c)");
        w.line("const float* row = &" + at(src, "g * " + s(ci) + " + c", "y", "x0_" + id) + ";");
        for (std::int64_t b = 0; b < block; ++b)
          w.line("const float w" + s(b) + " = wt[(g * " + s(co) + " + o + " + s(b) + ") * " +
                 s(ci) + " + c];");
        w.line("#pragma omp simd");
        std::string body = "for (long x = 0; x < n; ++x) {";
        for (std::int64_t b = 0; b < block; ++b)
          body += " out" + s(b) + "[x] += w" + s(b) + " * row[x];";
        w.line(body + " }");
        w.close();
        w.close();
        w.close();
        w.line("}");
        break;
      }
      case PrimitiveKind::Relu:
      case PrimitiveKind::Abs:
      case PrimitiveKind::Sin:
      case PrimitiveKind::Exp: {
        const std::string v = at(src, "c", "y", "x");
        const std::string f = n.kind == PrimitiveKind::Relu  ? "(" + v + " > 0.f ? " + v + " : 0.f)"
                              : n.kind == PrimitiveKind::Abs ? "fabsf(" + v + ")"
                              : n.kind == PrimitiveKind::Sin ? "sinf(" + v + ")"
                                                             : "expf(" + v + ")";
        w.line("for (long c = 0; c < " + s(o.channels) + "; ++c) " + pixels(i));
        w.line("  " + at(i, "c", "y", "x") + " = " + f + ";");
        break;
      }
      case PrimitiveKind::AvgFold:
      case PrimitiveKind::MaxFold:
      case PrimitiveKind::Softmax: {
        const bool max = n.kind == PrimitiveKind::MaxFold;
        const bool softmax = n.kind == PrimitiveKind::Softmax;
        std::int64_t outer = 1, len = 1, inner = 1;
        std::string srcC, srcY = "y", srcX = "x", outC;
        if (alongChannel) {
          const auto d = static_cast<std::size_t>(n.dim);
          len = dims[src][d];
          for (std::size_t k = 0; k < d; ++k) outer *= dims[src][k];
          for (std::size_t k = d + 1; k < in.channelDims.size(); ++k) inner *= dims[src][k];
          srcC = "(a * " + s(len) + " + j) * " + s(inner) + " + b";
          outC = softmax ? srcC : "a * " + s(inner) + " + b";
          w.line("for (long a = 0; a < " + s(outer) + "; ++a) for (long b = 0; b < " + s(inner) +
                 "; ++b) " + pixels(i) + " {");
        } else {
          len = alongH ? H : W;
          srcC = "c";
          outC = "c";
          (alongH ? srcY : srcX) = "j";
          w.line("for (long c = 0; c < " + s(o.channels) + "; ++c) " + pixels(i) + " {");
        }
        const std::string v = at(src, srcC, srcY, srcX);
        const std::string loop = "for (long j = 0; j < " + s(len) + "; ++j) ";
        if (softmax) {
          w.line("  float top = -INFINITY, sum = 0.f;");
          w.line("  " + loop + "top = " + v + " > top ? " + v + " : top;");
          w.line("  " + loop + "sum += expf(" + v + " - top);");
          const std::string self =
              alongChannel ? at(src, "(a * " + s(len) + " + jj) * " + s(inner) + " + b", "y", "x")
                           : at(src, "c", "y", "x");
          if (alongChannel) {
            w.line("  " + loop + "{ const long jj = j; " +
                   at(i, "(a * " + s(len) + " + jj) * " + s(inner) + " + b", "y", "x") +
                   " = expf(" + self + " - top) / sum; }");
          } else {
            w.line("  " + at(i, "c", "y", "x") + " = expf(" + self + " - top) / sum;");
          }
        } else {
          w.line(std::string("  float acc = ") + (max ? "-INFINITY" : "0.f") + ";");
          w.line("  " + loop +
                 (max ? "acc = " + v + " > acc ? " + v + " : acc;" : "acc += " + v + ";"));
          w.line("  " + at(i, outC, "y", "x") + " = " + (max ? "acc" : "acc / " + s(len) + ".f") +
                 ";");
        }
        w.line("}");
        break;
      }
      default: {  // blend
        const auto rhs = static_cast<std::size_t>(n.inputs[1]);
        const std::string op = n.kind == PrimitiveKind::Add   ? "l + r"
                               : n.kind == PrimitiveKind::Sub ? "l - r"
                               : n.kind == PrimitiveKind::Mul ? "l * r"
                               : n.kind == PrimitiveKind::Min ? "(l < r ? l : r)"
                                                              : "(l > r ? l : r)";
        w.line("for (long c = 0; c < " + s(o.channels) + "; ++c) { const long lc = " + entry +
               "_map" + id + "[c]; " + pixels(i) + " {");
        w.line("  const float l = " + at(src, "lc", "y", "x") + ", r = " + at(rhs, "c", "y", "x") +
               ";");
        w.line("  " + at(i, "c", "y", "x") + " = " + op + ";");
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
  w.line("free(scratch);");
  w.close();
  w.close();
  return w.str();
}

}  // namespace opevo::kas
