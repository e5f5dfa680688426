#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opevo::codegen {

// How the loops of a per-thread loop nest are unrolled. A loop is "within the limit" when its
// extent times the extents of every loop nested inside it (its number of innermost steps) is at
// most maxSteps, which is what TVM's auto_unroll_max_step bounds.
struct UnrollPolicy {
  enum class Style { None, Cuda, Gcc };
  // None: no pragmas; the compiler's own heuristics decide everything.
  Style style = Style::None;
  std::int64_t maxSteps = 0;
  // Within the limit: true asks for full unrolling; false leaves it to the compiler. Loops beyond
  // the limit are kept rolled either way, which also bounds the size of the generated code.
  bool explicitUnroll = true;
};

struct Loop {
  std::string var;
  std::int64_t extent = 1;
  // The generated constant holding the extent, written in the loop for readability; empty: the
  // number itself.
  std::string bound;
};

// Builds source text with two-space indentation.
class CodeWriter {
 public:
  void line(std::string_view text = {});
  // Each line of text prefixed with "// " at the current indentation.
  void comment(std::string_view text);
  // Writes header + " {" (a bare block's "{" for an empty header) and indents.
  void open(std::string_view header);
  void close(std::string_view trailer = "}");

  // Opens one for loop per entry, outermost first, each with the pragma the policy gives it;
  // close them with closeNest(loops.size()). innerSteps: the steps of loops nested inside these
  // that another call opens.
  void openNest(const std::vector<Loop>& loops, const UnrollPolicy& policy,
                std::int64_t innerSteps = 1);
  void closeNest(std::size_t count);

  const std::string& str() const { return m_text; }

 private:
  std::string m_text;
  int m_indent = 0;
};

// The pragma line (without indentation) for a loop with this many innermost steps, or "".
std::string unrollPragma(std::int64_t extent, std::int64_t nestedSteps, const UnrollPolicy& policy);

}  // namespace opevo::codegen
