// The layout's bookkeeping: validating and applying primitives, the physical dims, describe() and
// the JSON form. Where elements go (offsets, gather, pack/unpack) is in layout_map.cpp.

#include "layout/layout.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/enum_names.h"
#include "common/error.h"

namespace opevo::layout {
namespace detail {
void applyPrimitive(Layout& layout, const Primitive& p);
}  // namespace detail

namespace {

constexpr EnumNames<PrimitiveKind, 6> kPrimitiveNames{{{{PrimitiveKind::Split, "split"},
                                                        {PrimitiveKind::Reorder, "reorder"},
                                                        {PrimitiveKind::Fuse, "fuse"},
                                                        {PrimitiveKind::Unfold, "unfold"},
                                                        {PrimitiveKind::Pad, "pad"},
                                                        {PrimitiveKind::StoreAt, "store_at"}}}};

// The largest buffer a layout may describe. Well below int64's limit, so that offsets and the
// intermediate values of generated expressions (x - (tile - stride), o * stride + i) cannot
// overflow either.
constexpr std::int64_t kMaxElements = std::int64_t(1) << 62;

bool isIdentifier(const std::string& s) {
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (s.empty() || !letter(s[0])) return false;
  for (char c : s)
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string dimList(const std::vector<Dim>& dims) {
  std::vector<std::string> names;
  for (const Dim& d : dims) names.push_back(d.name);
  return joined(names);
}

int indexOf(const std::vector<Dim>& dims, const std::string& name) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == name) return int(i);
  return -1;
}

std::string describePrimitive(const Primitive& p) {
  std::vector<std::string> items = p.dims;
  for (std::int64_t a : p.args) items.push_back(std::to_string(a));
  return std::string(primitiveName(p.kind)) + "(" + joined(items) + ")";
}

InputError failure(const Primitive& p, const std::string& what) {
  return InputError(describePrimitive(p) + ": " + what);
}

// The product of the extents, or -1 when it passes kMaxElements.
std::int64_t product(const std::vector<Dim>& dims) {
  std::int64_t n = 1;
  for (const Dim& d : dims)
    if (__builtin_mul_overflow(n, d.extent, &n) || n > kMaxElements) return -1;
  return n;
}

// The position of the dim a primitive names, or an error listing the dims there are.
std::size_t locate(const Primitive& p, const std::vector<Dim>& dims, const std::string& name) {
  const int i = indexOf(dims, name);
  if (i < 0) throw failure(p, "no dim '" + name + "' (dims: " + dimList(dims) + ")");
  return std::size_t(i);
}

// dims with the `count` dims at `at` replaced by `by`, refusing a new name that another dim has.
std::vector<Dim> replaced(const Primitive& p, std::vector<Dim> dims, std::size_t at,
                          std::size_t count, const std::vector<Dim>& by) {
  dims.erase(dims.begin() + std::ptrdiff_t(at), dims.begin() + std::ptrdiff_t(at + count));
  for (const Dim& d : by)
    if (indexOf(dims, d.name) >= 0)
      throw failure(p, "the new dim '" + d.name + "' collides with an existing dim");
  dims.insert(dims.begin() + std::ptrdiff_t(at), by.begin(), by.end());
  return dims;
}

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// Every primitive validates against the current dims and builds the new ones aside; only this
// last step changes the layout, so a failed primitive leaves it as it was.
void commit(const Primitive& p, std::vector<Dim> dims, std::vector<Dim>& physical,
            std::vector<Primitive>& primitives) {
  if (product(dims) < 0) throw failure(p, "the layout would have more than 2^62 elements");
  physical = std::move(dims);
  primitives.push_back(p);
}

}  // namespace

std::string_view primitiveName(PrimitiveKind kind) {
  return kPrimitiveNames.name(kind);
}

