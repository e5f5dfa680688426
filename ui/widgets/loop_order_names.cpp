#include "ui/widgets/loop_order_names.h"

#include "layout/loop_order_names.h"

namespace opevo::ui {

QString loopOrderMeaning(const OperatorDefinition& shown, const Parameter& param) {
  return QString::fromStdString(layout::loopOrderMeaning(shown.op.kind, shown.mode, param));
}

}  // namespace opevo::ui
