#include "ops/operator_json.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/input_file.h"
#include "common/strict_json.h"
#include "ops/matvec_space.h"
#include "ops/operator_problems.h"
#include "ops/presets.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/param_spec.h"

namespace opevo {
namespace {

const std::set<std::string> kMatmulShape = {"batch", "n", "m", "k", "trans_a", "trans_b"};
const std::set<std::string> kConvShape = {"batch",        "in_channels", "height",   "width",
                                          "out_channels", "kernel_h",    "kernel_w", "stride",
                                          "pad",          "groups"};

// What a file's shape says, field by field: the values read, and why each field that could not
// be read was refused (operatorProblems reports those in their places).
struct ShapeReading {
  const nlohmann::json& shape;
  std::map<std::string, std::string> unread;

  std::int64_t integer(const char* field, std::int64_t fallback, bool required) {
    if (!shape.contains(field)) {
      if (required)  // pad, the one field that may be 0, is never required
        unread[field] = std::string("shape lacks field '") + field + "' (a positive integer)";
      return fallback;
    }
    const auto& v = shape[field];
    if (!v.is_number_integer()) {
      unread[field] = shapeValueProblem(field, v.dump());
      return fallback;
    }
    // Beyond int64 it would wrap (18446744073709551615 read as -1).
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
      unread[field] = std::string("shape field '") + field + "' is too large, got " + v.dump();
      return fallback;
    }
    return v.get<std::int64_t>();
  }
};

std::string unknownField(const std::string& key, const std::set<std::string>& known,
                         const std::string& what) {
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  return "unknown " + what + " field '" + key + "' (expected: " + list + ")";
}

void rejectUnknown(const nlohmann::json& object, const std::set<std::string>& known,
                   const std::string& where, const std::string& what) {
  for (const auto& [key, value] : object.items())
    if (!known.count(key)) throw InputError(where + ": " + unknownField(key, known, what));
}

// An override keeps to what the template reads: a choice among its own choices (unroll_explicit's
// 0 and 1), and for a parameter of whole numbers (auto_unroll_max_step) whole numbers from 0 to
// 2^20, which an int of the generated code holds.
void checkOverride(const std::string& source, const Parameter& given, const Parameter& own) {
  if (const auto* choice = dynamic_cast<const ChoiceParam*>(&given)) {
    const auto& accepted = dynamic_cast<const ChoiceParam&>(own).choices();
    for (const std::string& c : choice->choices())
      if (std::find(accepted.begin(), accepted.end(), c) == accepted.end())
        throw InputError(source + ": parameter '" + given.name() + "' has no choice '" + c +
                         "' (the template's: " + own.spec().substr(own.spec().find(':') + 1) + ")");
    return;
  }
  const auto* discrete = dynamic_cast<const DiscreteParam*>(&given);
  const auto& ownValues = dynamic_cast<const DiscreteParam&>(own).values();
  const bool whole = std::all_of(ownValues.begin(), ownValues.end(),
                                 [](double v) { return v >= 0 && v == std::floor(v); });
  if (!discrete || !whole) return;
  for (double v : discrete->values())
    if (!(v >= 0 && v <= 1048576 && v == std::floor(v))) {
      std::ostringstream value;
      value << v;
      throw InputError(source + ": parameter '" + given.name() +
                       "' takes whole numbers from 0 to 1048576, not " + value.str());
    }
}

}  // namespace

nlohmann::json epilogueToJson(const Epilogue& epilogue) {
  nlohmann::json steps = nlohmann::json::array();
  for (const EpilogueStep& s : epilogue) {
    if (s.kind == EpilogueKind::Scale)
      steps.push_back({{"scale", s.factor}});
    else
      steps.push_back(epilogueKindName(s.kind));
  }
  return steps;
}

Epilogue epilogueFromJson(const nlohmann::json& j, const std::string& where) {
  const std::string expected =
      " (expected an array of \"bias\", \"relu\", \"relu6\", \"gelu\", \"add\" or {\"scale\": "
      "number})";
  if (!j.is_array()) throw InputError(where + ": field 'epilogue' must be an array" + expected);
  Epilogue out;
  for (const nlohmann::json& step : j) {
    if (step.is_object() && step.size() == 1 && step.contains("scale") &&
        step["scale"].is_number()) {
      out.push_back({EpilogueKind::Scale, step["scale"].get<double>()});
      continue;
    }
    bool known = false;
    for (EpilogueKind k : {EpilogueKind::Bias, EpilogueKind::Relu, EpilogueKind::Relu6,
                           EpilogueKind::Gelu, EpilogueKind::Add})
      if (step.is_string() && step.get<std::string>() == epilogueKindName(k)) {
        out.push_back({k, 1});
        known = true;
      }
    if (!known) throw InputError(where + ": unknown epilogue step " + step.dump() + expected);
  }
  return out;
}

