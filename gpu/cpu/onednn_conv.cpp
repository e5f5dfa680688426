#include "cpu/onednn_conv.h"

#include <stdexcept>

#ifdef OPEVO_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace opevo {

#ifdef OPEVO_HAVE_ONEDNN

bool oneDnnAvailable() {
  return true;
}

std::string oneDnnVersion() {
  // The loaded library's version, not the headers': that is the code that actually runs.
  const dnnl::version_t* v = dnnl::version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

namespace {

std::string statusName(dnnl_status_t status) {
  switch (status) {
    case dnnl_success:
      return "success";
    case dnnl_out_of_memory:
      return "out of memory";
    case dnnl_invalid_arguments:
      return "invalid arguments";
    case dnnl_unimplemented:
      return "unimplemented";
    case dnnl_runtime_error:
      return "runtime error";
    default:
      return "status " + std::to_string(int(status));
  }
}

// Runs f, turning oneDNN's exceptions into the std::runtime_error the rest of the project
// handles, with the operator named (a worker's reply reaches a user far from this call).
template <class F>
auto guarded(const OperatorSpec& op, const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    throw std::runtime_error("oneDNN convolution of '" + op.name + "' (" + op.describe() +
                             "): " + what + ": " + e.what() + " (" + statusName(e.status) + ")");
  }
}

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

dnnl::memory::dims srcDims(const OperatorSpec& op) {
  return {op.batch, op.inChannels, op.height, op.width};
}

dnnl::memory::dims dstDims(const OperatorSpec& op) {
  return {op.batch, op.outChannels, op.outHeight(), op.outWidth()};
}

// Our weights, F x C/groups x KH x KW, are oneDNN's goihw with the group outermost (output
// channel f = g * F/groups + o), so grouped and depthwise convolutions need no reordering.
dnnl::memory::dims weightsDims(const OperatorSpec& op) {
  if (op.groups == 1) return {op.outChannels, op.inChannels, op.kernelH, op.kernelW};
  return {op.groups, op.outChannels / op.groups, op.inChannels / op.groups, op.kernelH, op.kernelW};
}

tag plainWeightsTag(const OperatorSpec& op) {
  return op.groups == 1 ? tag::oihw : tag::goihw;
}

dnnl::convolution_forward::primitive_desc convolutionPd(const OperatorSpec& op,
                                                        const dnnl::engine& engine, tag src,
                                                        tag weights, tag dst) {
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference,
      // Direct, not auto: Winograd and other transforms trade accuracy for speed, and the
      // reference must agree with the double-precision loop nest to ~1e-5.
      dnnl::algorithm::convolution_direct, dnnl::memory::desc(srcDims(op), dt::f32, src),
      dnnl::memory::desc(weightsDims(op), dt::f32, weights),
      dnnl::memory::desc(dstDims(op), dt::f32, dst), {op.stride, op.stride}, {op.pad, op.pad},
      {op.pad, op.pad});
  dnnl::primitive_attr attr;
  // Strict fp32 even if ONEDNN_DEFAULT_FPMATH_MODE asks for bf16/tf32 down-conversion: a
  // reference computed in reduced precision could pass wrong kernels or fail right ones.
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);
  return dnnl::convolution_forward::primitive_desc(desc, attr, engine);
}

// Wraps caller memory; oneDNN only reads a source or weights buffer, so dropping const is safe.
dnnl::memory wrap(const dnnl::memory::desc& md, const dnnl::engine& engine, const float* data) {
  return dnnl::memory(md, engine, const_cast<float*>(data));
}

}  // namespace

struct OneDnnConv::State {
  OperatorSpec op;
  dnnl::engine engine;
  dnnl::stream stream;
  dnnl::convolution_forward::primitive_desc plainPd, timedPd;
  dnnl::convolution_forward plain, timed;
  // The prepared operands and output, in timedPd's layouts; empty until prepare().
  dnnl::memory src, weights, dst;
};

