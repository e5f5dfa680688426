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
  // The operator file as read (an empty object for a new operator). formToJson writes the
  // fields above over it, so what the form has no place for (the epilogue, mode, target,
  // overrides of another template's parameters, a field a later version adds) is saved as the
  // file had it rather than dropped.
  nlohmann::json file = nlohmann::json::object();
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

// The operator file the form stands for: form.file with the form's fields written over it. The
// form owns name, kind, the whole shape (it has a field for each one core reads, so a shape
// field it lacks is a typo, which the user fixes by filling in the real one) and the space
// parameters it has fields for, of every kind (a conv2d's override must not stay behind when
// the kind becomes matmul); everything else in form.file is kept. Integers become numbers; anything
// else is passed on as a string, so core refuses it with its own message, the one
// `opevo tune --op` would print.
nlohmann::json formToJson(const OperatorForm& form);
// The reverse, for editing a preset or a file; j itself is kept in the form's file.
OperatorForm formFromJson(const nlohmann::json& j);
// What formToJson keeps from form.file without the form showing it, one line each, the field and
// its JSON: epilogue: ["bias","relu"] or space.unroll_k: "choice:0,1". The editor shows them, so
// the user knows they are there and will be saved.
QStringList keptFields(const OperatorForm& form);

// The work of one run for display: GFLOP with two decimals from 1 GFLOP (as the preset table
// shows it), three significant digits in MFLOP, kFLOP or FLOP below, so a small operator does not
// read "0.00 GFLOP".
QString formatWork(double flops);

// The form's fields a core message is about ("n", "kernel_h", "space:unroll_explicit", "name",
// "kind"), so the editor can mark them. Empty when the message names none.
QStringList fieldsNamedIn(const QString& message, const OperatorForm& form);

}  // namespace opevo::ui