nlohmann::json operatorToJson(const OperatorSpec& op) {
  nlohmann::json j{{"name", op.name}, {"kind", opKindName(op.kind)}, {"dtype", "fp32"}};
  if (op.kind == OpKind::Conv2D)
    j["shape"] = {{"batch", op.batch},
                  {"in_channels", op.inChannels},
                  {"height", op.height},
                  {"width", op.width},
                  {"out_channels", op.outChannels},
                  {"kernel_h", op.kernelH},
                  {"kernel_w", op.kernelW},
                  {"stride", op.stride},
                  {"pad", op.pad}};
  else
    j["shape"] = {{"batch", op.batch},    {"n", op.n},           {"m", op.m}, {"k", op.k},
                  {"trans_a", op.transA}, {"trans_b", op.transB}};
  if (op.groups != 1) j["shape"]["groups"] = op.groups;
  if (!op.epilogue.empty()) j["epilogue"] = epilogueToJson(op.epilogue);
  return j;
}

namespace {

// The operator as written and every problem with its shape and epilogue, one line each
// ("SOURCE: operator 'NAME': ..."), in the order of the fields. Throws InputError only for a file
// that is no operator at all (not an object, no kind, another dtype, no shape object): there
// is nothing to check then.
struct OperatorReading {
  OperatorSpec op;
  std::vector<std::string> problems;
};

OperatorReading readOperator(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source + ": an operator must be a JSON object");
  rejectUnknown(j, {"name", "kind", "dtype", "shape", "space", "epilogue", "mode", "target"},
                source, "operator");
  OperatorReading r;
  OperatorSpec& op = r.op;
  if (j.contains("name") && !j["name"].is_string())
    throw InputError(source + ": field 'name' must be a string");
  op.name = j.value("name", std::string("custom"));
  if (!j.contains("kind"))
    throw InputError(source +
                     ": field 'kind' is missing (expected matmul, batch_matmul or conv2d)");
  if (!j["kind"].is_string())
    throw InputError(source +
                     ": field 'kind' must be a string (matmul, batch_matmul or conv2d), got " +
                     j["kind"].dump());
  const std::string kind = j["kind"];
  if (kind == "matmul")
    op.kind = OpKind::MatMul;
  else if (kind == "batch_matmul")
    op.kind = OpKind::BatchMatMul;
  else if (kind == "conv2d")
    op.kind = OpKind::Conv2D;
  else
    throw InputError(source + ": unknown kind '" + kind +
                     "' (expected matmul, batch_matmul or conv2d)");
  if (j.contains("dtype") && !j["dtype"].is_string())
    throw InputError(source + ": field 'dtype' must be a string (\"fp32\")");
  const std::string dtype = j.value("dtype", std::string("fp32"));
  if (dtype != "fp32")
    throw InputError(source + ": dtype '" + dtype + "' is not supported (expected fp32)");
  if (!j.contains("shape"))
    throw InputError(source + ": field 'shape' is missing (an object of dimensions)");
  if (!j["shape"].is_object())
    throw InputError(source + ": field 'shape' must be an object of dimensions, got " +
                     j["shape"].dump());
  const std::string prefix = source + ": operator '" + op.name + "': ";
  const auto& shape = j["shape"];
  const std::set<std::string>& known = op.kind == OpKind::Conv2D ? kConvShape : kMatmulShape;
  for (const auto& [key, value] : shape.items())
    if (!known.count(key)) r.problems.push_back(prefix + unknownField(key, known, "shape"));
  ShapeReading read{shape, {}};
  std::vector<std::string> after;  // problems of no one dimension, said after the dimensions'
  if (op.kind == OpKind::Conv2D) {
    op.batch = read.integer("batch", 1, false);
    op.inChannels = read.integer("in_channels", 0, true);
    op.height = read.integer("height", 0, true);
    op.width = read.integer("width", 0, true);
    op.outChannels = read.integer("out_channels", 0, true);
    op.kernelH = read.integer("kernel_h", 0, true);
    op.kernelW = read.integer("kernel_w", 0, true);
    op.stride = read.integer("stride", 1, false);
    op.pad = read.integer("pad", 0, false);
    op.groups = read.integer("groups", 1, false);
  } else {
    op.batch = read.integer("batch", 1, op.kind == OpKind::BatchMatMul);
    op.n = read.integer("n", 0, true);
    op.m = read.integer("m", 0, true);
    op.k = read.integer("k", 0, true);
    auto flag = [&](const char* field) {
      if (!shape.contains(field)) return false;
      if (!shape[field].is_boolean()) {
        after.push_back(prefix + "shape field '" + field + "' must be true or false, got " +
                        shape[field].dump());
        return false;
      }
      return shape[field].get<bool>();
    };
    op.transA = flag("trans_a");
    op.transB = flag("trans_b");
    if (op.kind == OpKind::MatMul && op.batch != 1 && !read.unread.count("batch"))
      after.push_back(prefix + "a matmul has batch 1; use kind batch_matmul for a batch");
  }
  if (j.contains("epilogue")) {
    try {
      op.epilogue = epilogueFromJson(j["epilogue"], source + " (" + kind + ")");
    } catch (const InputError& e) {
      after.emplace_back(e.what());
    }
  }
  for (const std::string& line : operatorProblems(op, read.unread))
    r.problems.push_back(source + ": " + line);
  r.problems.insert(r.problems.end(), after.begin(), after.end());
  return r;
}

}  // namespace

