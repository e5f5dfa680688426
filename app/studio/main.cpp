// opevo-studio: the desktop application. The options open the window in a given state, for
// screenshots, bug reports and demos; everything they do can be done by hand in the window.
#include <QApplication>
#include <QCommandLineParser>
#include <QStatusBar>
#include <cstdio>

#include "ui/main_window.h"
#include "ui/presets_panel.h"
#include "ui/qwalk_panel.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("OpEvo Studio"));
  QApplication::setApplicationVersion(QStringLiteral(OPEVO_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Tune tensor operators with topology-aware search spaces."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption presetOption(QStringLiteral("preset"),
                                        QStringLiteral("Select a preset: MM1-3, BMM1-3, C1-2."),
                                        QStringLiteral("name"));
  const QCommandLineOption paramOption(
      QStringLiteral("param"),
      QStringLiteral("Show the q-walk of a parameter of the preset (e.g. tile_k) or of a spec "
                     "(e.g. factor:8:3)."),
      QStringLiteral("name-or-spec"));
  const QCommandLineOption fromOption(QStringLiteral("from"),
                                      QStringLiteral("Start vertex of the walk, e.g. 8,1,1."),
                                      QStringLiteral("vertex"));
  const QCommandLineOption qOption(QStringLiteral("q"),
                                   QStringLiteral("Probability of another step, 0 < q < 1."),
                                   QStringLiteral("q"));
  parser.addOptions({presetOption, paramOption, fromOption, qOption});
  parser.process(app);

  opevo::ui::MainWindow window;
  // A bad option is reported but still opens the window: it is the same input the window
  // validates, and the window shows why it was refused.
  QStringList problems;
  if (parser.isSet(presetOption) &&
      !window.presetsPanel()->selectPreset(parser.value(presetOption)))
    problems << QStringLiteral("unknown preset '%1' (presets: MM1-3, BMM1-3, C1-2)")
                    .arg(parser.value(presetOption));
  if (parser.isSet(paramOption)) {
    const QString param = parser.value(paramOption);
    if (param.contains(QLatin1Char(':')))
      window.qwalkPanel()->setCustomSpec(param);
    else if (!window.qwalkPanel()->selectParameter(param))
      problems << QStringLiteral("the preset has no parameter '%1'").arg(param);
  }
  if (parser.isSet(fromOption)) window.qwalkPanel()->setStartText(parser.value(fromOption));
  if (parser.isSet(qOption)) window.qwalkPanel()->setQText(parser.value(qOption));
  for (const QString& problem : problems)
    std::fprintf(stderr, "opevo-studio: %s\n", qPrintable(problem));
  if (!problems.isEmpty()) window.statusBar()->showMessage(problems.join(QStringLiteral("; ")));

  window.show();
  return QApplication::exec();
}
