#include "kas/kas_gpu_codegen.h"

#include <stdexcept>
#include <utility>

#include "codegen/code_writer.h"
#include "kas/interpreter.h"
#include "kas/kas_gpu_tensors.h"
#include "kas/shape_matching.h"

namespace opevo::kas {

using detail::KasGpuTensors;
using detail::openLanes;
using detail::openPixel;
using detail::openRegion;
using detail::regionAxes;

namespace {

std::string s(std::int64_t v) {
  return std::to_string(v);
}

std::string prelude(GpuDialect dialect) {
  std::string p;
  if (dialect == GpuDialect::Hip) {
    p += "// ---- prelude: HIP (hiprtc, or hipcc for an exported kernel) ----\n";
    p += "#if !defined(__HIPCC_RTC__)\n#include <hip/hip_runtime.h>\n#endif\n";
    p += "#define OPEVO_KAS_NEG_INF (-__builtin_huge_valf())\n";
  } else {
    p += "// ---- prelude: CUDA (NVRTC, or nvcc for an exported kernel) ----\n";
    p += "#define OPEVO_KAS_NEG_INF (-__int_as_float(0x7f800000))\n";
  }
  // __launch_bounds__: AMD's compilers otherwise assume at most 256 threads per block; on CUDA it
  // lets ptxas budget registers for the real block size.
  p += "#define OPEVO_KAS_KERNEL(threads) extern \"C\" __global__ void "
       "__launch_bounds__(threads)\n";
  p += "#define OPEVO_KAS_SHARED extern __shared__ float smem[]\n";
  // Blend channel maps live in global memory, not __constant__: a module holding many kernels
  // (a network's layers, a test's batch) would outgrow constant memory's 64 KiB.
  p += "#define OPEVO_KAS_TABLE static __device__ const int\n";
  p += "// ---- end of prelude ----\n";
  return p;
}

// The LHS channel each output channel of blend `node` reads; empty where that is the same channel
// (no table needed).
std::vector<std::int64_t> blendTable(const MicroDag& dag,
                                     const std::vector<std::vector<std::int64_t>>& dims,
                                     std::size_t node) {
  const auto l = static_cast<std::size_t>(dag.nodes()[node].inputs[0]),
             r = static_cast<std::size_t>(dag.nodes()[node].inputs[1]);
  auto map = blendChannelMap(dag.shapes()[l], dims[l], dag.shapes()[r], dims[r]);
  for (std::size_t k = 0; k < map.size(); ++k)
    if (map[k] != static_cast<std::int64_t>(k)) return map;
  return {};
}

std::string unaryExpr(PrimitiveKind kind, const std::string& v) {
  switch (kind) {
    case PrimitiveKind::Relu:
      return "(" + v + " > 0.f ? " + v + " : 0.f)";
    case PrimitiveKind::Abs:
      return "fabsf(" + v + ")";
    case PrimitiveKind::Sin:
      return "sinf(" + v + ")";
    default:
      return "expf(" + v + ")";
  }
}

// As std::min / std::max in the reference, operand for operand.
std::string blendExpr(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Add:
      return "l + r";
    case PrimitiveKind::Sub:
      return "l - r";
    case PrimitiveKind::Mul:
      return "l * r";
    case PrimitiveKind::Min:
      return "(r < l ? r : l)";
    default:
      return "(l < r ? r : l)";
  }
}

// A fold or softmax over `len` values SRC(j), j = 0..len-1, for one lane: leaves the maximum
// (max fold, softmax) or sum (average fold) in acc and, for a softmax, the sum of exponentials in
// sum.
void reduce(codegen::CodeWriter& w, PrimitiveKind kind, std::int64_t len,
            const std::string& value) {
  const bool sum = kind == PrimitiveKind::AvgFold;
  w.line(std::string("float acc = ") + (sum ? "0.f" : "OPEVO_KAS_NEG_INF") + ";");
  w.line("for (int j = 0; j < " + s(len) + "; ++j) { const float v = " + value + "; " +
         (sum ? "acc += v;" : "acc = acc < v ? v : acc;") + " }");
  if (kind == PrimitiveKind::Softmax) {
    w.line("float sum = 0.f;");
    w.line("for (int j = 0; j < " + s(len) + "; ++j) sum += expf(" + value + " - acc);");
  }
}

std::string foldResult(PrimitiveKind kind, std::int64_t len) {
  return kind == PrimitiveKind::AvgFold ? "acc / " + s(len) + ".f" : "acc";
}

void emitReduction(codegen::CodeWriter& w, const KasGpuTensors& t, const MicroDag& dag,
                   const std::vector<std::vector<std::int64_t>>& dims, std::size_t i,
                   std::int64_t threads) {
  const Node& n = dag.nodes()[i];
  const auto src = static_cast<std::size_t>(n.inputs[0]);
  const FlatShape& o = t.shape(i);
  const bool softmax = n.kind == PrimitiveKind::Softmax;
  const Along a = along(dag, i);
  if (a == Along::Channel) {
    // The channel dims as (outer, len, inner); lanes over (outer, inner) x pixels.
    const auto d = static_cast<std::size_t>(n.dim);
    std::int64_t outer = 1, inner = 1;
    const std::int64_t len = dims[src][d];
    for (std::size_t k = 0; k < d; ++k) outer *= dims[src][k];
    for (std::size_t k = d + 1; k < t.shape(src).channelDims.size(); ++k) inner *= dims[src][k];
    openLanes(w, regionAxes(t, i, "q", outer * inner), threads);
    openPixel(w, t, i, o.hasH, o.hasW);
    w.line("const int a = q / " + s(inner) + ", b = q % " + s(inner) + ";");
    const std::string elem = "(a * " + s(len) + " + j) * " + s(inner) + " + b";
    reduce(w, n.kind, len, t.at(src, elem, "y", "x"));
    if (softmax)
      w.line("for (int j = 0; j < " + s(len) + "; ++j) " + t.at(i, elem, "y", "x") + " = expf(" +
             t.at(src, elem, "y", "x") + " - acc) / sum;");
    else
      w.line(t.at(i, "q", "y", "x") + " = " + foldResult(n.kind, len) + ";");
    w.close();
    return;
  }
  // Along an image dim: lanes over channels x the other image dim; the reduction reads the whole
  // of this one (the source holds all of it).
  const bool alongH = a == Along::Height;
  const std::int64_t len = alongH ? t.height() : t.width();
  const bool hasOther = alongH ? t.shape(src).hasW : t.shape(src).hasH;
  detail::KasAxes axes{{"c", o.channels}};
  if (hasOther)
    axes.push_back(alongH ? std::pair<std::string, std::int64_t>{"xx", t.regions().cols(i)}
                          : std::pair<std::string, std::int64_t>{"yy", t.regions().rows(i)});
  openLanes(w, axes, threads);
  openPixel(w, t, i, !alongH && hasOther, alongH && hasOther);
  const std::string value = alongH ? t.at(src, "c", "j", "x") : t.at(src, "c", "y", "j");
  reduce(w, n.kind, len, value);
  if (!softmax) {
    w.line(t.at(i, "c", "y", "x") + " = " + foldResult(n.kind, len) + ";");
  } else {
    // Every row (column) of the region along the softmaxed dim, from this lane's maximum and sum.
    const std::string v = alongH ? "y" : "x";
    const std::string loop = alongH ? "yy" : "xx";
    const std::string first = alongH ? t.originY(i) : t.originX(i);
    const std::int64_t extent = alongH ? t.regions().rows(i) : t.regions().cols(i);
    const bool beyond = alongH ? t.beyondY(i) : t.beyondX(i);
    w.open("for (int " + loop + " = 0; " + loop + " < " + s(extent) + "; ++" + loop + ")");
    w.line("const int " + v + " = " + first + " + " + loop + ";");
    if (beyond) w.line("if (" + v + " < 0 || " + v + " >= " + s(len) + ") continue;");
    w.line(t.at(i, "c", "y", "x") + " = expf(" + t.at(src, "c", "y", "x") + " - acc) / sum;");
    w.close();
  }
  w.close();
}

}  // namespace

