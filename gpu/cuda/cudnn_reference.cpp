#include "cuda/cudnn_reference.h"

#include <algorithm>
#include <tuple>

#include "engine/library_words.h"

namespace opevo::cuda {

// cudnn.h's values used here; its handles are pointers, its status 0 on success.
namespace {
constexpr int kNchw = 0;              // CUDNN_TENSOR_NCHW
constexpr int kFloat = 0;             // CUDNN_DATA_FLOAT
constexpr int kCrossCorrelation = 1;  // CUDNN_CROSS_CORRELATION
constexpr int kFmaMath = 3;           // CUDNN_FMA_MATH
constexpr int kAlgoCount = 8;         // CUDNN_CONVOLUTION_FWD_ALGO_COUNT
// cudnnFind may list an algorithm once per math type it tried it with.
constexpr int kFindCount = 4 * kAlgoCount;

// cudnnConvolutionFwdAlgoPerf_t (the same in cuDNN 8 and 9).
struct AlgoPerf {
  int algo;
  int status;
  float time;
  std::size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};
}  // namespace

std::string cudnnForwardAlgorithmName(int algo) {
  switch (algo) {
    case 0:
      return "implicit GEMM";
    case 1:
      return "implicit precomputed GEMM";
    case 2:
      return "GEMM";
    case 3:
      return "direct";
    case 4:
      return "FFT";
    case 5:
      return "tiled FFT";
    case 6:
      return "Winograd";
    case 7:
      return "non-fused Winograd";
    default:
      return "unknown";
  }
}

CudnnChoice chooseFromFind(const std::vector<CudnnFound>& found) {
  // FFT (4, 5) and Winograd (6, 7) transform the operands and multiply fewer times.
  const auto everyMultiplyAdd = [](int algo) { return algo >= 0 && algo <= 3; };
  CudnnChoice choice;
  const CudnnFound* fastest = nullptr;
  const CudnnFound* fastestFull = nullptr;
  int usable = 0;
  for (const CudnnFound& f : found) {  // listed fastest first
    if (!f.usable) continue;
    ++usable;
    if (!fastest) fastest = &f;
    if (!fastestFull && everyMultiplyAdd(f.algo)) fastestFull = &f;
  }
  if (!fastest) return choice;
  choice.algo = fastest->algo;
  choice.chosenBy = ", the fastest of " + std::to_string(usable) + " by cudnnFind";
  if (everyMultiplyAdd(fastest->algo)) return choice;
  if (!fastestFull) {
    choice.chosenBy += "; none doing every multiply-add ran";
  } else if (fastest->ms > 0) {
    choice.chosenBy += everyMultiplyAddWords(
        {fastestFull->ms / fastest->ms, "algorithm " + std::to_string(fastestFull->algo) + " (" +
                                            cudnnForwardAlgorithmName(fastestFull->algo) + ")"});
  }
  return choice;
}

struct Cudnn::Api {
  int (*create)(void**) = nullptr;
  int (*destroy)(void*) = nullptr;
  const char* (*errorString)(int) = nullptr;
  int (*createTensor)(void**) = nullptr;
  int (*destroyTensor)(void*) = nullptr;
  int (*setTensor4d)(void*, int, int, int, int, int, int) = nullptr;
  int (*createFilter)(void**) = nullptr;
  int (*destroyFilter)(void*) = nullptr;
  int (*setFilter4d)(void*, int, int, int, int, int, int) = nullptr;
  int (*createConv)(void**) = nullptr;
  int (*destroyConv)(void*) = nullptr;
  int (*setConv2d)(void*, int, int, int, int, int, int, int, int) = nullptr;
  int (*setMathType)(void*, int) = nullptr;
  int (*setGroupCount)(void*, int) = nullptr;
  int (*getAlgorithm)(void*, void*, void*, void*, void*, int, int*, AlgoPerf*) = nullptr;
  int (*findAlgorithm)(void*, void*, void*, void*, void*, int, int*, AlgoPerf*) = nullptr;
  int (*workspaceSize)(void*, void*, void*, void*, void*, int, std::size_t*) = nullptr;
  int (*forward)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*,
                 std::size_t, const void*, void*, void*) = nullptr;
};

Cudnn::Cudnn() : m_api(std::make_unique<Api>()) {}