Layout::Layout(std::vector<Dim> logical) : m_logical(std::move(logical)) {
  if (m_logical.empty()) throw InputError("layout: a tensor needs at least one dim");
  for (std::size_t i = 0; i < m_logical.size(); ++i) {
    const Dim& d = m_logical[i];
    if (!isIdentifier(d.name))
      throw InputError("layout: dim " + str(std::int64_t(i)) + " name '" + d.name +
                       "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
    if (indexOf(m_logical, d.name) != int(i))
      throw InputError("layout: dim '" + d.name + "' appears twice");
    if (d.extent < 1)
      throw InputError("layout: dim '" + d.name + "' has extent " + str(d.extent) +
                       "; extents must be at least 1");
  }
  if (product(m_logical) < 0)
    throw InputError("layout: the tensor (" + dimList(m_logical) + ") has more than 2^62 elements");
  m_physical = m_logical;
}

Layout& Layout::split(const std::string& dim, std::int64_t factor) {
  const Primitive p{PrimitiveKind::Split, {dim}, {factor}};
  const std::size_t at = locate(p, m_physical, dim);
  const std::int64_t extent = m_physical[at].extent;
  if (factor < 1) throw failure(p, "the factor of " + dim + " must be at least 1");
  if (extent % factor != 0)
    throw failure(p, str(factor) + " does not divide " + dim + "'s extent " + str(extent) +
                         "; pad " + dim + " first");
  commit(p, replaced(p, m_physical, at, 1, {{dim + "_o", extent / factor}, {dim + "_i", factor}}),
         m_physical, m_primitives);
  return *this;
}

Layout& Layout::reorder(const std::vector<std::string>& order) {
  const Primitive p{PrimitiveKind::Reorder, order, {}};
  if (order.size() != m_physical.size())
    throw failure(p, "names " + str(std::int64_t(order.size())) + " dims, but there are " +
                         str(std::int64_t(m_physical.size())) + ": " + dimList(m_physical));
  std::vector<Dim> dims;
  for (const std::string& name : order) {
    if (indexOf(dims, name) >= 0) throw failure(p, "'" + name + "' appears twice");
    dims.push_back(m_physical[locate(p, m_physical, name)]);
  }
  commit(p, std::move(dims), m_physical, m_primitives);
  return *this;
}

Layout& Layout::fuse(const std::string& outer, const std::string& inner) {
  const Primitive p{PrimitiveKind::Fuse, {outer, inner}, {}};
  const std::size_t at = locate(p, m_physical, outer);
  if (locate(p, m_physical, inner) != at + 1)
    throw failure(p, outer + " is not immediately outside " + inner +
                         " (dims: " + dimList(m_physical) + "); reorder first");
  const Dim fused{outer + "_" + inner, m_physical[at].extent * m_physical[at + 1].extent};
  commit(p, replaced(p, m_physical, at, 2, {fused}), m_physical, m_primitives);
  return *this;
}

Layout& Layout::unfold(const std::string& dim, std::int64_t tile, std::int64_t stride) {
  const Primitive p{PrimitiveKind::Unfold, {dim}, {tile, stride}};
  const std::size_t at = locate(p, m_physical, dim);
  const std::int64_t extent = m_physical[at].extent;
  if (tile < 1 || stride < 1) throw failure(p, "the tile and stride of " + dim + " must be >= 1");
  if (stride > tile)
    throw failure(p, "stride " + str(stride) + " > tile " + str(tile) + " of " + dim +
                         " would skip elements");
  if (tile > extent)
    throw failure(p, "tile " + str(tile) + " exceeds " + dim + "'s extent " + str(extent));
  const std::int64_t count = (extent - tile) / stride + 1;
  commit(p, replaced(p, m_physical, at, 1, {{dim + "_o", count}, {dim + "_i", tile}}), m_physical,
         m_primitives);
  return *this;
}

Layout& Layout::pad(const std::string& dim, std::int64_t before, std::int64_t after) {
  const Primitive p{PrimitiveKind::Pad, {dim}, {before, after}};
  const std::size_t at = locate(p, m_physical, dim);
  if (before < 0 || after < 0) throw failure(p, "negative padding of " + dim);
  std::vector<Dim> dims = m_physical;
  if (__builtin_add_overflow(dims[at].extent, before, &dims[at].extent) ||
      __builtin_add_overflow(dims[at].extent, after, &dims[at].extent))
    throw failure(p, dim + "'s padded extent overflows");
  commit(p, std::move(dims), m_physical, m_primitives);
  return *this;
}

Layout& Layout::storeAt(const std::string& dim, const std::string& attached) {
  const Primitive p{PrimitiveKind::StoreAt, {dim, attached}, {}};
  if (!isIdentifier(attached))
    throw failure(p, "the attached tensor's name '" + attached + "' is not an identifier");
  if (indexOf(m_logical, dim) < 0)
    throw failure(p, "'" + dim + "' is not a logical dim (" + dimList(m_logical) + ")");
  for (const Primitive& q : m_primitives) {
    if (q.kind == PrimitiveKind::StoreAt)
      throw failure(p, "the layout already stores '" + q.dims[1] + "' at " + q.dims[0] +
                           "; only one store_at is allowed");
    // A reorder moves dim without changing it; any other primitive naming it transforms it.
    if (q.kind != PrimitiveKind::Reorder &&
        std::find(q.dims.begin(), q.dims.end(), dim) != q.dims.end())
      throw failure(p, dim + " was transformed by " + describePrimitive(q) +
                           "; store_at needs an untransformed logical dim");
  }
  std::vector<Dim> dims = m_physical;
  dims[locate(p, dims, dim)].extent += 1;
  commit(p, std::move(dims), m_physical, m_primitives);
  return *this;
}

std::vector<std::int64_t> Layout::strides() const {
  std::vector<std::int64_t> s(m_physical.size(), 1);
  for (std::size_t i = m_physical.size(); i-- > 1;) s[i - 1] = s[i] * m_physical[i].extent;
  return s;
}

std::int64_t Layout::size() const {
  return product(m_physical);
}

std::int64_t Layout::logicalSize() const {
  return product(m_logical);
}

std::string Layout::describe() const {
  if (m_primitives.empty()) return "identity";
  std::string out;
  for (const Primitive& p : m_primitives) out += (out.empty() ? "" : "; ") + describePrimitive(p);
  return out;
}

namespace {

nlohmann::json dimsJson(const std::vector<Dim>& dims) {
  nlohmann::json out = nlohmann::json::array();
  for (const Dim& d : dims) out.push_back({{"name", d.name}, {"extent", d.extent}});
  return out;
}

InputError badJson(const std::string& what) {
  return InputError("layout JSON: " + what);
}

std::vector<Dim> dimsFromJson(const nlohmann::json& j, const std::string& field) {
  if (!j.is_array()) throw badJson("'" + field + "' must be an array of {name, extent}");
  std::vector<Dim> dims;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = field + "[" + str(std::int64_t(i)) + "]";
    const nlohmann::json& d = j[i];
    if (!d.is_object() || !d.contains("name") || !d["name"].is_string())
      throw badJson(where + ".name must be a string");
    if (!d.contains("extent") || !d["extent"].is_number_integer())
      throw badJson(where + ".extent must be an integer");
    dims.push_back({d["name"].get<std::string>(), d["extent"].get<std::int64_t>()});
  }
  return dims;
}

Primitive primitiveFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw badJson(where + " must be an object {kind, dims, args}");
  if (!j.contains("kind") || !j["kind"].is_string())
    throw badJson(where + ".kind must be a string");
  const std::string kind = j["kind"].get<std::string>();
  const auto parsed = kPrimitiveNames.parse(kind);
  if (!parsed)
    throw badJson(where + ".kind '" + kind + "' is not a primitive (" + kPrimitiveNames.list() +
                  ")");
  Primitive p{*parsed, {}, {}};
  if (!j.contains("dims") || !j["dims"].is_array())
    throw badJson(where + ".dims must be an array of names");
  for (const nlohmann::json& name : j["dims"]) {
    if (!name.is_string()) throw badJson(where + ".dims must be an array of names");
    p.dims.push_back(name.get<std::string>());
  }
  if (j.contains("args")) {
    if (!j["args"].is_array()) throw badJson(where + ".args must be an array of integers");
    for (const nlohmann::json& a : j["args"]) {
      if (!a.is_number_integer()) throw badJson(where + ".args must be an array of integers");
      p.args.push_back(a.get<std::int64_t>());
    }
  }
  // How many dims and args each kind takes; reorder takes any number of dims.
  std::size_t dims = 1, args = 0;
  switch (p.kind) {
    case PrimitiveKind::Split:
      args = 1;
      break;
    case PrimitiveKind::Reorder:
      dims = p.dims.size();
      break;
    case PrimitiveKind::Fuse:
      dims = 2;
      break;
    case PrimitiveKind::Unfold:
    case PrimitiveKind::Pad:
      args = 2;
      break;
    case PrimitiveKind::StoreAt:
      dims = 2;
      break;
  }
  if (p.dims.size() != dims)
    throw badJson(where + ".dims must hold " + str(std::int64_t(dims)) + " name(s) for " + kind);
  if (p.args.size() != args)
    throw badJson(where + ".args must hold " + str(std::int64_t(args)) + " integer(s) for " + kind);
  return p;
}

}  // namespace

