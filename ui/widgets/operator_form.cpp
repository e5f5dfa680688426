#include "ui/widgets/operator_form.h"

#include <QRegularExpression>

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

}  // namespace

QStringList shapeFields(OpKind kind) {
  switch (kind) {
    case OpKind::MatMul:
      return {QStringLiteral("n"), QStringLiteral("m"), QStringLiteral("k")};
    case OpKind::BatchMatMul:
      return {QStringLiteral("batch"), QStringLiteral("n"), QStringLiteral("m"),
              QStringLiteral("k")};
    case OpKind::Conv2D:
      return {
          QStringLiteral("batch"),    QStringLiteral("in_channels"),  QStringLiteral("height"),
          QStringLiteral("width"),    QStringLiteral("out_channels"), QStringLiteral("kernel_h"),
          QStringLiteral("kernel_w"), QStringLiteral("stride"),       QStringLiteral("pad")};
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
  nlohmann::json j = nlohmann::json::object();
  // An empty name is left out, so core's default ("custom") applies as it does for a file.
  if (!form.name.trimmed().isEmpty()) j["name"] = form.name.trimmed().toStdString();
  j["kind"] = std::string(opKindName(form.kind));
  j["dtype"] = "fp32";
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
  nlohmann::json space = nlohmann::json::object();
  for (const OverridableParameter& p : overridableParameters(form.kind)) {
    const QString spec = form.space.value(p.name).trimmed();
    if (!spec.isEmpty()) space[p.name.toStdString()] = spec.toStdString();
  }
  if (!space.empty()) j["space"] = space;
  return j;
}

OperatorForm formFromJson(const nlohmann::json& j) {
  OperatorForm form;
  if (!j.is_object()) return form;
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
  // "n must be a positive integer, got 0", "pad must be 0 or more, got -1".
  static const QRegularExpression leading(QStringLiteral("^(\\w+) must be"));
  if (const auto m = leading.match(rest); m.hasMatch() && shape.contains(m.captured(1)))
    add(m.captured(1));
  // "shape lacks field 'n'", "shape field 'k' must be an integer", "parameter 'x' ...".
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
  if (rest.contains(QStringLiteral("output would be empty"))) {
    add(QStringLiteral("kernel_h"));
    add(QStringLiteral("kernel_w"));
  }
  if (rest.contains(QStringLiteral("a matmul has batch 1"))) add(QStringLiteral("kind"));
  if (rest.contains(QStringLiteral("unknown kind"))) add(QStringLiteral("kind"));
  return fields;
}

}  // namespace opevo::ui
