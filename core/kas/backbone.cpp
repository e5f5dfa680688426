#include "kas/backbone.h"

#include <algorithm>

#include "kas/kernel_fit.h"

namespace opevo::kas {

Backbone fashionMnistBackbone() {
  Backbone b;
  b.blocks = {{"stage1", 16, 16, 28, 1}, {"stage2", 16, 32, 28, 2}, {"stage3", 32, 64, 14, 2}};
  return b;
}

std::vector<BackboneConv> backboneConvs(const Backbone& backbone) {
  std::vector<BackboneConv> convs{
      {"stem", backbone.inputChannels, backbone.stemChannels, backbone.imageSize, 1, -1}};
  for (const BackboneBlock& block : backbone.blocks) {
    convs.push_back(
        {block.name + ".conv1", block.inChannels, block.channels, block.inSize, block.stride, -1});
    convs.push_back(
        {block.name + ".conv2", block.channels, block.channels, block.outSize(), 1, -1});
  }
  std::vector<ConvTarget> targets;
  for (BackboneConv& conv : convs) {
    if (conv.inChannels != conv.outChannels || conv.stride != 1) continue;
    auto same = std::find_if(targets.begin(), targets.end(), [&](const ConvTarget& t) {
      return t.channels == conv.inChannels && t.height == conv.inSize;
    });
    if (same == targets.end()) {
      targets.push_back({conv.name, conv.inChannels, conv.inSize, conv.inSize, 3, 3, 1});
      same = targets.end() - 1;
    }
    conv.target = static_cast<int>(same - targets.begin());
  }
  return convs;
}

std::vector<ConvTarget> backboneTargets(const Backbone& backbone) {
  std::vector<ConvTarget> targets;
  for (const BackboneConv& conv : backboneConvs(backbone)) {
    if (conv.target < 0) continue;
    const auto index = static_cast<std::size_t>(conv.target);
    if (index == targets.size())
      targets.push_back({conv.name, conv.inChannels, conv.inSize, conv.inSize, 3, 3, 1});
    else
      ++targets[index].count;
  }
  return targets;
}

bool usesGroups(const MicroDag& dag) {
  for (const Shape& shape : dag.shapes())
    for (const Dim& d : shape)
      if (d.size.exponent(Symbol::G) != 0) return true;
  return false;
}

SolveResult solveKernel(const MicroDag& dag, const std::vector<ConvTarget>& targets,
                        std::int64_t groups, const Budget& budget) {
  // A kernel that never groups has the same sizes for every G: solve it once.
  const std::vector<std::int64_t> order = usesGroups(dag)
                                              ? groupOrder(targets, groups, nullptr)
                                              : std::vector<std::int64_t>{groups > 0 ? groups : 1};
  SolveResult r;
  if (auto fit = fitKernel(dag, {targets}, order, budget, &r.error))
    r.solution = std::move(fit->solutions.front());
  return r;
}

double pruneThreshold(double referenceAccuracy, int epoch, int epochs, double theta) {
  const double progress = static_cast<double>(epoch) / static_cast<double>(std::max(epochs, 1));
  return (theta + (1 - theta) * progress) * referenceAccuracy;
}

}  // namespace opevo::kas