nlohmann::json Layout::toJson() const {
  nlohmann::json primitives = nlohmann::json::array();
  for (const Primitive& p : m_primitives)
    primitives.push_back({{"kind", primitiveName(p.kind)}, {"dims", p.dims}, {"args", p.args}});
  return {{"logical", dimsJson(m_logical)},
          {"primitives", std::move(primitives)},
          {"physical", dimsJson(m_physical)}};
}

Layout Layout::fromJson(const nlohmann::json& j) {
  if (!j.is_object()) throw badJson("must be an object {logical, primitives, physical}");
  if (!j.contains("logical")) throw badJson("'logical' is missing");
  std::vector<Dim> logical = dimsFromJson(j["logical"], "logical");
  std::optional<Layout> built;
  try {
    built.emplace(std::move(logical));
  } catch (const InputError& e) {
    throw badJson(std::string("logical: ") + e.what());
  }
  Layout& layout = *built;
  if (j.contains("primitives")) {
    const nlohmann::json& list = j["primitives"];
    if (!list.is_array()) throw badJson("'primitives' must be an array");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = "primitives[" + str(std::int64_t(i)) + "]";
      const Primitive p = primitiveFromJson(list[i], where);
      try {
        detail::applyPrimitive(layout, p);
      } catch (const InputError& e) {
        throw badJson(where + ": " + e.what());
      }
    }
  }
  // "physical" is derived; when present it must agree, which catches a hand-edited file.
  if (j.contains("physical") && dimsFromJson(j["physical"], "physical") != layout.physical())
    throw badJson("'physical' does not match what the primitives give (" +
                  dimList(layout.physical()) + ")");
  return std::move(layout);
}

