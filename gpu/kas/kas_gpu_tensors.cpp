#include "kas/kas_gpu_tensors.h"

namespace opevo::kas::detail {

namespace {

std::string s(std::int64_t v) {
  return std::to_string(v);
}

std::string origin(std::size_t i, const Reach& r, bool has, const char* corner) {
  if (!has || r.full || i == 0) return "0";
  return r.lo == 0 ? std::string(corner) : std::string(corner) + " + (" + s(r.lo) + ")";
}

bool beyond(std::size_t i, const Reach& r, bool has) {
  return has && !r.full && i != 0 && (r.lo < 0 || r.hi > 0);
}

}  // namespace

std::string KasGpuTensors::originY(std::size_t i) const {
  return origin(i, regions().nodes[i].h, shape(i).hasH, "ty");
}

std::string KasGpuTensors::originX(std::size_t i) const {
  return origin(i, regions().nodes[i].w, shape(i).hasW, "tx");
}

bool KasGpuTensors::beyondY(std::size_t i) const {
  return beyond(i, regions().nodes[i].h, shape(i).hasH);
}

bool KasGpuTensors::beyondX(std::size_t i) const {
  return beyond(i, regions().nodes[i].w, shape(i).hasW);
}

std::int64_t KasGpuTensors::storageRows(std::size_t i) const {
  return global(i) ? height() : regions().rows(root(i));
}

std::int64_t KasGpuTensors::storageCols(std::size_t i) const {
  return global(i) ? width() : regions().cols(root(i));
}

std::string KasGpuTensors::at(std::size_t k, const std::string& c, const std::string& y,
                              const std::string& x) const {
  const std::size_t r = root(k);
  auto local = [&](bool has, const std::string& v, const std::string& origin) {
    if (!has) return std::string("0");
    if (global(k) || origin == "0") return "(" + v + ")";
    return "((" + v + ") - " + origin + ")";
  };
  const std::string rid = s(static_cast<std::int64_t>(r));
  const std::string base = arena(k) == KasArena::Input    ? "input"
                           : arena(k) == KasArena::Output ? "output"
                                                          : "b" + rid;
  const std::string yy = local(shape(k).hasH, y, originY(r) == "0" ? "0" : "yb" + rid);
  const std::string xx = local(shape(k).hasW, x, originX(r) == "0" ? "0" : "xb" + rid);
  return base + "[((" + c + ") * " + s(storageRows(k)) + " + " + yy + ") * " + s(storageCols(k)) +
         " + " + xx + "]";
}

void openLanes(codegen::CodeWriter& w, const KasAxes& axes, std::int64_t threads) {
  std::int64_t total = 1;
  for (const auto& a : axes) total *= a.second;
  w.open("for (int e = tid; e < " + s(total) + "; e += " + s(threads) + ")");
  std::int64_t inner = 1;
  for (std::size_t k = axes.size(); k-- > 0;) {
    const auto& [name, extent] = axes[k];
    std::string v = inner == 1 ? "e" : "e / " + s(inner);
    if (k > 0) v = "(" + v + ") % " + s(extent);
    w.line("const int " + name + " = " + (extent == 1 ? "0" : v) + ";");
    inner *= extent;
  }
}

void openPixel(codegen::CodeWriter& w, const KasGpuTensors& t, std::size_t i, bool withY,
               bool withX) {
  std::string outside;
  auto add = [&](const std::string& v, std::int64_t len) {
    outside += (outside.empty() ? "" : " || ") + v + " < 0 || " + v + " >= " + s(len);
  };
  if (withY) {
    w.line("const int y = " + t.originY(i) + " + yy;");
    if (t.beyondY(i)) add("y", t.height());
  }
  if (withX) {
    w.line("const int x = " + t.originX(i) + " + xx;");
    if (t.beyondX(i)) add("x", t.width());
  }
  if (!outside.empty()) w.line("if (" + outside + ") continue;");
}

KasAxes regionAxes(const KasGpuTensors& t, std::size_t i, const std::string& channel,
                   std::int64_t channels) {
  KasAxes axes{{channel, channels}};
  if (t.shape(i).hasH) axes.push_back({"yy", t.regions().rows(i)});
  if (t.shape(i).hasW) axes.push_back({"xx", t.regions().cols(i)});
  return axes;
}

void openRegion(codegen::CodeWriter& w, const KasGpuTensors& t, std::size_t i, std::int64_t threads,
                const std::string& channel) {
  openLanes(w, regionAxes(t, i, channel, t.shape(i).channels), threads);
  openPixel(w, t, i, t.shape(i).hasH, t.shape(i).hasW);
}

}  // namespace opevo::kas::detail