std::unique_ptr<Cudnn> Cudnn::open(std::string* reason) {
  std::string tried;
  auto lib = SharedLibrary::openFirst(
      {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so", "/usr/local/cuda/lib64/libcudnn.so.9",
       "/usr/local/cuda/lib64/libcudnn.so.8"},
      "cudnnCreate", &tried);
  if (!lib) {
    *reason = "no cuDNN (tried " + tried + ")";
    return nullptr;
  }
  std::unique_ptr<Cudnn> c(new Cudnn);
  Api& a = *c->m_api;
  bool ok = true;
  auto bind = [&](auto& fn, const char* name) {
    fn = lib->symbol<std::remove_reference_t<decltype(fn)>>(name);
    ok = ok && fn;
  };
  bind(a.create, "cudnnCreate");
  bind(a.destroy, "cudnnDestroy");
  bind(a.errorString, "cudnnGetErrorString");
  bind(a.createTensor, "cudnnCreateTensorDescriptor");
  bind(a.destroyTensor, "cudnnDestroyTensorDescriptor");
  bind(a.setTensor4d, "cudnnSetTensor4dDescriptor");
  bind(a.createFilter, "cudnnCreateFilterDescriptor");
  bind(a.destroyFilter, "cudnnDestroyFilterDescriptor");
  bind(a.setFilter4d, "cudnnSetFilter4dDescriptor");
  bind(a.createConv, "cudnnCreateConvolutionDescriptor");
  bind(a.destroyConv, "cudnnDestroyConvolutionDescriptor");
  bind(a.setConv2d, "cudnnSetConvolution2dDescriptor");
  bind(a.setMathType, "cudnnSetConvolutionMathType");
  bind(a.setGroupCount, "cudnnSetConvolutionGroupCount");
  bind(a.getAlgorithm, "cudnnGetConvolutionForwardAlgorithm_v7");
  bind(a.findAlgorithm, "cudnnFindConvolutionForwardAlgorithm");
  bind(a.workspaceSize, "cudnnGetConvolutionForwardWorkspaceSize");
  bind(a.forward, "cudnnConvolutionForward");
  c->m_lib = std::move(lib);
  if (!ok) {
    *reason = c->m_lib->name() + " lacks the convolution entry points (cuDNN 8 or 9 needed)";
    return nullptr;
  }
  if (int rc = a.create(&c->m_handle); rc != 0) {
    *reason = "cudnnCreate failed: " + std::string(a.errorString(rc));
    c->m_handle = nullptr;
    return nullptr;
  }
  return c;
}

Cudnn::~Cudnn() {
  release();
  if (m_handle) m_api->destroy(m_handle);
}

void Cudnn::release() noexcept {
  if (m_x) m_api->destroyTensor(m_x);
  if (m_y) m_api->destroyTensor(m_y);
  if (m_w) m_api->destroyFilter(m_w);
  if (m_conv) m_api->destroyConv(m_conv);
  m_x = m_y = m_w = m_conv = nullptr;
  m_workspace.reset();
  m_algo = -1;
  m_chosenBy.clear();
}

void Cudnn::check(int status, const char* what) const {
  if (status != 0)
    throw CudaError(-1, std::string("cuDNN ") + what + ": " + m_api->errorString(status) + " (" +
                            std::to_string(status) + ")");
}