std::string generateKasGpuKernel(const MicroDag& dag,
                                 const std::vector<std::vector<std::int64_t>>& dims,
                                 const KasGpuSchedule& schedule, GpuDialect dialect,
                                 const std::string& entry, std::int64_t sharedLimitBytes) {
  if (const std::string error = kasGpuScheduleError(dag, dims, schedule); !error.empty())
    throw std::invalid_argument(error);
  const KasGpuLayout layout =
      kasGpuLayout(dag, dims, schedule.tileH, schedule.tileW, sharedLimitBytes);
  const KasGpuTensors t(layout);
  const auto& nodes = dag.nodes();
  const std::size_t count = nodes.size(), last = count - 1;
  const std::int64_t H = t.height(), W = t.width(), TH = schedule.tileH, TW = schedule.tileW;
  const std::int64_t NT = schedule.threads;

  codegen::CodeWriter w;
  w.comment("OpEvo Studio: a Canvas kernel (kas), one thread block per image tile.\n" + dag.text() +
            "tile " + s(TH) + "x" + s(TW) + ", " + s(NT) + " threads, " +
            s(layout.sharedFloats * 4) + " bytes of shared memory, " + s(layout.scratchFloats) +
            " floats of scratch per block");
  w.line(prelude(dialect));
  for (std::size_t i = 1; i < count; ++i) {
    if (!isBlend(nodes[i].kind)) continue;
    const auto map = blendTable(dag, dims, i);
    if (map.empty()) continue;
    std::string text = "OPEVO_KAS_TABLE " + entry + "_map" + s(static_cast<std::int64_t>(i)) + "[" +
                       s(static_cast<std::int64_t>(map.size())) + "] = {";
    for (std::size_t k = 0; k < map.size(); ++k) {
      if (k > 0) text.push_back(',');
      text.append(s(map[k]));
    }
    w.line(text + "};");
  }
  w.open("OPEVO_KAS_KERNEL(" + s(NT) + ") " + entry +
         "(const float* __restrict__ input, const float* const* __restrict__ weights, "
         "float* __restrict__ output, float* __restrict__ scratch)");
  if (layout.sharedFloats > 0) w.line("OPEVO_KAS_SHARED;");
  w.line("const int tid = (int)threadIdx.x;");
  for (std::size_t i = 1; i < count; ++i)
    if (isFc(nodes[i].kind))
      w.line("const float* __restrict__ w" + s(static_cast<std::int64_t>(i)) + " = weights[" +
             s(static_cast<std::int64_t>(i)) + "];");
  if (layout.scratchFloats > 0)
    w.line("float* blockScratch = scratch + (long long)blockIdx.x * " + s(layout.scratchFloats) +
           ";");
  else
    w.line("(void)scratch;");
  // Blocks stride over the tiles when the launch has fewer (kasGpuLaunch, to bound the scratch).
  w.open("for (int tile = (int)blockIdx.x; tile < " + s((H / TH) * (W / TW)) +
         "; tile += (int)gridDim.x)");
  w.line("const int ty = tile / " + s(W / TW) + " * " + s(TH) + ", tx = tile % " + s(W / TW) +
         " * " + s(TW) + ";");
  w.line("(void)ty; (void)tx;");
  for (std::size_t i = 1; i < count; ++i) {
    const KasGpuBuffer& b = layout.buffers[i];
    if (t.root(i) != i || (b.arena != KasArena::Shared && b.arena != KasArena::Scratch)) continue;
    const std::string id = s(static_cast<std::int64_t>(i));
    w.line("float* b" + id + " = " + (b.arena == KasArena::Shared ? "smem" : "blockScratch") +
           " + " + s(b.offset) + ";");
    if (t.originY(i) != "0") w.line("const int yb" + id + " = " + t.originY(i) + ";");
    if (t.originX(i) != "0") w.line("const int xb" + id + " = " + t.originX(i) + ";");
  }
  for (std::size_t i = 1; i < count; ++i) {
    const Node& n = nodes[i];
    const std::string id = s(static_cast<std::int64_t>(i));
    w.comment("node " + id + ": " + std::string(primitiveName(n.kind)) + " -> " +
              shapeText(dag.shapes()[i]));
    if (isView(n.kind)) continue;
    const auto src = static_cast<std::size_t>(n.inputs[0]);
    const FlatShape& o = t.shape(i);
    const FlatShape& in = t.shape(src);
    switch (n.kind) {
      case PrimitiveKind::Shift:
      case PrimitiveKind::Unfold: {
        // Channel c * k + j reads the source's channel c moved by j - k/2 (a shift: c moved by 1),
        // zero outside the image.
        const std::int64_t k = n.kind == PrimitiveKind::Unfold ? o.channels / in.channels : 1;
        const bool alongH = along(dag, i) == Along::Height;
        openRegion(w, t, i, NT, "oc");
        if (k == 1)
          w.line("const int c = oc, d = 1;");
        else
          w.line("const int c = oc / " + s(k) + ", d = oc % " + s(k) + " - " + s(k / 2) + ";");
        const std::string v = alongH ? "y + d" : "x + d";
        w.line("const int v = " + v + ";");
        w.line(t.at(i, "oc", "y", "x") + " = v >= 0 && v < " + s(alongH ? H : W) + " ? " +
               t.at(src, "c", alongH ? "v" : "y", alongH ? "x" : "v") + " : 0.f;");
        w.close();
        break;
      }
      case PrimitiveKind::FullyConnected:
      case PrimitiveKind::GroupedFc: {
        // One output element per lane, its reduction over the input channels in a loop; the
        // lanes of a warp share the output channel, so each weight is one broadcast read.
        const std::int64_t groups = n.kind == PrimitiveKind::GroupedFc ? dims[src][0] : 1;
        const std::int64_t ci = in.channels / groups, co = o.channels / groups;
        openRegion(w, t, i, NT, "o");
        const std::string g = groups == 1 ? "0" : "(o / " + s(co) + ")";
        w.line("const float* __restrict__ wr = w" + id + " + o * " + s(ci) + ";");
        w.line("const float* src = &" + t.at(src, g + " * " + s(ci), "y", "x") + ";");
        w.line("float acc = 0.f;");
        w.line("#pragma unroll 4");
        w.line("for (int c = 0; c < " + s(ci) + "; ++c) acc += wr[c] * src[c * " +
               s(t.channelStride(src)) + "];");
        w.line(t.at(i, "o", "y", "x") + " = acc;");
        w.close();
        break;
      }
      case PrimitiveKind::Relu:
      case PrimitiveKind::Abs:
      case PrimitiveKind::Sin:
      case PrimitiveKind::Exp:
        openRegion(w, t, i, NT);
        w.line("const float v = " + t.at(src, "c", "y", "x") + ";");
        w.line(t.at(i, "c", "y", "x") + " = " + unaryExpr(n.kind, "v") + ";");
        w.close();
        break;
      case PrimitiveKind::AvgFold:
      case PrimitiveKind::MaxFold:
      case PrimitiveKind::Softmax:
        emitReduction(w, t, dag, dims, i, NT);
        break;
      default: {  // blends: LHS (a channel map away, repeated along dims it lacks) onto RHS
        const auto rhs = static_cast<std::size_t>(n.inputs[1]);
        openRegion(w, t, i, NT);
        const std::string lc = blendTable(dag, dims, i).empty() ? "c" : entry + "_map" + id + "[c]";
        w.line("const float l = " + t.at(src, lc, "y", "x") + ", r = " + t.at(rhs, "c", "y", "x") +
               ";");
        w.line(t.at(i, "c", "y", "x") + " = " + blendExpr(n.kind) + ";");
        w.close();
        break;
      }
    }
    // The next primitive reads what this one wrote (the output's own writes need no barrier).
    if (i != last) w.line("__syncthreads();");
  }
  if (t.arena(last) != KasArena::Output) {
    // The output is a view of an earlier buffer: its tile copied out.
    openLanes(w, {{"c", t.shape(last).channels}, {"yy", TH}, {"xx", TW}}, NT);
    w.line("const int y = ty + yy, x = tx + xx;");
    w.line("output[(c * " + s(H) + " + y) * " + s(W) + " + x] = " + t.at(last, "c", "y", "x") +
           ";");
    w.close();
  }
  // The next tile overwrites the buffers this one still reads.
  w.line("__syncthreads();");
  w.close();
  w.close();
  return w.str();
}

}  // namespace opevo::kas