OperatorSpec operatorFromJson(const nlohmann::json& j, const std::string& source) {
  OperatorReading r = readOperator(j, source);
  if (!r.problems.empty()) throw InputError(problemsInOneLine(r.problems));
  return r.op;
}

std::vector<std::string> operatorFileProblems(const nlohmann::json& j, const std::string& source) {
  std::vector<std::string> out;
  try {
    out = readOperator(j, source).problems;
  } catch (const std::exception& e) {
    return {e.what()};  // the file cannot be read as an operator: one message is all there is
  }
  if (!out.empty()) return out;
  try {
    operatorDefinitionFromJson(j, source);  // the space, the mode, the target
  } catch (const std::exception& e) {
    out.emplace_back(e.what());
  }
  return out;
}

namespace {

// "the loop template", "the joint template", "the loop template for gpu": what a space names.
std::string templateName(layout::TuningMode mode, SpaceTarget target) {
  std::string name = "the " + std::string(layout::tuningModeName(mode)) + " template";
  if (target != SpaceTarget::Common) name += " for " + std::string(spaceTargetName(target));
  return name;
}

// Why a space override names no parameter of the template it is checked against: that
// template's parameters, and the other mode when its template has the parameter (an override
// written for joint, read in loop mode), so the user sees which mode the file is meant for.
std::string unknownParameter(const std::string& source, const std::string& name,
                             const OperatorDefinition& def, const SearchSpace& base) {
  std::string names;
  for (std::size_t i = 0; i < base.dims(); ++i) names += (i ? ", " : "") + base.param(i).name();
  std::string text = source + ": space names unknown parameter '" + name + "' (" +
                     templateName(def.mode, def.target) + " of this " +
                     std::string(opKindName(def.op.kind)) + " has " + names + ")";
  const layout::TuningMode other =
      layout::tunesLayouts(def.mode) ? layout::TuningMode::Loop : layout::TuningMode::Joint;
  try {
    if (layout::spaceFor(def.op, other, def.target).indexOf(name) >= 0)
      text += "; it is a parameter of " + templateName(other, def.target) + ": tune with --mode " +
              std::string(layout::tuningModeName(other)) + ", or give the file \"mode\": \"" +
              std::string(layout::tuningModeName(other)) + "\"";
  } catch (const InputError&) {  // no such template for this operator: nothing to point at
  }
  return text;
}

}  // namespace

