#pragma once

#include <QString>
#include <QVariant>

namespace opevo::ui {

// Values a user chose that the window proposes again next time (the folder typed into the kernel
// export dialog): kept for the session, and with QSettings for later sessions unless the window
// was opened with --no-restore, which leaves the user's next session as it was.
void setSessionMemoryPersists(bool persists);
// The value last remembered under key, this session's first, else the saved one, else fallback.
QVariant recall(const QString& key, const QVariant& fallback = {});
void remember(const QString& key, const QVariant& value);

}  // namespace opevo::ui
