#include "ui/widgets/operator_form.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>

#include "ops/presets.h"
#include "space/parameter.h"

namespace opevo::ui {
namespace {

OpKind kindFromName(const std::string& name) {
  if (name == "batch_matmul") return OpKind::BatchMatMul;
  if (name == "conv2d") return OpKind::Conv2D;
  return OpKind::MatMul;
}

QString text(const nlohmann::json& v) {
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  return QString::fromStdString(v.dump());
}

// The space parameters the form has a field for, of any kind.
bool formHasParameter(const std::string& name) {
  for (OpKind kind : {OpKind::MatMul, OpKind::BatchMatMul, OpKind::Conv2D})
    for (const OverridableParameter& p : overridableParameters(kind))
      if (p.name.toStdString() == name) return true;
  return false;
}

// The fields of an operator file that the form writes itself; "dtype" has one value the form
// would offer, so it is kept from the file too (core names any other).
bool formOwns(const std::string& field) {
  return field == "name" || field == "kind" || field == "shape" || field == "space";
}

}  // namespace

QStringList shapeFields(OpKind kind) {
  switch (kind) {
    case OpKind::MatMul:
      return {QStringLiteral("n"), QStringLiteral("m"), QStringLiteral("k")};
    case OpKind::BatchMatMul:
      return {QStringLiteral("batch"), QStringLiteral("n"), QStringLiteral("m"),
              QStringLiteral("k")};
    case OpKind::Conv2D:
      return {QStringLiteral("batch"),        QStringLiteral("in_channels"),
              QStringLiteral("height"),       QStringLiteral("width"),
              QStringLiteral("out_channels"), QStringLiteral("kernel_h"),
              QStringLiteral("kernel_w"),     QStringLiteral("stride"),
              QStringLiteral("pad"),          QStringLiteral("groups")};
  }
  return {};
}

bool hasTransposes(OpKind kind) {
  return kind != OpKind::Conv2D;
}

std::vector<OverridableParameter> overridableParameters(OpKind kind) {
  // The parameter names and kinds depend on the kind only, so any operator of the kind tells.
  const char* reference = kind == OpKind::Conv2D        ? "C1"
                          : kind == OpKind::BatchMatMul ? "BMM1"
                                                        : "MM1";
  const SearchSpace space = defaultSpace(preset(reference));
  std::vector<OverridableParameter> params;
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const Parameter& p = space.param(i);
    if (p.kind() == ParamKind::Discrete || p.kind() == ParamKind::Choice)
      params.push_back({QString::fromStdString(p.name()), QString::fromStdString(p.spec())});
  }
  return params;
}

nlohmann::json formToJson(const OperatorForm& form) {
  nlohmann::json j = form.file.is_object() ? form.file : nlohmann::json::object();
  // An empty name is left out, so core's default ("custom") applies as it does for a file.
  if (!form.name.trimmed().isEmpty())
    j["name"] = form.name.trimmed().toStdString();
  else
    j.erase("name");
  j["kind"] = std::string(opKindName(form.kind));
  if (!j.contains("dtype")) j["dtype"] = "fp32";
  nlohmann::json shape = nlohmann::json::object();
  for (const QString& field : shapeFields(form.kind)) {
    const QString value = form.shape.value(field).trimmed();
    if (value.isEmpty()) continue;  // core says the field is missing, or uses its default
    bool isInteger = false;
    const qlonglong number = value.toLongLong(&isInteger);
    if (isInteger)
      shape[field.toStdString()] = static_cast<std::int64_t>(number);
    else
      shape[field.toStdString()] = value.toStdString();
  }
  if (hasTransposes(form.kind)) {
    shape["trans_a"] = form.transA;
    shape["trans_b"] = form.transB;
  }
  j["shape"] = shape;
  // Overrides of parameters the form has no field for (a joint template's unroll_k) stay; a
  // space that is no object at all is replaced, or the user could never get past core's refusal.
  nlohmann::json space = nlohmann::json::object();
  if (j.contains("space") && j["space"].is_object())
    for (const auto& [name, spec] : j["space"].items())
      if (!formHasParameter(name)) space[name] = spec;
  for (const OverridableParameter& p : overridableParameters(form.kind)) {
    const QString spec = form.space.value(p.name).trimmed();
    if (!spec.isEmpty()) space[p.name.toStdString()] = spec.toStdString();
  }
  if (space.empty())
    j.erase("space");
  else
    j["space"] = space;
  return j;
}

OperatorForm formFromJson(const nlohmann::json& j) {
  OperatorForm form;
  if (!j.is_object()) return form;
  form.file = j;
  if (j.contains("name")) form.name = text(j["name"]);
  if (j.contains("kind") && j["kind"].is_string()) form.kind = kindFromName(j["kind"]);
  if (j.contains("shape") && j["shape"].is_object()) {
    const nlohmann::json& shape = j["shape"];
    for (const auto& [key, value] : shape.items()) {
      if (key == "trans_a")
        form.transA = value.is_boolean() && value.get<bool>();
      else if (key == "trans_b")
        form.transB = value.is_boolean() && value.get<bool>();
      else
        form.shape[QString::fromStdString(key)] = text(value);
    }
  }
  if (j.contains("space") && j["space"].is_object())
    for (const auto& [key, value] : j["space"].items())
      form.space[QString::fromStdString(key)] = text(value);
  return form;
}

