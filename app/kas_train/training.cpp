#include "kas_train/training.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>

#include "common/rng.h"
#include "kas_train/kernel_module.h"

namespace opevo::kastrain {
namespace {

// Fashion-MNIST's pixel mean and standard deviation (over the training split, in 0..1).
constexpr double kPixelMean = 0.2860, kPixelStd = 0.3530;

torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

// A basic block: conv, BN, ReLU, conv, BN, plus the shortcut, ReLU.
class BlockImpl : public torch::nn::Module {
 public:
  BlockImpl(const kas::BackboneBlock& block, torch::nn::AnyModule conv1, torch::nn::AnyModule conv2)
      : m_conv1(std::move(conv1)), m_conv2(std::move(conv2)) {
    register_module("conv1", m_conv1.ptr());
    m_bn1 = register_module("bn1", torch::nn::BatchNorm2d(block.channels));
    register_module("conv2", m_conv2.ptr());
    m_bn2 = register_module("bn2", torch::nn::BatchNorm2d(block.channels));
    if (block.downsamples()) {
      m_shortcut = register_module(
          "shortcut",
          torch::nn::Conv2d(torch::nn::Conv2dOptions(block.inChannels, block.channels, 1)
                                .stride(block.stride)
                                .bias(false)));
      m_shortcutBn = register_module("shortcut_bn", torch::nn::BatchNorm2d(block.channels));
    }
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = torch::relu(m_bn1(m_conv1.forward(x)));
    y = m_bn2(m_conv2.forward(y));
    return torch::relu(y + (m_shortcut ? m_shortcutBn(m_shortcut(x)) : x));
  }

 private:
  torch::nn::AnyModule m_conv1, m_conv2;
  torch::nn::BatchNorm2d m_bn1{nullptr}, m_bn2{nullptr}, m_shortcutBn{nullptr};
  torch::nn::Conv2d m_shortcut{nullptr};
};
TORCH_MODULE(Block);

class BackboneNetImpl : public torch::nn::Module {
 public:
  BackboneNetImpl(const kas::Backbone& backbone, const KernelPlan& plan) {
    const std::vector<kas::BackboneConv> convs = kas::backboneConvs(backbone);
    // Each conv of the backbone in its place: the kernel's module where it replaces one.
    m_stem = register_module("stem", conv3x3(convs[0].inChannels, convs[0].outChannels, 1));
    m_stemBn = register_module("stem_bn", torch::nn::BatchNorm2d(backbone.stemChannels));
    std::size_t next = 1;
    auto make = [&]() {
      const kas::BackboneConv& c = convs.at(next++);
      torch::nn::AnyModule m;
      if (plan.dag && c.target >= 0)
        m = torch::nn::AnyModule(KernelModule(
            *plan.dag, plan.solution->layers.at(static_cast<std::size_t>(c.target)).shapes));
      else
        m = torch::nn::AnyModule(conv3x3(c.inChannels, c.outChannels, c.stride));
      if (c.target >= 0)
        for (const auto& p : m.ptr()->parameters()) m_replaceableParams += p.numel();
      return m;
    };
    for (const kas::BackboneBlock& b : backbone.blocks) {
      torch::nn::AnyModule conv1 = make();
      torch::nn::AnyModule conv2 = make();
      m_blocks.push_back(register_module(b.name, Block(b, std::move(conv1), std::move(conv2))));
    }
    m_fc =
        register_module("fc", torch::nn::Linear(backbone.blocks.back().channels, backbone.classes));
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(m_stemBn(m_stem(x)));
    for (Block& b : m_blocks) x = b->forward(x);
    return m_fc(x.mean({2, 3}));
  }

  std::int64_t replaceableParams() const { return m_replaceableParams; }

 private:
  torch::nn::Conv2d m_stem{nullptr};
  torch::nn::BatchNorm2d m_stemBn{nullptr};
  std::vector<Block> m_blocks;
  torch::nn::Linear m_fc{nullptr};
  std::int64_t m_replaceableParams = 0;
};
TORCH_MODULE(BackboneNet);

struct Batches {
  torch::Tensor images;  // [N, 1, rows, cols], normalised
  torch::Tensor labels;  // [N]
};

Batches tensorsOf(const ImageSet& set, const std::vector<std::int64_t>& which) {
  const std::int64_t pixels = set.rows * set.cols;
  torch::Tensor images =
      torch::empty({static_cast<std::int64_t>(which.size()), 1, set.rows, set.cols});
  torch::Tensor labels = torch::empty({static_cast<std::int64_t>(which.size())}, torch::kLong);
  float* to = images.data_ptr<float>();
  std::int64_t* label = labels.data_ptr<std::int64_t>();
  for (std::size_t k = 0; k < which.size(); ++k) {
    const std::uint8_t* from = set.pixels.data() + which[k] * pixels;
    for (std::int64_t p = 0; p < pixels; ++p)
      *to++ = static_cast<float>((from[p] / 255.0 - kPixelMean) / kPixelStd);
    label[k] = set.labels[static_cast<std::size_t>(which[k])];
  }
  return {images, labels};
}

void shuffle(std::vector<std::int64_t>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

std::vector<std::int64_t> firstOf(std::int64_t count, std::int64_t wanted) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(std::min(count, wanted)));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(i);
  return out;
}

// SGD over one epoch in a fresh order, the learning rate on a cosine from config.lr at step 0 to
// 0 after the last; nullopt when a loss is not finite (training stops there).
class Epochs {
 public:
  Epochs(BackboneNet& model, const Batches& data, const TrainConfig& config)
      : m_model(model),
        m_data(data),
        m_config(config),
        m_optimizer(model->parameters(), torch::optim::SGDOptions(config.lr)
                                             .momentum(config.momentum)
                                             .weight_decay(config.weightDecay)),
        m_positions(firstOf(data.images.size(0), data.images.size(0))) {
    const std::int64_t n = data.images.size(0);
    m_totalSteps = static_cast<double>((n + config.batch - 1) / config.batch * config.epochs);
  }

