// Layout conversions (codegen/layout_conversion.h) that copy runs: where the innermost dim of the
// layout written and the one read walk one logical dim side by side (a channel block into a
// channel block, as a network converts a convolution's output into the next one's input), the
// generated code computes one offset per run and copies the run, and it still writes exactly
// what core/layout's pack writes, padding and overlapping windows included.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "codegen/layout_conversion.h"
#include "codegen_test_util.h"
#include "common/error.h"
#include "common/rng.h"

namespace opevo::test {
namespace {

using ConvertFn = void (*)(const float*, float*);
using layout::Layout;

// Every pair converted by one library and compared element for element with core/layout's
// packing of one logical tensor; returns how many of them copy runs.
int expectConversionsPack(const std::vector<std::pair<Layout, Layout>>& pairs) {
  codegen::CodeWriter w;
  int runs = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    codegen::CodeWriter one;
    codegen::writeLayoutConversion(one, "convert" + std::to_string(i), pairs[i].first,
                                   pairs[i].second);
    runs += one.str().find("__builtin_memcpy") != std::string::npos;
    w.line(one.str());
  }
  LoadedObject so(w.str(), {"-O2", "-fopenmp", "-shared", "-fPIC"});
  EXPECT_TRUE(so.ok()) << so.result().log;
  if (!so.ok()) return runs;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Layout& from = pairs[i].first;
    const Layout& to = pairs[i].second;
    SCOPED_TRACE("pair " + std::to_string(i) + ": " + from.describe() + " -> " + to.describe());
    std::vector<float> logical(std::size_t(from.logicalSize()));
    for (std::size_t k = 0; k < logical.size(); ++k) logical[k] = float(k % 9973) + 0.5f;
    std::vector<float> src(std::size_t(from.size()), -7.0f);
    std::vector<float> want(std::size_t(to.size())), got(want.size(), -1.0f);
    from.pack(logical, src);
    to.pack(logical, want);
    so.symbol<ConvertFn>("convert" + std::to_string(i))(src.data(), got.data());
    EXPECT_EQ(got, want);
  }
  return runs;
}

