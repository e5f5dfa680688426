#include "net/fixed_layer_code.h"

#include <cstdio>

#include "codegen/code_writer.h"
#include "codegen/omp_parallel.h"
#include "codegen/templates.h"
#include "common/error.h"

namespace opevo::net {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

std::string real(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", v);
  return std::string("(float)(") + text + ")";
}

// rows x cols views of a tensor normalised over its last axis (softmax, layer_norm).
void rowsAndColumns(const Shape& s, std::int64_t& rows, std::int64_t& cols) {
  cols = s.back();
  rows = elements(s) / cols;
}

// `static const long NAME[] = {...};` of one offset per index of a logical dim.
void writeTable(codegen::CodeWriter& w, const std::string& name,
                const std::vector<std::int64_t>& values) {
  std::string line = "static const long " + name + "[" + str(std::int64_t(values.size())) + "] = {";
  for (std::size_t i = 0; i < values.size(); ++i) line += (i ? ", " : "") + str(values[i]);
  w.line(line + "};");
}

// The offsets of every index of logical dim d alone (the others at 0).
std::vector<std::int64_t> dimOffsets(const layout::Layout& l, std::size_t d) {
  std::vector<std::int64_t> index(l.logical().size(), 0), out;
  for (std::int64_t i = 0; i < l.logical()[d].extent; ++i) {
    index[d] = i;
    out.push_back(l.offset(index));
  }
  return out;
}

// The longest run of channels the offsets lay side by side, in whole runs from channel 0 (a
// divisor of the channel count): 16 in a layout blocked by 16 channels, 1 in NCHW. The pools read
// such a run as one contiguous stretch, which the compiler vectorizes.
std::int64_t contiguousChannels(const std::vector<std::int64_t>& offsets) {
  const auto count = static_cast<std::int64_t>(offsets.size());
  for (std::int64_t run = count; run > 1; --run) {
    if (count % run != 0) continue;
    bool side = true;
    for (std::int64_t c = 0; c + 1 < count && side; ++c)
      side = (c + 1) % run == 0 || offsets[std::size_t(c + 1)] == offsets[std::size_t(c)] + 1;
    if (side) return run;
  }
  return 1;
}

}  // namespace

bool canReadLayout(const Layer& layer, const layout::Layout& input) {
  if (layer.kind != LayerKind::MaxPool && layer.kind != LayerKind::AvgPool &&
      layer.kind != LayerKind::GlobalAvgPool)
    return false;
  if (input.logical().size() != 4) return false;
  for (const layout::Primitive& p : input.primitives())
    if (p.kind != layout::PrimitiveKind::Split && p.kind != layout::PrimitiveKind::Reorder)
      return false;
  return true;
}

