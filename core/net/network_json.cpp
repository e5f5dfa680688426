#include "net/network_json.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/input_file.h"
#include "common/strict_json.h"

namespace opevo::net {
namespace {

using nlohmann::json;

// The fields each op accepts besides name, op, input(s).
const std::set<std::string>& fieldsOf(LayerKind kind) {
  static const std::map<LayerKind, std::set<std::string>> fields = {
      {LayerKind::Conv2D, {"out_channels", "kernel", "stride", "padding", "groups", "bias"}},
      {LayerKind::Dense, {"units", "bias"}},
      {LayerKind::MatMul, {"trans_a", "trans_b"}},
      {LayerKind::BatchMatMul, {"trans_a", "trans_b"}},
      {LayerKind::Scale, {"factor"}},
      {LayerKind::MaxPool, {"kernel", "stride", "padding"}},
      {LayerKind::AvgPool, {"kernel", "stride", "padding"}},
      {LayerKind::LayerNorm, {"eps"}},
      {LayerKind::BatchNorm, {"eps"}},
      {LayerKind::Reshape, {"shape"}},
      {LayerKind::Transpose, {"perm"}},
  };
  static const std::set<std::string> none;
  const auto it = fields.find(kind);
  return it == fields.end() ? none : it->second;
}

// "field 'name' is missing (what it takes)" when `j` lacks it, else "field 'name' must be what
// it takes, got 5": a field of the wrong type read as missing ("name": 5 was "missing").
std::string badField(const json& j, const std::string& field, const std::string& takes) {
  if (!j.contains(field)) return "field '" + field + "' is missing (" + takes + ")";
  std::string got = j[field].dump();
  if (got.size() > 60) got = got.substr(0, 60) + "...";
  return "field '" + field + "' must be " + takes + ", got " + got;
}

class Reader {
 public:
  Reader(const std::string& source, std::map<std::string, std::int64_t> params)
      : m_source(source), m_params(std::move(params)) {}

  // An integer, or a string naming a param.
  // Ranges are checked with the shapes (inferShapes), where the layer's context is known.
  std::int64_t integer(const json& v, const std::string& where) const {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_string()) {
      const auto it = m_params.find(v.get<std::string>());
      if (it == m_params.end())
        throw InputError(where + " names param '" + v.get<std::string>() +
                         "', which the file's \"params\" does not declare");
      return it->second;
    }
    throw InputError(where + " must be an integer or a param name, got " + v.dump());
  }

  std::vector<std::int64_t> integers(const json& v, const std::string& where) const {
    if (!v.is_array()) throw InputError(where + " must be an array, got " + v.dump());
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back(integer(v[i], where + "[" + std::to_string(i) + "]"));
    return out;
  }