namespace {

// A layout's primitives with the names of its logical dims replaced by their positions, every
// derived dim named after what it derives from, the no-op pads dropped and the unfolds that are
// splits (a window as wide as its stride, no remainder) written as splits; then the splits that
// move nothing undone (simplifySplits); sorted, since with every name unique the primitives on
// different dims commute. With the final physical dims, which alone decide the order, it is the
// mapping.
struct CanonicalLayout {
  std::vector<std::pair<std::vector<std::string>, std::vector<std::int64_t>>> primitives;
  std::vector<Dim> physical;
  bool operator==(const CanonicalLayout&) const = default;
};

// A physical dim of extent 1 adds nothing to any offset, and a split whose outer part lies just
// outside its inner part in the physical order (dims of extent 1 aside), each a physical dim, puts
// every element where the unsplit dim would: both are dropped, repeatedly (nested splits), so
// that an output split into tiles of whole rows (n, f_o, h_o, w_o, h_i, w_i, f_i with one column
// tile) is the image with blocked channels (n, c_o, h, w, c_i) that reads it.
void simplifySplits(CanonicalLayout& c) {
  std::set<std::string> gone;  // physical dims of extent 1, dropped
  std::erase_if(c.physical, [&](const Dim& d) {
    if (d.extent != 1) return false;
    gone.insert(d.name);
    return true;
  });
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k < c.primitives.size() && !changed; ++k) {
      const std::vector<std::string>& named = c.primitives[k].first;  // kind, then its dims
      if (named.front() != "split") continue;
      const std::string from = named[1], outer = from + "o", inner = from + "i";
      const auto at = [&](const std::string& name) {
        return std::find_if(c.physical.begin(), c.physical.end(),
                            [&](const Dim& d) { return d.name == name; });
      };
      const auto o = at(outer), i = at(inner);
      const bool oHere = o != c.physical.end(), iHere = i != c.physical.end();
      const bool oGone = gone.count(outer) > 0, iGone = gone.count(inner) > 0;
      if (oHere && iHere && i == o + 1) {
        o->name = from;
        o->extent *= i->extent;
        c.physical.erase(i);
      } else if (oGone && iHere) {
        i->name = from;
      } else if (iGone && oHere) {
        o->name = from;
      } else if (oGone && iGone) {
        gone.insert(from);
      } else {
        continue;
      }
      c.primitives.erase(c.primitives.begin() + std::ptrdiff_t(k));
      changed = true;
    }
  }
}