std::string fixedLayerCpuSource(const Network& net, const Layer& l, const std::string& entry,
                                const layout::Layout& input) {
  if (!canReadLayout(l, input))
    throw InputError("layer '" + l.name + "' cannot read its input in the layout " +
                     input.describe());
  const Shape& x = net.shapeOf(l.inputs[0]);
  for (std::size_t d = 0; d < 4; ++d)
    if (input.logical()[d].extent != x[d])
      throw InputError("layer '" + l.name + "': the layout " + input.describe() +
                       " is not of its input " + formatShape(x));
  codegen::CodeWriter w;
  w.comment("OpEvo Studio fixed kernel for layer '" + l.name + "' (" +
            std::string(layerKindName(l.kind)) + "), " + formatShape(x) + " -> " +
            formatShape(l.shape) + ", reading its input laid out as " + input.describe() +
            " (ALT's layout propagation); generated, not tuned.");
  w.comment("An element's offset is the sum of one table entry per logical dim (n, c, h, w).");
  w.open("extern \"C\" void " + entry +
         "(const float* const* in, float* __restrict__ out, const float* const* params)");
  w.line("const float* __restrict__ x = in[0];");
  w.line("(void)params;");
  writeTable(w, "NOFF", dimOffsets(input, 0));
  // What it reads and writes: a small layer runs on one thread (codegen::kSerialElements).
  const double work = static_cast<double>(elements(x) + elements(l.shape));
  const std::vector<std::int64_t> channelOffsets = dimOffsets(input, 1);
  writeTable(w, "COFF", channelOffsets);
  writeTable(w, "HOFF", dimOffsets(input, 2));
  writeTable(w, "WOFF", dimOffsets(input, 3));
  w.line("constexpr long NB = " + str(x[0]) + ", C = " + str(x[1]) + ", H = " + str(x[2]) +
         ", W = " + str(x[3]) + ";");
  if (l.kind == LayerKind::GlobalAvgPool) {
    w.line(
        codegen::ompParallel(" for collapse(2) schedule(static)", work, codegen::Work::Elements));
    w.open("for (long nn = 0; nn < NB; ++nn)");
    w.open("for (long c = 0; c < C; ++c)");
    w.line("const float* const xc = x + NOFF[nn] + COFF[c];");
    w.line("float acc = 0.0f;");
    w.line("for (long h = 0; h < H; ++h)");
    w.line("for (long ww = 0; ww < W; ++ww) acc += xc[HOFF[h] + WOFF[ww]];");
    w.line("out[nn * C + c] = acc / (float)(H * W);");
    w.closeNest(2);
  } else {
    const bool max = l.kind == LayerKind::MaxPool;
    w.line("constexpr long OH = " + str(l.shape[2]) + ", OW = " + str(l.shape[3]) + ";");
    w.line("constexpr long K = " + str(l.kernelH) + ", S = " + str(l.stride) +
           ", P = " + str(l.pad) + ";");
    w.comment(
        "Channels innermost: a blocked layout keeps neighbouring channels side by side, CR of\n"
        "them in one contiguous run.");
    w.line("constexpr long CR = " + str(contiguousChannels(channelOffsets)) + ";");
    w.line(
        codegen::ompParallel(" for collapse(2) schedule(static)", work, codegen::Work::Elements));
    w.open("for (long nn = 0; nn < NB; ++nn)");
    w.open("for (long oy = 0; oy < OH; ++oy)");
    w.open("for (long ox = 0; ox < OW; ++ox)");
    w.line("float acc[C];");
    w.line(std::string("for (long c = 0; c < C; ++c) acc[c] = ") +
           (max ? "-__builtin_inff();" : "0.0f;"));
    w.open("for (long ky = 0; ky < K; ++ky)");
    w.open("for (long kx = 0; kx < K; ++kx)");
    w.line("const long iy = oy * S - P + ky, ix = ox * S - P + kx;");
    w.line("if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;");
    w.line("const float* const xp = x + NOFF[nn] + HOFF[iy] + WOFF[ix];");
    w.open("for (long c0 = 0; c0 < C; c0 += CR)");
    w.line("const float* const xr = xp + COFF[c0];");
    w.line("float* const ar = acc + c0;");
    w.line("#pragma omp simd");
    w.open("for (long c = 0; c < CR; ++c)");
    w.line("const float v = xr[c];");
    w.line(max ? "ar[c] = v > ar[c] ? v : ar[c];" : "ar[c] += v;");
    w.closeNest(4);
    w.line(std::string("for (long c = 0; c < C; ++c) out[((nn * C + c) * OH + oy) * OW + ox] = ") +
           (max ? "acc[c];" : "acc[c] / (float)(K * K);"));
    w.closeNest(3);
  }
  w.close();
  return w.str();
}