  Layer layer(const json& j, std::size_t index) const {
    const std::string at = m_source + ": layers[" + std::to_string(index) + "]";
    if (!j.is_object()) throw InputError(at + " must be an object");
    if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
      throw InputError(at + ": " + badField(j, "name", "a non-empty string"));
    Layer l;
    l.name = j["name"];
    const std::string where0 = m_source + ": layer '" + l.name + "'";
    if (!j.contains("op") || !j["op"].is_string())
      throw InputError(where0 + ": " + badField(j, "op", "a string such as conv2d"));
    l.kind = parseLayerKind(j["op"].get<std::string>(), where0);
    const std::string where = where0 + " (" + std::string(layerKindName(l.kind)) + ")";
    const std::set<std::string>& allowed = fieldsOf(l.kind);
    for (const auto& [key, value] : j.items()) {
      if (key == "name" || key == "op" || key == "input" || key == "inputs" || allowed.count(key))
        continue;
      std::string list = "name, op, input or inputs";
      for (const std::string& f : allowed) list += ", " + f;
      throw InputError(where + ": unknown field '" + key + "' (fields: " + list + ")");
    }
    if (j.contains("input") && j.contains("inputs"))
      throw InputError(where + ": give 'input' or 'inputs', not both");
    if (j.contains("input")) {
      if (!j["input"].is_string())
        throw InputError(where + ": field 'input' must be a tensor name");
      l.inputs.push_back(j["input"]);
    } else if (j.contains("inputs")) {
      if (!j["inputs"].is_array()) throw InputError(where + ": field 'inputs' must be an array");
      for (const json& in : j["inputs"]) {
        if (!in.is_string()) throw InputError(where + ": field 'inputs' must hold tensor names");
        l.inputs.push_back(in);
      }
    } else {
      throw InputError(where + ": field 'input' is missing (the tensor it reads)");
    }
    auto field = [&](const char* name) { return where + ": field '" + name + "'"; };
    auto need = [&](const char* name) -> const json& {
      if (!j.contains(name)) throw InputError(where + ": field '" + name + "' is missing");
      return j[name];
    };
    auto flag = [&](const char* name, bool fallback) {
      if (!j.contains(name)) return fallback;
      if (!j[name].is_boolean()) throw InputError(field(name) + " must be true or false");
      return j[name].get<bool>();
    };
    auto number = [&](const char* name, double fallback) {
      if (!j.contains(name)) return fallback;
      if (!j[name].is_number()) throw InputError(field(name) + " must be a number");
      return j[name].get<double>();
    };
    auto window = [&] {
      const json& k = need("kernel");
      if (k.is_array()) {
        const auto v = integers(k, field("kernel"));
        if (v.size() != 2) throw InputError(field("kernel") + " must be one integer or [h, w]");
        l.kernelH = v[0];
        l.kernelW = v[1];
      } else {
        l.kernelH = l.kernelW = integer(k, field("kernel"));
      }
      if (j.contains("stride")) l.stride = integer(j["stride"], field("stride"));
      if (j.contains("padding")) l.pad = integer(j["padding"], field("padding"));
    };
    switch (l.kind) {
      case LayerKind::Conv2D:
        l.outChannels = integer(need("out_channels"), field("out_channels"));
        window();
        if (j.contains("groups")) l.groups = integer(j["groups"], field("groups"));
        l.bias = flag("bias", false);
        break;
      case LayerKind::Dense:
        l.units = integer(need("units"), field("units"));
        l.bias = flag("bias", true);
        break;
      case LayerKind::MatMul:
      case LayerKind::BatchMatMul:
        l.transA = flag("trans_a", false);
        l.transB = flag("trans_b", false);
        break;
      case LayerKind::Scale:
        l.factor = number("factor", 1);
        break;
      case LayerKind::MaxPool:
      case LayerKind::AvgPool:
        window();
        if (!j.contains("stride")) l.stride = l.kernelH;
        if (l.kernelH != l.kernelW)
          throw InputError(field("kernel") + " must be square for a pool");
        break;
      case LayerKind::LayerNorm:
      case LayerKind::BatchNorm:
        l.eps = number("eps", 1e-5);
        if (!(l.eps > 0)) throw InputError(field("eps") + " must be positive");
        break;
      case LayerKind::Reshape:
        l.target = integers(need("shape"), field("shape"));
        break;
      case LayerKind::Transpose:
        l.target = integers(need("perm"), field("perm"));
        break;
      default:
        break;
    }
    return l;
  }

 private:
  std::string m_source;
  std::map<std::string, std::int64_t> m_params;
};

}  // namespace