OperatorDefinition operatorDefinitionFromJson(const nlohmann::json& j, const std::string& source,
                                              std::optional<layout::TuningMode> mode) {
  OperatorDefinition def{operatorFromJson(j, source), SearchSpace{}, nlohmann::json::object()};
  if (j.contains("mode")) {
    // One message for every wrong value: an unknown one listed joint-np, which no operator takes.
    try {
      if (!j["mode"].is_string()) throw InputError("not a text");
      def.mode = layout::parseTuningMode(j["mode"].get<std::string>(), source);
    } catch (const InputError&) {
      throw InputError(source + ": field 'mode' must be \"loop\" or \"joint\", got " +
                       j["mode"].dump());
    }
  }
  // The mode the operator is used in (a command's --mode) is the one its overrides must fit.
  if (mode) def.mode = *mode;
  if (def.mode == layout::TuningMode::JointNoPropagation)
    throw InputError(source +
                     ": mode joint-np is for networks (layouts propagate between layers, "
                     "opevo net tune); one operator tunes its layouts with mode \"joint\"");
  if (j.contains("target")) {
    if (!j["target"].is_string())
      throw InputError(source +
                       ": field 'target' must be \"common\", \"gpu\", \"winograd\", \"matvec\" "
                       "or \"matvec-gpu\"");
    def.target = parseSpaceTarget(j["target"].get<std::string>(), source);
    // The shape is right and the choice of template wrong: the message names the file and the
    // field to change, as the file's other mistakes do, not the operator alone.
    requireTemplateFits(def.op, def.target, source + ": \"target\": " + j["target"].dump());
    // Nor does a template of its own tune layouts: the field and the mode (the file's, or the
    // command's --mode) that clash are named.
    if (layout::tunesLayouts(def.mode) && usesOwnTemplate(def.target))
      throw InputError(source + ": \"target\": " + j["target"].dump() + " with " +
                       (mode ? "--mode " : "\"mode\": ") +
                       (mode ? std::string(layout::tuningModeName(def.mode))
                             : "\"" + std::string(layout::tuningModeName(def.mode)) + "\"") +
                       ": that template reads and writes the plain layouts; layouts are tuned "
                       "with the direct template (no \"target\")");
  }
  const SearchSpace base = layout::spaceFor(def.op, def.mode, def.target);
  if (!j.contains("space")) {
    def.space = base;
    return def;
  }
  if (!j["space"].is_object())
    throw InputError(source + ": field 'space' must be an object of name: spec");
  def.spaceOverrides = j["space"];
  for (const auto& [name, spec] : def.spaceOverrides.items()) {
    const int index = base.indexOf(name);
    if (index < 0) throw InputError(unknownParameter(source, name, def, base));
    const ParamKind kind = base.param(index).kind();
    if (kind != ParamKind::Discrete && kind != ParamKind::Choice)
      throw InputError(source + ": parameter '" + name +
                       "' is a factorization fixed by the shape; only discrete and choice "
                       "parameters can be changed");
    // Their constraints read the template's values (defaultSpace), which an override would change.
    if (name == "split_k" || name == "stages")
      throw InputError(source + ": parameter '" + name + "' is fixed by the GPU template");
    if (isMatVecSpace(base))
      throw InputError(source + ": parameter '" + name +
                       "' is fixed by the matrix-vector template");
    if (!spec.is_string())
      throw InputError(source + ": space entry '" + name + "' must be a spec string");
  }
  // Rebuild in the template's order, replacing the overridden parameters.
  for (std::size_t i = 0; i < base.dims(); ++i) {
    const std::string& name = base.param(i).name();
    if (def.spaceOverrides.contains(name)) {
      ParameterPtr p;
      try {
        p = makeParameter(name, def.spaceOverrides[name].get<std::string>());
      } catch (const InputError& e) {
        throw InputError(source + ": " + e.what());  // the spec's own words, with the file
      }
      if (p->kind() != base.param(i).kind())
        throw InputError(source + ": parameter '" + name + "' must stay " +
                         std::string(kindName(base.param(i).kind())));
      checkOverride(source, *p, base.param(i));
      def.space.add(std::move(p));
    } else {
      def.space.add(base.paramPtr(i));
    }
  }
  for (const Constraint& c : base.constraints()) def.space.addConstraint(c.description, c.holds);
  for (std::size_t i = 0; i < base.dims(); ++i)
    if (const Vertex* absent = base.valueWhenAbsent(i);
        absent && def.space.param(i).contains(*absent))
      def.space.setValueWhenAbsent(base.param(i).name(), *absent);
  if (const auto& start = base.startPoint();
      start && def.space.contains(*start) && def.space.satisfies(*start))
    def.space.setStartPoint(*start);  // unless the overrides took its values away
  return def;
}

