#include "ui/widgets/read_only_tip.h"

#include <QFileInfo>
#include <QObject>

namespace opevo::ui {

QString readOnlyTip(const QString& path, const QString& action) {
  return QObject::tr(
             "%1 is read-only for you (it or its folder cannot be written by this user): copy it "
             "to a writable folder and open the copy (opevo-studio --db COPY), or ask its owner "
             "to %2")
      .arg(QFileInfo(path).fileName(), action);
}

}  // namespace opevo::ui