Network networkFromJson(const json& j, const std::string& source, const ParamOverrides& overrides,
                        bool foldNorms) {
  if (!j.is_object()) throw InputError(source + ": a network must be a JSON object");
  static const std::set<std::string> top = {"name",   "description", "params",
                                            "inputs", "layers",      "output"};
  for (const auto& [key, value] : j.items())
    if (!top.count(key))
      throw InputError(source + ": unknown field '" + key +
                       "' (fields: name, description, params, inputs, layers, output)");
  Network net;
  // An empty name printed ": optional text" where the network's name heads a line.
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    throw InputError(source + ": " + badField(j, "name", "a non-empty string"));
  net.name = j["name"];
  if (j.contains("description")) {
    if (!j["description"].is_string())
      throw InputError(source + ": field 'description' must be a string");
    net.description = j["description"];
  }
  if (j.contains("params")) {
    if (!j["params"].is_object())
      throw InputError(source + ": field 'params' must be an object of name: integer");
    for (const auto& [key, value] : j["params"].items()) {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 1)
        throw InputError(source + ": param '" + key + "' must be a positive integer, got " +
                         value.dump());
      net.params[key] = value.get<std::int64_t>();
    }
  }
  for (const auto& [key, value] : overrides) {
    if (!net.params.count(key)) {
      std::string list;
      for (const auto& [name, v] : net.params) list += (list.empty() ? "" : ", ") + name;
      throw InputError(source + ": network '" + net.name + "' has no param '" + key +
                       "' (params: " + (list.empty() ? "none" : list) + ")");
    }
    if (value < 1)
      throw InputError(source + ": param '" + key + "' must be positive, got " +
                       std::to_string(value));
    net.params[key] = value;
  }
  const Reader read(source, net.params);
  if (!j.contains("inputs") || !j["inputs"].is_array() || j["inputs"].empty())
    throw InputError(source + ": " + badField(j, "inputs", "a non-empty array of {name, shape}"));
  for (std::size_t i = 0; i < j["inputs"].size(); ++i) {
    const json& in = j["inputs"][i];
    const std::string at = source + ": inputs[" + std::to_string(i) + "]";
    if (!in.is_object() || !in.contains("name") || !in["name"].is_string() || !in.contains("shape"))
      throw InputError(at + " must be an object with 'name' and 'shape'");
    net.inputs.push_back({in["name"], read.integers(in["shape"], at + ": field 'shape'")});
  }
  if (!j.contains("layers") || !j["layers"].is_array())
    throw InputError(source + ": " + badField(j, "layers", "an array of layers"));
  for (std::size_t i = 0; i < j["layers"].size(); ++i)
    net.layers.push_back(read.layer(j["layers"][i], i));
  if (j.contains("output")) {
    if (!j["output"].is_string())
      throw InputError(source + ": field 'output' must be a tensor name");
    net.output = j["output"];
  } else if (!net.layers.empty()) {
    net.output = net.layers.back().name;
  }
  inferShapes(net, source);
  if (foldNorms) foldBatchNorms(net);
  return net;
}

// networkPresets() is defined in the file CMake generates from resources/networks/*.json.

ParamOverrides paramsFromJson(const std::string& text, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw InputError(where + "params is not a JSON object");
  ParamOverrides params;
  for (const auto& [name, value] : j.items()) {
    if (!value.is_number_integer())
      throw InputError(where + "params." + name + " is not a whole number");
    params[name] = value.get<std::int64_t>();
  }
  return params;
}

std::string networkText(const std::string& presetOrPath) {
  std::error_code ec;
  for (const NetworkPreset& p : networkPresets()) {
    if (p.name != presetOrPath) continue;
    // A file of a preset's name in this folder was taken for the preset without a word.
    if (std::filesystem::exists(presetOrPath, ec))
      throw InputError("'" + presetOrPath + "' names a preset and a file in this folder: give ./" +
                       presetOrPath + " for the file (or rename it to use the preset)");
    return p.text;
  }
  if (std::filesystem::is_directory(presetOrPath, ec))
    throw InputError(presetOrPath + ": is a directory, not a network file");
  if (const auto device = deviceInsteadOfFile(presetOrPath)) throw InputError(*device);
  if (!std::filesystem::exists(presetOrPath, ec)) {
    std::string list;
    for (const NetworkPreset& p : networkPresets()) list += (list.empty() ? "" : ", ") + p.name;
    throw InputError("'" + presetOrPath + "' is neither a network preset (" + list +
                     ") nor a file");
  }
  std::ifstream in(presetOrPath);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw InputError(presetOrPath + ": cannot be read");
  return text.str();
}

Network loadNetwork(const std::string& presetOrPath, const ParamOverrides& overrides,
                    bool foldNorms) {
  const std::string text = networkText(presetOrPath);
  bool preset = false;
  for (const NetworkPreset& p : networkPresets()) preset = preset || p.name == presetOrPath;
  const std::string source = preset ? "preset " + presetOrPath : presetOrPath;
  return networkFromText(text, source, overrides, foldNorms);
}

Network networkFromText(const std::string& text, const std::string& source,
                        const ParamOverrides& overrides, bool foldNorms) {
  return networkFromJson(parseStrictJson(text, source), source, overrides, foldNorms);
}

std::pair<std::string, std::int64_t> parseParamOverride(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--param '" + text + "': expected name=value, e.g. batch=8");
  const std::string name = text.substr(0, eq), value = text.substr(eq + 1);
  std::size_t used = 0;
  std::int64_t v = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size())
    throw InputError("--param '" + text + "': the value must be an integer");
  return {name, v};
}

}  // namespace opevo::net