namespace {

// Builtins that differ between the host compiler and NVRTC/hiprtc.
struct MathNames {
  const char* exp;
  const char* sqrt;
  const char* negInf;
};
MathNames mathNames(codegen::Backend b) {
  if (b == codegen::Backend::Cpu) return {"__builtin_expf", "__builtin_sqrtf", "-__builtin_inff()"};
  return {"expf", "sqrtf", "-__int_as_float(0x7f800000)"};
}

// The loop over a fixed kernel's independent items, each computed whole by one iteration: an
// OpenMP-parallel loop on the CPU, one thread per item on a GPU (itemsOf says how many).
void openItems(codegen::CodeWriter& w, codegen::Backend b, const std::string& var,
               std::int64_t count, double work) {
  if (b == codegen::Backend::Cpu) {
    w.line(codegen::ompParallel(" for schedule(static)", work, codegen::Work::Elements));
    w.open("for (long " + var + " = 0; " + var + " < " + str(count) + "; ++" + var + ")");
    return;
  }
  w.line("const long " + var + " = (long)blockIdx.x * blockDim.x + threadIdx.x;");
  w.open("if (" + var + " < " + str(count) + ")");
}

// Before a loop that reduces a row into one float on the CPU: a float sum or max is not
// vectorized by GCC at -O3 (its order is fixed without -ffast-math), and an OpenMP simd reduction
// allows the reordering for this loop alone. BERT's softmax rows of 128 and layer norms of 768
// were reduced one float at a time. `clause` as OpenMP writes it: "+:sum", "max:m".
void simdReduction(codegen::CodeWriter& w, codegen::Backend b, const std::string& clause) {
  if (b == codegen::Backend::Cpu) w.line("#pragma omp simd reduction(" + clause + ")");
}

// How many items the layer's kernel computes (see openItems).
std::int64_t itemsOf(const Network& net, const Layer& l) {
  const Shape& x = net.shapeOf(l.inputs[0]);
  switch (l.kind) {
    case LayerKind::GlobalAvgPool:
      return x[0] * x[1];
    case LayerKind::Softmax:
    case LayerKind::LayerNorm: {
      std::int64_t rows = 0, cols = 0;
      rowsAndColumns(x, rows, cols);
      return rows;
    }
    default:
      return elements(l.shape);
  }
}

std::string fixedLayerSource(const Network& net, const Layer& l, const std::string& entry,
                             codegen::Backend backend) {
  if (isComplex(l.kind) || l.kind == LayerKind::Flatten || l.kind == LayerKind::Reshape)
    throw InputError("layer '" + l.name + "' (" + std::string(layerKindName(l.kind)) +
                     ") has no fixed kernel");
  const Shape& x = net.shapeOf(l.inputs[0]);
  const std::int64_t n = elements(l.shape);
  const std::int64_t items = itemsOf(net, l);
  // What it reads and writes: on the CPU a small layer runs on one thread
  // (codegen::kSerialElements).
  const double work = static_cast<double>(elements(x) + n);
  const MathNames math = mathNames(backend);
  const bool cpu = backend == codegen::Backend::Cpu;
  codegen::CodeWriter w;
  w.comment("OpEvo Studio fixed kernel for layer '" + l.name + "' (" +
            std::string(layerKindName(l.kind)) + "), " + formatShape(x) + " -> " +
            formatShape(l.shape) + "; generated, not tuned" +
            (cpu ? "." : ": one thread per item, " + str(items) + " items."));
  const std::string params =
      "(const float* const* in, float* __restrict__ out, const float* const* params)";
  if (cpu) {
    w.open("extern \"C\" void " + entry + params);
  } else {
    w.line(codegen::detail::gpuPrelude(backend));
    w.open("OPEVO_KERNEL(" + str(kFixedLayerThreads) + ") " + entry + params);
  }
  w.line("const float* __restrict__ x = in[0];");
  w.line("(void)params;");
  switch (l.kind) {
    case LayerKind::Relu:
    case LayerKind::Relu6:
    case LayerKind::Gelu:
    case LayerKind::Scale:
    case LayerKind::Add:
    case LayerKind::BiasAdd: {
      if (l.kind == LayerKind::Add) w.line("const float* __restrict__ y = in[1];");
      if (l.kind == LayerKind::BiasAdd) w.line("const float* __restrict__ bias = params[0];");
      // The bias runs along axis 1 of NCHW, else along the last axis.
      const std::int64_t plane = x.size() == 4 ? x[2] * x[3] : 1;
      const std::int64_t channels = x.size() == 4 ? x[1] : x.back();
      openItems(w, backend, "i", n, work);
      w.line("const float v = x[i];");
      if (l.kind == LayerKind::Relu) w.line("out[i] = v > 0.0f ? v : 0.0f;");
      if (l.kind == LayerKind::Gelu || l.kind == LayerKind::Relu6) {
        // The fused epilogue's step, so that both compute the same: GELU on the CPU without
        // glibc's scalar erff (the loop vectorizes), ReLU6's clamp as selects.
        OperatorSpec act;
        act.epilogue = {{l.kind == LayerKind::Gelu ? EpilogueKind::Gelu : EpilogueKind::Relu6, 1}};
        w.line("float g = v;");
        codegen::detail::writeEpilogue(w, act, backend, "g", "0", "i");
        w.line("out[i] = g;");
      }
      if (l.kind == LayerKind::Scale) w.line("out[i] = v * " + real(l.factor) + ";");
      if (l.kind == LayerKind::Add) w.line("out[i] = v + y[i];");
      if (l.kind == LayerKind::BiasAdd)
        w.line("out[i] = v + bias[(i / " + str(plane) + ") % " + str(channels) + "];");
      w.close();
      break;
    }
    case LayerKind::MaxPool:
    case LayerKind::AvgPool: {
      const bool max = l.kind == LayerKind::MaxPool;
      w.line("constexpr long C = " + str(x[0] * x[1]) + ", H = " + str(x[2]) + ", W = " +
             str(x[3]) + ", OH = " + str(l.shape[2]) + ", OW = " + str(l.shape[3]) + ";");
      w.line("constexpr long K = " + str(l.kernelH) + ", S = " + str(l.stride) +
             ", P = " + str(l.pad) + ";");
      w.comment(max ? "Padding never wins the max." : "Padding counts as zeros (divide by K * K).");
      if (cpu) {
        // Rows in parallel and a row's outputs in a plain loop the compiler vectorises: one
        // output per parallel iteration (as a GPU thread computes it) ran ResNet-18's max pool
        // 5-7x slower.
        w.line(codegen::ompParallel(" for collapse(2) schedule(static)", work,
                                    codegen::Work::Elements));
        w.open("for (long c = 0; c < C; ++c)");
        w.open("for (long oy = 0; oy < OH; ++oy)");
        w.open("for (long ox = 0; ox < OW; ++ox)");
      } else {
        openItems(w, backend, "o", n, work);
        w.line("const long c = o / (OH * OW), oy = o / OW % OH, ox = o % OW;");
      }
      w.line(max ? std::string("float acc = ") + math.negInf + ";" : "float acc = 0.0f;");
      w.open("for (long ky = 0; ky < K; ++ky)");
      w.open("for (long kx = 0; kx < K; ++kx)");
      w.line("const long iy = oy * S - P + ky, ix = ox * S - P + kx;");
      w.line("if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;");
      w.line("const float v = x[(c * H + iy) * W + ix];");
      w.line(max ? "acc = v > acc ? v : acc;" : "acc += v;");
      w.closeNest(2);
      w.line(std::string("out[(c * OH + oy) * OW + ox] = ") +
             (max ? "acc;" : "acc / (float)(K * K);"));
      w.closeNest(cpu ? 3 : 1);
      break;
    }
    case LayerKind::GlobalAvgPool: {
      const std::int64_t plane = x[2] * x[3];
      openItems(w, backend, "c", items, work);
      w.line("float acc = 0.0f;");
      simdReduction(w, backend, "+:acc");
      w.line("for (long i = 0; i < " + str(plane) + "; ++i) acc += x[c * " + str(plane) + " + i];");
      w.line("out[c] = acc / (float)" + str(plane) + ";");
      w.close();
      break;
    }
    case LayerKind::Softmax:
    case LayerKind::LayerNorm: {
      const std::int64_t cols = x.back();
      w.line("constexpr long COLS = " + str(cols) + ";");
      openItems(w, backend, "r", items, work);
      w.line("const float* row = x + r * COLS;");
      w.line("float* o = out + r * COLS;");
      if (l.kind == LayerKind::Softmax) {
        w.comment("Stable: subtract the row's max before exponentiating.");
        w.line("float m = row[0];");
        simdReduction(w, backend, "max:m");
        w.line("for (long i = 1; i < COLS; ++i) m = row[i] > m ? row[i] : m;");
        if (backend == codegen::Backend::Cpu) {
          // e^(row[i] - m) from multiplies and adds, so the loop vectorizes: glibc's expf is
          // scalar (BERT's 12 x 128 x 128 scores: 0.37 ms). 2^k e^r with k the nearest integer
          // to y / ln 2 (rounded by adding 1.5 * 2^23, whose low bits then hold k), r within
          // ln 2 / 2, e^r by its Taylor series to degree 6: relative error under 2e-7. y is
          // capped at -87, where e^y is about the smallest normal float; -inf gives that too.
          // A select on |y| and no float-to-int conversion: either stopped GCC vectorizing.
          w.open("for (long i = 0; i < COLS; ++i)");
          w.line("const float a = __builtin_fabsf(row[i] - m);");
          w.line("const float y = -(a < 87.0f ? a : 87.0f);");
          w.line("const float big = y * 1.44269504088896341f + 12582912.0f;");
          w.line("const float k = big - 12582912.0f;");
          w.line("const float r = (y - k * 0.693145751953125f) - k * 1.42860682030941723e-6f;");
          w.line(
              "const float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r "
              "* (1.0f / 120 + r * (1.0f / 720))))));");
          w.line("const int bits = (__builtin_bit_cast(int, big) - 0x4B400000 + 127) << 23;");
          w.line("o[i] = p * __builtin_bit_cast(float, bits);");
          w.close();
          w.line("float sum = 0.0f;");
          simdReduction(w, backend, "+:sum");
          w.line("for (long i = 0; i < COLS; ++i) sum += o[i];");
        } else {
          w.line("float sum = 0.0f;");
          w.line(std::string("for (long i = 0; i < COLS; ++i) sum += (o[i] = ") + math.exp +
                 "(row[i] - m));");
        }
        w.line("for (long i = 0; i < COLS; ++i) o[i] /= sum;");
      } else {
        w.line("const float* gamma = params[0];");
        w.line("const float* beta = params[1];");
        w.line("float mean = 0.0f, var = 0.0f;");
        simdReduction(w, backend, "+:mean");
        w.line("for (long i = 0; i < COLS; ++i) mean += row[i];");
        w.line("mean /= (float)COLS;");
        simdReduction(w, backend, "+:var");
        w.line("for (long i = 0; i < COLS; ++i) var += (row[i] - mean) * (row[i] - mean);");
        w.line(std::string("const float inv = 1.0f / ") + math.sqrt + "(var / (float)COLS + " +
               real(l.eps) + ");");
        w.line(
            "for (long i = 0; i < COLS; ++i) o[i] = (row[i] - mean) * inv * gamma[i] + beta[i];");
      }
      w.close();
      break;
    }
    case LayerKind::BatchNorm: {
      const std::int64_t plane = x[2] * x[3];
      w.line(
          "const float *gamma = params[0], *beta = params[1], *mean = params[2], "
          "*var = params[3];");
      openItems(w, backend, "i", n, work);
      w.line("const long c = (i / " + str(plane) + ") % " + str(x[1]) + ";");
      w.line("out[i] = (x[i] - mean[c]) / " + std::string(math.sqrt) + "(var[c] + " + real(l.eps) +
             ") * gamma[c] + beta[c];");
      w.close();
      break;
    }
    case LayerKind::Transpose: {
      // out[o_0, ..., o_r] = x[i] with i_perm[k] = o_k: walk the output, gather from the input.
      const std::size_t r = x.size();
      std::vector<std::int64_t> inStride(r, 1);
      for (std::size_t k = r - 1; k > 0; --k) inStride[k - 1] = inStride[k] * x[k];
      // On the CPU the trailing dims the permutation keeps in place are one contiguous run in
      // both tensors, copied whole (BERT's head transposes: 64 floats a run). Element by element
      // the gather took 0.13-0.17 ms for BERT's 98,304 floats. A GPU thread keeps one element.
      std::size_t kept = r;
      std::int64_t run = 1;
      if (backend == codegen::Backend::Cpu)
        while (kept > 1 && l.target[kept - 1] == static_cast<std::int64_t>(kept - 1))
          run *= l.shape[--kept];
      openItems(w, backend, "o", n / run, work);
      w.line("long rest = o, i = 0;");
      for (std::size_t k = kept; k-- > 0;) {
        w.line("i += (rest % " + str(l.shape[k]) + ") * " +
               str(inStride[static_cast<std::size_t>(l.target[k])]) + ";");
        if (k > 0) w.line("rest /= " + str(l.shape[k]) + ";");
      }
      if (run == 1)
        w.line("out[o] = x[i];");
      else
        w.line("for (long j = 0; j < " + str(run) + "; ++j) out[o * " + str(run) +
               " + j] = x[i + j];");
      w.close();
      break;
    }
    default:
      break;
  }
  w.close();
  return w.str();
}

}  // namespace

std::string fixedLayerCpuSource(const Network& net, const Layer& l, const std::string& entry) {
  return fixedLayerSource(net, l, entry, codegen::Backend::Cpu);
}

FixedGpuKernel fixedLayerGpuKernel(const Network& net, const Layer& l, const std::string& entry,
                                   codegen::Backend backend) {
  if (backend == codegen::Backend::Cpu)
    throw InputError("fixedLayerGpuKernel: the cpu backend has fixedLayerCpuSource");
  FixedGpuKernel k;
  k.source = fixedLayerSource(net, l, entry, backend);
  const std::int64_t items = itemsOf(net, l);
  k.launch.block.x = kFixedLayerThreads;
  k.launch.grid.x = (items + kFixedLayerThreads - 1) / kFixedLayerThreads;
  return k;
}

}  // namespace opevo::net