void Cudnn::prepare(CudaDriver& driver, const OperatorSpec& op, Choice choice) {
  release();
  const Api& a = *m_api;
  auto i = [](std::int64_t v) { return static_cast<int>(v); };
  check(a.createTensor(&m_x), "cudnnCreateTensorDescriptor");
  check(a.createTensor(&m_y), "cudnnCreateTensorDescriptor");
  check(a.createFilter(&m_w), "cudnnCreateFilterDescriptor");
  check(a.createConv(&m_conv), "cudnnCreateConvolutionDescriptor");
  check(a.setTensor4d(m_x, kNchw, kFloat, i(op.batch), i(op.inChannels), i(op.height), i(op.width)),
        "cudnnSetTensor4dDescriptor (input)");
  // A grouped convolution's filter holds each group's input channels alone (f, c / groups, kh,
  // kw: the generated kernels' weights), and the descriptor says how many groups.
  const std::int64_t groups = std::max<std::int64_t>(1, op.groups);
  check(a.setFilter4d(m_w, kFloat, kNchw, i(op.outChannels), i(op.inChannels / groups),
                      i(op.kernelH), i(op.kernelW)),
        "cudnnSetFilter4dDescriptor");
  check(a.setConv2d(m_conv, i(op.pad), i(op.pad), i(op.stride), i(op.stride), 1, 1,
                    kCrossCorrelation, kFloat),
        "cudnnSetConvolution2dDescriptor");
  check(a.setMathType(m_conv, kFmaMath), "cudnnSetConvolutionMathType");
  if (groups > 1) check(a.setGroupCount(m_conv, i(groups)), "cudnnSetConvolutionGroupCount");
  check(a.setTensor4d(m_y, kNchw, kFloat, i(op.batch), i(op.outChannels), i(op.outHeight()),
                      i(op.outWidth())),
        "cudnnSetTensor4dDescriptor (output)");
  if (choice == Choice::Fastest) chooseFastest(op.describe());
  if (m_algo < 0) {
    // The heuristic's ranking: the first algorithm cuDNN says works is what a framework runs.
    AlgoPerf perf[kAlgoCount] = {};
    int returned = 0;
    check(a.getAlgorithm(m_handle, m_x, m_w, m_conv, m_y, kAlgoCount, &returned, perf),
          "cudnnGetConvolutionForwardAlgorithm_v7");
    for (int k = 0; k < returned && m_algo < 0; ++k)
      if (perf[k].status == 0) m_algo = perf[k].algo;
  }
  if (m_algo < 0) throw CudaError(-1, "cuDNN has no forward algorithm for " + op.describe());
  std::size_t bytes = 0;
  check(a.workspaceSize(m_handle, m_x, m_w, m_conv, m_y, m_algo, &bytes),
        "cudnnGetConvolutionForwardWorkspaceSize");
  if (bytes > 0) m_workspace = std::make_unique<DeviceBuffer>(driver, bytes);
}

void Cudnn::chooseFastest(const std::string& key) {
  if (const auto it = m_fastest.find(key); it != m_fastest.end()) {
    std::tie(m_algo, m_chosenBy) = it->second;
    return;
  }
  // cudnnFind runs every algorithm (allocating its workspace itself) and returns them fastest
  // first, each with the math type it ran under. Only FMA-math timings count: forward() runs
  // with the descriptor's FMA math, and default math may use TF32 tensor cores on sm_80 and
  // later, which would time another kernel (and fail the 1e-3 verification).
  AlgoPerf perf[kFindCount] = {};
  int returned = 0;
  if (int rc = m_api->findAlgorithm(m_handle, m_x, m_w, m_conv, m_y, kFindCount, &returned, perf);
      rc != 0) {
    m_chosenBy = ", the heuristic's first: cudnnFindConvolutionForwardAlgorithm failed (" +
                 std::string(m_api->errorString(rc)) + ")";
    return;
  }
  std::vector<CudnnFound> found;
  for (int k = 0; k < returned; ++k)
    found.push_back(
        {perf[k].algo, perf[k].time, perf[k].status == 0 && perf[k].mathType == kFmaMath});
  CudnnChoice choice = chooseFromFind(found);
  if (choice.algo < 0) {
    m_chosenBy = ", the heuristic's first: cudnnFind ran no algorithm with FMA math (" +
                 std::to_string(returned) + " listed)";
    return;
  }
  m_algo = choice.algo;
  m_chosenBy = std::move(choice.chosenBy);
  m_fastest[key] = {m_algo, m_chosenBy};
}

void Cudnn::forward(DevicePtr x, DevicePtr w, DevicePtr y) {
  const float alpha = 1, beta = 0;
  void* workspace = m_workspace ? reinterpret_cast<void*>(m_workspace->get()) : nullptr;
  check(m_api->forward(m_handle, &alpha, m_x, reinterpret_cast<void*>(x), m_w,
                       reinterpret_cast<void*>(w), m_conv, m_algo, workspace,
                       m_workspace ? m_workspace->bytes() : 0, &beta, m_y,
                       reinterpret_cast<void*>(y)),
        "cudnnConvolutionForward");
}

std::string Cudnn::describe() const {
  return "cuDNN convolution forward, algorithm " + std::to_string(m_algo) + " (" +
         cudnnForwardAlgorithmName(m_algo) + ")" + m_chosenBy + " (" + library() + ")";
}

}  // namespace opevo::cuda
