#include "kas/shape_matching.h"

#include <algorithm>

namespace opevo::kas {

Unmatched unmatched(const Shape& lhs, const Shape& rhs) {
  Unmatched u;
  const std::size_t shorter = std::min(lhs.size(), rhs.size());
  while (u.prefix < shorter && lhs[u.prefix] == rhs[u.prefix]) ++u.prefix;
  while (u.suffix < shorter - u.prefix &&
         lhs[lhs.size() - 1 - u.suffix] == rhs[rhs.size() - 1 - u.suffix])
    ++u.suffix;
  for (std::size_t i = u.prefix; i + u.suffix < lhs.size(); ++i) {
    u.lhs = u.lhs * lhs[i].size;
    u.lhsSpatial = u.lhsSpatial || lhs[i].role != DimRole::Channel;
  }
  for (std::size_t i = u.prefix; i + u.suffix < rhs.size(); ++i) {
    u.rhs = u.rhs * rhs[i].size;
    u.rhsSpatial = u.rhsSpatial || rhs[i].role != DimRole::Channel;
  }
  return u;
}

bool blendLegal(const Shape& lhs, const Shape& rhs) {
  const Unmatched u = unmatched(lhs, rhs);
  return !u.lhsSpatial && (!u.rhsSpatial || u.lhs.isOne()) && (u.rhs / u.lhs).knownIntegral();
}

std::vector<std::int64_t> blendChannelMap(const Shape& lhs,
                                          const std::vector<std::int64_t>& lhsDims,
                                          const Shape& rhs,
                                          const std::vector<std::int64_t>& rhsDims) {
  const Unmatched u = unmatched(lhs, rhs);
  auto channelCount = [](const Shape& s) {
    std::size_t n = 0;
    while (n < s.size() && s[n].role == DimRole::Channel) ++n;
    return n;
  };
  const std::size_t rc = channelCount(rhs), lc = channelCount(lhs);
  std::int64_t nl = 1, nr = 1;
  for (std::size_t k = u.prefix; k + u.suffix < lhs.size(); ++k) nl *= lhsDims[k];
  for (std::size_t k = u.prefix; k + u.suffix < rhs.size(); ++k) nr *= rhsDims[k];
  const std::int64_t ratio = nr / nl;
  std::int64_t channels = 1;
  for (std::size_t k = 0; k < rc; ++k) channels *= rhsDims[k];
  std::vector<std::int64_t> map(static_cast<std::size_t>(channels));
  std::vector<std::int64_t> ri(rhs.size(), 0), li(lhs.size(), 0);
  for (std::int64_t c = 0; c < channels; ++c) {
    // RHS index with the image at 0: the image dims are matched, or LHS has nothing in between.
    std::int64_t rest = c;
    for (std::size_t k = rc; k-- > 0;) {
      ri[k] = rest % rhsDims[k];
      rest /= rhsDims[k];
    }
    std::int64_t middle = 0;
    for (std::size_t k = u.prefix; k + u.suffix < rhs.size(); ++k)
      middle = middle * rhsDims[k] + ri[k];
    std::int64_t q = middle / ratio;
    for (std::size_t k = lhs.size() - u.suffix; k-- > u.prefix;) {
      li[k] = q % lhsDims[k];
      q /= lhsDims[k];
    }
    for (std::size_t k = 0; k < u.prefix; ++k) li[k] = ri[k];
    for (std::size_t k = 0; k < u.suffix; ++k) li[lhs.size() - 1 - k] = ri[rhs.size() - 1 - k];
    std::int64_t flat = 0;
    for (std::size_t k = 0; k < lc; ++k) flat = flat * lhsDims[k] + li[k];
    map[static_cast<std::size_t>(c)] = flat;
  }
  return map;
}

std::vector<Size> factors(const Size& of) {
  std::vector<Size> out{Size{}};
  for (std::size_t s = 0; s < kSymbols; ++s) {
    const auto sym = static_cast<Symbol>(s);
    const int e = of.exponent(sym);
    if (e == 0) continue;
    std::vector<Size> grown;
    for (const Size& f : out)
      for (int k = std::min(0, e); k <= std::max(0, e); ++k) {
        Size g = f;
        for (int j = 0; j < k; ++j) g = g * Size::of(sym);
        for (int j = 0; j < -k; ++j) g = g / Size::of(sym);
        grown.push_back(g);
      }
    out = std::move(grown);
  }
  std::erase_if(out, [](const Size& f) { return !f.knownIntegral(); });
  return out;
}

std::vector<std::optional<Substitution>> blendOptions(const Shape& lhs, const Shape& rhs) {
  const Unmatched u = unmatched(lhs, rhs);
  if (u.lhsSpatial) return {};
  const Size ratio = u.rhs / u.lhs;
  if (ratio.knownIntegral()) return {std::nullopt};
  const auto x = u.lhs.variable();
  if (!x) return {};
  // x * rest must divide #RHS: x takes a factor of #RHS / rest that leaves an integral ratio.
  const Size room = u.rhs / (u.lhs / Size::of(*x));
  std::vector<std::optional<Substitution>> out;
  // G divides C without appearing in it: where the room holds a C, C/G and G are factors too.
  std::vector<Size> candidates;
  const bool hasC = room.exponent(Symbol::C) > 0;
  for (const Size& f : factors(room))
    for (const Size& g :
         {f, hasC ? f * Size::of(Symbol::G) : f, hasC ? f / Size::of(Symbol::G) : f})
      if (std::find(candidates.begin(), candidates.end(), g) == candidates.end())
        candidates.push_back(g);
  for (const Size& f : candidates)
    if (f.exponent(*x) == 0 && f.knownIntegral() && (room / f).knownIntegral())
      out.push_back(Substitution{*x, f});
  return out;
}

namespace {

// The channel product, if the image dims are exactly H, W at the end.
std::optional<Size> outputChannels(const Shape& shape) {
  if (shape.size() < 3) return std::nullopt;
  const Dim& h = shape[shape.size() - 2];
  const Dim& w = shape.back();
  if (h.role != DimRole::Height || w.role != DimRole::Width || !(h.size == Size::of(Symbol::H)) ||
      !(w.size == Size::of(Symbol::W)))
    return std::nullopt;
  Size channels;
  for (std::size_t i = 0; i + 2 < shape.size(); ++i) {
    if (shape[i].role != DimRole::Channel) return std::nullopt;
    channels = channels * shape[i].size;
  }
  return channels;
}

}  // namespace

bool outputLegal(const Shape& shape) {
  const auto channels = outputChannels(shape);
  return channels && *channels == Size::of(Symbol::C);
}

std::optional<Substitution> outputSubstitution(const Shape& shape) {
  const auto channels = outputChannels(shape);
  if (!channels) return std::nullopt;
  const auto x = channels->variable();
  if (!x) return std::nullopt;
  const Size value = Size::of(Symbol::C) / (*channels / Size::of(*x));
  if (!value.knownIntegral() || value.hasVariable()) return std::nullopt;
  return Substitution{*x, value};
}

}  // namespace opevo::kas