OneDnnConv::OneDnnConv(const OperatorSpec& op) {
  if (op.kind != OpKind::Conv2D)
    throw std::runtime_error("oneDNN convolution of '" + op.name + "': not a Conv2D operator");
  if (op.groups < 1 || op.inChannels % op.groups || op.outChannels % op.groups)
    throw std::runtime_error("oneDNN convolution of '" + op.name +
                             "': channels not divisible by groups");
  state_ = guarded(op, "creating the primitives", [&] {
    auto s = std::make_unique<State>();
    s->op = op;
    s->engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
    s->stream = dnnl::stream(s->engine);
    s->plainPd = convolutionPd(op, s->engine, tag::nchw, plainWeightsTag(op), tag::nchw);
    // `any` lets oneDNN choose the layouts its fastest implementation for this shape wants.
    s->timedPd = convolutionPd(op, s->engine, tag::any, tag::any, tag::any);
    s->plain = dnnl::convolution_forward(s->plainPd);
    s->timed = dnnl::convolution_forward(s->timedPd);
    return s;
  });
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::compute(const float* input, const float* weights, float* out) const {
  State& s = *state_;
  guarded(s.op, "computing", [&] {
    dnnl::memory src = wrap(s.plainPd.src_desc(), s.engine, input);
    dnnl::memory wei = wrap(s.plainPd.weights_desc(), s.engine, weights);
    dnnl::memory dst(s.plainPd.dst_desc(), s.engine, out);
    s.plain.execute(s.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    s.stream.wait();
  });
}

void OneDnnConv::prepare(const float* input, const float* weights) {
  State& s = *state_;
  guarded(s.op, "preparing the operands", [&] {
    s.src = dnnl::memory(s.timedPd.src_desc(), s.engine);
    s.weights = dnnl::memory(s.timedPd.weights_desc(), s.engine);
    s.dst = dnnl::memory(s.timedPd.dst_desc(), s.engine);
    dnnl::memory userSrc = wrap(s.plainPd.src_desc(), s.engine, input);
    dnnl::memory userWeights = wrap(s.plainPd.weights_desc(), s.engine, weights);
    dnnl::reorder(userSrc, s.src).execute(s.stream, userSrc, s.src);
    dnnl::reorder(userWeights, s.weights).execute(s.stream, userWeights, s.weights);
    s.stream.wait();
  });
}

bool OneDnnConv::prepared() const {
  return bool(state_->dst);
}

void OneDnnConv::runPrepared() {
  State& s = *state_;
  if (!s.dst)
    throw std::logic_error("oneDNN convolution of '" + s.op.name + "': run before prepare()");
  guarded(s.op, "running", [&] {
    s.timed.execute(s.stream,
                    {{DNNL_ARG_SRC, s.src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, s.dst}});
    s.stream.wait();
  });
}

std::pair<const void*, std::size_t> OneDnnConv::preparedWeights() const {
  const State& s = *state_;
  if (!s.weights) return {nullptr, 0};
  return {s.weights.get_data_handle(), s.timedPd.weights_desc().get_size()};
}

std::vector<std::pair<const void*, std::size_t>> OneDnnConv::preparedActivations() const {
  const State& s = *state_;
  if (!s.src || !s.dst) return {};
  return {{s.src.get_data_handle(), s.timedPd.src_desc().get_size()},
          {s.dst.get_data_handle(), s.timedPd.dst_desc().get_size()}};
}

void OneDnnConv::readPreparedOutput(float* nchw) const {
  State& s = *state_;
  if (!s.dst)
    throw std::logic_error("oneDNN convolution of '" + s.op.name + "': read before prepare()");
  guarded(s.op, "reading the output", [&] {
    dnnl::memory user(s.plainPd.dst_desc(), s.engine, nchw);
    dnnl::reorder(s.dst, user).execute(s.stream, s.dst, user);
    s.stream.wait();
  });
}

std::string OneDnnConv::implementation() const {
  return guarded(state_->op, "querying the implementation",
                 [&] { return std::string(state_->timedPd.impl_info_str()); });
}

std::string OneDnnConv::plainImplementation() const {
  return guarded(state_->op, "querying the implementation",
                 [&] { return std::string(state_->plainPd.impl_info_str()); });
}

#else  // !OPEVO_HAVE_ONEDNN

bool oneDnnAvailable() {
  return false;
}
std::string oneDnnVersion() {
  return {};
}

// Nothing to hold: the constructor always throws, so no other member can be reached.
struct OneDnnConv::State {};

OneDnnConv::OneDnnConv(const OperatorSpec& op) {
  throw std::runtime_error("oneDNN convolution of '" + op.name +
                           "': this build has no oneDNN (libdnnl-dev was not found when it was "
                           "configured)");
}

OneDnnConv::~OneDnnConv() = default;
void OneDnnConv::compute(const float*, const float*, float*) const {}
void OneDnnConv::prepare(const float*, const float*) {}
bool OneDnnConv::prepared() const {
  return false;
}
void OneDnnConv::runPrepared() {}
void OneDnnConv::readPreparedOutput(float*) const {}
std::pair<const void*, std::size_t> OneDnnConv::preparedWeights() const {
  return {nullptr, 0};
}
std::vector<std::pair<const void*, std::size_t>> OneDnnConv::preparedActivations() const {
  return {};
}
std::string OneDnnConv::implementation() const {
  return {};
}
std::string OneDnnConv::plainImplementation() const {
  return {};
}

#endif  // OPEVO_HAVE_ONEDNN

}  // namespace opevo