nlohmann::json operatorDefinitionToJson(const OperatorDefinition& def) {
  nlohmann::json j = operatorToJson(def.op);
  if (!def.spaceOverrides.empty()) j["space"] = def.spaceOverrides;
  if (def.mode != layout::TuningMode::Loop) j["mode"] = layout::tuningModeName(def.mode);
  if (def.target != SpaceTarget::Common) j["target"] = spaceTargetName(def.target);
  return j;
}

Config commonConfig(const OperatorDefinition& def, const Config& config, std::string* left) {
  // Winograd's space is the same on every backend, as the common ones are themselves.
  if (commonTarget(def.target) == def.target) {
    if (left) left->clear();
    return config;
  }
  const SearchSpace common = layout::spaceFor(def.op, def.mode, commonTarget(def.target));
  Config c;
  for (std::size_t i = 0; i < common.dims(); ++i) {
    const int at = def.space.indexOf(common.param(i).name());
    if (at < 0)
      throw InputError(def.op.name + ": the space has no parameter '" + common.param(i).name() +
                       "' of the common space");
    c.push_back(config.at(static_cast<std::size_t>(at)));
  }
  if (left) {
    left->clear();
    for (std::size_t i = 0; i < def.space.dims(); ++i) {
      const Parameter& p = def.space.param(i);
      const Vertex* absent = def.space.valueWhenAbsent(i);
      if (common.indexOf(p.name()) < 0 && !(absent && *absent == config.at(i)))
        *left += (left->empty() ? "" : "; ") + p.name() + "=" + p.format(config.at(i));
    }
  }
  return c;
}

namespace {

// The definition rebuilt for another template (mode and target): overrides of parameters that
// template lacks do not carry over.
OperatorDefinition rebuilt(const OperatorDefinition& def, layout::TuningMode mode,
                           SpaceTarget target) {
  nlohmann::json j = operatorDefinitionToJson(def);
  j["mode"] = layout::tuningModeName(mode);
  j["target"] = spaceTargetName(target);
  if (j.contains("space")) {
    const SearchSpace space = layout::spaceFor(def.op, mode, target);
    nlohmann::json kept = nlohmann::json::object();
    for (const auto& [name, spec] : j["space"].items())
      if (space.indexOf(name) >= 0) kept[name] = spec;
    j["space"] = kept;
  }
  return operatorDefinitionFromJson(j, def.op.name);
}

}  // namespace

OperatorDefinition withSpaceTarget(OperatorDefinition def, SpaceTarget target) {
  if (def.target == target) return def;
  // Before rebuilding, whose message would name a "target" field that no file has.
  if (const std::optional<std::string> misfit = templateMisfit(def.op, target))
    throw InputError(def.op.name + ": " + *misfit);
  return rebuilt(def, def.mode, target);
}

OperatorDefinition withTuningMode(OperatorDefinition def, layout::TuningMode mode) {
  if (def.mode == mode) return def;
  return rebuilt(def, mode, def.target);
}

OperatorDefinition loadOperator(const std::string& presetOrPath,
                                std::optional<layout::TuningMode> mode) {
  if (isPreset(presetOrPath)) {
    OperatorSpec op = preset(presetOrPath);
    OperatorDefinition def{op, defaultSpace(op), nlohmann::json::object()};
    return mode ? withTuningMode(std::move(def), *mode) : def;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(presetOrPath, ec))
    throw InputError("'" + presetOrPath + "' is a folder, not an operator file");
  if (const auto device = deviceInsteadOfFile(presetOrPath)) throw InputError(*device);
  std::ifstream in(presetOrPath);
  if (!in) {
    if (const auto meant = presetInOtherCase(presetOrPath))
      throw InputError("'" + presetOrPath + "' is no preset or readable file: did you mean " +
                       *meant + "?");
    // A path (a folder in it, or a .json name) is no preset misspelt: the thirty preset names
    // filled the Runs page's form and never said the file was missing.
    if (presetOrPath.find('/') != std::string::npos || presetOrPath.ends_with(".json"))
      throw InputError(std::filesystem::exists(presetOrPath, ec)
                           ? "the operator file '" + presetOrPath +
                                 "' cannot be read (check its permissions)"
                           : "no operator file '" + presetOrPath + "': no such file");
    std::string names;
    for (const auto& n : presetNames()) names += (names.empty() ? "" : ", ") + n;
    throw InputError("'" + presetOrPath + "' is neither a preset (" + names +
                     ") nor a readable operator file");
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return operatorDefinitionFromJson(parseStrictJson(text, presetOrPath), presetOrPath, mode);
}

}  // namespace opevo