QStringList keptFields(const OperatorForm& form) {
  QStringList kept;
  if (!form.file.is_object()) return kept;
  auto line = [](const std::string& field, const nlohmann::json& value) {
    return QString::fromStdString(field + ": " + value.dump());
  };
  for (const auto& [field, value] : form.file.items()) {
    if (field == "dtype" && value == "fp32") continue;  // what the form stands for anyway
    if (!formOwns(field)) kept << line(field, value);
  }
  if (form.file.contains("space") && form.file["space"].is_object())
    for (const auto& [name, spec] : form.file["space"].items())
      if (!formHasParameter(name)) kept << line("space." + name, spec);
  return kept;
}

QString formatWork(double flops) {
  if (flops >= 1e9) return QStringLiteral("%1 GFLOP").arg(flops / 1e9, 0, 'f', 2);
  if (flops < 1e3) return QStringLiteral("%1 FLOP").arg(flops, 0, 'f', 0);  // whole operations
  const bool mega = flops >= 1e6;
  const double v = flops / (mega ? 1e6 : 1e3);
  // Three significant digits: 1.57, 15.7, 157.
  const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(v))), 0, 2);
  return QStringLiteral("%1 %2").arg(v, 0, 'f', decimals).arg(mega ? "MFLOP" : "kFLOP");
}

QStringList fieldsNamedIn(const QString& message, const OperatorForm& form) {
  // OperatorSpec::validate() starts with "operator 'NAME': "; the name is the user's and may
  // look like a field, so it is cut off before looking.
  QString rest = message;
  const QString opName =
      form.name.trimmed().isEmpty() ? QStringLiteral("custom") : form.name.trimmed();
  const QString prefix = QStringLiteral("operator '%1': ").arg(opName);
  const qsizetype at = rest.indexOf(prefix);
  if (at >= 0) rest = rest.mid(at + prefix.size());

  QStringList fields;
  const QStringList shape = shapeFields(form.kind);
  auto add = [&](const QString& f) {
    if (!fields.contains(f)) fields << f;
  };
  // "n must be a positive integer, got 0" (or got "13x"), "pad must be an integer, 0 or more,
  // got -1", "n 5000000000 is larger than 2147483647".
  static const QRegularExpression leading(QStringLiteral("^(\\w+) (must be|\\d+ is larger)"));
  if (const auto m = leading.match(rest); m.hasMatch() && shape.contains(m.captured(1)))
    add(m.captured(1));
  // "shape lacks field 'n'", "shape field 'k' is too large", "parameter 'x' ...".
  static const QRegularExpression quoted(QStringLiteral("'([^']*)'"));
  for (auto it = quoted.globalMatch(rest); it.hasNext();) {
    const QString word = it.next().captured(1);
    if (shape.contains(word)) add(word);
    for (const OverridableParameter& p : overridableParameters(form.kind)) {
      // Parameter errors quote the parameter's name or, from the spec parser, the spec itself.
      if (word == p.name || (!word.isEmpty() && word == form.space.value(p.name).trimmed()))
        add(QStringLiteral("space:") + p.name);
    }
  }
  // "groups 3 must divide in_channels 32 and out_channels 64": any of the three may be the one.
  if (rest.startsWith(QStringLiteral("groups ")) &&
      rest.contains(QStringLiteral(" must divide "))) {
    add(QStringLiteral("groups"));
    add(QStringLiteral("in_channels"));
    add(QStringLiteral("out_channels"));
  }
  // "the 11x11 kernel is larger than the padded 227x5 input, ...": the axis (or axes) where the
  // window does not fit, its kernel size and the input's, so a too-narrow width is marked too.
  static const QRegularExpression window(
      QStringLiteral("the (\\d+)x(\\d+) kernel is larger than the padded (\\d+)x(\\d+) input"));
  if (const auto m = window.match(rest); m.hasMatch()) {
    if (m.captured(1).toLongLong() > m.captured(3).toLongLong()) {
      add(QStringLiteral("kernel_h"));
      add(QStringLiteral("height"));
    }
    if (m.captured(2).toLongLong() > m.captured(4).toLongLong()) {
      add(QStringLiteral("kernel_w"));
      add(QStringLiteral("width"));
    }
  } else if (rest.contains(QStringLiteral("output would be empty"))) {
    add(QStringLiteral("kernel_h"));
    add(QStringLiteral("kernel_w"));
  }
  if (rest.contains(QStringLiteral("a matmul has batch 1"))) add(QStringLiteral("kind"));
  if (rest.contains(QStringLiteral("unknown kind"))) add(QStringLiteral("kind"));
  return fields;
}

}  // namespace opevo::ui