CanonicalLayout canonical(const Layout& l) {
  std::map<std::string, Dim> named;  // a current dim's name -> its canonical name and extent
  for (std::size_t i = 0; i < l.logical().size(); ++i)
    named[l.logical()[i].name] = {std::string(1, '#').append(std::to_string(i)),
                                  l.logical()[i].extent};
  CanonicalLayout c;
  auto record = [&](const std::string& kind, std::vector<std::string> dims,
                    std::vector<std::int64_t> args) {
    dims.insert(dims.begin(), kind);
    c.primitives.emplace_back(std::move(dims), std::move(args));
  };
  for (const Primitive& p : l.primitives()) {
    const std::string& d = p.dims.front();
    switch (p.kind) {
      case PrimitiveKind::Reorder:
        break;  // the final physical order below says where every dim went
      case PrimitiveKind::Pad:
        if (p.args[0] == 0 && p.args[1] == 0) break;
        record("pad", {named[d].name}, p.args);
        named[d] = {named[d].name + "p", named[d].extent + p.args[0] + p.args[1]};
        break;
      case PrimitiveKind::Split:
      case PrimitiveKind::Unfold: {
        const Dim from = named[d];
        const std::int64_t tile = p.args[0];
        const bool split =
            p.kind == PrimitiveKind::Split || (p.args[0] == p.args[1] && from.extent % tile == 0);
        const std::int64_t count =
            split ? from.extent / tile : (from.extent - tile) / p.args[1] + 1;
        if (split)
          record("split", {from.name}, {tile});
        else
          record("unfold", {from.name}, p.args);
        named[d + "_o"] = {from.name + "o", count};
        named[d + "_i"] = {from.name + "i", tile};
        break;
      }
      case PrimitiveKind::Fuse: {
        const Dim outer = named[d], inner = named[p.dims[1]];
        record("fuse", {outer.name, inner.name}, {});
        std::string fused(1, '(');  // appended, not "(" + ...: GCC 12 warns falsely there
        fused.append(outer.name).append(1, '.').append(inner.name).append(1, ')');
        named[d + "_" + p.dims[1]] = {fused, outer.extent * inner.extent};
        break;
      }
      case PrimitiveKind::StoreAt:
        record("store_at", {named[d].name, p.dims[1]}, {});
        named[d].extent += 1;
        break;
    }
  }
  for (const Dim& d : l.physical()) c.physical.push_back(named[d.name]);
  simplifySplits(c);
  std::sort(c.primitives.begin(), c.primitives.end());
  return c;
}

}  // namespace

bool sameMapping(const Layout& a, const Layout& b) {
  if (a.logical().size() != b.logical().size()) return false;
  for (std::size_t i = 0; i < a.logical().size(); ++i)
    if (a.logical()[i].extent != b.logical()[i].extent) return false;
  return canonical(a) == canonical(b);
}

namespace detail {

void applyPrimitive(Layout& layout, const Primitive& p) {
  switch (p.kind) {
    case PrimitiveKind::Split:
      layout.split(p.dims.at(0), p.args.at(0));
      break;
    case PrimitiveKind::Reorder:
      layout.reorder(p.dims);
      break;
    case PrimitiveKind::Fuse:
      layout.fuse(p.dims.at(0), p.dims.at(1));
      break;
    case PrimitiveKind::Unfold:
      layout.unfold(p.dims.at(0), p.args.at(0), p.args.at(1));
      break;
    case PrimitiveKind::Pad:
      layout.pad(p.dims.at(0), p.args.at(0), p.args.at(1));
      break;
    case PrimitiveKind::StoreAt:
      layout.storeAt(p.dims.at(0), p.dims.at(1));
      break;
  }
}

}  // namespace detail
}  // namespace opevo::layout
