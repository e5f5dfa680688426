#pragma once

#include <string>

namespace opevo::kas {

// A kernel's FLOPs (or weights) as a share of the convolutions' it replaces, as every command and
// the window print it: two significant digits under 10% ("0.41%", "4.2%"), whole percents above
// ("34%", "100%"). A share that is not zero never reads "0%": a kernel at 0.4% of the FLOPs was
// printed as "0%" by `kas search` while the window said "0.4 %" and `kas sample` "0.004".
std::string shareText(double share);

}  // namespace opevo::kas
