#include "kas/kas_json.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/input_file.h"
#include "common/strict_json.h"

namespace opevo::kas {

namespace {

// As the file is named (kernel-5fdbc271d719e9f2.json) and every command prints it; as a JSON
// number it read 6907328247698680306 beside that name.
std::string hashText(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

nlohmann::json kernelToJson(const MicroDag& dag) {
  nlohmann::json nodes = nlohmann::json::array();
  for (std::size_t i = 0; i < dag.nodes().size(); ++i) {
    const Node& n = dag.nodes()[i];
    nlohmann::json o{{"op", primitiveName(n.kind)}};
    if (isBlend(n.kind))
      o["inputs"] = n.inputs;
    else if (!n.inputs.empty())
      o["input"] = n.inputs.front();
    if (takesDim(n.kind)) o["dim"] = n.dim;
    o["shape"] = shapeText(dag.shape(static_cast<int>(i)));
    nodes.push_back(std::move(o));
  }
  nlohmann::json subs = nlohmann::json::object();
  for (const auto& [x, value] : dag.substitutions())
    subs[std::string(symbolName(x))] = value.text();
  return {{"format", "opevo-kas-kernel"},
          {"version", 1},
          {"hash", hashText(dag.canonicalHash())},
          {"nodes", std::move(nodes)},
          {"substitutions", std::move(subs)}};
}

MicroDag kernelFromJson(const nlohmann::json& j, const std::string& source) {
  auto fail = [&](const std::string& what) { throw InputError(source + ": " + what); };
  if (!j.is_object()) fail("expected a JSON object with \"nodes\"");
  if (j.contains("format") && j["format"] != "opevo-kas-kernel")
    fail("\"format\" is " + j["format"].dump() + ", expected \"opevo-kas-kernel\"");
  // A later version may mean what this one reads otherwise: refused, not read as version 1.
  if (j.contains("version") && j["version"] != 1)
    fail("\"version\" is " + j["version"].dump() + "; this opevo reads version 1 only");
  if (!j.contains("nodes") || !j["nodes"].is_array() || j["nodes"].empty())
    fail("\"nodes\" must be a non-empty array, node 0 the input");
  std::vector<Node> nodes;
  const auto& list = j["nodes"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& o = list[i];
    const std::string where = "node " + std::to_string(i);
    if (!o.is_object() || !o.contains("op") || !o["op"].is_string())
      fail(where + ": expected an object with a string \"op\"");
    const auto kind = parsePrimitive(o["op"].get<std::string>());
    if (!kind)
      fail(where + ": unknown op " + o["op"].dump() + " (expected " + primitiveList() + ")");
    Node n;
    n.kind = *kind;
    if (i == 0) {
      if (n.kind != PrimitiveKind::Input) fail("node 0 must be {\"op\": \"input\"}");
      continue;
    }
    auto index = [&](const nlohmann::json& v, const char* field) {
      if (!v.is_number_integer()) fail(where + ": \"" + field + "\" must be an integer");
      // Read wide, so that 10^12 is named as it was written rather than wrapped to an int.
      if (v.is_number_unsigned() ? v.get<std::uint64_t>() > 1000000u
                                 : v.get<std::int64_t>() < -1000000)
        fail(where + ": input " + v.dump() + " is not an earlier node");
      return v.get<int>();
    };
    // A field the op does not take was ignored: {"op": "fc", "dim": "x"} read as a plain fc.
    const std::string op(primitiveName(n.kind));
    if (!takesDim(n.kind) && o.contains("dim")) fail(where + ": " + op + " takes no \"dim\"");
    if (isBlend(n.kind) && o.contains("input"))
      fail(where + ": a blend takes \"inputs\": [lhs, rhs], not \"input\"");
    if (!isBlend(n.kind) && o.contains("inputs"))
      fail(where + ": " + op + " takes one \"input\", not \"inputs\"");
    if (isBlend(n.kind)) {
      if (!o.contains("inputs") || !o["inputs"].is_array() || o["inputs"].size() != 2)
        fail(where + ": a blend needs \"inputs\": [lhs, rhs]");
      for (const auto& v : o["inputs"]) n.inputs.push_back(index(v, "inputs"));
    } else {
      if (!o.contains("input")) fail(where + ": missing \"input\"");
      n.inputs.push_back(index(o["input"], "input"));
    }
    if (takesDim(n.kind)) {
      if (!o.contains("dim"))
        fail(where + ": " + std::string(primitiveName(n.kind)) + " needs \"dim\"");
      n.dim = index(o["dim"], "dim");
    }
    nodes.push_back(n);
  }
  // Nodes first (unchecked), then substitutions, then one type check of the whole.
  std::vector<Substitution> subs;
  if (j.contains("substitutions")) {
    if (!j["substitutions"].is_object())
      fail("\"substitutions\" must be an object {\"x1\": \"C\"}");
    for (const auto& [name, value] : j["substitutions"].items()) {
      const auto x = parseSymbol(name);
      if (!x || !isVariable(*x)) fail("substitution of \"" + name + "\": not a variable x1..x8");
      const auto size = value.is_string() ? Size::parse(value.get<std::string>()) : std::nullopt;
      if (!size)
        fail("substitution of \"" + name + "\": " + value.dump() +
             " is not a size such as \"C*KH/G\"");
      subs.push_back(Substitution{*x, *size});
    }
  }
  MicroDag out = MicroDag::unchecked(std::move(nodes), subs);
  if (const auto error = out.refresh()) fail(*error);
  if (const auto error = out.completeError()) fail(*error);
  return out;
}

namespace {

nlohmann::json readJsonFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": is a directory, not a kernel file");
  if (const auto device = deviceInsteadOfFile(path)) throw InputError(*device);
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  return parseStrictJson(text.str(), path);
}

}  // namespace

MicroDag loadKernel(const std::string& path) {
  return kernelFromJson(readJsonFile(path), path);
}

KernelFile readKernelFile(const std::string& path) {
  const nlohmann::json j = readJsonFile(path);
  KernelFile f{kernelFromJson(j, path), 0};
  if (j.contains("groups")) {
    if (!j["groups"].is_number_integer() || j["groups"].get<std::int64_t>() < 1)
      throw InputError(path + ": \"groups\" must be a whole number of 1 or more, got " +
                       j["groups"].dump());
    f.groups = j["groups"].get<std::int64_t>();
  }
  return f;
}

nlohmann::json solutionToJson(const MicroDag& dag, const Solution& s,
                              const std::vector<ConvTarget>& targets) {
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    const LayerSizes& l = s.layers[i];
    nlohmann::json vars = nlohmann::json::object();
    for (Symbol x : dag.freeVariables())
      vars[std::string(symbolName(x))] = l.bindings[static_cast<std::size_t>(x)];
    layers.push_back({{"name", targets[i].name},
                      {"count", targets[i].count},
                      {"variables", std::move(vars)},
                      {"flops", l.flops},
                      {"params", l.params},
                      {"conv_flops", targets[i].flops()},
                      {"conv_params", targets[i].params()},
                      {"shapes", l.shapes}});
  }
  return {{"groups", s.groups},
          {"flops", s.flops},
          {"params", s.params},
          {"flops_ratio", s.flops / s.convFlops},
          {"params_ratio", s.params / s.convParams},
          {"layers", std::move(layers)}};
}

}  // namespace opevo::kas