std::int64_t divisor(std::int64_t n, Rng& rng) {
  std::vector<std::int64_t> d;
  for (std::int64_t k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(k);
  return d[rng.below(d.size())];
}

// A few primitives drawn at random (a refused one is skipped: the layout stays as it was).
Layout randomLayout(const std::vector<layout::Dim>& logical, Rng& rng) {
  Layout l(logical);
  const int primitives = int(rng.below(6));
  for (int k = 0; k < primitives; ++k) {
    const std::vector<layout::Dim> dims = l.physical();
    const layout::Dim& d = dims[rng.below(dims.size())];
    try {
      switch (rng.below(5)) {
        case 0:
          l.split(d.name, divisor(d.extent, rng));
          break;
        case 1:
          l.pad(d.name, std::int64_t(rng.below(3)), std::int64_t(rng.below(3)));
          break;
        case 2: {
          const std::int64_t tile = 1 + std::int64_t(rng.below(std::uint64_t(d.extent)));
          l.unfold(d.name, tile, 1 + std::int64_t(rng.below(std::uint64_t(tile))));
          break;
        }
        case 3: {
          if (dims.size() < 2) break;
          const std::size_t i = rng.below(dims.size() - 1);
          l.fuse(dims[i].name, dims[i + 1].name);
          break;
        }
        default: {
          std::vector<std::string> order;
          for (const layout::Dim& x : dims) order.push_back(x.name);
          for (std::size_t i = order.size(); i > 1; --i)
            std::swap(order[i - 1], order[rng.below(i)]);
          l.reorder(order);
        }
      }
    } catch (const InputError&) {
    }
    if (l.size() > 200000) return Layout(logical);
  }
  return l;
}

// Channels blocked innermost, the other dims padded, windowed (overlapping where `windows`) and
// split at random in a random order, as a convolution's input or output layout.
Layout blockedLayout(const std::vector<layout::Dim>& logical, std::int64_t padC, std::int64_t block,
                     bool nested, bool windows, Rng& rng) {
  Layout l(logical);
  std::vector<std::string> order;
  for (const layout::Dim& d : logical) {
    if (d.name == "c") continue;
    const std::int64_t pad = windows ? std::int64_t(rng.below(3)) : 0;
    l.pad(d.name, pad, pad);
    const std::int64_t extent = d.extent + 2 * pad;
    if (windows && extent > 3) {
      const std::int64_t tile = 2 + std::int64_t(rng.below(std::uint64_t(extent - 2)));
      l.unfold(d.name, tile, 1 + std::int64_t(rng.below(std::uint64_t(tile))));
      order.push_back(d.name + "_o");
      order.push_back(d.name + "_i");
    } else {
      l.split(d.name, divisor(extent, rng));
      order.push_back(d.name + "_o");
      order.push_back(d.name + "_i");
    }
  }
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  if (padC > 0) l.pad("c", padC, padC);
  l.split("c", block);
  order.insert(order.begin(), "c_o");
  if (nested) {
    l.split("c_i", block / 2);
    order.push_back("c_i_o");
    order.push_back("c_i_i");
  } else {
    order.push_back("c_i");
  }
  l.reorder(order);
  return l;
}

// A 1x1 convolution's output, channels blocked by 32, converted into a 3x3 convolution's input,
// channels blocked by 16, rows and columns padded by 1 and unfolded into the overlapping windows
// of 4x4 output tiles (as MobileNetV2's expansion -> depthwise was before its depthwise input
// became the unpadded image, and as any padded convolution's input still is): the channel
// blocks are copied 16 at a time, the divisions and remainders of the offsets computed once a
// block rather than once an element, and the result is core/layout's packing.
TEST(LayoutConversionRuns, ChannelBlocksAreCopiedWholeWithoutDivisions) {
  Layout out({{"n", 1}, {"f", 64}, {"h", 8}, {"w", 8}});
  out.split("f", 32).split("h", 4).split("w", 8).reorder(
      {"n", "f_o", "h_o", "w_o", "h_i", "w_i", "f_i"});
  Layout in({{"n", 1}, {"c", 64}, {"h", 8}, {"w", 8}});
  in.pad("h", 1, 1).unfold("h", 6, 4).pad("w", 1, 1).unfold("w", 6, 4).split("c", 16).reorder(
      {"n", "c_o", "h_o", "w_o", "h_i", "w_i", "c_i"});
  codegen::CodeWriter w;
  codegen::writeLayoutConversion(w, "convert", out, in);
  const std::string text = w.str();
  // One copy of 16 floats (64 bytes) per run, from an offset computed once for it; padding rows
  // and columns are whole runs of zeros. No element is stored alone, and no loop walks the
  // channels of a block (the innermost dim, p6).
  EXPECT_NE(text.find("__builtin_memcpy(dst + d, src + "), std::string::npos) << text;
  EXPECT_NE(text.find(", 64);"), std::string::npos) << text;
  EXPECT_NE(text.find("__builtin_memset(dst + d, 0, 64);"), std::string::npos) << text;
  EXPECT_EQ(text.find("dst["), std::string::npos) << text;
  EXPECT_EQ(text.find("for (long long p6"), std::string::npos) << text;
  EXPECT_EQ(expectConversionsPack({{out, in}, {in, out}}), 2);
}

// Random pairs of one tensor: blocked both ways (with the read layout's channels padded, so its
// blocks begin off the channels' multiples, nested splits, overlapping windows and padding along
// the other dims), and anything random primitives make. Every conversion writes what core/layout
// packs, element for element, whether it copies runs or elements.
TEST(LayoutConversionRuns, RandomLayoutsConvertAsCoreLayoutPacks) {
  const std::vector<layout::Dim> logical{{"n", 2}, {"c", 32}, {"h", 9}, {"w", 7}};
  Rng rng(11);
  std::vector<std::pair<Layout, Layout>> blocked, random;
  while (blocked.size() < 24) {
    const std::int64_t padC = rng.chance(0.3) ? 8 : 0;
    const std::int64_t readBlock = padC ? 16 : std::int64_t(8) << rng.below(3);
    const std::int64_t writeBlock = std::int64_t(4) << rng.below(4);
    Layout from = blockedLayout(logical, padC, readBlock, false, rng.chance(0.5), rng);
    // Windows that leave rows out hold no copy of them to convert.
    if (!from.covers()) continue;
    blocked.emplace_back(std::move(from),
                         blockedLayout(logical, 0, writeBlock, writeBlock >= 8 && rng.chance(0.3),
                                       rng.chance(0.7), rng));
  }
  while (random.size() < 60) {
    Layout from = randomLayout(logical, rng);
    if (!from.covers()) continue;
    random.emplace_back(std::move(from), randomLayout(logical, rng));
  }
  EXPECT_EQ(expectConversionsPack(blocked), int(blocked.size()));
  const int runs = expectConversionsPack(random);
  std::printf("%d of %zu random pairs copy runs\n", runs, random.size());
}

// A source whose columns overlap in windows of 6 at stride 1 (each element's home window is the
// first that holds it: window 0 for columns 0-5), read at a column the written layout pads by 2,
// so that the column is written "(p2 - 2)". The test for the first window once took the pad's 2
// off the window's width (column 4 read from window -1).
TEST(LayoutConversionRuns, AWindowedSourceIsReadAtAPaddedColumn) {
  const std::vector<layout::Dim> logical{{"c", 4}, {"h", 3}, {"w", 7}};
  Layout from(logical);
  from.unfold("w", 6, 1).reorder({"h", "w_i", "w_o", "c"});
  Layout to(logical);
  to.pad("w", 2, 2);
  expectConversionsPack({{from, to}});
}

// A one-dim tensor copied as one run has no loop to share out: the conversion once wrote an
// OpenMP "for" before the run's bare block, which no compiler takes (review finding).
TEST(LayoutConversionRuns, AOneDimTensorCopiedAsOneRunCompiles) {
  const std::vector<layout::Dim> logical{{"c", 16}};
  Layout split(logical);
  split.split("c", 16);
  const int runs = expectConversionsPack(
      {{Layout(logical), Layout(logical)}, {Layout(logical), split}, {split, Layout(logical)}});
  EXPECT_GE(runs, 1);
}

}  // namespace
}  // namespace opevo::test
