#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kas/budget_solver.h"
#include "kas/micro_dag.h"

namespace opevo::kas {

// The network Canvas candidates are trained in (opevo-kas-train): a small ResNet for 28x28 grey
// Fashion-MNIST images, described as data so the search can solve a kernel's sizes for exactly
// the layers the training replaces, without libtorch. A stem conv + BN + ReLU, one basic block
// per stage, global average pool, one linear layer.
struct BackboneBlock {
  std::string name;  // "stage2"
  std::int64_t inChannels = 0, channels = 0;
  std::int64_t inSize = 0;  // side of the square image it reads
  std::int64_t stride = 1;  // of its first conv (and of its 1x1 shortcut, when it has one)

  std::int64_t outSize() const { return (inSize - 1) / stride + 1; }  // 3x3, padding 1
  // A 1x1 conv + BN on the shortcut, where the block changes the image or the channels.
  bool downsamples() const { return stride != 1 || inChannels != channels; }
};

struct Backbone {
  std::int64_t inputChannels = 1, imageSize = 28, classes = 10;
  std::int64_t stemChannels = 16;
  std::vector<BackboneBlock> blocks;
};

// 16 channels at 28x28, 32 at 14x14, 64 at 7x7.
Backbone fashionMnistBackbone();

// One 3x3 convolution of the backbone (the 1x1 shortcuts are not listed), in forward order.
struct BackboneConv {
  std::string name;  // "stem", "stage1.conv1", ...
  std::int64_t inChannels = 0, outChannels = 0, inSize = 0, stride = 1;
  int target = -1;  // its index in backboneTargets() when a kernel replaces it, else -1
};
std::vector<BackboneConv> backboneConvs(const Backbone& backbone);

// The convolutions a kernel replaces (C -> C, stride 1, 3x3: both convs of stage 1's block and
// the second of the others), merged by shape with counts as replaceableConvolutions does for
// networks; the first of a shape names the target.
std::vector<ConvTarget> backboneTargets(const Backbone& backbone = fashionMnistBackbone());

// Whether any of the kernel's sizes involves G (only a group primitive brings it in).
bool usesGroups(const MicroDag& dag);

// The kernel's sizes for `targets`, G chosen as `opevo kas solve` does: `groups` when positive;
// otherwise the smallest of groupChoices() the budget fits (1 when there is none), and 1 for a
// kernel that never groups, whose sizes do not depend on G.
SolveResult solveKernel(const MicroDag& dag, const std::vector<ConvTarget>& targets,
                        std::int64_t groups, const Budget& budget);

// Canvas's pruning rule (seed 004, sec. 7): after epoch `epoch` (1-based) of `epochs`, a
// candidate must reach (theta + (1 - theta) * epoch / epochs) of the accuracy the best result so
// far had at that epoch; lenient early, as strict as the best by the last epoch.
double pruneThreshold(double referenceAccuracy, int epoch, int epochs, double theta);

}  // namespace opevo::kas
