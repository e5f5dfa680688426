#pragma once

#include <string>
#include <string_view>

namespace opevo {

// Whether text is well-formed UTF-8 (no stray continuation byte, no overlong form, no surrogate,
// nothing above U+10FFFF).
bool isUtf8(std::string_view text);

// text with every byte that is not part of well-formed UTF-8 written as \xNN (lower-case hex):
// a damaged database text printed to a terminal shows the damage instead of sending it raw, and
// a JSON document (whose writer refuses such bytes) can hold it. Well-formed text is unchanged.
std::string escapeInvalidUtf8(std::string_view text);

}  // namespace opevo
