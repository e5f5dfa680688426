#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <optional>

#include "space/parameter.h"

class QFormLayout;
class QHBoxLayout;
class QLineEdit;
class QSlider;
class QWidget;

namespace opevo::ui {

class WalkMemory;

// The inputs of one q-random walk: the start vertex (typed, checked against the parameter) and q
// (typed, or dragged on a slider kept in step with it). The q-walk panel and the Topology page
// both use it; each places the fields in its own layout (two form rows, or one line). A start or
// q the user gives on one page is remembered for the parameter's spec and carried to every
// other page's inputs for that spec: on the Topology page, the walk set in the Spaces panel.
class QwalkInputs : public QObject {
  Q_OBJECT

 public:
  // Object names of the three fields, for tests and scripted tours.
  struct Names {
    QString start, q, slider;
  };
  struct Walk {
    Vertex start;
    double q = 0.5;
  };

  // The fields are made children of `page`.
  QwalkInputs(const Names& names, QWidget* page);
  void addRowsTo(QFormLayout* form);
  void addTo(QHBoxLayout* row);

  // The parameter the start vertex belongs to: its first vertex becomes the placeholder, and a
  // typed start that is not one of its vertices is replaced by the first.
  void setParameter(const ParameterPtr& param);
  void setStartText(const QString& text);
  void setQText(const QString& text);  // as typing it: the slider follows
  QString startText() const;
  QSlider* slider() const { return m_slider; }

  // The walk the fields describe, or nullopt with a message for each field that is wrong (the
  // field is outlined; its text is kept).
  std::optional<Walk> read(QStringList& errors) const;
  // The start vertex the field names, whatever q is (a picture keeps its start outlined while q
  // is wrong); nullopt when there is no parameter or the field names none of its vertices.
  std::optional<Vertex> start() const;
  // Forgets the start typed for a parameter that is gone (an operator that did not load), so
  // that the field does not go on showing the last operator's vertex.
  void clearStart();

 signals:
  // The user changed the start or q (typed or dragged).
  void changed();

 private:
  void onQEdited(const QString& text);
  void syncSlider(const QString& qText);
  // Records the fields as the walk of the parameter's spec, for the other pages.
  void remember();
  // Takes the walk recorded for the parameter's spec, if any; true when a field changed.
  bool adopt();
  // The window's memory of walks, connected to.
  WalkMemory* memory();

  ParameterPtr m_param;
  QLineEdit* m_start;
  QLineEdit* m_q;
  QSlider* m_slider;
  bool m_syncingSlider = false;
  QPointer<WalkMemory> m_memory;
};

}  // namespace opevo::ui
