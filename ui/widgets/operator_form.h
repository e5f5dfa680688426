#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <vector>

#include "ops/operator.h"

namespace opevo::ui {

// What the operator editor's fields hold, as typed. Kept as text so a bad value ("0", "-3",
// "abc") stays exactly as the user left it; core decides what it means.
struct OperatorForm {
  QString name;
  OpKind kind = OpKind::MatMul;
  QMap<QString, QString> shape;  // by the file format's field name: "n", "kernel_h", ...
  bool transA = false, transB = false;
  QMap<QString, QString> space;  // parameter name -> spec; empty text means the template's
};

// The file format's shape fields of a kind, in the order the editor shows them (transposes,
// which are flags, not included).
QStringList shapeFields(OpKind kind);
bool hasTransposes(OpKind kind);
// The parameters of a kind's space that a file may change (discrete and choice), each with the
// template's spec; factor parameters follow from the shape.
struct OverridableParameter {
  QString name;
  QString defaultSpec;
};
std::vector<OverridableParameter> overridableParameters(OpKind kind);

// The operator file the form stands for. Integers become numbers; anything else is passed on as
// a string, so core refuses it with its own message, the one `opevo tune --op` would print.
nlohmann::json formToJson(const OperatorForm& form);
// The reverse, for editing a preset or a file; fields the form has no place for are dropped.
OperatorForm formFromJson(const nlohmann::json& j);

// The form's fields a core message is about ("n", "kernel_h", "space:unroll_explicit", "name",
// "kind"), so the editor can mark them. Empty when the message names none.
QStringList fieldsNamedIn(const QString& message, const OperatorForm& form);

}  // namespace opevo::ui
