#pragma once

#include <QString>
#include <QStringList>

namespace opevo::ui {

// The folders a set of files the program ships (the datasets, the user guide) may be in, in the
// order they are tried: the environment variable `env` when set; the copy installed beside the
// program (PREFIX/bin/../share/opevo-studio/`installed`); the source tree this build came from
// (`sourceDir`, empty for none).
QStringList shippedDirCandidates(const char* env, const QString& installed,
                                 const QString& sourceDir);
// The first of them that is a folder, canonical; empty when none is.
QString shippedDir(const char* env, const QString& installed, const QString& sourceDir);

}  // namespace opevo::ui
