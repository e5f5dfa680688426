#pragma once

#include <string_view>

#include "space/parameter.h"

namespace opevo {

// Builds a parameter from its spec: factor:C:nu, perm:n, discrete:v1,v2,..., choice:a,b,...
// Throws InputError naming the problem and the accepted forms.
ParameterPtr makeParameter(std::string name, std::string_view spec);

inline constexpr std::string_view kSpecForms =
    "factor:C:nu, perm:n, discrete:v1,v2,... or choice:a,b,...";

}  // namespace opevo
