#pragma once

class QSettings;
class QSplitter;

namespace opevo::ui {

// A splitter's split is saved with the window's layout ("splitters/<objectName>") and restored at
// the next start, so a user's drag survives restarts. A page that changes its splitter's default
// split (History's chart given three fifths) bumps the splitter's default version: a split saved
// before, by an older window or with an older version, is then not restored over the new default,
// once. It kept the old split, which could hide the pane the new default makes room for; what the
// user drags afterwards is saved with the new version and restored as before.
void setDefaultSplitVersion(QSplitter* splitter, int version);
// 0 for a splitter whose default never changed (and for splits saved before versions were kept).
int defaultSplitVersion(const QSplitter* splitter);

// The splitter's split, with its default version beside it ("splitterVersions/<objectName>").
void saveSplit(QSettings& settings, const QSplitter& splitter);
// Restores a split saved with the splitter's current default version or a later one; an older
// one is left for the default. Returns whether a split was restored.
bool restoreSplit(const QSettings& settings, QSplitter& splitter);

}  // namespace opevo::ui
