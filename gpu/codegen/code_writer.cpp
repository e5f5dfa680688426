#include "codegen/code_writer.h"

#include <algorithm>

namespace opevo::codegen {

void CodeWriter::line(std::string_view text) {
  if (!text.empty()) m_text.append(static_cast<std::size_t>(2 * m_indent), ' ').append(text);
  m_text.push_back('\n');
}

void CodeWriter::comment(std::string_view text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    line("// " + std::string(text.substr(start, end - start)));
    start = end + 1;
  }
}

void CodeWriter::open(std::string_view header) {
  line(header.empty() ? std::string("{") : std::string(header) + " {");
  ++m_indent;
}

void CodeWriter::close(std::string_view trailer) {
  --m_indent;
  line(trailer);
}

std::string unrollPragma(std::int64_t extent, std::int64_t nestedSteps,
                         const UnrollPolicy& policy) {
  // A loop of one iteration needs no advice, and None leaves every decision to the compiler.
  if (extent <= 1 || policy.style == UnrollPolicy::Style::None) return "";
  const bool gcc = policy.style == UnrollPolicy::Style::Gcc;
  if (nestedSteps > policy.maxSteps) return gcc ? "#pragma GCC unroll 1" : "#pragma unroll 1";
  if (!policy.explicitUnroll) return "";
  return gcc ? "#pragma GCC unroll " + std::to_string(extent) : "#pragma unroll";
}

void CodeWriter::openNest(const std::vector<Loop>& loops, const UnrollPolicy& policy,
                          std::int64_t innerSteps) {
  std::vector<std::int64_t> nested(loops.size() + 1, innerSteps);
  for (std::size_t i = loops.size(); i-- > 0;) nested[i] = nested[i + 1] * loops[i].extent;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    const Loop& l = loops[i];
    if (std::string pragma = unrollPragma(l.extent, nested[i], policy); !pragma.empty())
      line(pragma);
    const std::string bound = l.bound.empty() ? std::to_string(l.extent) : l.bound;
    open("for (int " + l.var + " = 0; " + l.var + " < " + bound + "; ++" + l.var + ")");
  }
}

void CodeWriter::closeNest(std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) close();
}

}  // namespace opevo::codegen
