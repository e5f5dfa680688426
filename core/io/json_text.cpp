#include "io/json_text.h"

#include "common/error.h"
#include "common/strict_json.h"

namespace opevo {
namespace {

using Json = nlohmann::json;

bool isSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Depth of unclosed objects at the end of text, or -1 when the text does not end right after a
// complete object that sits inside objects only: inside a string, inside an array, or after
// anything but "}" or "}," nothing can be repaired safely, because the last entry may be cut.
int unclosedObjectDepth(const std::string& text, std::size_t* keep) {
  std::string stack;
  bool inString = false;
  bool escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '{' || c == '[')
      stack.push_back(c);
    else if (c == '}' || c == ']') {
      if (stack.empty()) return -1;
      stack.pop_back();
    }
  }
  if (inString || stack.empty() || stack.find('[') != std::string::npos) return -1;
  std::size_t end = text.size();
  while (end > 0 && isSpace(text[end - 1])) --end;
  if (end > 0 && text[end - 1] == ',') --end;
  while (end > 0 && isSpace(text[end - 1])) --end;
  if (end == 0 || text[end - 1] != '}') return -1;
  *keep = end;
  return static_cast<int>(stack.size());
}

// Records one object's keys; returning false from an event stops the parse there.
class KeyOrderSax : public nlohmann::json_sax<Json> {
 public:
  KeyOrderSax(const std::string& key, int depth) : m_key(key), m_keyDepth(depth) {}
  std::vector<std::string> keys;

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override {
    ++m_depth;
    if (m_expect) m_recordDepth = m_depth;
    m_expect = false;
    return true;
  }
  bool key(string_t& k) override {
    if (m_recordDepth >= 0 && m_depth == m_recordDepth)
      keys.push_back(k);
    else if (m_recordDepth < 0)
      m_expect = m_depth == m_keyDepth && k == m_key;
    return true;
  }
  bool end_object() override { return m_depth-- != m_recordDepth; }
  bool start_array(std::size_t) override {
    ++m_depth;
    return scalar();
  }
  bool end_array() override {
    --m_depth;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool scalar() {
    m_expect = false;
    return true;
  }
  std::string m_key;
  int m_keyDepth;
  int m_depth = 0;
  int m_recordDepth = -1;
  bool m_expect = false;
};

}  // namespace

ParsedJson parseJsonFile(const std::string& text, const std::string& path,
                         int allowUnclosedObjects) {
  std::size_t first = 0;
  while (first < text.size() && isSpace(text[first])) ++first;
  if (first == text.size()) throw InputError(path + ": the file is empty (expected JSON)");
  ParsedJson out;
  try {
    out.value = Json::parse(text);
    return out;
  } catch (const Json::out_of_range& e) {
    // A number beyond a double (1e400) is refused with out_of_range, not parse_error.
    throw InputError(path + ": not valid JSON: " + jsonErrorText(e));
  } catch (const Json::parse_error& e) {
    std::size_t keep = 0;
    const int depth = allowUnclosedObjects > 0 ? unclosedObjectDepth(text, &keep) : -1;
    if (depth < 1 || depth > allowUnclosedObjects)
      throw InputError(path + ": not valid JSON: " + jsonErrorText(e, text.size()));
    std::string closed = text.substr(0, keep);
    closed.append(static_cast<std::size_t>(depth), '}');
    try {
      out.value = Json::parse(closed);
    } catch (const Json::out_of_range& overflow) {
      throw InputError(path + ": not valid JSON: " + jsonErrorText(overflow));
    } catch (const Json::parse_error&) {
      throw InputError(path + ": not valid JSON: " + jsonErrorText(e, text.size()));
    }
    out.closedUnterminated = true;
    out.originalError = jsonErrorText(e, text.size());
    return out;
  }
}

std::vector<std::string> keysInFileOrder(const std::string& text, const std::string& key,
                                         int depth) {
  KeyOrderSax sax(key, depth);
  Json::sax_parse(text, &sax);
  return sax.keys;
}

}  // namespace opevo
