#pragma once

#include <QString>

namespace opevo::ui {

// Why a button that writes to the database is off while the database is read-only to this user
// (a colleague's file, a read-only share), and what to do: `action` is what its owner could do
// ("delete the runs"). One text for every page that lists stored work.
QString readOnlyTip(const QString& path, const QString& action);

}  // namespace opevo::ui
