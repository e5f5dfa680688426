#include "ui/widgets/session_memory.h"

#include <QHash>
#include <QSettings>

namespace opevo::ui {
namespace {

// GUI thread only, like the dialogs that use them.
bool g_persists = true;

QHash<QString, QVariant>& session() {
  static QHash<QString, QVariant> values;
  return values;
}

}  // namespace

void setSessionMemoryPersists(bool persists) {
  g_persists = persists;
}

QVariant recall(const QString& key, const QVariant& fallback) {
  if (const auto it = session().constFind(key); it != session().constEnd()) return *it;
  return g_persists ? QSettings().value(key, fallback) : fallback;
}

void remember(const QString& key, const QVariant& value) {
  session().insert(key, value);
  if (g_persists) QSettings().setValue(key, value);
}

}  // namespace opevo::ui