  std::optional<double> run(int epoch, Rng& rng) {
    shuffle(m_positions, rng);
    const torch::Tensor order = torch::tensor(m_positions, torch::kLong);
    const std::int64_t n = order.size(0);
    double lossSum = 0;
    for (std::int64_t at = 0; at < n; at += m_config.batch, ++m_step) {
      const double lr =
          m_config.lr * 0.5 *
          (1 + std::cos(std::numbers::pi * static_cast<double>(m_step) / m_totalSteps));
      for (auto& group : m_optimizer.param_groups())
        static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
      const torch::Tensor batch = order.narrow(0, at, std::min(m_config.batch, n - at));
      const torch::Tensor loss = torch::nn::functional::cross_entropy(
          m_model->forward(m_data.images.index_select(0, batch)),
          m_data.labels.index_select(0, batch));
      const double value = loss.item<double>();
      if (!std::isfinite(value)) {
        std::fprintf(stderr, "epoch %d: the loss is %g after %lld images: training diverged\n",
                     epoch, value, static_cast<long long>(at));
        return std::nullopt;
      }
      m_optimizer.zero_grad();
      loss.backward();
      m_optimizer.step();
      lossSum += value * static_cast<double>(batch.size(0));
    }
    return lossSum / static_cast<double>(std::max<std::int64_t>(n, 1));
  }

 private:
  BackboneNet& m_model;
  const Batches& m_data;
  const TrainConfig& m_config;
  torch::optim::SGD m_optimizer;
  std::vector<std::int64_t> m_positions;
  std::int64_t m_step = 0;
  double m_totalSteps = 1;
};

double accuracyOf(BackboneNet& model, const Batches& test) {
  torch::NoGradGuard noGrad;
  model->eval();
  std::int64_t correct = 0;
  const std::int64_t n = test.images.size(0);
  for (std::int64_t at = 0; at < n; at += 500) {
    const std::int64_t len = std::min<std::int64_t>(500, n - at);
    const torch::Tensor predicted = model->forward(test.images.narrow(0, at, len)).argmax(1);
    correct += predicted.eq(test.labels.narrow(0, at, len)).sum().item<std::int64_t>();
  }
  model->train();
  return static_cast<double>(correct) / static_cast<double>(std::max<std::int64_t>(n, 1));
}

}  // namespace

void setTorchThreads(int threads) {
  at::set_num_threads(threads);
}

TrainResult train(const kas::Backbone& backbone, const KernelPlan& plan, const ImageSet& trainSet,
                  const ImageSet& testSet, const TrainConfig& config) {
  torch::manual_seed(config.seed);
  Rng rng(config.seed);
  std::vector<std::int64_t> chosen = firstOf(trainSet.count, trainSet.count);
  shuffle(chosen, rng);
  chosen.resize(static_cast<std::size_t>(std::min(config.trainImages, trainSet.count)));
  const Batches trainData = tensorsOf(trainSet, chosen);
  const Batches testData = tensorsOf(testSet, firstOf(testSet.count, config.testImages));

  BackboneNet model(backbone, plan);
  TrainResult result;
  for (const auto& p : model->parameters()) result.params += p.numel();
  result.kernelParams = model->replaceableParams();
  Epochs epochs(model, trainData, config);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  model->train();
  for (int epoch = 1; epoch <= config.epochs; ++epoch) {
    const std::optional<double> loss = epochs.run(epoch, rng);
    if (!loss) {
      result.diverged = true;
      break;
    }
    const double accuracy = accuracyOf(model, testData);
    result.curve.push_back(accuracy);
    result.losses.push_back(*loss);
    result.epochsRun = epoch;
    std::fprintf(stderr, "epoch %d/%d: loss %.4f, test accuracy %.4f (%.1f s)\n", epoch,
                 config.epochs, *loss, accuracy, elapsed());
    const auto e = static_cast<std::size_t>(epoch - 1);
    if (e < config.referenceCurve.size() && epoch < config.epochs) {
      const double needed =
          kas::pruneThreshold(config.referenceCurve[e], epoch, config.epochs, config.theta);
      if (accuracy < needed) {
        result.stoppedEarly = true;
        std::fprintf(stderr, "stopped early: accuracy %.4f < %.4f the reference curve asks for\n",
                     accuracy, needed);
        break;
      }
    }
  }
  // A diverged model is measured as it is (the search sees how bad it got).
  result.accuracy =
      result.diverged || result.curve.empty() ? accuracyOf(model, testData) : result.curve.back();
  result.seconds = elapsed();
  return result;
}

}  // namespace opevo::kastrain
